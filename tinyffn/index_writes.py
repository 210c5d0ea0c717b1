"""PyTorch's other ways of writing at indices, next to :mod:`tinyffn.scatter`'s three:
``index_fill`` (a number into the slices an index names), ``index_copy`` (slices copied
in), ``index_put`` (``x[indices] = values`` as a function, or ``+=`` with
``accumulate=True``), ``put`` (the same at flat positions), ``masked_scatter`` (a
source's entries, in order, where a mask holds) and ``select_scatter``, ``slice_scatter``,
``diagonal_scatter`` (a tensor written into a row, a slice or a diagonal: what
``x.select``, ``x[a:b:c]`` and ``x.diagonal`` read); the Tensor methods of these and of
:mod:`tinyffn.scatter_reductions` (``scatter_reduce``, ``index_reduce``), and their
in-place forms (``x.index_fill_(...)``, ...), under the rules of ``x -= y``
(:mod:`tinyffn.in_place`).

All are compositions. A write is x where nothing is written and, elsewhere, an
``IndexAdd`` of the values into zeros: ``where(written, IndexAdd(0, v, key), x)``, so x's
gradient stops where a value was written and each value gets the gradient of its place.
A place named twice with two different values is refused: PyTorch keeps one of them,
which one unspecified (``accumulate=True`` adds them instead).
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import _is_int, tensor_arg, type_name
from .backend import dtype_name
from .ops.shape import CheckedKey, GetItem, IndexAdd, normalize_key
from .scatter import _check_range, _dim, _index, _key, _same_dtype
from .scatter_reductions import index_reduce, scatter_reduce
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)

# ----------------------------------------------------------------------------- writing
def index_fill(input, dim, index, value):
    """``input`` with ``value`` (a number or a 0-d tensor, whose gradient is the sum of gy
    over the places filled) in the slices along ``dim`` that ``index`` names, as
    ``torch.index_fill``: ``x.index_fill(1, tensor([0, 2]), -1.0)``. ``index`` 1-D (or
    0-d) int64, in [-n, n) for a dim of size n (a negative one counts from the end, as in
    PyTorch); a repeated index fills once."""
    x = tensor_arg("index_fill", "input", input)
    axis = _dim("index_fill", dim, x)
    idx = _index("index_fill", x, index, 1)
    idx = idx.reshape(1) if idx.ndim == 0 else idx
    if isinstance(value, _tensor.Tensor) and value.ndim:
        raise ValueError(f"index_fill: value must be a number or a 0-d tensor (as in "
                         f"PyTorch), got shape {value.shape}; for slices use index_copy")
    n, xp = (x.shape[axis] if x.ndim else 1), x.backend.xp
    if math.prod(idx.shape) and bool(xp.any((idx.data < -n) | (idx.data >= n))):
        bad = int(xp.max(idx.data)) if bool(xp.any(idx.data >= n)) else int(xp.min(idx.data))
        raise IndexError(f"index_fill: index {bad} is out of range for dim {axis} of size {n} "
                         f"(input of shape {x.shape}); the indices must lie in [{-n}, {n})")
    idx = _tensor.Tensor(xp.where(idx.data < 0, idx.data + n, idx.data), _backend=x.backend)
    one = x if x.ndim else x.reshape(1)
    sizes = one.shape[:axis] + idx.shape + one.shape[axis + 1:]
    with grad_mode.scope("function", "index_fill"):
        y = one.masked_fill(_places(one, _key(one, idx.data, axis, sizes), sizes) > 0, value)
        return y if x.ndim else y.reshape(())


def index_copy(input, dim, index, source):
    """``input`` with the slices of ``source`` along ``dim`` copied into the slices that
    ``index`` names, as ``torch.index_copy``: y.select(dim, index[i]) = source.select(dim,
    i). ``index`` 1-D (or 0-d) int64 in [0, n), no slice named twice (PyTorch keeps one,
    which one unspecified); source as :func:`~tinyffn.scatter.index_add`'s. The gradient
    of input is gy outside the slices written, that of source gy.index_select(dim,
    index)."""
    x = tensor_arg("index_copy", "input", input)
    axis = _dim("index_copy", dim, x)
    idx = _index("index_copy", x, index, 1)
    idx = idx.reshape(1) if idx.ndim == 0 else idx
    v = tensor_arg("index_copy", "source", source)
    one = x if x.ndim else x.reshape(1)
    sizes = one.shape[:axis] + idx.shape + one.shape[axis + 1:]
    if v.shape != (sizes if x.ndim else ()) and v.shape != sizes:
        raise ValueError(f"index_copy: source must have input's shape with index's length "
                         f"along dim {axis}, {sizes if x.ndim else idx.shape}; got {v.shape}")
    _same_dtype("index_copy", x, v, "source")
    _check_range("index_copy", x, idx, axis)
    with grad_mode.scope("function", "index_copy"):
        y = _written("index_copy", one, _key(one, idx.data, axis, sizes), v, sizes)
        return y if x.ndim else y.reshape(())


def index_put(input, indices, values, accumulate=False):
    """``x[indices] = values`` as a function, as ``torch.index_put``: a new tensor, input
    where ``indices`` (a tuple of index tensors, int64 or bool masks, one per leading axis)
    names no place, ``values`` (of input's dtype, broadcast to ``input[indices]``'s shape)
    where it does. With ``accumulate=True`` the values are added instead, a place named
    twice receiving each (``input[indices] += values`` as PyTorch's index_put_ means it);
    without, a place named twice is refused unless values has one element (PyTorch keeps
    one of the values, which one unspecified)."""
    x = tensor_arg("index_put", "input", input)
    if not isinstance(indices, (tuple, list)) or not all(
            isinstance(i, _tensor.Tensor) for i in indices):
        raise TypeError(f"index_put: indices must be a tuple of index tensors (int64, or "
                        f"bool masks), one per leading axis, got {type_name(indices)}"
                        + ("" if not isinstance(indices, (tuple, list)) else " holding " +
                           ", ".join(type_name(i) for i in indices)))
    for i in indices:
        if dtype_name(i.dtype) not in ("int64", "int32", "bool"):
            raise TypeError(f"index_put: index tensors must be int64 (or int32) or bool "
                            f"masks, as in PyTorch, got {dtype_name(i.dtype)}; write "
                            f"index.long()")
    v = tensor_arg("index_put", "values", values)
    _same_dtype("index_put", x, v, "values")
    key, target = _checked_key("index_put", x, tuple(indices))
    with grad_mode.scope("function", "index_put"):
        vs = _broadcast("index_put", v, target, "input[indices]")
        if accumulate:
            return IndexAdd.apply(x, vs, key=key)
        return _written("index_put", x, key, v if v.numel() == 1 else vs, target)


def put(input, index, source, accumulate=False):
    """``input`` with ``source``'s entries written at the flat positions ``index`` names
    (input read as ``input.flatten()``), as ``torch.put``: index an int64 tensor of any
    shape, in [-numel, numel), source of index's number of entries and input's dtype;
    ``accumulate=True`` adds instead. A position named twice as :func:`index_put`'s."""
    x = tensor_arg("put", "input", input)
    if not isinstance(index, _tensor.Tensor) or dtype_name(index.dtype) not in ("int64",
                                                                               "int32"):
        got = dtype_name(index.dtype) if isinstance(index, _tensor.Tensor) else type_name(index)
        raise TypeError(f"put: index must be a tinyffn Tensor of int64 (as in PyTorch), got "
                        f"{got}; write tinyffn.tensor(...) or index.long()")
    v = tensor_arg("put", "source", source)
    if v.numel() != index.numel():
        raise ValueError(f"put: source must have as many entries as index, {index.numel()} "
                         f"(index of shape {index.shape}); got {v.numel()} (shape {v.shape})")
    _same_dtype("put", x, v, "source")
    flat = x.reshape(-1)
    key, _ = _checked_key("put", flat, (index.reshape(-1),))
    with grad_mode.scope("function", "put"):
        v = v.reshape(-1)
        y = IndexAdd.apply(flat, v, key=key) if accumulate else \
            _written("put", flat, key, v, v.shape)
        return y.reshape(x.shape)


def masked_scatter(input, mask, source):
    """``input`` with ``source``'s first entries, in row-major order, written where the bool
    ``mask`` (broadcast to input's shape) holds, as ``torch.masked_scatter``: the k-th True
    place (row-major) takes source.flatten()[k]. source of input's dtype, at least as many
    entries as the mask has True places (counting them is one read from the device).
    Gradients: input's gy where the mask does not hold, source's gy at the place each
    entry went, 0 for entries not used."""
    x = tensor_arg("masked_scatter", "input", input)
    m = tensor_arg("masked_scatter", "mask", mask)
    v = tensor_arg("masked_scatter", "source", source)
    if dtype_name(m.dtype) != "bool":
        raise TypeError(f"masked_scatter: mask must be a bool tensor, got "
                        f"{dtype_name(m.dtype)}; write mask.bool() or a comparison (x > 0)")
    _same_dtype("masked_scatter", x, v, "source")
    if m.backend is not x.backend:
        raise ValueError(f"masked_scatter: mask is on {m.device} and input on {x.device}; "
                         f"move mask with .to('{x.device}')")
    xp = x.backend.xp
    try:
        where = xp.broadcast_to(m.data, x.shape)
    except ValueError:
        raise ValueError(f"masked_scatter: a mask of shape {m.shape} does not broadcast to "
                         f"input's shape {x.shape}") from None
    if x.ndim:
        key = CheckedKey(xp.nonzero(where))     # a mask's places lie inside x
        count = int(key[0].shape[0])
    else:                                       # nonzero refuses a 0-d array
        count = int(bool(where))
    if count > v.numel():
        raise ValueError(f"masked_scatter: the mask holds at {count} places but source has "
                         f"{v.numel()} entries (shape {v.shape}); source needs one per place")
    with grad_mode.scope("function", "masked_scatter"):
        if not x.ndim:
            return x.masked_fill(m, v.reshape(-1)[0]) if v.numel() else x
        return _written("masked_scatter", x, key, v.reshape(-1)[:count], (count,),
                        distinct=True)          # a mask names each place once


def select_scatter(input, src, dim, index):
    """``input`` with ``src`` written where ``input.select(dim, index)`` reads, as
    ``torch.select_scatter``; src of exactly that shape."""
    x = tensor_arg("select_scatter", "input", input)
    axis = _dim("select_scatter", dim, x)
    if not _is_int(index) or not -x.shape[axis] <= index < x.shape[axis]:
        raise IndexError(f"select_scatter: index must be an int in [{-x.shape[axis]}, "
                         f"{x.shape[axis]}) for dim {axis} of input of shape {x.shape}, "
                         f"got {index!r}")
    return _embedded("select_scatter", x, src, (slice(None),) * axis + (int(index),))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``src`` written where ``input[..., start:end:step, ...]`` (along
    ``dim``) reads, as ``torch.slice_scatter``: start and end as Python's slices read them,
    step positive; src of exactly that shape."""
    x = tensor_arg("slice_scatter", "input", input)
    axis = _dim("slice_scatter", dim, x)
    if not _is_int(step) or step < 1:
        raise ValueError(f"slice_scatter: step must be a positive int (as in PyTorch), "
                         f"got {step!r}")
    bounds = [b for b in (start, end) if b is not None and not _is_int(b)]
    if bounds:
        raise TypeError(f"slice_scatter: start and end must be ints or None, got {bounds[0]!r}")
    within = slice(*slice(start, end, step).indices(x.shape[axis]))    # bounds clamped, as
    return _embedded("slice_scatter", x, src, (slice(None),) * axis + (within,))  # PyTorch's


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with ``src`` written where ``input.diagonal(offset, dim1, dim2)`` reads,
    as ``torch.diagonal_scatter``: src of that shape, the other axes first and the
    diagonal last."""
    x = tensor_arg("diagonal_scatter", "input", input)
    if x.ndim < 2:
        raise ValueError(f"diagonal_scatter: input must have 2 axes or more, got shape "
                         f"{x.shape}")
    a, b = _dim("diagonal_scatter", dim1, x), _dim("diagonal_scatter", dim2, x)
    if a == b or not _is_int(offset):
        raise ValueError(f"diagonal_scatter: dim1 and dim2 must differ and offset be an int, "
                         f"got offset={offset!r}, dim1={dim1!r}, dim2={dim2!r}")
    v = tensor_arg("diagonal_scatter", "src", src)
    length = max(0, min(x.shape[a] + min(offset, 0), x.shape[b] - max(offset, 0)))
    target = tuple(n for d, n in enumerate(x.shape) if d not in (a, b)) + (length,)
    if v.shape != target:       # x.diagonal()'s layout: the other axes, then the diagonal
        raise ValueError(f"diagonal_scatter: src must have the shape of the diagonal it "
                         f"replaces, {target} (of input of shape {x.shape}), got {v.shape}")
    rows = x.backend.xp.arange(length) - min(offset, 0)
    moved = x.movedim((a, b), (0, 1))          # the diagonal's two axes first
    y = _embedded("diagonal_scatter", moved, v.movedim(-1, 0), (rows, rows + offset))
    return y.movedim((0, 1), (a, b))


# ----------------------------------------------------------------------------- the parts
def _written(op: str, x, key: tuple, v, shape: tuple, distinct: bool = False):
    """x with v (of x's dtype, and of ``shape``, x[key]'s, or of one entry) written at the
    places ``key`` (checked) names: ``where(written, IndexAdd(0, v, key), x)``; one value
    is a ``where`` with it, which may fill a place twice. Two values at one place are
    refused, unless the key is known to name each once (``distinct``): looking is a read
    of the device."""
    written = _places(x, key, shape)
    if v.numel() == 1:
        return x.where(written == 0, v.reshape(()))
    v = v if v.shape == shape else v.broadcast_to(*shape)
    if not distinct and bool(x.backend.xp.any(written.data > 1)):
        raise ValueError(f"{op}: the index names a place more than once, where PyTorch keeps "
                         "one of the values written (which one is unspecified); make the "
                         "indices distinct" + (", or accumulate=True to add them"
                                               if op in ("index_put", "put") else ""))
    from .creation import zeros_like    # creation.py imports tensor.py, which imports this
    return x.where(written == 0, IndexAdd.apply(zeros_like(x), v, key=key))


def _places(x, key: tuple, shape: tuple):
    """How many times ``key`` names each place of x: an int64 tensor of x's shape."""
    xp = x.backend.xp
    hits = xp.zeros(x.shape, dtype=xp.int64)
    x.backend.index_add(hits, key, xp.ones(shape, dtype=xp.int64))
    return _tensor.Tensor(hits, _backend=x.backend)


def _checked_key(op: str, x, indices: tuple) -> tuple:
    """(key, shape of x[key]) for index tensors and masks, range-checked once, by getitem
    (so a bad index is getitem's message, told as ``op``'s)."""
    from .backend import DeviceError
    try:
        with grad_mode.no_grad():
            key = _whole(x, normalize_key(indices, x))
            shape = GetItem.apply(x, key=key).shape
    except (IndexError, TypeError, ValueError, DeviceError) as e:
        raise type(e)(f"{op}: {str(e).removeprefix('getitem: ')}") from e
    return CheckedKey(key), shape


def _whole(x, key: tuple) -> tuple:
    """A key of index arrays (or ints) for x's first axes, with an index array for each
    axis after them (its positions, laid after the arrays' axes), so that x[key] reads as
    before: the array API (the strict backend) takes index arrays only for every axis."""
    arrays = [k for k in key if hasattr(k, "dtype")]
    if not arrays or len(key) == x.ndim:
        return key
    xp, rest = x.backend.xp, x.shape[len(key):]
    lead = len(xp.broadcast_arrays(*arrays)[0].shape)
    after = [xp.reshape(xp.arange(n), (1,) * lead + tuple(n if b == a else 1
                                                           for b in range(len(rest))))
             for a, n in enumerate(rest)]
    ones = (1,) * len(rest)                         # the arrays' axes come first
    lead_keys = tuple(xp.reshape(k, k.shape + ones) if hasattr(k, "dtype") else k for k in key)
    return type(key)(lead_keys + tuple(after))


def _broadcast(op: str, v, shape: tuple, what: str):
    try:
        return v if v.shape == shape else v.broadcast_to(*shape)
    except ValueError:
        raise ValueError(f"{op}: values of shape {v.shape} do not broadcast to {what}'s "
                         f"shape {shape}") from None


def _embedded(op: str, x, src: Any, key: tuple):
    """x with src (of exactly x[key]'s shape; cast to x's dtype if of the same kind, as
    PyTorch casts it) written where ``key`` reads: slices and an int, two aranges (a
    diagonal), or a packed batch's (time, example) places (pad_packed_sequence), inside x
    and naming each place once, so nothing is read back to check."""
    from .promotion import kind_of      # promotion.py imports tensor.py, which imports this
    v = tensor_arg(op, "src", src)
    key = CheckedKey(_whole(x, normalize_key(key, x)))
    target = tuple(x.data[key].shape)
    if v.shape != target:
        raise ValueError(f"{op}: src must have the shape of what it replaces, {target} (of "
                         f"input of shape {x.shape}), got {v.shape}")
    if v.dtype != x.dtype:
        if kind_of(v.dtype, x.backend) != kind_of(x.dtype, x.backend):
            raise TypeError(f"{op}: src ({dtype_name(v.dtype)}) is not of the kind of input "
                            f"({dtype_name(x.dtype)}); cast it with .to(dtype=input.dtype)")
        v = v.to(dtype=dtype_name(x.dtype))
    with grad_mode.scope("function", op):
        return _written(op, x, key, v, target, distinct=True)


class IndexWriteMethods:
    """The Tensor methods of the functions above and their in-place forms; a base class of
    ``Tensor`` (through ``TorchMethods``)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        return index_reduce(self, dim, index, source, reduce, include_self=include_self)

    def index_fill(self, dim, index, value): return index_fill(self, dim, index, value)
    def index_copy(self, dim, index, source): return index_copy(self, dim, index, source)
    def put(self, index, source, accumulate=False): return put(self, index, source, accumulate)
    def masked_scatter(self, mask, source): return masked_scatter(self, mask, source)
    def select_scatter(self, src, dim, index): return select_scatter(self, src, dim, index)
    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        return diagonal_scatter(self, src, offset, dim1, dim2)

    def index_put(self, indices, values, accumulate=False):
        return index_put(self, indices, values, accumulate)

    def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
        return slice_scatter(self, src, dim, start, end, step)

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        return _in_place(self, "scatter_reduce", dim, index, src, reduce,
                         include_self=include_self)

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        return _in_place(self, "index_reduce", dim, index, source, reduce,
                         include_self=include_self)

    def index_fill_(self, dim, index, value):
        return _in_place(self, "index_fill", dim, index, value)

    def index_copy_(self, dim, index, source):
        return _in_place(self, "index_copy", dim, index, source)

    def index_put_(self, indices, values, accumulate=False):
        return _in_place(self, "index_put", indices, values, accumulate)

    def put_(self, index, source, accumulate=False):
        return _in_place(self, "put", index, source, accumulate)

    def masked_scatter_(self, mask, source): return _in_place(self, "masked_scatter", mask, source)


def _in_place(x, name: str, *args, **kwargs):
    from .in_place import _replaced     # in_place.py imports tensor.py, which imports this
    return _replaced(x, name, *args, **kwargs)


__all__ = ["index_fill", "index_copy", "index_put", "put",
           "masked_scatter", "select_scatter", "slice_scatter", "diagonal_scatter",
           "IndexWriteMethods"]
