"""The strategy registry: names, descriptions and parameters of the strategies
the kernel plays, and the `name:key=value,...` notation that selects one."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .kernels import ids, layout


@dataclass(frozen=True)
class StrategySpec:
    """A kernel strategy: its id, a one-line description, parameter defaults
    (in the order of the kernel's parameter vector)."""
    name: str
    id: int
    description: str
    params: dict[str, float] = field(default_factory=dict)

    def defaults(self) -> str:
        """The parameters with their defaults, as written on the command line."""
        return ", ".join(f"{k}={param_text(k, v)}" for k, v in self.params.items()) or "-"


DESCRIPTIONS = {
    "random": "uniform over all legal moves (a move is a card and a capture set)",
    "greedy": "best immediate gain: scopa, then settebello, cards, coins, primiera; "
              "trails its least valuable card",
    "heuristic": "greedy's gain minus flat costs for what the move leaves open: a table "
                 "of 10 or less (a sweep), exposed sevens, coins and the settebello",
    "counter": "heuristic with card counting: each cost times the chance, from the unseen "
               "cards, that the next player holds a card that takes it",
    "pimc": "determinized Monte Carlo: deal the unseen cards at random `samples` times, "
            "play each move out with the `rollout` strategy, best mean margin; exact "
            "endgame when nothing is hidden",
    "ismcts": "single-observer information-set MCTS with `iterations` sampled deals, "
              "UCB `exploration`, `rollout` strategy; exact endgame when nothing is hidden",
    "endgame": "exact minimax on the round margin once no card is hidden (at most "
               "`max_cards` in hands); the `fallback` strategy before",
}
ROLLOUT_PARAMS = {"rollout", "fallback"}          # values are strategy names or ids
FAST = ("random", "greedy", "heuristic", "counter")
COUNTS = {"samples": 100_000, "iterations": 30_000, "max_cards": 16}   # whole numbers 1..limit
FLAGS = {"endgame"}                               # 0 (off) or 1 (on)
NON_NEGATIVE = {"exploration"}                    # below 0, a UCB value of -inf picks no move

REGISTRY = {name: StrategySpec(name, i, DESCRIPTIONS[name], dict(ids.PARAMS[i]))
            for i, name in enumerate(ids.NAMES)}


@dataclass(frozen=True)
class Strategy:
    """A strategy with its parameter values, as written: `greedy:scopa=2000`."""
    spec: StrategySpec
    values: tuple[tuple[str, float], ...]

    def __post_init__(self):
        if self.spec not in REGISTRY.values():
            raise ValueError(f"unknown strategy {self.spec!r}: use one of REGISTRY")
        if [k for k, _ in self.values] != list(self.spec.params):
            raise ValueError(f"strategy {self.name} takes values for "
                             f"{', '.join(self.spec.params) or 'no parameters'}, in that order")
        for key, value in self.values:
            _check_value(self.spec, key, value)

    @property
    def name(self) -> str:
        return self.spec.name

    def vector(self) -> np.ndarray:
        v = np.zeros(layout.N_PARAMS, np.float64)
        v[:len(self.values)] = [x for _, x in self.values]
        return v

    def __str__(self) -> str:
        changed = [f"{k}={param_text(k, v)}" for k, v in self.values if v != self.spec.params[k]]
        return self.name + (":" + ",".join(changed) if changed else "")


def param_text(key: str, v: float) -> str:
    """A parameter value as written: a strategy name, or the shortest text
    that reads back as exactly v."""
    if key in ROLLOUT_PARAMS:
        return ids.NAMES[int(v)]
    short = format(v, "g")
    return short if float(short) == v else repr(v)


def parse_strategy(text: str | Strategy) -> Strategy:
    """`name` or `name:key=value,...`; ValueError lists the valid names or keys."""
    if isinstance(text, Strategy):
        return text
    name, _, args = str(text).strip().partition(":")
    spec = REGISTRY.get(name.strip().lower())
    if spec is None:
        raise ValueError(f"unknown strategy {name!r}: choose from {', '.join(REGISTRY)}")
    values = dict(spec.params)
    for item in filter(None, (a.strip() for a in args.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in values:
            valid = ", ".join(spec.params) or "none"
            raise ValueError(f"strategy {spec.name} has no parameter {key!r} (parameters: {valid})")
        values[key] = _param_value(spec, key, value.strip() if eq else "")
    return Strategy(spec, tuple(values.items()))


def _param_value(spec: StrategySpec, key: str, text: str) -> float:
    """A parameter value from its text (checked by `Strategy`)."""
    if key in ROLLOUT_PARAMS:
        if text not in FAST:
            raise ValueError(f"parameter {key} of {spec.name} names a fast strategy: "
                             f"{', '.join(FAST)}")
        return float(ids.NAMES.index(text))
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"parameter {key} of {spec.name} needs a number, e.g. {key}=2") from None


def _check_value(spec: StrategySpec, key: str, value: float) -> None:
    """Refuse a parameter value the kernel cannot use safely."""
    where = f"parameter {key} of {spec.name}"
    if (isinstance(value, (bool, np.bool_))
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not math.isfinite(value)):
        raise ValueError(f"{where} needs a number, e.g. {key}=2, not {value!r}")
    if key in ROLLOUT_PARAMS:
        if value not in [ids.NAMES.index(name) for name in FAST]:
            raise ValueError(f"{where} names a fast strategy: {', '.join(FAST)}")
    elif key in COUNTS:
        if value != int(value) or not 1 <= value <= COUNTS[key]:
            raise ValueError(f"{where} must be 1..{COUNTS[key]}, a whole number, "
                             f"not {param_text(key, value)}")
    elif key in FLAGS:
        if value not in (0, 1):
            raise ValueError(f"{where} is 0 (off) or 1 (on), not {param_text(key, value)}")
    elif key in NON_NEGATIVE and value < 0:
        raise ValueError(f"{where} must be 0 or more, not {param_text(key, value)}")


def split_strategies(text: str) -> list[str]:
    """"random,greedy:scopa=2,coin=3,random" -> ["random", "greedy:scopa=2,coin=3", "random"]:
    a comma starts a new strategy unless what follows is another key=value."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if out and "=" in part and ":" not in part:
            out[-1] += "," + part
        elif part:
            out.append(part)
    return out


def pack_strategies(strategies, rules) -> tuple[np.ndarray, np.ndarray, list[Strategy]]:
    """Strategy ids and parameter rows per seat, from one strategy per side
    (partners play alike) or one per seat."""
    if isinstance(strategies, str):
        strategies = split_strategies(strategies)
    elif isinstance(strategies, Strategy):
        strategies = [strategies]
    elif not isinstance(strategies, (list, tuple)):
        raise ValueError(f"strategies are a text like 'random,greedy' or a list of "
                         f"strategies, not {strategies!r}")
    parsed = [parse_strategy(s) for s in strategies]
    if len(parsed) == rules.n_sides:
        seats = [parsed[side] for side in rules.teams]
    elif len(parsed) == rules.players:
        seats = parsed
    else:
        raise ValueError(f"name one strategy per side ({rules.n_sides}) or per seat "
                         f"({rules.players}), not {len(parsed)}")
    ids = np.zeros(layout.MAX_PLAYERS, np.int64)
    params = np.zeros((layout.MAX_PLAYERS, layout.N_PARAMS), np.float64)
    for i, s in enumerate(seats):
        ids[i] = s.spec.id
        params[i] = s.vector()
    return ids, params, seats
