"""The strategy registry: names, descriptions and parameters of the strategies
the kernel plays, and the `name:key=value,...` notation that selects one."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .kernels import layout, strategies as kernel_ids


@dataclass(frozen=True)
class StrategySpec:
    """A kernel strategy: its id, a one-line description, parameter defaults
    (in the order of the kernel's parameter vector)."""
    name: str
    id: int
    description: str
    params: dict[str, float] = field(default_factory=dict)


REGISTRY = {s.name: s for s in (
    StrategySpec("random", kernel_ids.RANDOM,
                 "uniform over all legal moves (a move is a card and a capture set)"),
    StrategySpec("greedy", kernel_ids.GREEDY,
                 "best immediate gain: scopa, then settebello, cards, coins, primiera; "
                 "trails its least valuable card",
                 {"card": 100.0, "coin": 100.0, "settebello": 400.0, "primiera": 5.0,
                  "scopa": 1000.0}),
)}


@dataclass(frozen=True)
class Strategy:
    """A strategy with its parameter values, as written: `greedy:scopa=2000`."""
    spec: StrategySpec
    values: tuple[tuple[str, float], ...]

    @property
    def name(self) -> str:
        return self.spec.name

    def vector(self) -> np.ndarray:
        v = np.zeros(layout.N_PARAMS, np.float64)
        v[:len(self.values)] = [x for _, x in self.values]
        return v

    def __str__(self) -> str:
        changed = [f"{k}={v:g}" for k, v in self.values if v != self.spec.params[k]]
        return self.name + (":" + ",".join(changed) if changed else "")


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
        try:
            values[key] = float(value) if eq else float("nan")
        except ValueError:
            raise ValueError(f"parameter {key} of {spec.name} needs a number, e.g. {key}=2") from None
        if values[key] != values[key]:
            raise ValueError(f"parameter {key} of {spec.name} needs a number, e.g. {key}=2")
    return Strategy(spec, tuple(values.items()))


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
