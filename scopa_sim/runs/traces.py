"""A run's round or game replayed move by move through the checked `Round`
and `Game` (so an illegal kernel move raises), and a round's deck as the run
dealt it."""
from __future__ import annotations

import numpy as np

from ..engine.cards import names
from ..engine.checks import MAX_SEED, SEED_SPAN, whole
from ..engine.deals import deck as dealt_deck
from ..engine.game import Game, Round
from ..engine.rules import Rules
from ..engine.seats import Seats
from ..kernels import layout as L
from .plan import MAX_UNITS, RunSpec


def trace_game(seed: int, index: int, strategies=("random", "greedy"),
               rules: str | Rules = "scopa") -> Game:
    """Game `index` of a games run with this seed, replayed move by move
    through the checked `Game` (so an illegal kernel move raises), dealt as
    `Game(rules, seed=seed, index=index)` deals it."""
    whole(index, "game index", 0, MAX_UNITS - 1)
    spec = RunSpec.make(games=index + 1, strategies=strategies, rules=rules, seed=seed)
    seats = Seats(spec.rules, spec.strategies)
    rows, record = 64, []
    while True:
        sides = np.zeros((rows, spec.rules.n_sides, L.N_SIDE), np.int16)
        rounds = np.zeros((rows, L.N_ROUND), np.int64)
        record.clear()
        if seats.play_in_python(True, seed, index, 1, sides, rounds, seats.scratch(), record) >= 0:
            break
        rows *= 4                                           # a long game: more rows
    game = Game(spec.rules, seed=seed, index=index)
    for deck, log in record:
        if game.round.deck_order != deck.tolist():
            raise AssertionError(f"round {len(game.rounds) - 1} of the kernel's game was "
                                 f"dealt otherwise than Game deals it")
        _replay(game, log)
    return game


def _replay(game, log) -> None:
    """Play a kernel log (seat, card, capture set per play) into a checked
    Round or Game."""
    for seat, card, take in log:
        turn = (game.round if isinstance(game, Game) else game).turn
        if seat != turn:
            raise AssertionError(f"kernel played seat {seat} out of turn (expected {turn})")
        game.play(int(card), [c for c in range(40) if int(take) >> c & 1])


def deck_of(seed: int, index: int, number: int = 0) -> str:
    """The deck of round `index` of a rounds run with this seed, as the run
    dealt it (`deals.deck`): the 40 cards in dealing order (the table's
    first), written out, for `Round(deck=...)`. Round i is dealt by seat i % players, and its deck
    is the same whatever the strategies and rules (docs/ENGINE.md). With
    `number`: round `number` (from 0) of game `index` of a run of games.

        >>> rnd = Round(deck=deck_of(seed=1, index=3), dealer=3 % 2)
    """
    seed = whole(seed, "seed", 0, MAX_SEED, SEED_SPAN)
    index = whole(index, "round index", 0, MAX_UNITS - 1)
    number = whole(number, "round number", 0, MAX_UNITS - 1)
    return names(dealt_deck(seed, index, number))


def trace_round(seed: int, index: int, strategies=("random", "greedy"),
                rules: str | Rules = "scopa") -> Round:
    """Round `index` of a rounds run with this seed, replayed move by move
    through the checked `Round` (so an illegal kernel move raises)."""
    whole(index, "round index", 0, MAX_UNITS - 1)
    spec = RunSpec.make(rounds=index + 1, strategies=strategies, rules=rules, seed=seed)
    seats = Seats(spec.rules, spec.strategies)
    sides = np.zeros((1, spec.rules.n_sides, L.N_SIDE), np.int16)
    rounds = np.zeros((1, L.N_ROUND), np.int64)
    scratch = seats.scratch()
    seats.play(False, seed, index, 1, sides, rounds, scratch)
    deck, log = scratch.deck, scratch.log
    game = Round(spec.rules, deck=[int(c) for c in deck], dealer=index % spec.rules.players)
    _replay(game, log[:spec.rules.deck_size - spec.rules.table_size])
    return game
