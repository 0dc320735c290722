"""A game against the engine (`scopa-sim play`): one seat is a person's, the
others play `opponent` (`Game.suggest`, seeing only what their seat sees).

    table = Table("scopa", opponent="net", seed=7, record="game-7.scopa")
    while not table.over:
        if table.your_turn:
            print(table.board())
            played = table.play(table.parse(input("your move> ")))
        else:
            played = table.engine_move()
        print(played)

`Table` steps the `Game`, reads a move as a person types it (`parse`:
`7d`, `7♦`, `7d takes 4h 3s`, `7d 4h 3s`), and writes the record after every
play, whole or not at all, with only what the person could see: their own
hands, the table, every play; never the other hands or the deck order
(docs/RECORDS.md: a player's own record). No input or output here: the
command line reads the lines and prints.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..defaults import HINT_ROLLOUTS, PLAY_OPPONENT
from ..engine.cards import (Move, card_name, card_with_alias, mask_of, move_text, names,
                           parse_card, parse_cards)
from ..engine.checks import plural, whole
from ..engine.game import Game, write_record
from ..engine.record_format import RecordNotes, RoundNotes, check_names
from ..engine.rules import Rules
from ..engine.strategies import parse_strategy
from ..kernels.layout import COINS, SETTEBELLO
from ..runs.parts import write_whole
from .advise import advise_round

TAKES = {"takes", "take", "x"}           # the word between a card and its capture, optional
TRAILS = {"trails", "trail", "-"}        # a card played alone, said so


def seat_names(name: str, players: int) -> list[str]:
    """The person's seat first, then the engine's: `Engine`, or `Engine1`,
    `Engine2`, ... with more seats; checked as a record's names."""
    others = ["Engine"] if players == 2 else [f"Engine{s}" for s in range(1, players)]
    seats = [name, *others]
    check_names(seats, players)
    return seats


def decision_seed(seed: int, k: int, p: int, stream: int) -> int:
    """The seed of round k, play p's decision: stream 0 the engine's move,
    1 a hint's rollouts."""
    return int(np.random.SeedSequence([seed, k, p, stream]).generate_state(1, np.uint64)[0] >> 1)


@dataclass(frozen=True)
class Played:
    """One play: who, what, whether it swept the table, and the round it
    ended (its index) if it was the round's last."""
    name: str
    seat: int
    move: Move
    scopa: bool
    ended: int | None

    def __str__(self) -> str:
        return f"{self.name}: {move_text(*self.move)}" + ("  SCOPA" if self.scopa else "")


