"""Bit tricks on uint64 card sets, as LLVM intrinsics (one instruction each),
`ix`, an index without wraparound, and `store8`, a word stored as 8 bytes."""
import numpy as np
from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic


ONE = np.uint64(1)
ZERO = np.uint64(0)


@intrinsic
def popcount(typingctx, mask):
    """Number of set bits of a uint64, as int64."""
    if mask != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


@intrinsic
def lowest(typingctx, mask):
    """Index of the lowest set bit of a nonzero uint64, as int64."""
    if mask != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.uint64), codegen


@intrinsic
def ix(typingctx, i):
    """A non-negative integer as an unsigned (uint64) array index, so that
    Numba leaves out its negative-index wraparound (a compare and a select
    on every access; it was a tenth of the move generation's time)."""
    if not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], signature.args[0], types.uint64)

    return types.uint64(i), codegen


@intrinsic
def store8(typingctx, out, at, value):
    """out[at:at + 8] = the 8 bytes of uint64 `value`, lowest first, in one
    unaligned store (`out` a 1-d int8 or uint8 array; unchecked: the caller
    keeps at + 8 within it). Little-endian hosts only (x86-64, arm64)."""
    if not (isinstance(out, types.Array) and out.ndim == 1 and out.layout == "C"
            and out.dtype in (types.int8, types.uint8)
            and isinstance(at, types.Integer) and value == types.uint64):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        where = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer())
        builder.store(args[2], where).align = 1
        return context.get_dummy_value()

    return types.void(out, at, value), codegen
