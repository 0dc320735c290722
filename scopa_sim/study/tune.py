"""Tune a strategy's parameters: CMA-ES (the `cmaes` library) on duplicate deals.

Every candidate plays `against` (the strategy as given, by default) on the
same duplicate deals, seats swapped (`matches.compare`), from one seed for
the whole search: candidates differ only by their play (common random
numbers), so their margins compare. The best change found is then played
again on fresh deals, from a seed derived from the search's and never dealt
in it, and counts as an improvement only if the lower end of its 95%
interval there is above 0.

The search moves in coordinates of about one step a unit: a parameter
whose start is not 0 as log(value / start) (its sign kept), within a factor
of 100 either way; one that starts at 0 in units of its default's size (1
if that is 0 too), within 10 units (0..10 if it is non-negative); a
fraction as twice its value (0..2). Every candidate's values are rounded to
3 significant digits before it plays, so the spec printed is the strategy
that played.
"""
from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..defaults import TUNE_CHECK_DEALS, TUNE_DEALS, TUNE_EVALUATIONS
from ..engine.checks import seed_or_fresh, whole
from ..engine.rules import Rules
from ..engine.strategies import Strategy, parse_strategy, param_text
from ..runs.executors import executor
from ..runs.signals import INTERRUPT
from .matches import compare

TUNABLE = ("number", "non-negative", "fraction")     # the kinds a search moves
SIGMA = 0.5                         # the first step: a factor of about 1.65
SPREAD = math.log(100)              # a parameter moves within a factor of 100 of its start
DIGITS = 3                          # significant digits of a candidate's values
SEARCH, CHECK, SAMPLER = 0, 1, 2    # the streams derived from the seed


@dataclass(frozen=True)
class Axis:
    """One parameter the search moves, and how its coordinate maps to a value."""
    name: str
    kind: str
    start: float
    unit: float = 1.0               # a linear axis's (a start at 0): the default's size

    @property
    def logarithmic(self) -> bool:
        return self.kind != "fraction" and self.start != 0

    def origin(self) -> float:
        return 2 * self.start if self.kind == "fraction" else 0.0

    def bounds(self) -> tuple[float, float]:
        if self.kind == "fraction":
            return 0.0, 2.0
        if self.logarithmic:
            return -SPREAD, SPREAD
        return (0.0 if self.kind == "non-negative" else -10.0), 10.0

    def value(self, z: float) -> float:
        """The parameter's value at coordinate z, rounded to DIGITS."""
        v = (z / 2 if self.kind == "fraction" else
             self.start * math.exp(z) if self.logarithmic else z * self.unit)
        v = float(f"{v:.{DIGITS}g}")
        return min(max(v, 0.0), 1.0) if self.kind == "fraction" else v


@dataclass(frozen=True)
class Evaluation:
    """One candidate played against the opponent on the search's deals."""
    number: int                     # 1, 2, ... (the start is 1)
    strategy: Strategy
    margin: dict                    # compare's: estimate, low, high, ...

    @property
    def estimate(self) -> float:
        return self.margin["estimate"]


@dataclass
class Search:
    """The search so far, as the progress callback sees it after each evaluation."""
    start: Strategy
    against: Strategy
    axes: tuple[Axis, ...]
    population: int
    evaluations: int = 0
    generation: int = 0
    last: Evaluation | None = None
    first: Evaluation | None = None         # the start's
    best: Evaluation | None = None          # the best change (not the start)
    began: float = field(default_factory=time.monotonic)

    @property
    def generation_done(self) -> bool:
        """Whether the last evaluation ended a generation (the start's is one of its own)."""
        return self.evaluations == 1 or (self.evaluations - 1) % self.population == 0

    def seconds(self) -> float:
        return time.monotonic() - self.began

    def add(self, e: Evaluation) -> None:
        self.evaluations, self.last = e.number, e
        if e.strategy == self.start:
            self.first = self.first or e
        elif self.best is None or e.estimate > self.best.estimate:
            self.best = e


