"""Rules: a validated, frozen description of one game of the Scopa family,
named presets, and the int vector the kernel reads (`layout.R_*`).

Every preset and option, its source among the rule texts and its exact
meaning: docs/VARIANTS.md. A rule set changed from a preset is named after
it, e.g. `scopa+fewest_cards` or `scopa-3+target=8`, and such a name reads
back as the same rules (`Rules.preset("scopa-3+target=8")`).
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass

import numpy as np

from ..kernels import layout as L
from ..kernels.rule_table import OPTIONS, RULES

# The options, from the one table of rules (`kernels.rule_table`): on or off, whole numbers.
BOOL_OPTIONS = tuple(r.name for r in OPTIONS if r.type == "bool")
INT_OPTIONS = tuple(r.name for r in OPTIONS if r.type == "int")
# The variant options, each with a one-line meaning and its source (docs/VARIANTS.md).
FLAGS: dict[str, tuple[str, str]] = {r.name: (r.help, r.source) for r in OPTIONS
                                     if r.kind == "variant"}
# The settings that shape the deal (also changeable with --rule NAME=VALUE).
SETTINGS: dict[str, str] = {r.name: r.help for r in OPTIONS if r.kind == "setting"}


def _fail(why: str):
    raise ValueError(f"bad rules: {why}")


_ANNOTATIONS = {"bool": "bool", "int": "int", "tuple": "tuple[int, ...] | None"}


def _option_fields(cls):
    """`cls` as a frozen dataclass whose fields are the options of the rule
    table, in its order, with their defaults, then `name`."""
    cls.__annotations__ = {**{r.name: _ANNOTATIONS[r.type] for r in OPTIONS}, "name": "str"}
    for r in OPTIONS:
        setattr(cls, r.name, r.default)
    cls.name = "custom"
    return dataclass(frozen=True)(cls)


@_option_fields
class Rules:
    """One rule set: a field per option of the rule table
    (`kernels.rule_table.OPTIONS`: players, teams, hand_size, ..., primiera_scale),
    and `name`. `teams[seat]` is the side whose pile a seat plays for
    (default: everyone for themselves)."""

    def __post_init__(self):
        for f in INT_OPTIONS:
            v = getattr(self, f)
            if not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)):
                _fail(f"{f} must be a whole number, not {v!r}")
            object.__setattr__(self, f, int(v))
        for f in BOOL_OPTIONS:
            v = getattr(self, f)
            if isinstance(v, (bool, np.bool_)) or (isinstance(v, (int, np.integer)) and v in (0, 1)):
                object.__setattr__(self, f, bool(v))
            else:
                _fail(f"{f} is on or off (true/false), not {v!r}")
        if not isinstance(self.name, str) or not re.fullmatch(r"[A-Za-z0-9_.,=+-]+", self.name):
            _fail(f"name must be letters, digits and _ . , = + - (it names files), not {self.name!r}")
        self._check_seats()
        self._check_deal()
        if not 1 <= self.target <= 1000:
            _fail(f"target must be 1 to 1000, not {self.target}")
        self._check_scale()

    def _check_seats(self):
        p = self.players
        if not 2 <= p <= L.MAX_PLAYERS:
            _fail(f"players must be 2 to {L.MAX_PLAYERS}, not {p}")
        try:
            teams = tuple(range(p)) if self.teams is None else tuple(int(t) for t in self.teams)
        except (TypeError, ValueError):
            _fail(f"teams is a side number per seat, e.g. 0,1,0,1, not {self.teams!r}")
        object.__setattr__(self, "teams", teams)
        if len(teams) != p:
            _fail(f"teams {_text(teams)} names a side for {len(teams)} seats but there are {p} "
                 f"players: give one side per seat, e.g. teams={_text(_example_teams(p))}")
        k = max(teams) + 1
        if min(teams) < 0 or sorted(set(teams)) != list(range(k)) or k < 2:
            _fail(f"teams {_text(teams)} must number at least two sides 0, 1, ... with none skipped")
        if p % k:
            _fail(f"teams {_text(teams)}: {k} sides cannot share {p} seats equally "
                 f"(a side with more seats plays more cards)")
        if any(teams[s] != teams[s % k] for s in range(p)):
            _fail(f"teams {_text(teams)}: partners sit apart, {k} seats from each other, so that "
                 f"play passes from side to side (e.g. {_text(tuple(s % k for s in range(p)))})")

    def _check_deal(self):
        p, h, t = self.players, self.hand_size, self.table_size
        if h < 1 or t < 0:
            _fail(f"hand_size must be at least 1 and table_size at least 0 (got {h} and {t})")
        if not 1 <= self.ranks <= L.N_RANKS:
            _fail(f"ranks must be 1 to {L.N_RANKS} (A up to K in every suit), not {self.ranks}")
        deck = self.deck_size
        if deck < L.N_CARDS and self.n_sides == L.MAX_PLAYERS:
            _fail(f"ranks={self.ranks} sets cards aside, which needs fewer than "
                  f"{L.MAX_PLAYERS} sides (their pile slot holds them)")
        dealt = p * h
        rest = deck - t
        if self.refill:
            if rest < dealt or rest % dealt:
                ok = [x for x in range(1, rest // p + 1) if rest % (p * x) == 0]
                hint = (f"; hand sizes that divide them: {', '.join(map(str, ok))}" if ok else
                        f"; no hand size divides {rest} cards among {p} players")
                _fail(f"deals of {h} to {p} players after {t} to the table do not divide the "
                     f"{deck}-card deck ({rest} cards left for the hands){hint}")
        elif t + dealt != deck:
            hint = (f"; with {t} on the table that is {rest // p} cards each" if rest % p == 0 and
                    rest >= p else "")
            _fail(f"without new deals, {t} to the table and {h} to each of {p} players must use "
                 f"all {deck} cards (they use {t + dealt}){hint}")

    def _check_scale(self):
        try:
            scale = tuple(self.primiera_scale)
            if any(isinstance(v, (bool, np.bool_)) or int(v) != v for v in scale):
                raise ValueError
            scale = tuple(int(v) for v in scale)
        except (TypeError, ValueError):
            _fail(f"primiera_scale is ten whole numbers, not {self.primiera_scale!r}")
        object.__setattr__(self, "primiera_scale", scale)
        if len(scale) != 10:
            _fail(f"primiera_scale gives a value for each rank A, 2, .., 7, J, Q, K: "
                 f"ten numbers, not {len(scale)}")
        if min(scale) < 1 or max(scale) > 1000:
            _fail("primiera_scale values must be 1..1000: a suit's best card scores at least 1, "
                 "so that holding a suit always beats missing it")

    @property
    def n_sides(self) -> int:
        return max(self.teams) + 1

    @property
    def deck_size(self) -> int:
        """The cards in play: A up to `ranks` in every suit (40 for ten ranks)."""
        return 4 * self.ranks

    @property
    def set_aside(self) -> list[int]:
        """The cards out of play (ranks above `ranks`), ascending: they lead
        each round's deck order and lie in no side's pile (`kernels.position`)."""
        return [c for c in range(L.N_CARDS) if c % L.N_RANKS >= self.ranks]

    @property
    def description(self) -> str:
        """One line: the preset's description and what was changed from it."""
        base, _, rest = self.name.partition("+")
        text = DESCRIPTIONS.get(base, "a custom rule set")
        return text + (f" [changed: {rest.replace('+', ', ')}]" if rest else "")

    @classmethod
    def preset(cls, name: str) -> Rules:
        """A preset by name; `preset+option+option=value` changes it (the
        names `with_options` gives read back as the same rules)."""
        return cls.with_changes(name)

    @classmethod
    def with_changes(cls, name: str, options=()) -> Rules:
        """`preset+option+option=value`, then the `options` (NAME=VALUE
        texts, as `--rule` gives them), all read by `parse_options`: the same
        rules, or the same error, however the options are written."""
        base, *parts = str(name).split("+")
        try:
            rules = PRESETS[base]
        except KeyError:
            raise ValueError(f"unknown rules preset {base!r}: choose from {', '.join(PRESETS)}") from None
        changes = parse_options([*parts, *options])
        return rules.with_options(**changes) if changes else rules

    @classmethod
    def resolve(cls, rules: str | Rules) -> Rules:
        """A Rules object from a preset name or a Rules object."""
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, str):
            return cls.preset(rules)
        raise ValueError(f"rules must be a preset name or a Rules object, not {rules!r}")

    def with_options(self, **changes) -> Rules:
        """A copy with some settings changed (validated again), named after
        the preset it comes from and what differs: `scopa+fewest_cards`.

        Changing `players` of a game where everyone plays for themselves
        keeps it so; a partnership game needs `teams` too.
        """
        fields = {f.name for f in dataclasses.fields(self)}
        unknown = set(changes) - fields
        if unknown:
            raise ValueError(f"unknown rule option(s) {', '.join(sorted(unknown))}: choose from "
                             f"{', '.join(f for f in fields if f != 'name')}")
        if ("players" in changes and "teams" not in changes
                and self.teams == tuple(range(self.players))):
            changes["teams"] = None
        if "name" in changes:
            return dataclasses.replace(self, **changes)
        new = dataclasses.replace(self, **changes, name="custom")
        return dataclasses.replace(new, name=_derived_name(self, new))

    def game_over(self, totals) -> bool:
        """Whether a game ends with these side totals after a round: some side
        at or above the target, and the top total held by one side alone."""
        from ..kernels.round import game_over  # the rule, written once
        totals = [int(x) for x in totals]
        if len(totals) != self.n_sides:
            raise ValueError(f"give a total for each of the {self.n_sides} sides")
        return bool(game_over(np.array(totals, np.int64), self.n_sides, self.target))

    def settings(self) -> dict:
        """The settings as plain data (for manifests and reports)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def changes_from(self, other: Rules) -> dict:
        """The settings (not the name) in which these rules differ from `other`."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name != "name" and getattr(self, f.name) != getattr(other, f.name)}

    def pack(self) -> np.ndarray:
        """The int64 vector the kernel reads: each record of the rule table at
        its slot (`layout.RULE_SLOTS`), the derived ones computed."""
        derived = {"sides": self.n_sides, "best": L.primiera_table(self.primiera_scale)}
        r = np.zeros(L.R_SIZE, np.int64)
        for rule in RULES:
            if rule.size:
                value = np.asarray(derived[rule.name] if rule.kind == "derived"
                                   else getattr(self, rule.name), np.int64).ravel()
                at = L.RULE_SLOTS[rule.name]
                r[at:at + value.size] = value
        return r


