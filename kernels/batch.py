"""Batches: the unit of work the runner schedules. A batch is a pure function
of (seed, first index, count, rules, strategies, parameters): round `i` (or
game `i`) draws from stream (seed, i), so batches can run anywhere, in any
order, any number of times, and give the same arrays.

Results go into caller-owned arrays, a row per round: `sides`
(int16[rows, n_sides, N_SIDE]) and `rounds` (int64[rows, N_ROUND]), of any
strides: the runner lays each field out as a column (`seats.row_arrays`),
so that a run's columns are views of what the kernel wrote. The
rules vector carries everything the rules say, the primiera lookup included
(`layout.R_BEST`); `scratch()` makes the rest, a `Scratch` record: a named
tuple of arrays, which Numba types field by field, so a kernel reads
`scratch.deck`.

`simulate_rounds` and `simulate_games` are Python functions that pick one of
three compiled kernels by the strategies a run names (`registry.KINDS`):
`simple_units` when every seat plays random or greedy, `fast_units` when
every seat plays a fast one or a user strategy, `search_units` when one
searches. Each is compiled (or loaded from the cache) the first time a run
needs it, so a run of fast strategies never compiles the search code, nor
one of random and greedy the user strategies' calls, and a user's function
(a pointer, see `users`) never recompiles a kernel; `needs_compile` says
whether a run's kernel still has to be compiled. The simple and fast
kernels take a scratch without the search strategies' arrays (`scratch`,
`search=False`): what a kernel unboxes costs compile time too. Beside each, a step kernel
(`simple_step`, `fast_step`, `search_step`; `step_for`): the one play-out
loop (`play.play_out`) with the same strategy code, which the Python round
loop (`scopa_sim.engine.seats`) calls to play a round up to a seat whose strategy
decides in Python.

A preset's rules compiled in (`preset_units`): for a rules vector the engine
names (`engine.rules.COMPILED_IN`: the default preset), a run of random and
greedy plays in a twin of `simple_units` that closes over the vector, which
Numba then freezes as a constant array, so the same kernels read it: every
branch on a rule folds, the loops over seats and deals have constant bounds,
a side and a primiera value are loads from constant tables. When every seat plays random
the twin draws with no strategy dispatch (`heuristics.choose_random`). Each
twin is compiled (or loaded) only when a run needs it; other rules and
strategies keep the general kernels.
"""
import functools
import hashlib
import threading
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._jit import from_python, outlined
from . import users as U
from .registry import BUILTINS, ID, KINDS, USER, Lineup
from .layout import MAX_MOVES, MAX_PLAYERS, N_CARDS, N_ROUND, N_SIDE, R_PLAYERS
from .moves import W_SIZE
from .net import fresh, no_net
from .play import Kit, play_out
from .position import POS_SIZE, Board
from .round import play_units
from .search import search_scratch
from .strategies import choose, choose_fast, choose_random, choose_simple


class Scratch(NamedTuple):
    """A batch's scratch arrays (see `round`)."""
    rng: np.ndarray            # uint64[1]: the random stream's state
    deck: np.ndarray           # int64[N_CARDS]: the last round's deck order
    pos: np.ndarray            # uint64[POS_SIZE]: the position (`position`)
    work: np.ndarray           # int64[W_SIZE]: the capture search's scratch (`moves`)
    cards: np.ndarray          # int64[MAX_MOVES]: the legal moves' cards
    takes: np.ndarray          # uint64[MAX_MOVES]: the legal moves' capture sets
    log: np.ndarray            # int64[N_CARDS, 3]: seat, card, capture of the last round's plays
    out: np.ndarray            # int16[MAX_PLAYERS, N_SIDE]: one round's side results
    info: np.ndarray           # int64[N_ROUND]: one round's fields
    search: tuple              # the search strategies' scratch (a `search.Search`)
    users: U.Users             # the run's user strategies (`users.context`)
    taken: np.ndarray          # uint64[rows, MAX_PLAYERS]: each side's pile at the end of each
                               # row's round, kept when it has rows (`scopa_sim.runs.taken`)
    net: tuple                 # the run's networks and their scratch (a `net.Net`)

    def board(self, pos=None, deck=None):
        """The scratch's position arrays as a `position.Board`, on `pos` and
        `deck` where given."""
        return Board(self.pos if pos is None else pos, self.deck if deck is None else deck,
                     self.cards, self.takes, self.log)

    def kit(self, rules):
        """The scratch's decision scratch, with the rules vector, as a `play.Kit`."""
        return Kit(rules, self.rng, self.work, self.search, self.users, self.net)


