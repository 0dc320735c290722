"""Game records: a played game as plain text that a person can write by hand
and a program can write and read (the format: docs/RECORDS.md).

    text = game.record(names=["Ada", "You"])      # write (Game.record)
    game = read_record("game.scopa")              # read, check, replay
    game.notes                                    # what the record said (RecordNotes)

Reading replays every play through a checked `Game` (the kernel's own moves
and scoring), so a record is checked, never trusted: an illegal play, a card
twice, a play out of turn, a wrong written scopa, count, point or score is
one `RecordError` naming its line. Cards may be unknown (`?`): a player's own
record knows its own hands, the table and every play. A deal's plays show
every hand of it that was played out, and cards no line names stand in for
the cards never seen, where the record stops inside a round ('...').
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .cards import card_name, card_with_alias, names, parse_card
from .game import Game
from .record_format import (COUNTED_POINTS, HEADER_KEY, KEYWORDS, RecordNotes, RoundNotes,
                            check_names, count_keys, round_line_key, seat_named)
from .rules import Rules

MAX_BYTES = 1 << 20                  # a record is a few kilobytes; refuse what cannot be one
_LINE = re.compile(r"^(?P<key>[^:]+?)\s*:\s*(?P<value>.*)$")


class RecordError(ValueError):
    """A record that cannot be read: one line, naming the record's line."""


def _fail(line: int, why: str):
    if len(why) > 400:                     # a hostile line of a megabyte: not all of it again
        why = why[:400] + "..."
    raise RecordError(f"line {line}: {why}")


def _q(text: str) -> str:
    """A record's text quoted in an error, shortened if long."""
    return repr(text if len(text) <= 60 else text[:57] + "...")


# ---- reading --------------------------------------------------------------------------
@dataclass
class _Play:
    line: int
    seat: int
    card: int
    take: list[int] | None         # None: a trail
    scopa: bool
    comment: str = ""


@dataclass
class _RawRound:
    """A round's lines, parsed but not yet checked against the rules."""
    line: int
    dealer: tuple[int, int] | None = None          # (seat, line)
    table: tuple[list[int], int] | None = None
    hands: list[tuple[int, int, list[int | None], int]] = field(default_factory=list)
    plays: list[_Play] = field(default_factory=list)
    rest: int | None = None                        # the line of '...'
    counts: dict[int, tuple[dict[str, int], int]] = field(default_factory=dict)
    points: tuple[list[int], int] | None = None
    score: tuple[list[int], int] | None = None


def read_record(path: str | Path) -> Game:
    """The game of a record file, replayed through a checked `Game`
    (`game.notes`: what else the record says); RecordError names a bad line."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise RecordError(f"{path} is a folder, not a game record (a run folder goes to "
                          f"`scopa-sim record RUN --game G`)") from None
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise RecordError(f"{path}: over {MAX_BYTES >> 10} kB: not a game record")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise RecordError(f"{path}: not UTF-8 text (byte {e.start}): not a game record") from None
    return parse_record(text)


def parse_record(text: str) -> Game:
    """`read_record` for a record's text."""
    return _Reader().read(text)


