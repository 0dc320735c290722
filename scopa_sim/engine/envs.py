"""Rounds for learning environments (`scopa_sim.envs`): n rounds of a run
stepped together in the kernel (`kernels.envs`), each waiting for an
outside player. Every input is checked here, once; the kernel trusts them.

The action encoding and the observation are `kernels.envs`' (docs/ENVS.md):
80 actions, PLAY card c (c) and TAKE table card t (40 + t), a move in one
or more steps; the observation int8[obs_size] of the seat to play.
"""
from __future__ import annotations

import copy
import os
import threading

import numpy as np

from ..kernels import batch, envs as K, position as P
from ..kernels.layout import N_CARDS, ROUND_FIELDS, SIDE_FIELDS
from ..kernels.moves import legal_moves as kernel_legal_moves
from ..kernels.play import Kit
from ..kernels.registry import PYTHON, Lineup
from ..kernels.strategies import decide
from . import nets, schema
from .cards import Move, card_name, cards_of, names
from .checks import MAX_SEED, SEED_SPAN, plural, whole
from .crew import Crew
from .rules import Rules, kernel_rules
from .seats import Seats
from .strategies import parse_strategy

N_ACTIONS, TAKE = K.N_ACTIONS, K.TAKE
PLAYS = P.PLAYS                       # the position's slot of the plays made (`kernels.position`)
MIN_SPLIT = 256            # rows per thread, at least, before a step is split across threads


def obs_size(rules: Rules) -> int:
    """The observation's length under these rules (`kernels.envs`)."""
    return K.obs_size(rules.players, rules.n_sides)


def action_name(action: int) -> str:
    """An action as text: `play 7d`, `take Kc`."""
    return f"play {card_name(action)}" if action < TAKE else f"take {card_name(action - TAKE)}"


