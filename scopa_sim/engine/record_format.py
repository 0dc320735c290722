"""The game record format's words, and writing a record (the format:
docs/RECORDS.md). Reading it back is `records`, which replays a record
through a `Game`; `Game.record` writes with `write_record` here."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .cards import card_name, names
from .rules import Rules

if TYPE_CHECKING:                       # a game is written, never built, here
    from .game import Game

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


# ---- writing -------------------------------------------------------------------------
def write_record(game: Game, seat_names: list[str] | None = None,
                 headers: dict[str, str] | None = None) -> str:
    """The record of a `Game`, finished or not (`Game.record`): headers, then
    per round its dealer, table, each deal's hands, the plays (with the
    record's comments beside them), and at its
    end the counts, points and score. `seat_names`: one per seat (default:
    the record's own, or seat0, seat1, ...); `headers`: more 'Key: value' lines."""
    r, notes = game.rules, game.notes
    seat_names = list(seat_names or (notes.names if notes else
                                     [f"seat{s}" for s in range(r.players)]))
    check_names(seat_names, r.players)
    extra = {**(notes.headers if notes else {}), **(headers or {})}
    out = ["# scopa-sim game record (docs/RECORDS.md)", f"Rules: {r.name}",
           f"Seats: {' '.join(seat_names)}", f"First dealer: {seat_names[game.rounds[0].dealer]}",
           f"Score: {_row(game.start)}"]
    for key, value in extra.items():
        key, value = " ".join(str(key).split()), " ".join(str(value).split())
        if (not HEADER_KEY.fullmatch(key) or key.lower() in KEYWORDS
                or round_line_key(key)):
            raise ValueError(f"a header key is a word not used by the format, not {key!r}")
        if "#" in value:                   # read back, it would start a comment
            raise ValueError(f"a header value holds no '#' (it starts a comment), not {value!r}")
        out.append(f"{key}: {value}")
    scores = list(game.start)
    for k, rnd in enumerate(game.rounds):
        rn = notes.rounds[k] if notes and k < len(notes.rounds) else None
        out += ["", f"Round {k + 1}", f"Dealer: {seat_names[rnd.dealer]}",
                f"Table: {names(rnd.dealt_table) or '-'}"]
        out += _plays(rnd, rn, seat_names)
        if rnd.done:
            res = rnd.result()
            if rnd.last_capturer >= 0 and rnd.left_on_table:
                out.append(f"# {seat_names[rnd.last_capturer]} takes the last cards: "
                           f"{names(rnd.left_on_table)}")
            counts = {t: {k_: res[COUNTED_POINTS.get(k_, k_) + f"_{t}"] for k_ in count_keys(r)}
                      for t in range(r.n_sides)}
            points = [res[f"points_{t}"] for t in range(r.n_sides)]
        elif rn is not None and not rn.complete:
            out.append("...")
            counts, points = rn.counts, rn.points
        else:
            continue                                   # a round being played: written so far
        side_names = {t: seat_names[r.teams.index(t)] for t in range(r.n_sides)}
        out += [f"Counts {side_names[t]}: " + " ".join(f"{k_} {v}" for k_, v in c.items())
                for t, c in sorted(counts.items())]
        if points is not None:
            scores = [s + p for s, p in zip(scores, points)]
            out += [f"Points: {_row(points)}", f"Score: {_row(scores)}"]
    return "\n".join(out + ["", "End", ""])


def _row(numbers) -> str:
    return " ".join(map(str, numbers))


def _plays(rnd, rn: RoundNotes | None, seat_names: list[str]) -> list[str]:
    """A round's hand lines and plays: each deal's hands (as the record
    wrote them, or as dealt), then its plays."""
    r = rnd.rules
    per_deal = r.players * r.hand_size
    out = []
    for d in range(len(rnd.moves) // per_deal + 1):
        if rn is not None:
            hands = rn.written[d] if d < len(rn.written) else {}
        elif d * per_deal < len(rnd.dealt_hands) and rnd.dealt_hands[d * per_deal] is not None:
            hands = dict(enumerate(rnd.dealt_hands[d * per_deal]))
        else:
            break
        out += [f"Hand {seat_names[s]}: " + " ".join("?" if c is None else card_name(c)
                                                      for c in cards)
                for s, cards in sorted(hands.items())]
        for p in range(d * per_deal, min(len(rnd.moves), (d + 1) * per_deal)):
            seat, c, take = rnd.moves[p]
            comment = rn.comments[p] if rn is not None and p < len(rn.comments) else ""
            out.append(f"{seat_names[seat]}: {card_name(c)}" + (f" takes {names(take)}" if take
                                                                else "")
                       + (" scopa" if rnd.scopa_plays[p] else "")
                       + (f"  # {comment}" if comment else ""))
    return out


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
