"""The seats of a table as the kernel plays them, and the two ways a batch
is played: in the batch kernel, or, when a seat plays a plain-Python user
strategy, by the Python round loop, which steps the kernel's own play-out
loop (`kernels.play.play_out`, through a step kernel, `kernels.batch.step_for`):
the kernel plays every seat it can and hands back when a Python strategy
must decide, so the loop gives the same bytes for the same strategies. The
loop also says where a jitted user strategy raised, which the kernel cannot.

With `entrants` (`isolate.Entrants`), every user strategy, jitted or not,
decides in a process of its own, from the Python loop; one that forfeits
(`isolate.Forfeit`) plays move 0 for the rest of the round, and its side's
results of that round are all 0.
"""
from __future__ import annotations

import functools

import numpy as np

from . import nets
from .checks import MAX_SEED
from .checks import raised
from .isolate import Closed, Forfeit
from ..kernels import batch, observe, registry, layout as L, position as P, round as R
from ..kernels.moves import legal_moves
from ..kernels.play import FAULT, OVER, play_at
from ..kernels.users import (F_MOVES, F_PLAY, F_ROUND, F_SEAT, F_STRATEGY, F_UNIT, F_VALUE,
                             context as users_context, no_user)
from .rules import Rules, compiled_in, kernel_rules
from .strategies import Strategy, pack_strategies
from .user import UserSpec, user_call


class StrategyError(ValueError):
    """A strategy chose a move that does not exist, or raised."""


