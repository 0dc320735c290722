"""User strategies in the kernel: jitted functions called through Numba
first-class function pointers, so the batch kernels are compiled once for
every user function (and cached), and a user's edit recompiles only the
user's function. The pointers travel as addresses in an int64 array and
become functions inside the kernel (`function_at`): Numba's own unboxing of
a function argument costs ~25 us per function on every call from Python.

A user strategy is `f(obs, cards, takes, params) -> index`: `obs` the
seat's observation (int64[O_SIZE], see `observe`), `cards` and `takes` the
legal moves (int64[n] each: the card played, the set it captures, 0 for a
trail), `params` its parameter row (float64[N_PARAMS]). Its id is USER + k,
k its slot in the run's `users` context, a `Users` record (a named tuple,
which Numba types field by field)::

    functions  int64[MAX_USERS, 2]: slot k's function as its C wrapper's and
             its Numba entry's addresses (`no_user`'s in unused slots); the
             caller keeps the functions alive
    params   float64[MAX_USERS, N_PARAMS]: slot k's parameters when it plays a
             rollout (a seat playing it passes its own row)
    scores   int64[MAX_PLAYERS]: the game scores the observations show
    obs      int64[O_SIZE]: scratch for one observation, filled for each call
    moves    int64[2, MAX_MOVES]: scratch for the moves a user function gets
             (cards, capture sets), copies: it may write to them; all 0
             between calls
    fault    int64[N_FAULT]: the first bad choice of a round (F_*: the
             strategy, the index it chose, the number of legal moves, the
             seat, the play, the unit and the round), F_STRATEGY -1 while
             there is none
    row      float64[N_PARAMS]: scratch for the parameters it gets, a copy

A bad choice (an index out of range, or an unknown strategy id) never
plays: the seat plays move 0 instead so the search code stays in bounds,
the fault is recorded, and the round loop stops the batch (see `round`).
"""
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

from ._jit import from_python, kernel, outlined
from .registry import MAX_USERS, USER
from .layout import MAX_MOVES, MAX_PLAYERS, N_PARAMS
from .observe import O_SIZE, observe
from .position import PLAYS

SIGNATURE = types.int64(types.int64[::1], types.int64[::1], types.int64[::1],
                        types.float64[::1])
FUNCTION = types.FunctionType(SIGNATURE)
# A fault record (int64[N_FAULT]): the first bad choice of a batch, F_* its fields.
FAULT_FIELDS = ("strategy", "value", "moves", "seat", "play", "unit", "round")
N_FAULT = len(FAULT_FIELDS)
F_STRATEGY, F_VALUE, F_MOVES, F_SEAT, F_PLAY, F_UNIT, F_ROUND = (
    FAULT_FIELDS.index(f) for f in ("strategy", "value", "moves", "seat", "play", "unit", "round"))


class Users(NamedTuple):
    """The users context (see the module docstring)."""
    functions: np.ndarray
    params: np.ndarray
    scores: np.ndarray
    obs: np.ndarray
    moves: np.ndarray
    fault: np.ndarray
    row: np.ndarray


@outlined
def no_user(obs, cards, takes, params):
    """The function of an unused slot: never a legal move."""
    return -1


def addresses(function) -> tuple[int, int]:
    """A jitted function's addresses for `function_at`, compiled for
    SIGNATURE if it is not yet (Numba's first-class function helpers)."""
    from numba.experimental.function_type import _get_jit_address, _get_wrapper_address
    function.compile(SIGNATURE.args)
    return _get_wrapper_address(function, SIGNATURE), _get_jit_address(function, SIGNATURE)


def context(functions=(), params=None):
    """A `users` context for these jitted user functions (at most
    MAX_USERS) and their rollout parameter rows."""
    if len(functions) > MAX_USERS:
        raise ValueError(f"a run can use at most {MAX_USERS} user strategies")
    table = np.zeros((MAX_USERS, N_PARAMS), np.float64)
    if params is not None:
        table[:len(params)] = params
    slots = list(functions) + [no_user] * (MAX_USERS - len(functions))
    return Users(functions=np.array([addresses(from_python(f)) for f in slots], np.int64),
                 params=table,
                 scores=np.zeros(MAX_PLAYERS, np.int64), obs=np.zeros(O_SIZE, np.int64),
                 moves=np.zeros((2, MAX_MOVES), np.int64),
                 fault=np.full(N_FAULT, -1, np.int64), row=np.zeros(N_PARAMS, np.float64))


@intrinsic
def function_at(typingctx, wrapper, entry):
    """The user function whose C wrapper and Numba entry are at these
    addresses (`addresses`). Calls go to the entry, so an exception the
    function raises comes out of the kernel as itself."""
    if not (isinstance(wrapper, types.Integer) and isinstance(entry, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        f = cgutils.create_struct_proxy(FUNCTION)(context, builder)
        pointer = context.get_value_type(types.voidptr)
        f.c_addr = builder.inttoptr(args[0], pointer)
        f.py_addr = ir.Constant(pointer, None)
        f.jit_addr = builder.inttoptr(args[1], pointer)
        return f._getvalue()

    return FUNCTION(wrapper, entry), codegen


@intrinsic
def unowned(typingctx, array):
    """The array without its owner (no meminfo): a user function, compiled
    with reference counting, then skips two atomic operations per array
    argument on every call. The kernel's scratch outlives every call."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        a = context.make_array(signature.args[0])(context, builder, value=args[0])
        a.meminfo = cgutils.get_null_value(a.meminfo.type)
        a.parent = cgutils.get_null_value(a.parent.type)
        return a._getvalue()

    return array(array), codegen


@kernel
def is_user(strategy):
    """Whether a strategy id is a user strategy's (USER + slot)."""
    return USER <= strategy < USER + MAX_USERS


@kernel
def record_fault(users, strategy, value, n, seat, play):
    """Keep the round's first bad choice."""
    fault = users.fault
    if fault[F_STRATEGY] < 0:
        fault[F_STRATEGY] = strategy
        fault[F_VALUE] = value
        fault[F_MOVES] = n
        fault[F_SEAT] = seat
        fault[F_PLAY] = np.int64(play)


@kernel
def checked(users, strategy, i, seat, play, n):
    """`i` if it is a legal move's index; else 0, with the fault recorded."""
    if 0 <= i < n:
        return i
    record_fault(users, strategy, i, n, seat, play)
    return 0


@kernel
def play_user(strategy, p, seat, pos, rules, n, cards, takes, rng, users):
    """The move user strategy `strategy` (USER + slot) with parameters `p`
    plays for `seat`, from its observation; a bad index is recorded and
    move 0 returned. The observation is filled afresh and the moves are
    zeroed again after the call, so a call sees nothing an earlier one saw
    or wrote, even past the end of its arrays (with bounds checks off)."""
    functions, obs, moves, row = users.functions, users.obs, users.moves, users.row
    observe(seat, pos, rules, users.scores, rng, obs)
    for i in range(n):
        moves[0, i] = cards[i]
        moves[1, i] = np.int64(takes[i])
    for j in range(row.shape[0]):
        row[j] = p[j]
    k = strategy - USER
    i = function_at(functions[k, 0], functions[k, 1])(
        unowned(obs), unowned(moves[0, :n]), unowned(moves[1, :n]), unowned(row))
    for j in range(n):
        moves[0, j] = 0
        moves[1, j] = 0
    return checked(users, strategy, i, seat, pos[PLAYS], n)
