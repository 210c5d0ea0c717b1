"""Shape primitives: reshape, transpose, broadcast_to, indexing (and its adjoint,
index_add); and ``sum_to_shape``.

None of these computes anything (but index_add, which adds): each moves or repeats
elements. Their backward moves
the gradient back: a reshape is undone by the inverse reshape, a transpose by the inverse
permutation, a broadcast by a sum over the repeated axes, an index by a scatter-add.
"""
from __future__ import annotations

import functools
import math
import numbers
import operator
from typing import Any

from ..autograd import Context, Function
from ..backend import DeviceError, dtype_name
from . import takes


def sum_to_shape(xp: Any, g: Any, shape: tuple) -> Any:
    """Undo broadcasting: sum ``g`` over the axes that broadcasting added or stretched.

    If ``x`` of shape ``shape`` was broadcast to ``g.shape`` in the forward pass, every
    element of ``x`` was used once per copy, so dL/dx is the sum of ``g`` over the copies:
    over the leading axes that ``x`` lacked and over the axes where ``x`` had size 1.
    Example: a bias of shape (d,) added to (B, T, d) gets ``g.sum(axis=(0, 1))``.
    """
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    axes = broadcast_axes(shape, g.shape)
    g = summed(xp, g, axes, keepdims=True)             # (1,..,1, *shape with 1s kept)
    return xp.reshape(g, shape)                        # shape


def is_half(xp: Any, x: Any) -> bool:
    """Whether x is float16 (the strict backend has none)."""
    return x.dtype == getattr(xp, "float16", None)


def summed(xp: Any, g: Any, axis: Any, keepdims: bool = False) -> Any:
    """``xp.sum(g, axis=axis, keepdims=keepdims)``, with float16 added up in float32 and
    rounded once, as PyTorch accumulates it. NumPy adds float16 in float16, one by one
    along a strided axis, where 32 + 0.01 rounds back to 32: a float16 bias's gradient
    over 4096 positions of 0.01 came out 32, not 40.96."""
    if is_half(xp, g):
        return xp.astype(xp.sum(g, axis=axis, keepdims=keepdims, dtype=xp.float32), g.dtype)
    return xp.sum(g, axis=axis, keepdims=keepdims)


def broadcast_axes(shape: tuple, target_shape: tuple) -> tuple:
    """The axes of ``target_shape`` that broadcasting ``shape`` to it added or stretched.

    ``sum_to_shape`` sums over exactly these; the graph drawer names them on the edge.
    Example: (d,) -> (B, T, d) gives (0, 1); (T, 1) -> (T, d) gives (1,).
    """
    lead = len(target_shape) - len(shape)
    return tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and target_shape[lead + i] != 1)


def _no_arithmetic(ctx: Context, y: Any) -> int:
    """The FLOPs of every op here: they move or copy numbers, and compute none."""
    return 0


class Reshape(Function):
    """y = reshape(x, shape): the same elements, read in row-major order into a new shape.

    dL/dx = reshape(gy, x.shape).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, shape):
        if any(n < -1 for n in shape):                 # NumPy reads any negative as -1
            raise ValueError(f"reshape: invalid shape {tuple(shape)} for a tensor of shape "
                             f"{tuple(x.shape)}; sizes are >= 0, or -1 for one inferred axis")
        try:
            return ctx.xp.reshape(x, shape)
        except ValueError as e:
            raise ValueError(f"reshape: cannot reshape a tensor of shape {tuple(x.shape)} "
                             f"({math.prod(x.shape)} elements) into shape {tuple(shape)}; the "
                             "new shape must hold as many elements, and at most one of its "
                             "axes may be -1 (inferred)") from e

    @staticmethod
    def backward(ctx: Context, gy):
        return ctx.xp.reshape(gy, ctx.input_shapes[0])     # saves nothing: as add, sum

    flops = staticmethod(_no_arithmetic)


class Transpose(Function):
    """y = permute_dims(x, axes): y[i_axes[0], i_axes[1], ...] = x[i_0, i_1, ...].

    dL/dx = permute_dims(gy, argsort(axes)), the inverse permutation.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, axes):
        if sorted(axes) != list(range(x.ndim)):
            raise ValueError(f"transpose: axes {axes} are not a permutation of the "
                             f"{x.ndim} axes of a tensor of shape {tuple(x.shape)}")
        return ctx.xp.permute_dims(x, axes)

    @staticmethod
    def backward(ctx: Context, gy):
        axes = ctx.attrs["axes"]
        inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
        return ctx.xp.permute_dims(gy, inverse)

    flops = staticmethod(_no_arithmetic)


