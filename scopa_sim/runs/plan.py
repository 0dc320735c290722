"""The plan of a run, shared by the runner and the store (a leaf: it imports
only the game face): what to simulate (`RunSpec`), checked once, and its
batches (batch `b` covers units `b*size .. (b+1)*size - 1`)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import defaults as sizes
from ..engine.checks import MAX_SEED, SEED_SPAN, whole
from ..engine.rules import Rules
from ..engine.strategies import Strategy, seats_of

DEFAULT_BATCH = sizes.ROUNDS    # rounds per batch (defaults.py sets every batch size)
MAX_UNITS = 10**13              # rounds or games in one run: a cluster-year, not a typo
MAX_BATCH = sizes.MAX           # rounds (or games) per batch: a batch is held in memory


class Planned:
    """What a run spec shares with a stored run's (`store.StoredSpec`, whose
    strategies are labels): the rules, seed, units and batches, checked once
    (`_check_plan`, on construction)."""
    rules: Rules
    seed: int
    units: int
    games: bool
    batch_size: int

    def _check_plan(self) -> None:
        if not isinstance(self.games, bool) or not isinstance(self.rules, Rules):
            raise ValueError("a run spec needs Rules, and games true or false")
        unit = "games" if self.games else "rounds"
        for name, title, low, high, span in (("units", f"the number of {unit}", 1, MAX_UNITS, None),
                                             ("seed", "seed", 0, MAX_SEED, SEED_SPAN),
                                             ("batch_size", "batch size", 1, MAX_BATCH, None)):
            object.__setattr__(self, name, whole(getattr(self, name), title, low, high, span))

    @property
    def n_batches(self) -> int:
        return -(-self.units // self.batch_size)

    def batch_range(self, b: int) -> tuple[int, int]:
        first = b * self.batch_size
        return first, min(self.units, first + self.batch_size) - first


@dataclass(frozen=True)
class RunSpec(Planned):
    """What to simulate: validated on construction, packed for the kernel."""
    rules: Rules
    strategies: tuple[Strategy, ...]
    seed: int
    units: int
    games: bool = False
    batch_size: int = DEFAULT_BATCH
    keep_taken: bool = False        # store each side's captured cards too (`taken`)

    def __post_init__(self):
        self._check_plan()
        if not isinstance(self.keep_taken, bool):
            raise ValueError("keep_taken must be true or false")

    @classmethod
    def make(cls, rounds=None, games=None, strategies=("random", "greedy"), rules="scopa",
             seed=0, batch_size=DEFAULT_BATCH, keep_taken=False) -> RunSpec:
        """`batch_size` None: `defaults.default` for the kind of unit."""
        if (rounds is None) == (games is None):
            raise ValueError("give either rounds or games")
        rules = Rules.resolve(rules)
        if batch_size is None:
            batch_size = sizes.default(games is not None)
        return cls(rules, tuple(seats_of(strategies, rules)), seed, rounds if games is None else games,
                   games is not None, batch_size, keep_taken)