class Rounds:
    """n rounds stepped together. `lineup`: per seat a strategy (text, played
    by the kernel) or None (an outside player, who sends actions). Round
    `first + k * stride` of run `seed` is row i's k-th (with stride n, row
    i plays rounds i, i + n, ...); `threads` share a step of many rows."""

    def __init__(self, n: int, rules: str | Rules = "scopa", lineup=None, threads: int = 1):
        self.rules = r = Rules.resolve(rules)
        self.n = whole(n, "the number of environments", 1, 10**7)
        lineup = [None] * r.players if lineup is None else list(lineup)
        if len(lineup) != r.players:
            raise ValueError(f"give a strategy or None for each of the {r.players} seats, "
                             f"not {len(lineup)}")
        self.outside = [s is None for s in lineup]
        if not any(self.outside):
            raise ValueError("at least one seat must be an outside player (None)")
        self.seats = Seats(r, [s if s is not None else "random" for s in lineup])
        if self.seats.python:
            raise ValueError("a plain-Python user strategy cannot play inside the environment: "
                             "pass a jitted one (numba.njit)")
        ids = self.seats.ids.copy()
        ids[:r.players][np.array(self.outside)] = PYTHON
        self.lineup = Lineup(ids, self.seats.params)
        self.kind = self.seats.kind
        self.packed = kernel_rules(r)
        self.state = K.envs(self.n, r.players, r.n_sides)
        self.seed, self.stride = np.uint64(0), 0
        self.threads = max(1, min(int(threads), self.n // MIN_SPLIT or 1))
        self._scratch = [self.seats.scratch() for _ in range(self.threads)]
        self._crew = None                             # helper threads (`_helpers`), made once
        self._actions, self._sampled = np.zeros(self.n, np.int64), np.zeros(self.n, np.int64)
        self._ask = None                        # scratch for `suggest`, made on first use
        self._lock = threading.Lock()
        self._one = np.zeros(1, np.int64)             # the action of a one-row step
        self._single = None                           # its entry and arguments (`step`)
        self._asked = {}                              # row -> the move `strategy_action` plays
        self._rng = [np.zeros(1, np.uint64) for _ in range(self.threads)]   # `random_actions`
        self._entries = {}                            # kernel -> its compiled entry (`_entry`)
        self._result_keys = None                      # what `result` reads, made once
        self._views = None                            # each part's rows (`_part_views`)
        cuts = [self.n * j // self.threads for j in range(self.threads + 1)]
        self._parts = list(zip(cuts, cuts[1:]))

    def close(self) -> None:
        if self._crew is not None:
            self._crew.close()
            self._crew = None

    # -- dealing and stepping ------------------------------------------------
    def reset(self, seed: int, first: int = 0, stride: int = 0) -> None:
        """Deal row i round first + i of run `seed` (stride > 0: then every
        finished round is followed by the one `stride` rounds on)."""
        self.seed = np.uint64(whole(seed, "seed", 0, MAX_SEED, SEED_SPAN))
        self.stride = whole(stride, "stride", 0, 2**40)
        self._single = None
        first = whole(first, "first round", 0, 2**43)
        self.state.unit[:] = first + np.arange(self.n)
        args = (self.state, self.seed, self.lineup, self.packed, self._scratch[0])
        self._check(0, self._call(K.RESETS[self.kind], *args))      # on this thread: once a run

    def step(self, actions) -> None:
        """Each row's action: int64[n] (or a whole number for one row), each
        legal (the mask), else ValueError naming the first row that is not
        and nothing changes. A finished round is scored (`done`, `rewards`,
        `results`) and, with a stride, the next one dealt in its place."""
        if self.n == 1 and isinstance(actions, (int, np.integer)) \
                and not isinstance(actions, (bool, np.bool_)):
            return self.step_one(int(actions))
        else:
            a = np.asarray(actions)
            if a.shape != (self.n,) and not (self.n == 1 and a.shape == ()):
                raise ValueError(f"actions must be an array of shape ({self.n},), one per "
                                 f"environment, not of shape {a.shape}")
            if a.dtype.kind not in "iu":
                raise ValueError(f"actions must be whole numbers (an integer array), "
                                 f"not {a.dtype}")
            a = np.ascontiguousarray(a, np.int64).reshape(self.n)
            bad = self._call(K.first_illegal, self.state.mask, a)   # all rows, before any steps
            if bad >= 0:
                raise ValueError(self._illegal(bad, int(a[bad])))
        if self.threads == 1:
            self._check(0, self._call(K.STEPS[self.kind], self.state, a, self.seed, self.stride,
                                      self.lineup, self.packed, self._scratch[0]))
            return
        np.copyto(self._actions, a)
        (lo, hi), view = self._parts[0], self._part_views()[0]
        self._at_once(K.STEP, self.seed, K.STEPS[self.kind], view, self._actions[lo:hi], self.seed,
                      self.stride, self.lineup, self.packed, self._scratch[0])

    def step_one(self, action: int) -> None:
        """`step` of a one-row Rounds by a Python int (the AEC env's step)."""
        if not 0 <= action < N_ACTIONS:
            raise ValueError(self._illegal(0, action))
        self._one[0] = action
        if self._single is None:                  # a round stepped from Python: made once
            args = (self.state, self._one, self.seed, self.stride, self.lineup, self.packed,
                    self._scratch[0])
            self._single = (self._entry(K.STEPS[self.kind], args), args)
        entry, args = self._single
        code = entry(*args)
        if code:
            if code == -1:                        # the kernel checks the mask, changing nothing
                raise ValueError(self._illegal(0, action))
            self._check(0, code)

    def _illegal(self, i: int, a: int) -> str:
        where = f"environment {i}: " if self.n > 1 else ""
        if not self.state.mask[i].any():
            return f"{where}the round is over: reset it"
        legal = ", ".join(f"{x} ({action_name(x)})" for x in np.flatnonzero(self.state.mask[i]))
        what = f"{a} ({action_name(a)})" if 0 <= a < N_ACTIONS else f"{a} (actions are 0..79)"
        return f"{where}action {what} is not legal here: legal are {legal}"

    def _part_views(self) -> list:
        """Each part's rows of the state, made once."""
        if self._views is None:
            self._views = [_rows(self.state, lo, hi) for lo, hi in self._parts]
        return self._views

    def _at_once(self, task: int, seed, kernel, *args) -> None:
        """`task` (`kernels.envs.STEP` or `SAMPLE`) by seed `seed` by the
        helpers on parts 1.. and kernel(*args) on part 0 by this thread, at
        once; each part's code checked."""
        crew = self._helpers()
        crew.post(task, seed, self.stride)
        try:
            first = self._call(kernel, *args)
        finally:
            codes = crew.codes()                 # every part is over before anything is raised
        for (lo, _), code in zip(self._parts, [first] + codes):
            self._check(lo, code)

    def _helpers(self) -> Crew:
        """The crew whose helper h serves part h + 1 of the rows (made again
        in a forked child: the parent's threads are not there)."""
        if self._crew is not None and self._crew.pid != os.getpid():
            self._crew = None
        if self._crew is None:
            parts = [(lo, (K.Part(view, self._actions[lo:hi], rng, self._sampled[lo:hi]),
                           self.lineup, self.packed, scratch))
                     for view, (lo, hi), scratch, rng in zip(self._part_views(), self._parts,
                                                             self._scratch, self._rng)][1:]
            self._crew = Crew(K.SERVES[self.kind], parts)
        return self._crew

    @staticmethod
    def _check(lo: int, code: int) -> None:
        """Raise for what a kernel call of rows lo.. returned, if not 0."""
        if code:
            if code == K.BAD_STRATEGY:
                raise RuntimeError("a strategy at a kernel seat chose a move that does not exist")
            raise RuntimeError(f"internal: environment {lo - code - 1} was stepped with an "
                               "illegal action")

    def _call(self, kernel, *args):
        """`kernel(*args)` by its compiled entry (`_entry`)."""
        return self._entry(kernel, args)(*args)

    def _entry(self, kernel, args):
        """The compiled entry of `kernel` for the types of `args`
        (`batch.entry`), found once: Numba's dispatch costs 10 us a call, the
        entry under 1 us, and a step of one round is mostly that. The
        arguments of a `Rounds` keep their types, and a part's rows have the
        types of all."""
        entry = self._entries.get(kernel)
        if entry is None:
            entry = self._entries[kernel] = batch.entry(kernel, args)
        return entry

    def random_actions(self, seed: int, mask=None) -> np.ndarray:
        """A legal action per row drawn uniformly from `mask` (default: the
        rows' own; else an int8 or bool array of shape (n, 80)), row i's by
        the plain stream (seed, i): int64[n], -1 where nothing is legal.
        Give each call its own seed."""
        seed = np.uint64(whole(seed, "seed", 0, MAX_SEED, SEED_SPAN))
        if mask is None and self.threads > 1:    # the rows' own masks: the helpers draw too
            lo, hi = self._parts[0]
            self._at_once(K.SAMPLE, seed, K.random_actions, self.state.mask[lo:hi], seed,
                          np.int64(lo), self._rng[0], self._sampled[lo:hi])
            return self._sampled.copy()
        mask = self.state.mask if mask is None else check_mask(mask, self.n)
        out = np.empty(self.n, np.int64)
        self._call(K.random_actions, mask, seed, np.int64(0), self._rng[0], out)
        return out

    def fork(self) -> Rounds:
        """A copy whose rounds go on apart from these (the kernel scratch
        shared: use the two from one thread), for search and what-ifs."""
        other = copy.copy(self)
        other.state = K.Envs(*(f.copy() for f in self.state))
        other._views = other._single = other._crew = None
        other._actions, other._sampled = np.zeros(self.n, np.int64), np.zeros(self.n, np.int64)
        other._one, other._asked = np.zeros(1, np.int64), dict(self._asked)
        return other

    def __deepcopy__(self, memo):
        return self.fork()

    # -- reading one row -------------------------------------------------------
    def plays(self, i: int = 0) -> list[tuple[int, int, int]]:
        """Row i's plays so far: (seat, card, capture set as a card mask)."""
        return [tuple(p) for p in self.state.log[i][:int(self.state.pos[i, P.PLAYS])].tolist()]

    def moves(self, i: int = 0) -> list[Move]:
        """Row i's legal moves (card, capture set), canonical order."""
        pos = self.state.pos[i]
        if not self.state.mask[i].any():
            return []
        s = self._scratch[0]
        m = kernel_legal_moves(pos[P.HAND + int(pos[P.TURN])], pos[P.TABLE], self.packed,
                               s.cards, s.takes, s.work)
        return [Move(c, tuple(cards_of(t))) for c, t in zip(s.cards[:m].tolist(),
                                                            s.takes[:m].tolist())]

    def hidden(self, i: int) -> tuple[list[int], list[int]]:
        """Row i's cards no seat sees all of, the hands' and the deck's
        (ascending), and where they lie: the size of each seat's hand, then
        of each hand of each deal to come, in deal order (`rearrange`)."""
        r, pos = self.rules, self.state.pos[i]
        hands = [int(pos[P.HAND + s]) for s in range(r.players)]
        rest = self.state.deck[i, int(pos[P.DECK]):]
        per_deal = r.players * r.hand_size
        if len(rest) % per_deal:
            raise ValueError(f"the deck's {len(rest)} cards are not whole deals of "
                             f"{per_deal}")
        cards = sorted([c for h in hands for c in cards_of(h)] + rest.tolist())
        return cards, [h.bit_count() for h in hands] + [r.hand_size] * (len(rest) // r.hand_size)

    def rearrange(self, i: int, parts: list[list[int]]) -> None:
        """Put row i's hidden cards (`hidden`) where `parts` says, a list of
        cards per place in `hidden`'s order: each seat's hand, then each hand
        of each deal to come (the deck dealt one card a seat at a time from
        the dealer's left, as `kernels.position.deal` deals). The position is
        otherwise the same, and the observation and mask are the new hand's."""
        cards, sizes = self.hidden(i)
        if [len(p) for p in parts] != sizes or sorted(c for p in parts for c in p) != cards:
            raise ValueError(f"give the hidden cards {names(cards)} in places of "
                             f"{', '.join(map(str, sizes))} cards")
        r, st = self.rules, self.state
        n = r.players
        pos, deck = st.pos[i], st.deck[i]
        for s in range(n):
            pos[P.HAND + s] = np.uint64(sum(1 << c for c in parts[s]))
        at, leader = int(pos[P.DECK]), (int(pos[P.DEALER]) + 1) % n
        for k, part in enumerate(parts[n:]):       # hand k: deal k // n, seat leader + k % n
            first = at + k // n * n * r.hand_size + k % n
            deck[first:first + n * r.hand_size:n] = part
        batch.call(K.seat_view, st, np.int64(i), np.int64(st.seat[i]), self.packed, st.obs[i],
                   st.mask[i])

    def view(self, i: int, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """What `seat` sees of row i, and its legal actions (none unless it
        is to play): new arrays."""
        seat = whole(seat, "seat", 0, self.rules.players - 1)
        obs, mask = np.zeros(self.state.obs.shape[1], np.int8), np.zeros(N_ACTIONS, np.int8)
        self._call(K.seat_view, self.state, np.int64(i), np.int64(seat), self.packed, obs, mask)
        return obs, mask

    def action_for(self, i: int, move) -> int:
        """The next action of row i toward `move` (card, capture set)."""
        card, take = int(move[0]), sum(1 << c for c in move[1])
        if Move(card, tuple(sorted(move[1]))) not in self.moves(i):
            raise ValueError(f"{card_name(card)} taking {names(move[1]) or 'nothing'} is not "
                             f"a legal move here")
        pending = int(self.state.pending[i])
        if pending < 0:
            return card
        rest = take & ~int(self.state.chosen[i])
        return TAKE + (rest & -rest).bit_length() - 1

    def suggest(self, i: int, strategy: str) -> Move:
        """The move a built-in `strategy` (e.g. "greedy", "random", "net")
        plays for row i's seat to play, seeing what it sees, drawing from the
        round's decide stream as the simulator's seat would (so moves asked
        this way replay `simulate`)."""
        s = parse_strategy(strategy)
        if s.users():
            raise ValueError("suggest asks a built-in strategy; play a user strategy as a "
                             "kernel seat of the lineup")
        if int(self.state.pending[i]) >= 0:
            raise ValueError("a move is half chosen (its capture): finish it first")
        return self._suggest(i, s)

    def _suggest(self, i: int, s) -> Move:
        """`suggest` of the parsed strategy `s`, at either stage (the position
        does not change while a capture is chosen)."""
        if not self.state.mask[i].any():
            raise ValueError("the round is over: reset it")
        with self._lock:
            if self._ask is None:
                self._ask = batch.scratch()
            scratch = self._ask
            weights = s.nets(self.rules)
            if weights:
                scratch = scratch._replace(net=nets.record(weights))
            pos, deck = self.state.pos[i], self.state.deck[i]
            seat = int(pos[P.TURN])
            m = kernel_legal_moves(pos[P.HAND + seat], pos[P.TABLE], self.packed, scratch.cards,
                                   scratch.takes, scratch.work)
            kit = Kit(self.packed, self.state.rng[i], scratch.work, scratch.search,
                      scratch.users, scratch.net)
            k = batch.call(decide, s.spec.id, s.vector(), seat, m, scratch.board(pos, deck), kit)
            if not 0 <= k < m:
                raise RuntimeError(f"strategy {s} chose move {k} of {m}")
            return Move(int(scratch.cards[k]), tuple(cards_of(int(scratch.takes[k]))))

    def strategy_action(self, i: int, strategy: str) -> int:
        """Row i's next action of the move a built-in `strategy` plays
        (`suggest`, asked at the move's first step and kept for the others;
        asked again at a later step reached otherwise, and if the card being
        played is not the strategy's, its first capture still open)."""
        pending = int(self.state.pending[i])
        if pending < 0:
            self._asked[i] = self.suggest(i, strategy)
        elif not self._fits(i, self._asked.get(i)):   # asked elsewhere (a copy), or not at all
            move = self._suggest(i, parse_strategy(strategy))
            if not self._fits(i, move):               # the card played is not the strategy's
                move = next(m for m in self.moves(i) if self._fits(i, m))
            self._asked[i] = move
        return self.action_for(i, self._asked[i])

    def _fits(self, i: int, move) -> bool:
        """Whether `move` is what row i's capture being chosen can still become."""
        if move is None or move[0] != int(self.state.pending[i]):
            return False
        chosen = int(self.state.chosen[i])
        below = (1 << chosen.bit_length()) - 1
        return sum(1 << c for c in move[1]) & below == chosen

    def result(self, i: int) -> dict:
        """Row i's last finished round as `Round.result` gives it."""
        if self._result_keys is None:          # (name, index) of the round's, then the sides'
            r = self.rules
            self._result_keys = (
                [(f.name, ROUND_FIELDS.index(f.name)) for f in schema.ROUND
                 if f.name in ("dealer", "last_capturer", "leftover", "captures")],
                [(f"{name}_{t}", t * len(SIDE_FIELDS) + SIDE_FIELDS.index(name))
                 for t in range(r.n_sides) for name in schema.side_fields(r)])
        rounds, sides = self._result_keys
        info, out = self.state.info[i].tolist(), self.state.results[i].ravel().tolist()
        return {**{k: info[j] for k, j in rounds}, **{k: out[j] for k, j in sides}}

    def text(self, i: int = 0) -> str:
        """Row i's table as a person reads it: hands, table, piles, the last plays."""
        r, st = self.rules, self.state
        pos = st.pos[i]
        seat = int(st.seat[i])
        over = not st.mask[i].any()
        lines = [f"round {int(st.unit[i])}, dealer player_{int(pos[P.DEALER])}, "
                 f"{plural(N_CARDS - int(pos[P.DECK]), 'card')} to deal"]
        for s in range(r.players):
            mark = "  <- to play" if s == seat and not over else ""
            who = "outside" if self.outside[s] else str(self.seats.seats[s])
            lines.append(f"player_{s} ({who}): {names(cards_of(int(pos[P.HAND + s]))) or '-'}"
                         f"{mark}")
        lines.append(f"table: {names(cards_of(int(pos[P.TABLE]))) or '(empty)'}")
        for t in range(r.n_sides):
            pile = cards_of(int(pos[P.PILE + t]))
            lines.append(f"side {t}: {plural(len(pile), 'card')}, "
                         f"{plural(int(pos[P.SCOPAS + t]), 'scopa')}")
        plays = int(pos[P.PLAYS])
        for seat_, c, take in st.log[i][max(0, plays - r.players):plays].tolist():
            took = names(cards_of(take))
            lines.append(f"  player_{seat_} played {card_name(c)}"
                         + (f" taking {took}" if took else ", trailed"))
        if int(st.pending[i]) >= 0:
            chosen = names(cards_of(int(st.chosen[i])))
            lines.append(f"player_{seat} plays {card_name(int(st.pending[i]))}, taking "
                         f"{chosen + ' and ' if chosen else ''}one of "
                         f"{names(cards_of(int(st.options[i])))} next")
        if over and st.done[i]:
            res = self.result(i)
            lines.append("over: " + ", ".join(f"side {t} {res[f'points_{t}']} points"
                                               for t in range(r.n_sides)))
        return "\n".join(lines)


def check_mask(mask, n: int) -> np.ndarray:
    """An action mask of n rows as the kernel reads it (int8[n, 80]), or
    ValueError saying what is wrong with it."""
    m = np.asarray(mask)
    if m.shape != (n, N_ACTIONS):
        raise ValueError(f"an action mask has shape ({n}, {N_ACTIONS}), not {m.shape}")
    if m.dtype.kind not in "biu":
        raise ValueError(f"an action mask is int8 or bool (0 or 1 per action), not {m.dtype}")
    if m.dtype.kind != "b" and ((m < 0) | (m > 1)).any():
        raise ValueError("an action mask holds only 0 and 1")
    return np.ascontiguousarray(m, np.int8)


def _rows(state: K.Envs, lo: int, hi: int) -> K.Envs:
    return K.Envs(*(f[lo:hi] for f in state))