class BroadcastTo(Function):
    """y = broadcast_to(x, shape): x repeated along new leading axes and size-1 axes.

    dL/dx = sum_to_shape(gy, x.shape) (see :func:`sum_to_shape`).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, shape):
        try:
            return ctx.xp.broadcast_to(x, shape)
        except ValueError as e:
            raise ValueError(f"broadcast_to: cannot broadcast shape {tuple(x.shape)} to "
                             f"{tuple(shape)}; each axis must match or be 1") from e

    @staticmethod
    def backward(ctx: Context, gy):
        return sum_to_shape(ctx.xp, gy, ctx.input_shapes[0])

    flops = staticmethod(_no_arithmetic)


class Concat(Function):
    """y = concat((x_1, ..., x_n), axis): the inputs laid end to end along ``axis``.

    Input i fills the rows [start_i, start_i + n_i) of that axis, so dL/dx_i is that
    slice of gy: gx_i = gy[..., start_i:start_i + n_i, ...] (a view: nothing is added).
    The other axes must match; dtypes are promoted first, as for every op.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, *xs, axis):
        try:
            return ctx.xp.concat(xs, axis=axis)
        except ValueError as e:
            shapes = ", ".join(str(tuple(x.shape)) for x in xs)
            raise ValueError(f"cat: cannot join tensors of shapes {shapes} along axis {axis}; "
                             "every other axis must have the same length") from e

    @staticmethod
    def backward(ctx: Context, gy):
        axis, start, gxs = ctx.attrs["axis"], 0, []
        for shape, needed in zip(ctx.input_shapes, ctx.needs_input_grad):
            stop = start + shape[axis]
            gxs.append(gy[(slice(None),) * axis + (slice(start, stop), ...)] if needed else None)
            start = stop
        return tuple(gxs)

    flops = staticmethod(_no_arithmetic)

    @classmethod
    def op_name(cls) -> str:
        return "cat"


def normalize_key(key: Any, x: Any) -> tuple:
    """An index expression as a tuple of ints, slices, None, Ellipsis and index arrays.

    Integer tensors become their arrays (in a slice, one-element ones become ints); a
    boolean mask becomes the index arrays of the entries where it holds (see
    :func:`_masks_as_indices`).
    """
    if isinstance(key, list) and any(isinstance(k, (list, tuple, slice)) or k is None or
                                     k is Ellipsis or hasattr(k, "backend") or
                                     getattr(k, "ndim", 0) > 0 for k in key):   # not np.int64
        raise IndexError("getitem: PyTorch reads a list holding lists, tensors, slices or "
                         "None as the tuple of their indices (x[[i, j]] as x[i, j], with a "
                         "warning), NumPy as one index array; write which you mean: x[i, j], "
                         "or x[tinyffn.tensor([...])] for one index array")
    key = key if isinstance(key, tuple) else (key,)
    out = []
    for k in key:
        if isinstance(k, numbers.Integral) and not isinstance(k, bool):
            out.append(int(k))          # np.int64(1) is an integer, not an index array
            continue
        if isinstance(k, slice):        # d[i:i + 8] with a 0-d tensor i: plain ints
            out.append(_int_slice(k))
            continue
        if hasattr(k, "backend") and hasattr(k, "data"):     # a Tensor
            if k.backend is not x.backend:
                raise DeviceError(f"getitem: the index is on {k.device} but the tensor on "
                                  f"{x.device}; move the index with .to('{x.device}')")
            k = k.data
        elif isinstance(k, (list, tuple)) or hasattr(k, "dtype"):
            # the caller's array is copied: changing it before backward must not move the
            # gradient. An empty list reads as float64; like NumPy's x[[]], it is an int index
            k = x.backend.xp.asarray(x.backend.asarray(k), copy=True)
            if math.prod(k.shape) == 0 and not x.backend.xp.isdtype(k.dtype, "integral"):
                k = x.backend.xp.astype(k, x.backend.dtype("int64"))
        if hasattr(k, "dtype") and not x.backend.xp.isdtype(k.dtype, ("integral", "bool")):
            raise TypeError(f"getitem: index arrays must be integers or a bool mask, got "
                            f"{dtype_name(k.dtype)}")
        if hasattr(k, "dtype") and dtype_name(k.dtype) == "uint8" and k.ndim:
            raise TypeError("getitem: PyTorch reads a uint8 index as a mask (deprecated), "
                            "NumPy as indices; say which: idx.bool() for a mask, idx.long() "
                            "for indices")
        if hasattr(k, "dtype") and k.ndim == 0:     # a 0-d index is a number, in NumPy and
            k = bool(k) if x.backend.xp.isdtype(k.dtype, "bool") else int(k)    # PyTorch alike
        out.append(k)
    masks = [hasattr(k, "dtype") and x.backend.xp.isdtype(k.dtype, "bool") for k in out]
    from_masks_alone = any(masks) and all(m or not hasattr(k, "dtype") for m, k in zip(masks, out))
    if any(masks):
        out = _masks_as_indices(out, x)
    has_array = any(hasattr(k, "dtype") for k in out)
    if has_array or any(isinstance(k, bool) for k in out):
        _check_numpy_and_pytorch_agree(out, x.ndim)
    if not has_array and not any(k is Ellipsis for k in out):
        out.append(Ellipsis)    # x[1:3] means x[1:3, ...]; the array API wants that spelled out
    # a mask's indices lie in its axes (its shape is checked): x[x > 0] needs no range check
    return CheckedKey(out) if from_masks_alone else tuple(out)