def _text(value) -> str:
    """A setting as written on the command line: 21, true, 0,1,0,1."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


def _example_teams(players: int) -> tuple[int, ...]:
    return tuple(s % 2 for s in range(players)) if players % 2 == 0 else tuple(range(players))


def parse_options(items) -> dict:
    """Rule options from texts `NAME=VALUE` (or `NAME`, for true), the one
    reader of `--rules preset+...` and `--rule`: names take - or _; a name
    given twice with two values is an error, with one value twice is fine."""
    changes = {}
    for item in items:
        key, eq, value = str(item).partition("=")
        key = key.strip().replace("-", "_")
        if not key:
            raise ValueError(f"a rule option is NAME=VALUE (or NAME, for true), e.g. target=21, "
                             f"not {item!r}")
        value = parse_value(value.strip()) if eq else True
        if changes.get(key, value) != value:
            raise ValueError(f"rule option {key} is given twice, as {_text(changes[key])} and "
                             f"{_text(value)}: give it once")
        changes[key] = value
    return changes


def parse_value(v: str):
    """A rule option value from text: true/false, a whole number, or a list 16,12,13."""
    low = v.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if re.fullmatch(r"-?[0-9]+", v):                  # ASCII digits only (not ٣)
        return int(v)
    if re.fullmatch(r"-?[0-9]+(,-?[0-9]+)+", v):
        return tuple(int(x) for x in v.split(","))
    raise ValueError(f"rule value {v!r} is not a number, a true/false or a list like 16,12,13")


def _part(key: str, value) -> str:
    return key if value is True else f"{key}={_text(value)}"


def _derived_name(old: Rules, new: Rules) -> str:
    """`base+changes`: against the preset `old` was named after (so the name
    reads back as `new`), or appended to a custom rule set's own name."""
    base, _, rest = old.name.partition("+")
    if base in PRESETS:
        ref = PRESETS[base]
        diff = new.changes_from(ref)
        if ("teams" in diff and new.teams == tuple(range(new.players))
                and ref.teams == tuple(range(ref.players))):
            del diff["teams"]                       # implied: everyone for themselves
        return "+".join([base, *(_part(k, v) for k, v in diff.items())])
    parts = dict(p.partition("=")[::2] for p in rest.split("+")) if rest else {}
    for k, v in new.changes_from(old).items():
        parts[k] = _part(k, v).partition("=")[2]
    return "+".join([base, *(f"{k}={v}" if v else k for k, v in parts.items())])


