"""The strategy registry and the `name:key=value,...` notation that selects a
strategy with its parameters.

Built-in strategies come from the one declaration in `kernels.registry.BUILTINS`;
user strategies (`scopa_sim.engine.user`) are written `PATH.py:NAME` or
`package.module:NAME` (then `:key=value,...` for their declared
parameters), or passed as functions.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import user
from ..kernels import registry, layout
from ..kernels.registry import Param
from .user import UserSpec


@dataclass(frozen=True)
class StrategySpec:
    """A built-in strategy (see `kernels.registry.Builtin`)."""
    name: str
    id: int
    kind: str
    description: str
    declared: tuple[Param, ...]

    @property
    def params(self) -> dict[str, float]:
        return {p.name: float(p.default) for p in self.declared}

    def defaults(self) -> str:
        """The parameters with their defaults, as written on the command line."""
        return ", ".join(default_text(p) for p in self.declared) or "-"


REGISTRY = {b.name: StrategySpec(b.name, b.id, b.kind, b.help, b.params) for b in registry.BUILTINS}
ONLY_AT_A_SEAT = "under --isolate a user strategy plays only at a seat, not as a parameter"
FAST_NAMES = tuple(registry.NAMES[i] for i in registry.FAST)
# what a "strategy" parameter (a search's rollout) names: a fast strategy, or net where the
# strategy has a `weights` parameter (the network its rollouts play)
ROLLOUT_NAMES = tuple(registry.NAMES[i] for i in registry.ROLLOUT)


@dataclass(frozen=True)
class Strategy:
    """A strategy with its parameter values, as written: `greedy:scopa=2000`.
    A "strategy" parameter (a rollout) holds a built-in id or a UserSpec."""
    spec: StrategySpec | UserSpec
    values: tuple[tuple[str, float | UserSpec], ...]

    def __post_init__(self):
        if not isinstance(self.spec, UserSpec) and self.spec not in REGISTRY.values():
            raise ValueError(f"unknown strategy {self.spec!r}: use one of REGISTRY")
        names = [p.name for p in self.spec.declared]
        if [k for k, _ in self.values] != names:
            raise ValueError(f"strategy {self.name} takes values for "
                             f"{', '.join(names) or 'no parameters'}, in that order")
        for p, (_, value) in zip(self.spec.declared, self.values):
            _check_value(self.name, p, value)

    @property
    def name(self) -> str:
        return self.spec.name

    def users(self) -> list[UserSpec]:
        """The user strategies this one plays: itself, or its rollout."""
        own = [self.spec] if isinstance(self.spec, UserSpec) else []
        return own + [v for _, v in self.values if isinstance(v, UserSpec)]

    def nets(self, rules=None) -> list:
        """The networks this one plays under `rules` (`nets.Weights`): the
        one shipped for its preset where `weights` is left at its default
        (`nets.resolve`); none for a `weights` read only `when` a rollout or
        a leaf is net, where none is."""
        from . import nets        # the kernels' net module (Numba) only where a net plays
        named = {k for p, (k, v) in zip(self.spec.declared, self.values)
                 if p.kind in ("strategy", "choice") and not isinstance(v, UserSpec)
                 and param_text(p, v) == "net"}
        return [nets.resolve(v, rules) for p, (_, v) in zip(self.spec.declared, self.values)
                if p.kind == "weights" and (not p.when or named & set(p.when))]

    def vector(self, slots: dict | None = None, rules=None) -> np.ndarray:
        """The kernel's parameter row under `rules`; a user rollout is given
        its id from `slots` (UserSpec -> slot in the run's users context), a
        network its index among the run's (Weights -> index; the only one,
        0, without)."""
        v = np.zeros(layout.N_PARAMS, np.float64)
        for i, (p, (_, x)) in enumerate(zip(self.spec.declared, self.values)):
            if isinstance(x, UserSpec):
                v[i] = registry.USER + slots[x]
            elif p.kind == "weights":
                played = self.nets(rules)
                v[i] = slots[played[0]] if slots and played else 0
            else:
                v[i] = x
        return v

    def __str__(self) -> str:
        changed = [f"{p.name}={param_text(p, v)}" for p, (_, v)
                   in zip(self.spec.declared, self.values) if v != p.default]
        return self.name + (":" + ",".join(changed) if changed else "")


def param_text(p: Param, v) -> str:
    """A parameter value as written: a strategy name, or the shortest text
    that reads back as exactly v."""
    if isinstance(v, UserSpec):
        return v.text
    if p.kind == "weights":
        return getattr(v, "text", "") or "shipped"
    if p.kind == "strategy":
        return registry.NAMES[int(v)]
    if p.kind == "choice":
        return p.choices[int(v)]
    short = format(v, "g")
    return short if float(short) == v else repr(v)


def default_text(p: Param) -> str:
    """`name=default`, as a strategy spec writes the parameter at its default."""
    return f"{p.name}={param_text(p, p.default)}"


def parse_strategy(text, known: dict[str, UserSpec] | None = None, loader=None) -> Strategy:
    """`name`, `name:key=value,...`, `PATH.py:NAME[:key=value,...]`,
    `package.module:NAME[...]`, a function or a Strategy; ValueError lists
    the valid names or keys. User strategies named in `known` (text ->
    UserSpec: a stored run's) are taken from there, not loaded; others are
    loaded by `loader` (text -> UserSpec; default `user.load`, here)."""
    known = known or {}
    if isinstance(text, Strategy):
        return text
    if isinstance(text, UserSpec):
        spec, args = text, ""
    elif callable(text):
        if loader is not None:
            raise ValueError("under isolation a user strategy is written PATH.py:NAME or "
                             "module:NAME, not passed as a function")
        spec, args = user.make(text), ""
    elif user.is_reference(str(text).strip()):
        where, name, *rest = str(text).strip().split(":", 2)
        spec, args = _user(f"{where}:{name}", known, loader), rest[0] if rest else ""
    else:
        name, _, args = str(text).strip().partition(":")
        spec = REGISTRY.get(name.strip().lower())
        if spec is None:
            raise ValueError(f"unknown strategy {name!r}: choose from {', '.join(REGISTRY)}, "
                             f"or a user strategy PATH.py:NAME")
    params = {p.name: p for p in spec.declared}
    values = {k: p.default for k, p in params.items()}
    given: dict[str, str] = {}
    for item in filter(None, (a.strip() for a in args.split(","))):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip() if eq else ""
        if key not in values:
            valid = ", ".join(params) or "none"
            raise ValueError(f"strategy {spec.name} has no parameter {key!r} (parameters: {valid})")
        parsed = _param_value(spec.name, params[key], value, known, loader)
        if key in given and parsed != values[key]:
            raise ValueError(f"parameter {key} of {spec.name} is given twice, as {given[key]!r} "
                             f"and {value!r}: give it once")
        values[key], given[key] = parsed, value
    return Strategy(spec, tuple(values.items()))


def _user(reference: str, known: dict[str, UserSpec], loader=None) -> UserSpec:
    return known[reference] if reference in known else (loader or user.load)(reference)


def _param_value(strategy: str, p: Param, text: str, known: dict[str, UserSpec], loader=None):
    """A parameter value from its text (checked by `Strategy`)."""
    if p.kind == "strategy":
        if user.is_reference(text):
            if loader is not None:
                raise ValueError(ONLY_AT_A_SEAT)
            return _user(text, known)
        if text not in _rollouts(strategy):
            raise ValueError(f"parameter {p.name} of {strategy} names {_rollout_text(strategy)} "
                             f"or a jitted user strategy PATH.py:NAME")
        return float(registry.NAMES.index(text))
    if p.kind == "choice":
        if text not in p.choices:
            raise ValueError(f"parameter {p.name} of {strategy} is {' or '.join(p.choices)}, "
                             f"not {text!r}")
        return float(p.choices.index(text))
    if p.kind == "weights":
        from . import nets        # see Strategy.nets
        if text in nets.EARLIER:
            return nets.earlier(text)
        return 0.0 if text in ("", "shipped") else nets.load(text)
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"parameter {p.name} of {strategy} needs a number, "
                         f"e.g. {default_text(p)}") from None


def _check_value(strategy: str, p: Param, value) -> None:
    """Refuse a parameter value the kernel cannot use safely."""
    where = f"parameter {p.name} of {strategy}"
    if p.kind == "strategy":
        if isinstance(value, UserSpec):
            if getattr(value.function, "isolated", False):
                raise ValueError(ONLY_AT_A_SEAT)
            if not value.jitted:
                raise ValueError(f"{where}: a rollout plays in the kernel, so {value.text} "
                                 f"must be a jitted (@numba.njit) strategy")
            return
        if value not in [registry.NAMES.index(name) for name in _rollouts(strategy)]:
            raise ValueError(f"{where} names {_rollout_text(strategy)}")
        return
    if p.kind == "choice":
        if value not in range(len(p.choices)):
            raise ValueError(f"{where} is {' or '.join(p.choices)}, not {value!r}")
        return
    if p.kind == "weights":
        from . import nets        # see Strategy.nets
        if value != 0 and not isinstance(value, nets.Weights):
            raise ValueError(f"{where} is a weights file (PATH.npz), shipped or "
                             f"{' or '.join(nets.EARLIER)}, not {value!r}")
        return
    if (isinstance(value, (bool, np.bool_))
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not math.isfinite(value)):
        raise ValueError(f"{where} needs a number, e.g. {default_text(p)}, not {value!r}")
    if p.kind in ("count", "whole"):
        low = 1 if p.kind == "count" else 0
        if value != int(value) or not low <= value <= p.high:
            raise ValueError(f"{where} must be {low}..{p.high:g}, a whole number, "
                             f"not {param_text(p, value)}")
    elif p.kind == "flag":
        if value not in (0, 1):
            raise ValueError(f"{where} is 0 (off) or 1 (on), not {param_text(p, value)}")
    elif p.kind == "non-negative" and value < 0:
        raise ValueError(f"{where} must be 0 or more, not {param_text(p, value)}")
    elif p.kind == "fraction" and not 0 <= value <= 1:
        raise ValueError(f"{where} must be 0..1, not {param_text(p, value)}")


def _rollouts(strategy: str) -> tuple[str, ...]:
    """The built-ins a "strategy" parameter of `strategy` (a name) may
    name: the fast ones, and net if `strategy` has a `weights` parameter."""
    spec = REGISTRY.get(strategy)
    weights = spec is not None and any(p.kind == "weights" for p in spec.declared)
    return tuple(n for n in ROLLOUT_NAMES if n in FAST_NAMES or weights)


def _rollout_text(strategy: str) -> str:
    fast = ", ".join(FAST_NAMES)
    more = [n for n in _rollouts(strategy) if n not in FAST_NAMES]
    return f"a fast strategy ({fast})" + "".join(f", {n}" for n in more)


def split_strategies(text: str) -> list[str]:
    """"random,greedy:scopa=2,coin=3,random" -> ["random", "greedy:scopa=2,coin=3", "random"]:
    a comma starts a new strategy unless what follows is another key=value."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if out and "=" in part and not part.split("=", 1)[0].count(":"):
            out[-1] += "," + part
        elif part:
            out.append(part)
    return out


def seats_of(strategies, rules) -> list[Strategy]:
    """One strategy per seat, from one per side (partners play alike) or one
    per seat: text like "random,greedy", or a list of texts, functions or
    strategies."""
    if isinstance(strategies, str):
        strategies = split_strategies(strategies)
    elif isinstance(strategies, Strategy) or callable(strategies):
        strategies = [strategies]
    elif not isinstance(strategies, (list, tuple)):
        raise ValueError(f"strategies are a text like 'random,greedy' or a list of "
                         f"strategies, not {strategies!r}")
    parsed = [parse_strategy(s) for s in strategies]
    if len(parsed) == rules.n_sides:
        return [parsed[side] for side in rules.teams]
    if len(parsed) == rules.players:
        return parsed
    seats = f" or per seat ({rules.players})" if rules.players != rules.n_sides else ""
    raise ValueError(f"{rules.name} needs one strategy per side ({rules.n_sides}){seats}, "
                     f"not {len(parsed)}: {', '.join(map(str, parsed))}")


def user_slots(seats) -> list[UserSpec]:
    """The distinct user strategies the seats play (their rollouts included),
    in slot order: slot k has the kernel id USER + k."""
    found = list(dict.fromkeys(u for s in seats for u in s.users()))
    if len(found) > registry.MAX_USERS:
        raise ValueError(f"a run can use at most {registry.MAX_USERS} user strategies, "
                         f"not {len(found)}")
    return found


def net_slots(seats, rules=None) -> list:
    """The distinct networks the seats play under `rules` (`nets.Weights`),
    in index order."""
    return list(dict.fromkeys(w for s in seats for w in s.nets(rules)))


def pack_strategies(strategies, rules) -> tuple[np.ndarray, np.ndarray, list[Strategy],
                                                list[UserSpec], list]:
    """Strategy ids and parameter rows per seat (see `seats_of`), the seats,
    the user strategies in slot order (`user_slots`) and the networks in
    index order (`net_slots`)."""
    seats = seats_of(strategies, rules)
    users, nets = user_slots(seats), net_slots(seats, rules)
    slots = {**{u: k for k, u in enumerate(users)}, **{w: k for k, w in enumerate(nets)}}
    strategy_ids = np.zeros(layout.MAX_PLAYERS, np.int64)
    params = np.zeros((layout.MAX_PLAYERS, layout.N_PARAMS), np.float64)
    for i, s in enumerate(seats):
        strategy_ids[i] = (registry.USER + slots[s.spec] if isinstance(s.spec, UserSpec)
                           else s.spec.id)
        params[i] = s.vector(slots, rules)
    return strategy_ids, params, seats, users, nets