class Table:
    """A game of `rules` dealt from `seed` (game 0 of a games run with that
    seed), the person at seat 0 named `name`, `opponent` at every other
    seat; `rounds` rounds at most (None: to the game's end). With `record`
    (a path), the record is written after every play."""

    def __init__(self, rules: str | Rules = "scopa", opponent=PLAY_OPPONENT, seed: int = 0,
                 name: str = "You", rounds: int | None = None, record: str | Path | None = None):
        self.rules = Rules.resolve(rules)
        self.opponent = parse_strategy(opponent)
        self.names = seat_names(name, self.rules.players)
        self.limit = None if rounds is None else whole(rounds, "rounds", 1, 10**6)
        self.seed, self.path = seed, None if record is None else Path(record)
        self.game = Game(self.rules, seed=seed)
        self.you = 0
        self.stopped = False

    # -- the state -----------------------------------------------------------------
    @property
    def finished(self) -> int:
        """The rounds played to their end."""
        return sum(r.done for r in self.game.rounds)

    @property
    def over(self) -> bool:
        """Whether play has ended: the game, the rounds asked for, or a stop."""
        return (self.stopped or self.game.done
                or self.limit is not None and self.finished >= self.limit)

    @property
    def name(self) -> str:
        """The person's seat's name."""
        return self.names[self.you]

    @property
    def your_turn(self) -> bool:
        return not self.over and self.game.round.turn == self.you

    @property
    def decisions(self) -> int:
        """The person's plays so far."""
        return sum(seat == self.you for r in self.game.rounds for seat, _, _ in r.moves)

    def legal(self) -> list[Move]:
        return [] if self.over else self.game.legal_moves()

    # -- moves ---------------------------------------------------------------------
    def parse(self, text: str) -> Move:
        """The person's legal move written as `text`: a card alone when it has
        one legal move, else with its capture (`7d takes 4h 3s`, `7d 4h 3s`;
        `As trails`); ValueError says why not, and lists the legal moves."""
        if not self.your_turn:
            raise ValueError("it is not your turn" if not self.over else "play has ended")
        legal = self.legal()
        try:
            return parse_move(text, legal)
        except ValueError as e:
            raise ValueError(f"{e}; legal: {', '.join(move_text(*m) for m in legal)}") from None

    def play(self, move: Move) -> Played:
        """The person's move (legal: `parse`)."""
        if not self.your_turn:
            raise ValueError("it is not your turn" if not self.over else "play has ended")
        return self._play(move)

    def engine_move(self) -> Played:
        """The engine's move for the seat to play (not the person's)."""
        if self.over or self.your_turn:
            raise ValueError("it is not the engine's turn" if not self.over else "play has ended")
        k, p = len(self.game.rounds) - 1, len(self.game.round.moves)
        return self._play(self.game.suggest(self.opponent, decision_seed(self.seed, k, p, 0)))

    def _play(self, move: Move) -> Played:
        k, rnd = len(self.game.rounds) - 1, self.game.round
        seat = rnd.turn
        self.game.play(move.card, move.captured)
        played = Played(self.names[seat], seat, move, rnd.scopa_plays[-1],
                        k if rnd.done else None)
        self.save()
        return played

    def hint(self, rollouts: int = HINT_ROLLOUTS, workers: int = 1) -> dict:
        """Advise's values of the person's moves here (`advise_round`, seeing
        what the seat sees): the result's first row (the best move) and
        second (the next best) as plain dicts, with "rollouts" and "exact"."""
        if not self.your_turn:
            raise ValueError("a hint is for your turn")
        k, p = len(self.game.rounds) - 1, len(self.game.round.moves)
        df = advise_round(self.game.round, rollouts=rollouts, workers=workers,
                          seed=decision_seed(self.seed, k, p, 1))
        rows = df.to_dict("records")
        return {"best": rows[0], "next": rows[1] if len(rows) > 1 else None,
                "rollouts": int(df.attrs["rollouts"]), "exact": bool(df.attrs["exact"]),
                "strategy": df.attrs["strategy"]}

    def stop(self) -> None:
        """End play here (quit, end of input, Ctrl-C); the record says the
        round being played stops (`...`)."""
        self.stopped = True
        self.save()

    # -- the record ----------------------------------------------------------------
    def record(self) -> str:
        """The game so far as a record, with what the person saw: their own
        hands, the tables dealt and every play; rounds past `rounds` left out."""
        shown = copy.copy(self.game)
        shown.rounds = self.game.rounds[:self.limit]
        headers = {"Event": "scopa-sim play", "Opponent": str(self.opponent).replace("#", "")}
        shown.notes = RecordNotes(list(self.names), headers,
                                  [self._notes(r, r is shown.rounds[-1]) for r in shown.rounds])
        return write_record(shown)

    def _notes(self, rnd, last: bool) -> RoundNotes:
        """A round's notes for the record: each deal's hand of the person alone."""
        per_deal = self.rules.players * self.rules.hand_size
        dealt = rnd.dealt_hands
        written = [{self.you: dealt[i][self.you]} for i in range(0, len(dealt), per_deal)
                   if dealt[i] is not None]
        return RoundNotes(written=written, complete=rnd.done or not (last and self.stopped))

    def save(self) -> None:
        """Write the record (if a path was given), whole or not at all."""
        if self.path is not None:
            write_whole(self.record().encode(), self.path)

    # -- what the person sees ------------------------------------------------------
    def side_name(self, side: int) -> str:
        return "+".join(n for n, t in zip(self.names, self.rules.teams) if t == side)

    def score(self) -> str:
        """The game score, e.g. `You 3 – Engine 5`."""
        return " – ".join(f"{self.side_name(t)} {s}" for t, s in enumerate(self.game.scores))

    def board(self) -> str:
        """The position before the person's decision: the round, score, table,
        hand, each side's captures so far and the deck."""
        rnd = self.game.round
        side = self.rules.teams[self.you]
        piles, scopas = rnd.piles, rnd.scopas
        caught = " · ".join(
            f"{self.side_name(t)}{' (you)' if t == side and self.rules.players > 2 else ''}: "
            + captures(piles[t], scopas[t]) for t in range(self.rules.n_sides))
        return "\n".join([
            f"round {len(self.game.rounds)}, dealer {self.names[rnd.dealer]} · score "
            f"{self.score()} (to {self.rules.target})",
            f"  table     {names(rnd.table) or '(empty)'}",
            f"  your hand {names(rnd.hands[self.you])}",
            f"  captured  {caught}",
            f"  deck      {len(rnd.deck)} cards to deal"])

    def round_summary(self, k: int) -> str:
        """A finished round: the last cards taken, each side's counts and
        points, the score after it."""
        rnd, r = self.game.rounds[k], self.rules
        res = rnd.result()
        lines = [f"round {k + 1} over"]
        if rnd.last_capturer >= 0 and rnd.left_on_table:
            lines[0] += (f": {self.names[rnd.last_capturer]} takes the last cards, "
                         f"{names(rnd.left_on_table)}")
        width = max(len(self.side_name(t)) for t in range(r.n_sides))
        for t in range(r.n_sides):
            lines.append(f"  {self.side_name(t):<{width}}  " + "  ".join(
                f"{f} {res[f'{f}_{t}']}" for f in ("cards", "coins", "settebello", "primiera",
                                                   "scopas", "points")))
        lines.append(f"score: {self.score()}")
        return "\n".join(lines)

    def result(self) -> str:
        """How play ended: the game's winner, or where it stopped."""
        if self.game.done:
            win = self.game.winner
            who = "you win" if win == self.rules.teams[self.you] else f"{self.side_name(win)} wins"
            return f"game over: {who}, {self.score()}"
        if self.stopped:
            return f"stopped in round {len(self.game.rounds)}: score {self.score()}"
        return f"stopped after {plural(self.finished, 'round')}, as asked: score {self.score()}"