PRESETS: dict[str, Rules] = {
    "scopa": Rules(name="scopa"),
    "scopa-3": Rules(players=3, name="scopa-3"),
    "scopa-4": Rules(players=4, teams=(0, 1, 0, 1), name="scopa-4"),
    "scopa-4-nine": Rules(players=4, teams=(0, 1, 0, 1), hand_size=9, refill=False, target=15,
                          name="scopa-4-nine"),
    "scopone-scientifico": Rules(players=4, teams=(0, 1, 0, 1), hand_size=10, table_size=0,
                                 refill=False, name="scopone-scientifico"),
    "scopa-6": Rules(players=6, teams=(0, 1, 2, 0, 1, 2), name="scopa-6"),
}

DESCRIPTIONS: dict[str, str] = {
    "scopa": "two players, 3 cards each and 4 to the table, 3 more each while the deck lasts; "
             "to 11 (all four rule texts)",
    "scopa-3": "three players each for themselves, dealt as scopa; to 11 "
               "(the rulebook plays to 8: --rule target=8)",
    "scopa-4": "four players, partners facing (seats 0+2 vs 1+3), 3-card deals as scopa; to 11 "
               "(the rulebook plays to 15: --rule target=15)",
    "scopa-4-nine": "four players in partnership, nine cards each and 4 to the table, "
                    "no further deals; to 15 (the rulebook)",
    "scopone-scientifico": "four players in partnership, ten cards each, empty table, "
                           "no further deals; to 11",
    "scopa-6": "six players in three teams of two (seats 0+3, 1+4, 2+5), 3-card deals; to 11",
}


@functools.lru_cache(maxsize=64)
def packed(rules: Rules) -> np.ndarray:
    """`rules.pack()` (a millisecond) made once per rule set and shared,
    read-only: anyone may read it, nobody (a strategy included) can change
    it. The kernels take `kernel_rules`' copy."""
    vector = rules.pack()
    vector.setflags(write=False)
    return vector


def kernel_rules(rules: Rules) -> np.ndarray:
    """A writable copy of `packed(rules)` for the kernels: Numba types a
    read-only array apart, and would compile every kernel again for it."""
    return packed(rules).copy()


# The presets whose rules vector the batch kernels of random and greedy
# compile in as a constant (`kernels.batch.preset_units`): the default, which
# most runs play. A preset more is a kernel more to compile for each run of it.
COMPILED_IN = ("scopa",)


def compiled_in(rules: Rules) -> bool:
    """Whether `rules` pack to the rules vector of a preset of COMPILED_IN
    (whatever their name)."""
    vector = packed(rules)
    return any(np.array_equal(vector, packed(PRESETS[name])) for name in COMPILED_IN)