def scratch(functions=(), params=None, taken_rows=0, nets=None, search=True):
    """Fresh scratch arrays for one batch, with a users context for the
    run's user strategy `functions` and their rollout `params` (see
    `users.context`), room for `taken_rows` rows of captured cards, and the
    run's networks `nets` (a `net.Net`; none by default); without `search`,
    neither the search strategies' scratch nor networks (None: for the
    simple and fast kernels, which never read them)."""
    return Scratch(rng=np.zeros(1, np.uint64), deck=np.zeros(N_CARDS, np.int64),
                   pos=np.zeros(POS_SIZE, np.uint64), work=np.zeros(W_SIZE, np.int64),
                   cards=np.zeros(MAX_MOVES, np.int64), takes=np.zeros(MAX_MOVES, np.uint64),
                   log=np.zeros((N_CARDS, 3), np.int64),
                   out=np.zeros((MAX_PLAYERS, N_SIDE), np.int16),
                   info=np.zeros(N_ROUND, np.int64),
                   search=search_scratch() if search else None,
                   users=U.context(functions, params),
                   taken=np.zeros((taken_rows, MAX_PLAYERS), np.uint64),
                   net=None if not search else no_net() if nets is None else fresh(nets))


def kit(rules, rng=None, work=None, search=None, users=None, nets=None):
    """A Kit for the rules vector `rules`, fresh scratch where not given."""
    return Kit(rules=rules, rng=np.zeros(1, np.uint64) if rng is None else rng,
               work=np.zeros(W_SIZE, np.int64) if work is None else work,
               search=search_scratch() if search is None else search,
               users=U.context() if users is None else users,
               net=no_net() if nets is None else fresh(nets))


@outlined
def simple_units(games, seed, first, count, rules, lineup, sides, rounds, scratch):
    """`round.play_units` with random and greedy only."""
    return play_units(choose_simple, games, seed, first, count, rules, lineup, sides, rounds,
                      scratch)


@outlined
def fast_units(games, seed, first, count, rules, lineup, sides, rounds, scratch):
    """`round.play_units` with the fast strategies and the user ones."""
    return play_units(choose_fast, games, seed, first, count, rules, lineup, sides, rounds, scratch)


@outlined
def search_units(games, seed, first, count, rules, lineup, sides, rounds, scratch):
    """`round.play_units` with every strategy."""
    return play_units(choose, games, seed, first, count, rules, lineup, sides, rounds, scratch)


@outlined
def simple_step(lineup, board, kit):
    """`play.play_out` to the end of the round or to a seat that decides in
    Python (the Python round loop, `scopa_sim.engine.seats`), random and greedy only."""
    return play_out(choose_simple, lineup, board, kit, None, None)


@outlined
def fast_step(lineup, board, kit):
    """`simple_step` with the fast strategies and the user ones."""
    return play_out(choose_fast, lineup, board, kit, None, None)


@outlined
def search_step(lineup, board, kit):
    """`simple_step` with every strategy."""
    return play_out(choose, lineup, board, kit, None, None)


KERNELS = (simple_units, fast_units, search_units)
CHOOSERS = (choose_simple, choose_fast, choose)          # the strategy code of each
STEPS = (simple_step, fast_step, search_step)            # and its step kernel
_COMPILING = threading.Lock()
_TWINS = threading.Lock()


def kind_for(strategies) -> str:
    """The kind (`registry.KINDS`) of batch kernel these strategy ids (one
    per seat) need: the one that compiles the least strategy code. User ids
    play in the fast and search kernels; an unknown id goes to the kernel
    that knows every id, whose dispatch refuses it."""
    kinds = [BUILTINS[s].kind if 0 <= s < len(BUILTINS) else "search" if s < USER else "fast"
             for s in map(int, strategies)]
    return KINDS[max(map(KINDS.index, kinds))]


def kernel_for(strategies, preset=None):
    """The batch kernel for these strategy ids (`kind_for`); with `preset`
    (a rules vector the engine compiles in), its twin of that kernel with
    the vector as a constant (`preset_units`) when there is one (random and
    greedy)."""
    general = KERNELS[KINDS.index(kind_for(strategies))]
    if preset is None or general is not simple_units:
        return general
    every_seat_random = all(int(s) == ID.random for s in strategies[:preset[R_PLAYERS]])
    with _TWINS:               # one twin per vector, whichever thread asks first
        return preset_units(np.asarray(preset, np.int64).tobytes(), every_seat_random)


