"""Rules: a validated, frozen description of one game of the Scopa family,
named presets, and the int vector the kernel reads (`layout.R_*`)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .kernels import layout as L


@dataclass(frozen=True)
class Rules:
    """One rule set. `teams[seat]` is the side whose pile a seat plays for
    (default: everyone for themselves)."""
    players: int = 2
    teams: tuple[int, ...] | None = None
    hand_size: int = 3
    table_size: int = 4
    refill: bool = True
    target: int = 11
    scopa_on_last_play: bool = False
    fewest_cards: bool = False
    ace_takes_all: bool = False
    primiera_forfeit: bool = False
    re_bello: bool = False
    napola: bool = False
    primiera_scale: tuple[int, ...] = L.PRIMIERA
    name: str = "custom"

    def __post_init__(self):
        def fail(why):
            raise ValueError(f"bad rules: {why}")
        for f in ("players", "hand_size", "table_size", "target"):
            if not isinstance(getattr(self, f), (int, np.integer)) or isinstance(getattr(self, f), bool):
                fail(f"{f} must be a whole number")
        if not 2 <= self.players <= L.MAX_PLAYERS:
            fail(f"players must be 2 to {L.MAX_PLAYERS}, not {self.players}")
        teams = tuple(range(self.players)) if self.teams is None else tuple(int(t) for t in self.teams)
        object.__setattr__(self, "teams", teams)
        if len(teams) != self.players:
            fail(f"teams names a side for each of the {self.players} seats, got {len(teams)}")
        if sorted(set(teams)) != list(range(max(teams) + 1)) or len(set(teams)) < 2:
            fail(f"teams {teams} must number at least two sides 0, 1, ... with none skipped")
        if self.hand_size < 1 or self.table_size < 0:
            fail("hand_size must be at least 1 and table_size at least 0")
        dealt = self.players * self.hand_size
        if self.refill:
            if (L.N_CARDS - self.table_size) % dealt or self.table_size + dealt > L.N_CARDS:
                fail(f"deals of {self.hand_size} to {self.players} players after {self.table_size} "
                     f"to the table do not divide the 40-card deck")
        elif self.table_size + dealt != L.N_CARDS:
            fail(f"without new deals, {self.table_size} to the table and {self.hand_size} to each of "
                 f"{self.players} players must use all 40 cards (they use {self.table_size + dealt})")
        if not 1 <= self.target <= 1000:
            fail("target must be 1 to 1000")
        scale = tuple(int(v) for v in self.primiera_scale)
        object.__setattr__(self, "primiera_scale", scale)
        if len(scale) != 10 or min(scale) < 1 or max(scale) > 1000:
            fail("primiera_scale gives a value 1..1000 for each rank 1..10")

    @property
    def n_sides(self) -> int:
        return max(self.teams) + 1

    @classmethod
    def preset(cls, name: str) -> Rules:
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown rules preset {name!r}: choose from {', '.join(PRESETS)}") from None

    @classmethod
    def resolve(cls, rules: str | Rules) -> Rules:
        """A Rules object from a preset name or a Rules object."""
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, str):
            return cls.preset(rules)
        raise ValueError(f"rules must be a preset name or a Rules object, not {rules!r}")

    def with_options(self, **changes) -> Rules:
        """A copy with some settings changed (validated again)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ValueError(f"unknown rule option(s) {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **changes)

    def settings(self) -> dict:
        """The settings as plain data (for manifests and reports)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def pack(self) -> np.ndarray:
        """The int64 vector the kernel reads."""
        r = np.zeros(L.R_SIZE, np.int64)
        r[L.R_PLAYERS], r[L.R_SIDES] = self.players, self.n_sides
        r[L.R_HAND], r[L.R_TABLE] = self.hand_size, self.table_size
        r[L.R_REFILL], r[L.R_TARGET] = self.refill, self.target
        r[L.R_SCOPA_ON_LAST], r[L.R_FEWEST] = self.scopa_on_last_play, self.fewest_cards
        r[L.R_ACE_TAKES_ALL], r[L.R_FORFEIT] = self.ace_takes_all, self.primiera_forfeit
        r[L.R_RE_BELLO], r[L.R_NAPOLA] = self.re_bello, self.napola
        r[L.R_TEAM:L.R_TEAM + self.players] = self.teams
        r[L.R_PRIMIERA:L.R_PRIMIERA + 10] = self.primiera_scale
        return r

    def primiera_table(self) -> np.ndarray:
        return L.primiera_table(self.primiera_scale)


PRESETS: dict[str, Rules] = {
    "scopa": Rules(name="scopa"),
}