class _Reader:
    """Reads a record line by line into headers and raw rounds, then checks
    and replays each round (`_replay`)."""

    def __init__(self):
        self.headers: dict[str, tuple[str, int]] = {}
        self.rounds: list[_RawRound] = []
        self.end = 0

    def read(self, text: str) -> Game:
        last, commented = 0, None          # the play whose comment a next line may go on
        for number, raw in enumerate(re.split(r"\r\n|\r|\n", text), 1):
            content, hash_, comment = raw.partition("#")
            line, comment = content.strip(), " ".join(comment.split())
            if not line:                   # a comment under a play's, aligned: it goes on
                if hash_ and commented and commented[1] == len(content):
                    commented[0].comment = f"{commented[0].comment} {comment}".strip()
                else:
                    commented = None
                continue
            last = number
            if self.end:
                _fail(number, "text after 'End' (the record's last line)")
            self._line(number, line)
            play = self.rounds[-1].plays[-1] if self.rounds and self.rounds[-1].plays else None
            commented = (play, len(content)) if hash_ and play and play.line == number else None
            if commented:
                play.comment = comment
        if not self.end:
            _fail(last or 1, "the record stops without its last line 'End': it is cut short "
                             "(or not a game record)")
        return self._replay()

    # -- lines -------------------------------------------------------------------
    def _line(self, n: int, line: str) -> None:
        word = line.split()[0].lower()
        if line.lower() == "end":
            self.end = n
        elif word == "round":
            self._round(n, line)
        elif not self.rounds:
            self._header(n, line)
        elif line == "...":
            rnd = self.rounds[-1]
            if rnd.rest is not None:
                _fail(n, f"'...' twice in a round (line {rnd.rest})")
            rnd.rest = n
        else:
            self._round_line(n, line)

    def _header(self, n: int, line: str) -> None:
        m = _LINE.match(line)
        if not m or not HEADER_KEY.fullmatch(m["key"]):
            _fail(n, f"cannot read {_q(line)}: the record starts with headers 'Key: value' "
                     f"(Rules, Seats, First dealer, Score), then 'Round 1'")
        key = " ".join(m["key"].split())
        if round_line_key(key):
            _fail(n, f"{_q(line)} is a round's line: it comes after 'Round N'")
        if key.lower() in (k.lower() for k in self.headers):
            _fail(n, f"header {_q(key)} is given twice")
        self.headers[key] = (m["value"], n)

    def _round(self, n: int, line: str) -> None:
        if not self.rounds:
            self._start()
        words = line.split()
        want = len(self.rounds) + 1
        if len(words) > 2 or (len(words) == 2 and words[1] != str(want)):
            _fail(n, f"expected 'Round {want}' (rounds are numbered from 1, in order), "
                     f"not {_q(line)}")
        self.rounds.append(_RawRound(n))

    def _round_line(self, n: int, line: str) -> None:
        rnd = self.rounds[-1]
        m = _LINE.match(line)
        if not m:
            _fail(n, f"cannot read {_q(line)}: a round's lines are 'Dealer:', 'Table:', "
                     f"'Hand NAME:', 'NAME: CARD [takes CARDS]', '...', 'Counts NAME:', "
                     f"'Points:' and 'Score:'")
        key, value = m["key"].strip(), m["value"].strip()
        low = key.lower()
        if rnd.rest is not None and low not in ("counts", "points", "score") \
                and not low.startswith("counts "):
            _fail(n, f"after '...' (line {rnd.rest}) come only the round's Counts, Points and "
                     f"Score")
        if low == "dealer":
            if rnd.dealer:
                _fail(n, f"the dealer is written once a round (line {rnd.dealer[1]})")
            rnd.dealer = (self._seat(n, value), n)
        elif low == "table":
            if rnd.table or rnd.plays:
                _fail(n, "the table is written once, before the plays")
            rnd.table = (self._cards(n, "" if value == "-" else value), n)
        elif low.startswith("hand "):
            rnd.hands.append((len(rnd.plays), self._seat(n, key[5:].strip()),
                              self._cards(n, value, unknown=True), n))
        elif low.startswith("counts "):
            side = self.rules.teams[self._seat(n, key[7:].strip())]
            if side in rnd.counts:
                _fail(n, f"counts of side {side} are given twice (line {rnd.counts[side][1]})")
            rnd.counts[side] = (self._counts(n, value), n)
        elif low in ("points", "score"):
            if rnd.points and low == "points" or rnd.score:
                _fail(n, f"{key} is written once per round, after its plays")
            setattr(rnd, low, (self._numbers(n, value, key), n))
        else:
            if rnd.points or rnd.score or rnd.counts:
                _fail(n, "a play after the round's counts, points or score")
            rnd.plays.append(self._play(n, self._seat(n, key), value))

    def _play(self, n: int, seat: int, text: str) -> _Play:
        words = text.split()
        scopa = bool(words) and words[-1].lower() == "scopa"
        words = words[:-1] if scopa else words
        if not words:
            _fail(n, "a play is 'NAME: CARD', 'NAME: CARD takes CARDS' (and 'scopa')")
        card = self._cards(n, words[0])[0] if len(words[0].split(",")) == 1 else None
        if card is None:
            _fail(n, f"one card is played, not {_q(words[0])}")
        take = None
        if len(words) > 1:
            if words[1].lower() != "takes" or len(words) == 2:
                _fail(n, f"cannot read the play {_q(text)}: write 'CARD takes CARDS', or the "
                         f"card alone for a trail")
            take = self._cards(n, " ".join(words[2:]))
        return _Play(n, seat, card, take, scopa)

    # -- values ------------------------------------------------------------------
    def _cards(self, n: int, text: str, unknown: bool = False) -> list:
        out = []
        for token in text.replace(",", " ").split():
            if token == "?" and unknown:
                out.append(None)
                continue
            try:
                out.append(parse_card(token))
            except ValueError as e:
                _fail(n, str(e) + (" (or ? for a card not known)" if unknown else ""))
        known = [c for c in out if c is not None]
        if len(set(known)) != len(known):
            dup = next(c for c in known if known.count(c) > 1)
            _fail(n, f"card {card_with_alias(dup)} is written twice")
        return out

    def _numbers(self, n: int, text: str, what: str) -> list[int]:
        words = re.sub(r"(?<=[0-9])\s*-\s*(?=[0-9])", " ", text).split()
        if not words or not all(re.fullmatch(r"[0-9]{1,4}", w) for w in words):
            _fail(n, f"{what} is a whole number per side, e.g. '5 1', not {_q(text)}")
        if len(words) != self.rules.n_sides:
            _fail(n, f"{what} gives {len(words)} numbers: {self.rules.name} has "
                     f"{self.rules.n_sides} sides")
        return [int(w) for w in words]

    def _counts(self, n: int, text: str) -> dict[str, int]:
        words = text.replace(",", " ").split()
        keys = count_keys(self.rules)
        if len(words) % 2 or not words:
            _fail(n, f"counts are 'NAME NUMBER' pairs: {', '.join(keys)}")
        out = {}
        for key, value in zip(words[::2], words[1::2]):
            if key.lower() not in keys or not re.fullmatch(r"[0-9]{1,4}", value):
                _fail(n, f"cannot read the count {key} {value}: counts are 'NAME NUMBER' "
                         f"pairs for {', '.join(keys)}")
            if key.lower() in out:
                _fail(n, f"count {key} is given twice")
            out[key.lower()] = int(value)
        return out

    def _seat(self, n: int, name: str) -> int:
        seat = seat_named(self.names, name)
        if seat is None:
            _fail(n, f"no seat is named {_q(name)}: the seats are {', '.join(self.names)}")
        return seat

    # -- the headers -------------------------------------------------------------
    def _start(self) -> None:
        """The rules, names, first dealer and score, from the headers."""
        def get(key, default=None):
            for k, (value, n) in self.headers.items():
                if k.lower() == key:
                    return value, n
            if default is None:
                _fail(1, f"no {key.capitalize()!r} header: a record starts with 'Rules:', "
                         f"'Seats:' and 'First dealer:'")
            return default

        value, n = get("rules")
        try:
            preset, *options = value.split() or [""]      # 'Rules:' alone: no preset ''
            self.rules = Rules.with_changes(preset, options)
        except (ValueError, IndexError) as e:
            _fail(n, str(e) if str(e) else "Rules: a preset, e.g. 'scopa' or 'scopa target=21'")
        players = self.rules.players
        value, n = get("seats", (" ".join(f"seat{s}" for s in range(players)), 1))
        self.names = value.split()
        try:
            check_names(self.names, players)
        except ValueError as e:
            _fail(n, str(e))
        value, n = get("first dealer")
        self.first_dealer = self._seat(n, value.strip())
        value, n = get("score", (" ".join("0" * self.rules.n_sides), 1))
        self.start = self._numbers(n, value, "Score")
        if self.rules.game_over(self.start) or max(self.start) >= self.rules.target:
            _fail(n, f"the starting score {value} is at the target {self.rules.target}: "
                     f"that game is over")

    # -- checking and replaying ----------------------------------------------------
    def _replay(self) -> Game:
        if not self.rounds:
            if not hasattr(self, "rules"):
                self._start()
            _fail(self.end, "a record holds at least one round ('Round 1')")
        r = self.rules
        notes = RecordNotes(list(self.names), {k: v for k, (v, _) in self.headers.items()
                                               if k.lower() not in KEYWORDS}, [])
        decks = (self._deck(k, rnd, notes) for k, rnd in enumerate(self.rounds))
        game = Game(r, first_dealer=self.first_dealer, decks=decks, scores=self.start)
        game.notes = notes
        for k, rnd in enumerate(self.rounds):
            if k and len(game.rounds) == k:            # the last round ended the game
                _fail(rnd.line, f"the game was over after round {k} (score "
                                f"{'-'.join(map(str, game.scores))})")
            if rnd.dealer and rnd.dealer[0] != game.round.dealer:
                _fail(rnd.dealer[1], f"round {k + 1} is dealt by {self.names[game.round.dealer]} "
                                     f"(the deal passes to the next seat each round)")
            for play in rnd.plays:
                self._play_one(game, play, k)
            ending = self.rounds[k + 1].line if k + 1 < len(self.rounds) else self.end
            self._finish(game, k, rnd, notes.rounds[k], ending)
        return game

    def _deck(self, k: int, rnd: _RawRound, notes: RecordNotes) -> list[int]:
        """Round k's deck order: the table, then each deal's hands as the
        plays and hand lines show them, unknown cards filled in with cards
        no line names (ascending)."""
        r, names_ = self.rules, self.names
        n, h, t = r.players, r.hand_size, r.table_size
        dealer = (self.first_dealer + k) % n
        leader, per_deal = (dealer + 1) % n, n * h
        deals = (r.deck_size - t) // per_deal if r.refill else 1
        rn = RoundNotes(complete=rnd.rest is None)
        notes.rounds.append(rn)
        if rnd.table is None:
            if t:
                _fail(rnd.line, f"round {k + 1} has no 'Table:' line: everyone sees the {t} "
                                f"cards dealt to the table")
            rnd.table = ([], rnd.line)
        table, line = rnd.table
        if len(table) != t:
            _fail(line, f"the table is dealt {t} cards in {r.name}, not {len(table)}")
        where = {c: f"set aside ({r.name} plays A up to rank {r.ranks})" for c in r.set_aside}

        def place(c, what, n_):
            if c in where:
                _fail(n_, f"card {card_with_alias(c)} is {what}, but it is {where[c]}")
            where[c] = f"{what} (line {n_})"
        for c in table:
            place(c, "on the table", line)

        written: list[dict[int, list]] = [{} for _ in range(deals)]
        for at, seat, cards, n_ in rnd.hands:
            d = at // per_deal
            if at % per_deal or d >= deals:
                self._turns(rnd, k, leader, before=n_)     # a play above it may be the error
                _fail(n_, f"hands are dealt when every hand is empty: before play 1"
                          + (f", {per_deal + 1}, {2 * per_deal + 1}, ..." if deals > 1 else "")
                          + f" of the round, not before play {at + 1}")
            if seat in written[d]:
                _fail(n_, f"{names_[seat]}'s hand of this deal is written twice")
            if len(cards) != h:
                _fail(n_, f"a hand of {len(cards)} cards: {r.name} deals {h} "
                          f"(write ? for a card not known)")
            written[d][seat] = cards
            for c in cards:
                if c is not None:
                    place(c, f"dealt to {names_[seat]}", n_)
        rn.written = written
        held = [[set(c for c in written[d].get(s, ()) if c is not None) for s in range(n)]
                for d in range(deals)]
        total = (r.deck_size - t) if r.refill else per_deal
        for i, play in enumerate(rnd.plays):
            if i >= total:
                _fail(play.line, f"round {k + 1} has no play {i + 1}: its {total} cards are "
                                 f"played")
            seat, d = (leader + i) % n, i // per_deal
            if play.seat != seat:
                _fail(play.line, f"{names_[play.seat]} plays out of turn: play {i + 1} of round "
                                 f"{k + 1} is {names_[seat]}'s")
            hand = held[d][seat]
            if play.card not in hand:
                if play.card in where:
                    _fail(play.line, f"{names_[seat]} cannot play {card_name(play.card)}: "
                                     f"it is {where[play.card]}")
                if len(hand) == h:
                    _fail(play.line, f"{names_[seat]} cannot play {card_name(play.card)}: the "
                                     f"hand dealt holds {names(sorted(hand))}")
                hand.add(play.card)
                where[play.card] = f"played by {names_[seat]} (line {play.line})"
            rn.lines.append(play.line)
            rn.comments.append(play.comment)
        unseen = [c for c in range(40) if c not in where]
        order = r.set_aside + list(table)  # fewer ranks: these lead the order, dealt to nobody
        for d in range(deals):
            full = [sorted(held[d][s]) for s in range(n)]
            for s in range(n):
                while len(full[s]) < h:
                    full[s].append(unseen.pop(0))
            order += [full[(leader + j) % n][i] for i in range(h) for j in range(n)]
        rn.known = [len(held[i // per_deal][(leader + i) % n]) == h for i in range(len(rnd.plays))]
        return order

    def _turns(self, rnd: _RawRound, k: int, leader: int, before: int) -> None:
        """Fail at the first play above line `before` that is out of turn (a
        play written twice, or left out): the hand lines after it are out of
        place only because of it."""
        n = self.rules.players
        for i, play in enumerate(rnd.plays):
            if play.line >= before:
                return
            if play.seat != (leader + i) % n:
                _fail(play.line, f"{self.names[play.seat]} plays out of turn: play {i + 1} of "
                                 f"round {k + 1} is {self.names[(leader + i) % n]}'s")

    def _play_one(self, game: Game, play: _Play, k: int) -> None:
        rnd = game.round
        try:
            before = rnd.scopas
            game.play(play.card, () if play.take is None else play.take)
        except RecordError:                # the next round's deck, read when this one ends
            raise
        except ValueError as e:
            _fail(play.line, str(e))
        scored = (game.rounds[k].scopas != before)
        if play.scopa and not scored:
            _fail(play.line, "the play is written as a scopa but it is not one (it does not "
                             "clear the table, or clears it on the round's last play)")

    def _finish(self, game: Game, k: int, rnd: _RawRound, rn: RoundNotes, ending: int) -> None:
        """Check a round's end against the replay: the plays all there (or
        '...'), the counts, points and score written."""
        r = self.rules
        played = game.rounds[k]
        if rnd.rest is None and not played.done:
            if k + 1 < len(self.rounds) or rnd.points or rnd.counts or rnd.score:
                _fail(ending, f"round {k + 1} stops after {len(played.moves)} of "
                              f"{played.total_plays} plays: write the rest, or '...' where the "
                              f"record stops")
            return                                   # a game being played, written so far
        if rnd.rest is not None and played.done:
            _fail(rnd.rest, f"'...' after the last play of round {k + 1}: nothing is left out")
        if played.done:
            res = played.result()
            for side, (counts, n) in rnd.counts.items():
                for key, value in counts.items():
                    have = res[COUNTED_POINTS.get(key, key) + f"_{side}"]
                    if have != value:
                        _fail(n, f"{key} {value} is written, but side {side} has {key} {have} "
                                 f"in round {k + 1}")
            points = [res[f"points_{t}"] for t in range(r.n_sides)]
        else:
            points = self._unrecorded_points(game, k, rnd, rn)
            if points is None:
                if k + 1 < len(self.rounds):
                    _fail(rnd.rest, f"round {k + 1} stops at '...': give its Points (or every "
                                    f"side's Counts) so that the score goes on")
                return
            game.end_unplayed(points)
        if rnd.points and rnd.points[0] != points:
            _fail(rnd.points[1], f"points {' '.join(map(str, rnd.points[0]))} are written, but "
                                 f"round {k + 1} scores {' '.join(map(str, points))}")
        if rnd.score and rnd.score[0] != game.scores:
            _fail(rnd.score[1], f"score {' '.join(map(str, rnd.score[0]))} is written, but the "
                                f"game stands at {' '.join(map(str, game.scores))} after round "
                                f"{k + 1}")
        rn.counts = {t: dict(c) for t, (c, _) in rnd.counts.items()}

    def _unrecorded_points(self, game, k, rnd, rn) -> list[int] | None:
        """A round the record stops inside ('...'): its points, from the
        written Points, checked against the Counts when every side's are
        written, and the counts against the plays recorded."""
        r = self.rules
        played = game.rounds[k]
        piles, scopas = played.piles, played.scopas
        for side, (counts, n) in rnd.counts.items():
            mine = piles[side]
            least = {"cards": len(mine), "coins": sum(c < 10 for c in mine),
                     "settebello": int(6 in mine), "scopas": scopas[side]}
            for key, low in least.items():
                if key in counts and counts[key] < low:
                    _fail(n, f"{key} {counts[key]} is written, but side {side} has {low} already "
                             f"in the plays recorded")
        points = None
        if len(rnd.counts) == r.n_sides:
            points = _points_from_counts(r, {t: c for t, (c, _) in rnd.counts.items()},
                                         max(n for _, n in rnd.counts.values()))
        if rnd.points:
            if points is not None and points != rnd.points[0]:
                _fail(rnd.points[1], f"points {' '.join(map(str, rnd.points[0]))} are written, "
                                     f"but the counts give {' '.join(map(str, points))}")
            points = rnd.points[0]
        rn.points = points
        return points


def _points_from_counts(rules: Rules, counts: dict[int, dict[str, int]],
                        line: int) -> list[int] | None:
    """Each side's round points from every side's counts (a point to the
    side alone at the top in cards, coins and primiera; the settebello and
    the others as counted), or None when a count is missing; RecordError if
    the counts cannot be one round's."""
    keys = count_keys(rules)
    if any(set(keys) - set(c) for c in counts.values()):
        return None
    sides = range(rules.n_sides)
    limits = {"cards": 40, "coins": 10, "settebello": 1, "re_bello": 1}
    for key, most in limits.items():
        if key in keys and sum(counts[t][key] for t in sides) > most:
            _fail(line, f"the sides' {key} add up to more than {most}")
    if any(counts[t]["primiera"] > 4 * max(rules.primiera_scale) for t in sides):
        _fail(line, f"a primiera total above {4 * max(rules.primiera_scale)} (four sevens)")
    points = [counts[t]["settebello"] + counts[t]["scopas"] + counts[t].get("re_bello", 0)
              + counts[t].get("napola", 0) for t in sides]
    for key in ("cards", "coins", "primiera"):
        values = [counts[t][key] for t in sides]
        top = max(values)
        if values.count(top) == 1:
            points[values.index(top)] += 1
    return points