@functools.lru_cache(maxsize=None)
def preset_units(vector: bytes, every_seat_random: bool):
    """`simple_units` with the rules vector `vector` (its bytes) compiled in:
    a kernel that closes over the vector (Numba freezes it as a constant
    array, see the module docstring) and takes no rules; with
    `every_seat_random`, its chooser is `heuristics.choose_random`. Numba
    keys a closure's disk-cache entry on what it closes over, and each
    vector's kernels are named by its hash, so each has cache files of its
    own (`uncached` reads them)."""
    rules = np.frombuffer(vector, np.int64).copy()
    # Two bodies, not one closing over the chooser too: Numba keys a closure's
    # disk-cache entry on what it closes over, pickled, and a dispatcher
    # pickles with an id of its process (no second process would load it).
    if every_seat_random:
        def units(games, seed, first, count, lineup, sides, rounds, scratch):
            return play_units(choose_random, games, seed, first, count, rules, lineup, sides,
                              rounds, scratch)
    else:
        def units(games, seed, first, count, lineup, sides, rounds, scratch):
            return play_units(choose_simple, games, seed, first, count, rules, lineup, sides,
                              rounds, scratch)
    name = (f"preset_{'random' if every_seat_random else 'simple'}_units_"
            f"{hashlib.sha256(vector).hexdigest()[:16]}")
    units.__name__ = units.__qualname__ = name
    return outlined(units)


def chooser_for(strategies):
    """The strategy code (`strategies.choose*`) of `kernel_for(strategies)`."""
    return CHOOSERS[KERNELS.index(kernel_for(strategies))]


def step_for(strategies):
    """The step kernel (`simple_step`..) of `kernel_for(strategies)`."""
    return STEPS[KERNELS.index(kernel_for(strategies))]


def needs_compile(strategies, preset=None) -> bool:
    """Whether running these strategy ids (one per seat), under the rules
    vector `preset` compiled in where given (`kernel_for`), compiles a kernel
    first, rather than loading it from the disk cache (seconds, not a
    fraction of one)."""
    return uncached(kernel_for(strategies, preset))


def uncached(kernel) -> bool:
    """Whether calling `kernel` compiles it first: neither loaded in this
    process nor in the disk cache."""
    kernel = from_python(kernel)
    if kernel.overloads:
        return False
    try:
        index = Path(kernel._cache._cache_file._index_path)   # Numba's cache index file
    except AttributeError:
        return True
    return not index.exists()


def call(kernel, *args):
    """Call a kernel, compiling (or loading) it first if needed, one thread
    at a time."""
    if from_python(kernel).overloads:
        return kernel(*args)
    with _COMPILING:          # one thread compiles (or loads); the others wait
        return kernel(*args)


def entry(kernel, args):
    """The compiled entry of a kernel for the types of `args`, compiled (or
    loaded) first if needed, one thread at a time: called with such
    arguments it skips Numba's dispatch (10 us with records of arrays)."""
    dispatcher = from_python(kernel)
    types = tuple(dispatcher.typeof_pyval(a) for a in args)
    with _COMPILING:
        return dispatcher.compile(types)


def simulate_units(games, seed, first, count, rules, strategies, params, sides, rounds,
                   scratch, preset=False):
    """Units first..first+count-1 of run `seed` (rounds, or with `games`
    games) in the kernel for these strategies: see `round.play_units`. With
    `preset`, `rules` is a vector to compile in (`kernel_for`): the engine's
    choice (`engine.rules.COMPILED_IN`), never a run's own rule set, which
    would compile a kernel for each."""
    k = kernel_for(strategies, rules if preset else None)
    lineup = Lineup(strategies, params)
    head = (bool(games), np.uint64(int(seed) % 2**64), np.int64(first), np.int64(count))
    if k in KERNELS:
        return int(call(k, *head, rules, lineup, sides, rounds, scratch))
    return int(call(k, *head, lineup, sides, rounds, scratch))


def simulate_rounds(seed, first, rules, strategies, params, sides, rounds, scratch):
    """Rounds first.. of run `seed`, one per row of `rounds`; round i is
    dealt by seat i % players. Returns the number of rows, or -2 if a
    strategy chose a move that does not exist (see `users`)."""
    return simulate_units(False, seed, first, rounds.shape[0], rules, strategies, params,
                          sides, rounds, scratch)


def simulate_games(seed, first, count, rules, strategies, params, sides, rounds, scratch):
    """Games first..first+count-1 of run `seed`, one row per round played.

    Game g draws all its rounds from stream (seed, g); its first dealer is
    seat g % players. `rounds[:, Q_ROUND]` is the round's number within its
    game (from 0), `rounds[:, Q_GAME]` the game index. Returns the number of
    rows, -1 if the arrays were too small (call again with bigger ones) or
    -2 if a strategy chose a move that does not exist.
    """
    return simulate_units(True, seed, first, count, rules, strategies, params, sides,
                          rounds, scratch)
