"""Loading a feature's state into the cache before the kernel reads it.

A pass reads the state of each non-zero's feature at random. With many outputs
(or candidates side by side) a feature's state spans several cache lines and
the work per non-zero is long enough that the processor does not reach the
next non-zero's loads on its own before the current one's are done: the misses
then come one after the other. Asking for the state of the non-zero ``AHEAD``
places on overlaps them with the arithmetic (docs/performance.md, "Threads").
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

# How many non-zeros ahead of the one being scored a feature's state is requested.
AHEAD = 4

_LINE_BYTES = 64


@intrinsic
def _prefetch_first_axis_entry(typingctx, array, index):
    """LLVM's prefetch (read, keep in every cache level) of every cache line
    that ``array[index]`` (an entry along the first axis, of a positive stride)
    occupies: from the line of its first byte to the line of its last."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None
    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        array_type, index_type = sig.args
        values = context.make_array(array_type)(context, builder, args[0])
        stride = builder.extract_value(values.strides, 0)
        position = context.cast(builder, args[1], index_type, types.intp)
        base = builder.ptrtoint(values.data, stride.type)
        first = builder.add(base, builder.mul(stride, position))
        last = builder.sub(builder.add(first, stride), ir.Constant(stride.type, 1))
        line = ir.Constant(stride.type, _LINE_BYTES)
        line_start = builder.and_(first, ir.Constant(stride.type, -_LINE_BYTES))
        # Lines from the first byte's through the last byte's; none for a
        # stride <= 0 (the kernels' states have positive strides).
        count = builder.select(
            builder.icmp_signed(">", stride, ir.Constant(stride.type, 0)),
            builder.add(
                builder.udiv(builder.sub(last, line_start), line),
                ir.Constant(stride.type, 1),
            ),
            ir.Constant(stride.type, 0),
        )
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0i8",
        )
        with cgutils.for_range(builder, count) as loop:
            address = builder.add(line_start, builder.mul(loop.index, line))
            builder.call(
                prefetch,
                [builder.inttoptr(address, byte_pointer), i32(0), i32(3), i32(1)],
            )
        return context.get_dummy_value()

    return signature, codegen


def prefetch_ahead(indices, p, end, state):
    """Request the state (``state[j]``) of the feature of non-zero ``p + AHEAD``
    of a row ending at ``end``, if the row has it. A hint only: no value
    changes, and without Numba's compiler (``NUMBA_DISABLE_JIT=1``) nothing
    is done.

    The kernels call it where a feature's state spans several cache lines
    (several outputs, several candidates side by side): with one output's
    state the processor overlaps the misses on its own and the call only costs
    time. Each call site tests that itself (``if n_outputs > 1:``): the same
    test inside this helper (``state.shape[-1] > 1``) made the one-output
    passes 1.7 to 2 times as long. Compiled inline into the kernel's loop
    (Numba's ``inline="always"``): a call per non-zero cost more than the
    misses it saves."""


@overload(prefetch_ahead, inline="always")
def _prefetch_ahead_compiled(indices, p, end, state):
    def implementation(indices, p, end, state):
        ahead = p + AHEAD
        if ahead < end:
            _prefetch_first_axis_entry(state, indices[ahead])

    return implementation