def _masks_as_indices(key: list, x: Any) -> list:
    """Each bool mask of m axes in ``key`` as m index arrays, the indices of the entries
    where it holds (``nonzero``), as NumPy and PyTorch read it: ``x[x > 0]`` is the
    positive entries, in row-major order, and their gradient goes back through the indices
    as any index array's. A mask must have the shape of the axes it covers; otherwise its
    indices could still lie inside them, and pick entries no one meant."""
    xp = x.backend.xp

    def width(k):                       # the axes of x that k indexes
        if k is None or k is Ellipsis or isinstance(k, bool):
            return 0
        return k.ndim if hasattr(k, "dtype") and xp.isdtype(k.dtype, "bool") else 1

    spanned = x.ndim - sum(width(k) for k in key)       # the axes a ... stands for
    out, axis = [], 0
    for k in key:
        if width(k) and hasattr(k, "dtype") and xp.isdtype(k.dtype, "bool"):
            covered = tuple(x.shape[axis:axis + k.ndim])
            if tuple(k.shape) != covered:
                raise IndexError(f"getitem: a bool mask of shape {tuple(k.shape)} must have "
                                 f"the shape {covered} of the axes it indexes, from axis {axis} "
                                 f"of a tensor of shape {tuple(x.shape)}")
            out.extend(xp.nonzero(k))
        else:
            out.append(k)
        axis += spanned if k is Ellipsis else width(k)
    return out


def _int_slice(k: slice) -> slice:
    """``k`` with Python ints for bounds: ``operator.index`` of each, as NumPy reads them."""
    try:
        return slice(*(v if v is None else operator.index(v) for v in (k.start, k.stop, k.step)))
    except TypeError as e:
        raise TypeError(f"getitem: a slice's start, stop and step must be integers (or "
                        f"one-element integer tensors) or None, got {k} ({e})") from None