def tunable(strategy: Strategy, params: Sequence[str] | None = None) -> tuple[Axis, ...]:
    """The axes of `params` (default: every tunable one) of `strategy`,
    starting from its values; ValueError for a strategy with none, or a
    parameter it lacks or that no search moves (a count, flag, strategy or
    weights file)."""
    declared = {p.name: p for p in strategy.spec.declared}
    values = dict(strategy.values)
    names = [n for n, p in declared.items() if p.kind in TUNABLE]
    if not names:
        raise ValueError(f"strategy {strategy.name} has no parameters to tune "
                         f"(tune takes numbers, as greedy's or counter's weights)")
    chosen = list(dict.fromkeys(params)) if params else names
    if not chosen:
        raise ValueError("name at least one parameter to tune")
    for name in chosen:
        if name not in declared:
            raise ValueError(f"strategy {strategy.name} has no parameter {name!r} "
                             f"(tunable: {', '.join(names)})")
        if name not in names:
            raise ValueError(f"parameter {name} of {strategy.name} is a "
                             f"{declared[name].kind}, not tuned (tunable: {', '.join(names)})")
    return tuple(Axis(n, declared[n].kind, float(values[n]), abs(declared[n].default) or 1.0)
                 for n in chosen)


def plan(strategy, against=None, params: Sequence[str] | None = None
         ) -> tuple[Strategy, Strategy, tuple[Axis, ...]]:
    """A search's start, its opponent (default: the start) and its axes
    (`tunable`), checked: ValueError for bad input, before any play."""
    start = parse_strategy(strategy)
    axes = tunable(start, params)
    return start, start if against is None else parse_strategy(against), axes


def with_values(strategy: Strategy, values: dict[str, float]) -> Strategy:
    """`strategy` with these parameters changed (checked as any strategy)."""
    return Strategy(strategy.spec, tuple((k, values.get(k, v)) for k, v in strategy.values))


def derived_seed(seed: int, stream: int) -> int:
    """A seed for one stream of the search (SEARCH, CHECK, SAMPLER), a pure
    function of the user's: the check's never deals the search's decks."""
    return int(np.random.SeedSequence([seed, stream]).generate_state(1, np.uint64)[0])


def tune(strategy, against=None, params: Sequence[str] | None = None, rules="scopa",
         deals: int = TUNE_DEALS, check_deals: int = TUNE_CHECK_DEALS,
         seed: int | None = None, evaluations: int | None = None,
         budget: float | None = None, workers: int | None = None,
         progress: Callable[[Search], None] | None = None,
         checking: Callable[[Evaluation], None] | None = None, trace=None) -> dict:
    """Search `params` of `strategy` (a spec, default every tunable one) with
    CMA-ES for the largest margin per round against `against` (default:
    `strategy` as given), `deals` duplicate deals an evaluation, all on one
    seed; stop after `evaluations` (the start's included), `budget` minutes,
    when CMA-ES has converged, or on Ctrl-C (KeyboardInterrupt, from
    `progress` too: the best so far is kept). Without `evaluations` or
    `budget`: TUNE_EVALUATIONS. Then play the best change against
    `against` on `check_deals` fresh deals (`checking` is called first);
    it is the answer (`spec`) only if that margin's lower end is above 0.
    `trace`: a file to write each evaluation to (.csv, else JSON lines).
    Without a `seed` a fresh one is drawn (the result's "seed")."""
    from cmaes import CMA       # the search's only user: loaded when a search runs
    deals = whole(deals, "deals", 2, 10**9)
    check_deals = whole(check_deals, "check deals", 2, 10**9)
    if evaluations is not None:
        evaluations = whole(evaluations, "evaluations", 1, 10**9)
    if budget is not None and not (isinstance(budget, (int, float)) and 0 < budget < math.inf):
        raise ValueError(f"the budget is a positive number of minutes, not {budget!r}")
    if evaluations is None and budget is None:
        evaluations = TUNE_EVALUATIONS
    rules = Rules.resolve(rules)
    start, against, axes = plan(strategy, against, params)
    seed = seed_or_fresh(seed)
    search_seed, check_seed = derived_seed(seed, SEARCH), derived_seed(seed, CHECK)
    sampler = CMA(mean=np.array([a.origin() for a in axes]), sigma=SIGMA,
                  bounds=np.array([a.bounds() for a in axes]),
                  seed=derived_seed(seed, SAMPLER) % 2**32)
    state = Search(start, against, axes, sampler.population_size)

    def why_stop() -> str | None:
        if evaluations is not None and state.evaluations >= evaluations:
            return "evaluations"
        if budget is not None and state.seconds() >= budget * 60:
            return "budget"
        return None
    with executor(workers, None) as ex, _Trace(trace, axes) as log:
        def evaluate(candidate: Strategy) -> float:
            margin = compare(candidate, against, rules, search_seed, deals=deals,
                             scheduler=ex)["margin"]
            state.add(Evaluation(state.evaluations + 1, candidate, margin))
            log.write(state.last, state.generation)
            if progress:
                progress(state)
            return margin["estimate"]
        try:
            evaluate(start)
            stopped = _search(sampler, state, evaluate, why_stop)
        except KeyboardInterrupt:
            INTERRUPT.clear()           # the check is still to run
            stopped = "interrupted"
        winner = state.best or state.first or Evaluation(0, start, {})
        if checking:
            checking(winner)
        check = compare(winner.strategy, against, rules, check_seed, deals=check_deals,
                        scheduler=ex)
    margin = check["margin"]
    improved = winner.strategy != start and margin["low"] > 0
    return {"spec": str(winner.strategy if improved else start), "improved": bool(improved),
            "interrupted": stopped == "interrupted", "stopped": stopped,
            "margin": margin, "best": str(winner.strategy),
            "search_margin": winner.margin or None,
            "start": str(start), "start_margin": state.first.margin if state.first else None,
            "against": str(against), "params": [a.name for a in axes],
            "evaluations": state.evaluations, "generations": state.generation,
            "seconds": state.seconds(), "deals": deals, "check_deals": check_deals,
            "seed": seed, "search_seed": search_seed, "check_seed": check_seed,
            "rules": rules.name}


