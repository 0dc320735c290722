"""Two threads handing work over through words of memory rather than the
operating system (`engine.crew`): waking a sleeping thread costs 25-50 us
on a virtual machine, and a thread that runs Python code must take the GIL
first, often sleeping for it; a spin on a word costs well under 1 us.

A flag is an int64 array whose words are counters, each written by one
thread (`publish`, a release store) and read by the other (`wait_past`,
acquire loads): what the writer wrote before it published is seen by a
reader that sees the new count.
"""
from numba import types
from numba.core.extending import intrinsic

from ._jit import kernel, outlined


def _word(context, builder, signature, args):
    """A pointer to word args[1] of the int64 array args[0]."""
    data = context.make_array(signature.args[0])(context, builder, args[0]).data
    return builder.gep(data, [args[1]])


def _is_flag(arr, at):
    return (isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype == types.int64
            and isinstance(at, types.Integer))


@intrinsic
def load_acquire(typingctx, arr, at):
    """arr[at] read atomically (acquire): never hoisted out of a loop, and
    ordered before the reads after it."""
    if not _is_flag(arr, at):
        return None

    def codegen(context, builder, signature, args):
        return builder.load_atomic(_word(context, builder, signature, args), "acquire", 8)

    return types.int64(arr, at), codegen


@intrinsic
def store_release(typingctx, arr, at, value):
    """arr[at] = value written atomically (release): ordered after the
    writes before it."""
    if not (_is_flag(arr, at) and value == types.int64):
        return None

    def codegen(context, builder, signature, args):
        builder.store_atomic(args[2], _word(context, builder, signature, args), "release", 8)
        return context.get_dummy_value()

    return types.void(arr, at, value), codegen


@kernel
def wait_past(flag, at, seen, spins):
    """flag[at] once it is no longer `seen`, read up to `spins` times;
    `seen` if it did not change (the caller then sleeps)."""
    for _ in range(spins):
        now = load_acquire(flag, at)
        if now != seen:
            return now
    return seen


@outlined
def wait_for(flag, at, seen, spins):
    """`wait_past`, for Python (the GIL released while it spins)."""
    return wait_past(flag, at, seen, spins)


@outlined
def publish(flag, at, value):
    """flag[at] = value, for the thread in `wait_past` to see."""
    store_release(flag, at, value)
