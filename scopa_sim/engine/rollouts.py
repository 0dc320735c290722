"""Rollouts in the kernel, for the studies: advise's (every root move of a
position played out on shared deals, `kernels.advise`), the exact values
when nothing is hidden, and the net strategy's self-play samples
(`kernels.selfplay`). Each function makes the buffers its kernel needs,
calls it and turns a failure into one line; study/ calls these, never a
kernel.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels import advise as A, layout as L, position as P, registry, selfplay as S
from ..kernels.batch import call, kit, scratch
from ..kernels.moves import W_SIZE, legal_moves
from ..kernels.net import A_SIZE
from ..kernels.users import F_PLAY, F_SEAT
from . import nets
from .checks import raised
from .rules import Rules, kernel_rules
from .seats import Seats, StrategyError
from .strategies import Strategy


class Root(NamedTuple):
    """The seat to play's view of a kernel position, as advise values it."""
    cards: np.ndarray          # int64[n]: the legal moves' cards (canonical order)
    takes: np.ndarray          # uint64[n]: and their capture sets
    hand: int                  # the seat's cards (a card set)
    table: int                 # the table's
    dealer: int                # who dealt the round
    open: bool                 # nothing relevant is hidden (`exact`)


def root(pos: np.ndarray, seat: int, rules: Rules, exact_cards: int) -> Root:
    """The legal moves of `seat` (to play) in a checked kernel position, and
    whether nothing is hidden from it (`search.solvable`): the deck is out,
    at most one other seat holds cards, and at most `exact_cards` cards are
    in hands."""
    cards = np.zeros(L.MAX_MOVES, np.int64)
    takes = np.zeros(L.MAX_MOVES, np.uint64)
    n = int(legal_moves(pos[P.HAND + seat], pos[P.TABLE], kernel_rules(rules), cards, takes,
                        np.zeros(W_SIZE, np.int64)))
    hands = [int(pos[P.HAND + s]) for s in range(rules.players)]
    others = [s for s in range(rules.players) if s != seat and hands[s]]
    solvable = (int(pos[P.DECK]) == L.N_CARDS and len(others) <= 1
                and sum(bin(m).count("1") for m in hands) <= exact_cards)
    return Root(cards[:n].copy(), takes[:n].copy(), hands[seat], int(pos[P.TABLE]),
                int(pos[P.DEALER]), solvable)


def is_fast(strategy: Strategy) -> bool:
    """Whether rollouts by `strategy` run in the fast kernel (`advise_batch`):
    a fast built-in or a user's; a search strategy plays in `deep_batch`."""
    spec = strategy.spec
    return spec.id in registry.FAST if hasattr(spec, "id") else True


def rollouts(rules: Rules, strategy: Strategy, seed: int, first: int, count: int, seat: int,
             pos: np.ndarray, deck: np.ndarray, cards: np.ndarray,
             takes: np.ndarray) -> A.Outcomes:
    """Rollouts first..first+count-1 of every root move (`cards`, `takes`:
    `Root`'s), `strategy` at every seat: what each ends with, an `Outcomes`
    (count rows); StrategyError (one line) if a user strategy fails."""
    return Roller(rules, strategy, "an advise rollout")(seed, first, count, seat, pos, deck,
                                                         cards, takes)


class Roller:
    """`rollouts` for one rules and strategy, its seats, networks and kernel
    buffers made once and reused call after call (the kernel fills what it
    reads): for one thread, where a study rolls out thousands of small
    decisions (`leaks`), whose set-up would otherwise cost more than the
    rollouts."""

    def __init__(self, rules: Rules, strategy: Strategy, what: str = "a rollout"):
        self.rules, self.strategy, self.what = rules, strategy, what
        self._seats = Seats(rules, (strategy,) * rules.n_sides)
        self._users = self._seats.context()
        self._kit = kit(self._seats.packed, users=self._users, nets=self._seats.net_record())
        self._buffers = A.buffers(self._seats.ids[0], self._seats.params[0])
        self._kernel = A.advise_batch if is_fast(strategy) else A.deep_batch

    def __call__(self, seed: int, first: int, count: int, seat: int, pos: np.ndarray,
                 deck: np.ndarray, cards: np.ndarray, takes: np.ndarray) -> A.Outcomes:
        """As `rollouts(rules, strategy, ...)`."""
        n = len(cards)
        ends = A.outcomes(count, n, self.rules.n_sides)
        try:
            done = call(self._kernel, np.uint64(seed), np.int64(first), np.int64(count),
                        np.int64(seat), np.int64(n), P.board(pos, deck, cards, takes), ends,
                        self._buffers, self._kit)
        except Exception as e:
            if not self._seats.users:
                raise
            raise StrategyError(f"strategy {self.strategy} raised {raised(e)} "
                                f"in {self.what}") from None
        if done < 0:
            f = self._users.fault
            at = int(f[F_SEAT])
            raise self._seats.bad_choice(f, at, f"{self.what} (seat {at}, play {int(f[F_PLAY])})")
        return ends


def exact(rules: Rules, seat: int, pos: np.ndarray, deck: np.ndarray, cards: np.ndarray,
          takes: np.ndarray):
    """(margins float64[n], the ends of a best line of each, an `Outcomes`
    of one row) of every root move by minimax, or None when the search
    cannot hold the position."""
    n = len(cards)
    values = np.zeros(n, np.float64)
    ends = A.outcomes(1, n, rules.n_sides)
    ok = call(A.exact_values, np.int64(seat), np.int64(n),
              P.board(pos, deck, cards, takes), P.board(), values, ends,
              kit(kernel_rules(rules)))
    return None if ok < 0 else (values, ends)


class SelfPlay:
    """Self-play of rounds for the net strategy's training: `play` (Seats)
    at the table, each sampled decision's moves valued by `roll` (Seats)
    playing on, in the true deal or over `worlds` sampled deals, or by
    `teach` (Seats of a pimc or spimc search at every seat, or None): its values."""

    def __init__(self, rules: Rules, play: Seats, roll: Seats, explore: float, worlds: int,
                 infer: float, teach: Seats | None = None):
        self.play = play
        self.networks = list(dict.fromkeys(play.nets + roll.nets + (teach.nets if teach else [])))
        index = {w: k for k, w in enumerate(self.networks)}
        self.recipe = S.recipe(_lineup(play, index), _lineup(roll, index), explore, worlds,
                               infer, _lineup(teach, index) if teach else None)
        self.vector = kernel_rules(rules)
        self.record = nets.record(self.networks)

    def samples(self, seed: int, first: int, count: int, room: int):
        """Rounds first..first+count-1 of run `seed`: afterstates (int64[rows,
        A_SIZE]), targets (float32[rows]) and decisions (int64[rows]), at
        most `room` rows a round (a decision that would not fit is skipped)."""
        out = S.samples(count * room, A_SIZE)
        rows = call(S.self_play, np.uint64(seed % 2**64), np.int64(first), np.int64(count),
                    self.vector, self.recipe, out, scratch(*self.play._slots(), nets=self.record),
                    S.rollout_scratch())
        if rows < 0:
            raise RuntimeError("a strategy failed in self-play")
        return out.after[:rows], out.target[:rows], out.decision[:rows]


def _lineup(seats: Seats, index: dict) -> registry.Lineup:
    """The seats' lineup, each network by its index among the self-play's."""
    params = seats.params.copy()
    for i, s in enumerate(seats.seats):
        params[i] = s.vector(index, seats.rules)
    return registry.Lineup(seats.ids.copy(), params)