def _check_numpy_and_pytorch_agree(key: list, ndim: int) -> None:
    """Refuse a key whose result NumPy and PyTorch lay out differently.

    Both libraries gather the index arrays' axes into one block. Where the arrays sit
    together, the block replaces their axes in place; where they are apart, it goes first.
    They differ in what counts as an index array and what keeps two apart:

    * NumPy counts integers and True/False as index arrays, and apartness is read in the
      key, so any ``...`` separates (even one that stands for no axes);
    * PyTorch applies the integers first (they are gone), reads True/False as an index
      array on a new axis, and apartness is read in the axes, so a ``...`` standing for
      no axes separates nothing.

    So x[0, :, i] is NumPy's x[0][:, i] transposed: with equal sizes nothing would tell.
    Each model below lays the result out as labels (the axes kept, "new" for None, "ADV"
    for the block); the key is refused when the two lists differ.
    """
    def kind(k):
        if k is None:
            return "new"
        if k is Ellipsis:
            return "..."
        if isinstance(k, slice):
            return "slice"
        if isinstance(k, bool):
            return "bool"
        return "int" if isinstance(k, int) else "array"     # 0-d indices are ints by now

    kinds = [kind(k) for k in key]
    if "array" not in kinds and "bool" not in kinds:
        return                                       # basic indexing: the two agree
    spanned = ndim - sum(c in ("int", "array", "slice") for c in kinds)   # axes ... stands for
    numpy, pytorch = (_layout(kinds, spanned, pytorch=p) for p in (False, True))
    if "array" not in kinds and not any(k is False for k in key):
        # the block is True alone: one axis of length 1, which may trade places with None's
        numpy, pytorch = ([label if label != "ADV" else "new" for label in labels]
                          for labels in (numpy, pytorch))
    if numpy != pytorch:
        raise IndexError(f"getitem: NumPy and PyTorch order the axes of "
                         f"x[{key_text(tuple(key))}] differently (NumPy counts integers and "
                         "True/False with the index arrays, and a ... between them keeps "
                         "them apart; PyTorch applies the integers first). Index in two "
                         "steps to say which you mean: for x[0, :, i], x[0][:, i] is "
                         "PyTorch's result")


def _layout(kinds: list, spanned: int, pytorch: bool) -> list:
    """The result's axes as labels, under NumPy's rules or PyTorch's (see above)."""
    items, axis = [], 0                 # items: (labels, is it an index array?)
    for c in kinds:
        if c == "slice":
            items.append(([axis], False))
        elif c == "new":
            items.append((["new"], False))
        elif c == "...":
            if spanned or not pytorch:  # NumPy: a separator even when it stands for none
                items.append((list(range(axis, axis + spanned)), False))
            axis += spanned - 1
        elif c == "int" and pytorch:
            pass                        # applied first: its axis is gone
        else:                           # int (NumPy), array, bool: in the block
            items.append(([], True))
            axis -= c == "bool"         # True/False take no axis of x
        axis += 1
    block = [i for i, (_, advanced) in enumerate(items) if advanced]
    labels = [label for labels, advanced in items if not advanced for label in labels]
    if block and block == list(range(block[0], block[-1] + 1)):
        before = sum(len(labels) for labels, advanced in items[:block[0]] if not advanced)
        return labels[:before] + ["ADV"] + labels[before:]
    return ["ADV"] + labels