def captures(pile: list[int], scopas: int) -> str:
    """A side's captures so far: `12 cards, 4 coins, settebello, 1 scopa`."""
    coins = bin(mask_of(pile) & int(COINS)).count("1")
    return (f"{plural(len(pile), 'card')}, {plural(coins, 'coin')}"
            + (", settebello" if SETTEBELLO in pile else "") + f", {plural(scopas, 'scopa')}")


def parse_move(text: str, legal: list[Move]) -> Move:
    """The move of `legal` that `text` writes: a card, then (optional
    `takes`) the cards it captures, or `trails`; the card alone when it
    has one legal move. ValueError (one line) otherwise."""
    words = text.replace(",", " ").split()
    if not words:
        raise ValueError("write a card, e.g. 7d, or a card and its capture, e.g. 7d takes 4h 3s")
    c = parse_card(words[0])
    rest = words[1:]
    if rest and rest[0].lower() in TAKES:
        rest = rest[1:]
        if not rest:
            raise ValueError(f"{words[0]} takes what? e.g. {card_name(c)} takes 4h 3s")
    options = [m for m in legal if m.card == c]
    if not options:
        raise ValueError(f"{card_with_alias(c)} is not in your hand")
    if len(rest) == 1 and rest[0].lower() in TRAILS:
        move = Move(c, ())
    elif rest:
        move = Move(c, tuple(sorted(parse_cards(rest))))
    elif len(options) == 1:
        return options[0]
    else:
        raise ValueError(f"{card_name(c)} can take {_takes(options)}: say which, e.g. "
                         f"{move_text(*options[0])}")
    if move not in options:
        what = f"take {names(move.captured)}" if move.captured else "be trailed"
        can = f"it can take {_takes(options)}" if options[0].captured else "it can only trail"
        raise ValueError(f"{card_name(c)} cannot {what}: {can}")
    return move


def _takes(options: list[Move]) -> str:
    return " or ".join(names(m.captured) for m in options)