def _search(sampler, state: Search, evaluate: Callable[[Strategy], float],
            why_stop: Callable[[], str | None]) -> str:
    """CMA-ES generations from the start's values until `why_stop` gives a
    reason (or the sampler has converged): the reason. CMA-ES minimises, so
    it is told each candidate's margin negated."""
    while (stopped := why_stop()) is None:
        if sampler.should_stop():
            return "converged"
        state.generation += 1
        told = []
        for _ in range(sampler.population_size):
            if (stopped := why_stop()) is not None:
                return stopped
            z = sampler.ask()
            values = {a.name: a.value(x) for a, x in zip(state.axes, z)}
            told.append((z, -evaluate(with_values(state.start, values))))
        sampler.tell(told)
    return stopped


class _Trace:
    """Each evaluation as a line of `path` (None: nowhere): CSV with a
    column per parameter if it ends in .csv, else a JSON object a line;
    flushed as written, so an interrupted search leaves its trace."""

    def __init__(self, path, axes: Sequence[Axis]):
        self.path, self.names = path, [a.name for a in axes]
        self.file = self.rows = None

    def __enter__(self):
        if self.path is not None:
            self.file = open(self.path, "w", newline="", encoding="utf-8")
            if Path(self.path).suffix.lower() == ".csv":
                self.rows = csv.writer(self.file)
                self.rows.writerow(["evaluation", "generation", *self.names, "margin", "low",
                                    "high", "spec"])
        return self

    def write(self, e: Evaluation, generation: int) -> None:
        if self.file is None:
            return
        m = e.margin
        if self.rows is not None:
            self.rows.writerow([e.number, generation, *(param_text_of(e.strategy, n)
                                                        for n in self.names),
                                repr(m["estimate"]), repr(m["low"]), repr(m["high"]),
                                str(e.strategy)])
        else:
            self.file.write(json.dumps({"evaluation": e.number, "generation": generation,
                                        "params": {n: dict(e.strategy.values)[n]
                                                   for n in self.names},
                                        "margin": m["estimate"],
                                        "low": m["low"], "high": m["high"],
                                        "spec": str(e.strategy)}) + "\n")
        self.file.flush()

    def __exit__(self, *exc):
        if self.file is not None:
            self.file.close()


def param_text_of(strategy: Strategy, name: str) -> str:
    """Parameter `name`'s value in `strategy`, as a spec writes it."""
    declared = {p.name: p for p in strategy.spec.declared}
    return param_text(declared[name], dict(strategy.values)[name])