class GetItem(Function):
    """y = x[key]: basic slicing and integer-array indexing (for cross-entropy's pick; a
    bool mask comes here as integer arrays, see :func:`normalize_key`). The strict
    backend's namespace has the array API's indexing alone: there, index arrays mixed with
    slices go through ``take`` (:mod:`tinyffn.ops.takes`), to NumPy's result.

    dL/dx = zeros(x.shape) with gy added at key; a repeated index receives the sum of its
    gradients (``index_add``, numpy.add.at semantics).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, key):
        if not isinstance(key, CheckedKey):
            _check_index_arrays(ctx.xp, x, key)
        try:
            if ctx.backend.device == "strict":  # the array API's indexing alone: see takes.py
                return takes.getitem(ctx.xp, x, key)
            return x[key]
        except (IndexError, ValueError) as e:               # ValueError: a slice step of 0
            raise IndexError(f"getitem: cannot index a tensor of shape {tuple(x.shape)} with "
                             f"[{key_text(key)}]: {str(e).rstrip('.')}. An index into an "
                             "axis of size n must lie in [-n, n), and there can be at most one "
                             "index per axis") from e

    @staticmethod
    def backward(ctx: Context, gy):
        gx = ctx.xp.zeros(ctx.input_shapes[0], dtype=gy.dtype)
        if not isinstance(gy, ctx.backend.array_type):  # create_graph: the scatter recorded
            # (the key passed the forward's check: IndexAdd need not read it back again)
            return IndexAdd.apply(gx, gy, key=CheckedKey(ctx.attrs["key"]))
        ctx.backend.index_add(gx, ctx.attrs["key"], gy)
        return gx

    flops = staticmethod(_no_arithmetic)

    @classmethod
    def op_name(cls) -> str:
        return "getitem"


class IndexAdd(Function):
    """y = x with v added at key: y = x, then y[key] += v, a repeated index adding each of
    its values (``numpy.add.at``). getitem's adjoint, its backward run forward: PyTorch's
    ``index_add``, ``scatter_add`` and ``index_put(accumulate=True)`` are this op with a
    key of index arrays (see :mod:`tinyffn.scatter`). v has x[key]'s shape, x's dtype.

    dL/dx = gy (every entry of x passes into y once);  dL/dv = gy[key] (each added value
    reads back the gradient where it landed: getitem's forward).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, v, key):
        if not isinstance(key, CheckedKey):
            _check_index_arrays(ctx.xp, x, key)
        y = ctx.xp.asarray(x, copy=True)
        ctx.backend.index_add(y, key, v)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        gx = gy if ctx.needs_input_grad[0] else None
        key = ctx.attrs["key"]
        if not ctx.needs_input_grad[1]:
            gv = None
        elif isinstance(gy, ctx.backend.array_type):
            gv = takes.getitem(ctx.xp, gy, key) if ctx.backend.device == "strict" else gy[key]
        else:                   # create_graph: getitem recorded, the key checked in forward
            gv = GetItem.apply(gy, key=CheckedKey(key))
        return gx, gv

    @staticmethod
    def flops(ctx: Context, y: Any) -> int:
        """One addition per value added."""
        return math.prod(ctx.input_shapes[1])

    @classmethod
    def backward_flops(cls, ctx: Context) -> int:
        return 0                        # gy passed on, and read at key: no arithmetic

    @classmethod
    def op_name(cls) -> str:
        return "index_add"


class CheckedKey(tuple):
    """A key whose index arrays are known to lie inside their axes: made by tinyffn (an
    arange, argsort's order, nonzero's indices of a mask) or range-checked by the function
    that took them from the user (``gather``, ``index_select``, ``index_add``, ...), with a
    message in its own terms. GetItem and IndexAdd do not check it again: a check reads a
    flag back from the device, on a GPU a wait for every kernel queued before it."""
    __slots__ = ()


def _check_index_arrays(xp, x, key: tuple) -> None:
    """Raise for an index array reaching outside its axis, on every backend alike.

    NumPy raises, but CuPy wraps such an index around (``x[[5]]`` of 3 rows would be row
    2), and the backward would add into that row: a wrong answer with no error. One read
    to the host for the whole key (the flags of every array or-ed on the device); only
    once one is out of range are they read one by one, to name it.
    """
    def new_axis(k):                    # None, True and False add an axis of length 1
        return k is None or isinstance(k, bool)

    arrays, axis = [], 0                # (axis, its size, index array)
    for position, k in enumerate(key):
        if k is Ellipsis:               # it stands for the axes the keys after it leave
            axis = x.ndim - sum(not new_axis(j) for j in key[position + 1:])
            continue
        if new_axis(k) or axis >= x.ndim:
            axis += not new_axis(k)
            continue
        if hasattr(k, "dtype") and math.prod(k.shape):
            arrays.append((axis, x.shape[axis], k))
        axis += 1
    if not arrays:
        return
    outside = [xp.any((k < -n) | (k >= n)) for _, n, k in arrays]       # 0-d bools
    if not bool(functools.reduce(xp.logical_or, outside)):               # the one read
        return
    axis, n, k = next(a for a, flag in zip(arrays, outside) if bool(flag))
    bad = int(xp.max(k)) if bool(xp.any(k >= n)) else int(xp.min(k))
    raise IndexError(f"getitem: index {bad} is out of range for axis {axis} of size "
                     f"{n} in a tensor of shape {tuple(x.shape)}; an index into an "
                     f"axis of size n must lie in [-n, n)")


def key_text(key: tuple, short: bool = False) -> str:
    """A normalized key as it would be written inside x[...], index arrays by their shape
    (``short``: as ``i(4,)``, for a graph's label)."""
    def one(k):
        if k is Ellipsis:
            return "..."
        if isinstance(k, slice):
            text = f"{'' if k.start is None else k.start}:{'' if k.stop is None else k.stop}"
            return text if k.step is None else f"{text}:{k.step}"
        if hasattr(k, "shape"):
            return f"i{tuple(k.shape)}" if short else f"<index array of shape {tuple(k.shape)}>"
        return repr(k)
    if len(key) > 1 and key[-1] is Ellipsis and sum(k is Ellipsis for k in key) == 1:
        key = key[:-1]                  # the ... that normalize_key appended: x[5], not x[5, ...]
    return ", ".join(one(k) for k in key)
