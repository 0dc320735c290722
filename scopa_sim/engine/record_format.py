"""The game record format's words (the format: docs/RECORDS.md). A `Game`
writes itself as a record (`game.write_record`); reading one back is
`records`, which replays it through a `Game`."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .rules import Rules

KEYWORDS = {"round", "dealer", "table", "hand", "points", "score", "counts", "end",
            "rules", "seats", "first dealer"}
NAME = re.compile(r"[A-Za-z0-9_.\-']+")
HEADER_KEY = re.compile(r"[A-Za-z][A-Za-z0-9 _-]*")
ROUND_LINES = {"round", "dealer", "table", "hand", "points", "counts", "end"}   # first words


def round_line_key(key: str) -> bool:
    """Whether a 'Key:' is a round's line (a header cannot be one)."""
    return key.split()[0].lower() in ROUND_LINES


@dataclass
class RoundNotes:
    """What a record says of one round besides the moves: each play's line,
    each deal's hand lines as written (seat -> cards, None for `?`), whether
    the plays were recorded to the end (no '...'), the points written for a
    round that was not, whether each play's seat knew its whole hand, and
    each play's comment ('' for none)."""
    lines: list[int] = field(default_factory=list)
    written: list[dict[int, list[int | None]]] = field(default_factory=list)
    complete: bool = True
    points: list[int] | None = None
    counts: dict[int, dict[str, int]] = field(default_factory=dict)
    known: list[bool] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)


@dataclass
class RecordNotes:
    """A record's seat names, its other headers and its rounds' notes."""
    names: list[str]
    headers: dict[str, str]
    rounds: list[RoundNotes] = field(default_factory=list)

    def known(self, k: int, play: int) -> bool:
        """Whether the seat making play `play` of round `k` knew its whole
        hand, as far as the record shows (a round it has no notes of: yes)."""
        return k >= len(self.rounds) or self.rounds[k].known[play]

    def comment(self, k: int, play: int) -> str:
        """The comment the record writes beside play `play` of round `k` ('' for none)."""
        comments = self.rounds[k].comments if k < len(self.rounds) else []
        return comments[play] if play < len(comments) else ""


# ---- counts -------------------------------------------------------------------------
COUNTED_POINTS = {"re_bello": "pt_re_bello", "napola": "pt_napola"}    # counts that are points


def count_keys(rules: Rules) -> list[str]:
    """The counts a record may write of a side: cards, coins, settebello,
    primiera (its total), scopas, and re_bello and napola under rules with them."""
    return ["cards", "coins", "settebello", "primiera", "scopas",
            *(k for k in COUNTED_POINTS if getattr(rules, k))]


def seat_named(names_: list[str], name: str) -> int | None:
    """The seat of `name` among a record's seat names (case does not count)."""
    lowered = [x.lower() for x in names_]
    return lowered.index(name.lower()) if name.lower() in lowered else None


def check_names(names_: list[str], players: int) -> None:
    """Seat names: one per seat, distinct words that are no keyword."""
    if len(names_) != players:
        raise ValueError(f"Seats names {len(names_)} seats: the rules have {players} "
                         f"(one name per seat, in seat order, separated by spaces)")
    for name in names_:
        if not NAME.fullmatch(name) or name.lower() in KEYWORDS:
            raise ValueError(f"a seat name is one word of letters, digits and _ . - ' that is "
                             f"no keyword of the format, not {name!r}")
    if len(set(n.lower() for n in names_)) != players:
        raise ValueError(f"two seats have the same name: {' '.join(names_)}")
