"""Loading a feature's state into the cache before the kernel reads it.

A pass reads the state of each non-zero's feature at random. With many outputs
(or candidates side by side) a feature's state spans several cache lines and
the work per non-zero is long enough that the processor does not reach the
next non-zero's loads on its own before the current one's are done: the misses
then come one after the other. Asking for the state of the non-zero ``AHEAD``
places on overlaps them with the arithmetic (docs/performance.md, "Threads").
"""

import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

# How many non-zeros ahead of the one being scored a feature's state is requested.
AHEAD = 4

_LINE_BYTES = 64


@intrinsic
def _prefetch_first_axis_entry(typingctx, array, index):
    """LLVM's prefetch (read, keep in every cache level) of every cache line of
    ``array[index]``, an entry along the first axis (its stride in bytes)."""
    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        array_type, index_type = sig.args
        values = context.make_array(array_type)(context, builder, args[0])
        byte = ir.IntType(8)
        i32 = ir.IntType(32)
        stride = builder.extract_value(values.strides, 0)
        position = context.cast(builder, args[1], index_type, types.intp)
        start = builder.gep(
            builder.bitcast(values.data, byte.as_pointer()),
            [builder.mul(stride, position)],
        )
        prefetch_type = ir.FunctionType(
            ir.VoidType(), [byte.as_pointer(), i32, i32, i32]
        )
        prefetch = cgutils.get_or_insert_function(
            builder.module, prefetch_type, "llvm.prefetch.p0i8"
        )
        line = ir.Constant(stride.type, _LINE_BYTES)
        one = ir.Constant(stride.type, 1)
        # A line every 64 bytes from the entry's first byte, and its last byte's
        # (the entry need not start on a line).
        with cgutils.for_range(
            builder, builder.add(builder.udiv(stride, line), one)
        ) as loop:
            address = builder.gep(start, [builder.mul(loop.index, line)])
            builder.call(prefetch, [address, i32(0), i32(3), i32(1)])
        last = builder.gep(start, [builder.sub(stride, one)])
        builder.call(prefetch, [last, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return signature, codegen


@numba.njit(inline="always")
def prefetch_ahead(indices, p, end, state):
    """Request the state (``state[j]``) of the feature of non-zero ``p + AHEAD``
    of a row ending at ``end``, if the row has it. A hint only: no value
    changes.

    The kernels call it where a feature's state spans several cache lines
    (several outputs, candidates side by side): with one output's state, in
    one line, the processor overlaps the misses on its own and the request
    only costs time. Inlined into the kernel's loop (Numba's
    ``inline="always"``): a call per non-zero cost more than the misses it
    saves."""
    ahead = p + AHEAD
    if ahead < end:
        _prefetch_first_axis_entry(state, indices[ahead])