def row_arrays(n_sides: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Arrays for `rows` rows of the kernel's results: sides int16[rows,
    n_sides, N_SIDE] and rounds int64[rows, N_ROUND], each field stored as a
    column (the kernel writes a round across them), so that the columns of a
    run are views, not copies (`runner.columns`). Not zeroed: the kernel
    writes every field of every row it plays (`round.play_units`). Give the
    kernel two rows or more: Numba types a one-row view as contiguous, and
    would compile the batch kernel again for it."""
    return (np.empty((n_sides, L.N_SIDE, rows), np.int16).transpose(2, 0, 1),
            np.empty((L.N_ROUND, rows), np.int64).T)


class Seats:
    """The strategies at the seats (one per seat, see `strategies.seats_of`),
    packed for the kernel: ids, parameter rows, the user strategies' slots."""

    def __init__(self, rules: Rules, strategies, entrants=None):
        self.rules, self.entrants = rules, entrants
        self.packed = kernel_rules(rules)
        self.preset = compiled_in(rules)         # its vector compiled in (`batch.kernel_for`)
        self.ids, self.params, self.seats, self.users, self.nets = pack_strategies(strategies, rules)
        self.python = entrants is not None or any(not u.jitted for u in self.users)
        self.kind = batch.kind_for(self.ids[:rules.players])
        self.chooser = batch.chooser_for(self.ids[:rules.players])
        ids = self.ids.copy()          # the Python round loop's: a Python strategy's seat is PYTHON
        for seat, s in enumerate(self.seats):
            if isinstance(s.spec, UserSpec) and (entrants is not None or not s.spec.jitted):
                ids[seat] = registry.PYTHON
        self.lineup = registry.Lineup(ids, self.params)
        self._calls = {} if entrants is not None else {u: user_call(u, rules) for u in self.users}

    def _slots(self):
        """The users' functions (a Python one's slot holds `no_user`: it plays
        in the Python loop) and their default parameter rows, for rollouts."""
        functions = [u.function if u.jitted else no_user for u in self.users]
        params = [Strategy(u, tuple(u.params.items())).vector() for u in self.users]
        return functions, params or None

    def context(self):
        """A fresh users context (`kernels.users`) with these user strategies
        in their slots."""
        return users_context(*self._slots())

    def scratch(self):
        """Fresh kernel scratch with this users context and these networks
        (the search strategies' arrays only for a lineup that searches)."""
        search = self.kind == "search"
        return batch.scratch(*self._slots(), nets=self.net_record() if search else None,
                               search=search)

    def net_record(self):
        """The networks the seats play, as the kernel takes them (None: none)."""
        return nets.record(self.nets)

    def name(self, strategy: int) -> str:
        """A strategy id as the run names it."""
        if registry.USER <= strategy < registry.USER + len(self.users):
            return self.users[strategy - registry.USER].text
        return registry.NAMES[strategy] if 0 <= strategy < len(registry.NAMES) else f"id {strategy}"

    # -- a batch ------------------------------------------------------------
    def play(self, games: bool, seed: int, first: int, count: int, sides, rounds,
             scratch=None) -> int:
        """Units first..first+count-1 into sides/rounds, as the kernel's
        `play_units` (-1: the arrays are too small); StrategyError if a
        strategy fails, naming it and where. `scratch` (default: fresh)
        holds the last round's deck and log afterwards."""
        scratch = scratch or self.scratch()
        if self.python:                   # and a seed of 128 bits, which only it deals
            return self.play_in_python(games, seed, first, count, sides, rounds, scratch)
        if seed > MAX_SEED:
            raise ValueError(f"a seed above 2**64-1 goes with isolation, not {seed}")
        try:
            rows = batch.simulate_units(games, seed, first, count, self.packed, self.ids,
                                        self.params, sides, rounds, scratch, self.preset)
        except Exception as e:
            if not self.users:
                raise
            # A jitted user strategy raised inside the kernel: replay the batch
            # step by step to say where.
            self.play_in_python(games, seed, first, count, sides.copy(), rounds.copy(),
                                self.scratch())
            raise StrategyError(f"a user strategy raised {raised(e)} "
                                f"({'games' if games else 'rounds'} {first}.."
                                f"{first + count - 1})") from None
        if rows == -2:
            f = scratch.users.fault
            seat = int(f[F_SEAT])
            raise self.bad_choice(f, seat, _where(games, int(f[F_UNIT]), int(f[F_ROUND]), seat,
                                                  int(f[F_PLAY])))
        return rows

    def play_rows(self, games: bool, seed: int, first: int, count: int, piles: bool = False):
        """`play` into arrays of its own (`row_arrays`), grown until the units
        fit: (sides int16[rows, n_sides, N_SIDE], rounds int64[rows, N_ROUND],
        and with `piles` each side's captured cards uint64[rows, n_sides],
        else None)."""
        n_sides = self.rules.n_sides
        capacity = 8 * count + 64 if games else count + 1     # never one row (`row_arrays`)
        while True:
            sides, rounds = row_arrays(n_sides, capacity)
            scratch = self.scratch()
            if piles:
                scratch = scratch._replace(taken=np.zeros((capacity, L.MAX_PLAYERS), np.uint64))
            rows = self.play(games, seed, first, count, sides, rounds, scratch)
            if rows >= 0:
                return (sides[:rows], rounds[:rows],
                        scratch.taken[:rows, :n_sides] if piles else None)
            capacity *= 4

    def bad_choice(self, fault, seat: int, where: str) -> StrategyError:
        """The error for the move that does not exist, recorded in `fault`
        (the users context's fault row) while `seat` played, at `where`."""
        strategy, value, moves = (int(fault[k]) for k in (F_STRATEGY, F_VALUE, F_MOVES))
        seat_strategy = self.name(int(self.ids[seat]))
        rollout = (f" (in a rollout of {seat_strategy})"
                   if self.name(strategy) != seat_strategy else "")
        return StrategyError(f"strategy {self.name(strategy)} chose move {value} of {moves} "
                             f"legal moves (0..{moves - 1}){rollout} at {where}")

    def play_in_python(self, games, seed, first, count, sides, rounds, scratch,
                       record: list | None = None) -> int:
        """`play` by the Python round loop (see the module docstring); with
        `record`, each round's deck order and plays (seat, card, capture set)
        are appended to it as a pair of arrays."""
        rules = self.packed
        rng, deck, pos, log = scratch.rng, scratch.deck, scratch.pos, scratch.log
        scores, fault = scratch.users.scores, scratch.users.fault
        board, kit = scratch.board(), scratch.kit(rules)
        step = batch.step_for(self.ids[:self.rules.players])
        n, n_sides = self.rules.players, self.rules.n_sides
        row = 0
        lo, hi = np.uint64(int(seed) % 2**64), np.uint64(int(seed) >> 64)
        for u in range(first, first + count):
            dealer, number = u % n, 0
            scores[:] = 0
            while True:
                if row == rounds.shape[0]:
                    return -1
                R.keyed_deal_round(lo, hi, u, number, deck, rng)
                result, fields = sides[row], rounds[row]
                P.start_round(pos, deck, dealer, rules)
                forfeited = set()
                while True:
                    fault[F_STRATEGY] = -1
                    try:                      # the kernel's seats, up to a Python one
                        status = batch.call(step, self.lineup, board, kit)
                    except (Exception, SystemExit) as e:    # a strategy may not end the program
                        seat = int(pos[P.TURN])
                        raise StrategyError(
                            f"strategy {self.seats[seat]} raised {raised(e)} at "
                            f"{_where(games, u, number, seat, int(pos[P.PLAYS]))}") from None
                    if status == OVER:
                        break
                    seat, play = int(pos[P.TURN]), int(pos[P.PLAYS])
                    where = functools.partial(_where, games, u, number, seat, play)
                    if status == FAULT:
                        raise self.bad_choice(fault, seat, where())
                    m = legal_moves(pos[P.HAND + seat], pos[P.TABLE], rules, scratch.cards,
                                    scratch.takes, scratch.work)
                    i = self._move(seat, pos, deck, m, scratch, where, forfeited)
                    play_at(board, kit, np.int64(i))
                R.end_round(pos, rules, dealer, result, fields)
                for seat in forfeited:
                    result[self.rules.teams[seat]] = 0
                R.keep_piles(scratch.taken, row, pos, n_sides)
                if record is not None:
                    record.append((deck.copy(), log[:int(pos[P.PLAYS])].copy()))
                if games:
                    R.add_round(scores, result, n_sides)
                fields[L.Q_ROUND], fields[L.Q_GAME] = (number, u) if games else (u, -1)
                row += 1
                if not games or R.game_over(scores, n_sides, self.rules.target):
                    break
                number += 1
                dealer = int(R.next_dealer(dealer, n))
        return row

    # -- one decision -------------------------------------------------------
    def _move(self, seat, pos, deck, n, scratch, where, forfeited: set) -> int:
        """`decide`, or 0 at a seat whose entrant forfeited the round (added
        to `forfeited` when it does)."""
        if seat in forfeited:
            return 0
        try:
            return self.decide(seat, pos, deck, n, scratch, where)
        except Forfeit:
            forfeited.add(seat)
            return 0

    def decide(self, seat: int, pos, deck, n: int, scratch, where=lambda: "this position") -> int:
        """The index of the move seat's strategy plays among the n legal
        moves in scratch's cards/takes; StrategyError naming it and `where()`
        if it fails."""
        cards, takes, fault = scratch.cards, scratch.takes, scratch.users.fault
        fault[F_STRATEGY] = -1
        strategy, p = self.seats[seat], self.params[seat]
        try:
            if isinstance(strategy.spec, UserSpec):
                i = self._user_choice(strategy.spec, seat, pos, n, cards, takes, p, scratch)
            else:
                i = batch.call(self.chooser, int(self.ids[seat]), p, seat, n,
                               scratch.board(pos, deck), scratch.kit(self.packed))
        except (Forfeit, Closed):
            raise
        except (Exception, SystemExit) as e:         # a strategy may not end the program
            raise StrategyError(f"strategy {strategy} raised {raised(e)} "
                                f"at {where()}") from None
        if fault[F_STRATEGY] >= 0:
            raise self.bad_choice(fault, seat, where())
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) \
                or not 0 <= i < n:
            raise StrategyError(f"strategy {strategy} chose move {i!r} of {n} legal moves "
                                f"(0..{n - 1}) at {where()}")
        return int(i)

    def _user_choice(self, spec: UserSpec, seat, pos, n, cards, takes, p, scratch):
        rng, users = scratch.rng, scratch.users
        obs = np.zeros(observe.O_SIZE, np.int64)           # fresh for every call
        observe.observe(seat, pos, self.packed, users.scores, rng, obs)
        if self.entrants is not None:
            return self.entrants.ask(spec, seat, obs, p, cards[:n], takes[:n])
        return self._calls[spec](obs, cards[:n].copy(), takes[:n].astype(np.int64), p.copy())


def _where(games: bool, unit: int, number: int, seat: int, play: int) -> str:
    """Where a decision was, as the error says it: counted from 1, as records
    and reviews count (the run's `round` and `game` columns count from 0)."""
    deal = f"game {unit + 1}, round {number + 1}" if games else f"round {unit + 1}"
    return f"{deal}, seat {seat + 1}, play {play + 1}"
