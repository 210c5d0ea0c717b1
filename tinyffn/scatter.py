"""Writing values at indices, under PyTorch's names: ``index_add`` (rows added into the
rows an index names: a mixture of experts puts each expert's outputs back in place),
``scatter_add`` (a value per index entry added along ``dim``: counts, sums per class) and
``scatter`` (values written: ``zeros.scatter(1, labels, 1.0)`` is a one-hot table); their
in-place forms ``index_add_``, ``scatter_add_`` and ``scatter_`` are in
:mod:`tinyffn.in_place` with the others.

Adding is one primitive, :class:`~tinyffn.ops.shape.IndexAdd` (getitem's adjoint: y = x
with v added at a key, repeated indices adding up), so its gradients are getitem's read
backwards: x's passes through, each added value gets the gradient where it landed.
``scatter`` writes rather than adds: ``masked_fill`` for a number, and for a tensor a
``where`` between x and an IndexAdd into zeros, so x's gradient stops where a value was
written. The key is built as :func:`tinyffn.sorting.gather` builds its own: the index at
``dim`` and, at every other axis, the positions along it, so every backend (the strict one
too) reads it as integer-array indexing.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import _is_int, is_real, tensor_arg, type_name
from .backend import dtype_name
from .ops.shape import CheckedKey, IndexAdd
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with the slices of ``source`` along ``dim`` added into the slices that
    ``index`` names, as ``torch.index_add``: y.select(dim, index[i]) += alpha ·
    source.select(dim, i); a repeated index adds each. ``index`` a 1-D int64 or int32
    tensor with values in [0, size of dim); ``source`` of input's shape but index's length
    along dim, and input's dtype (PyTorch's rule); an integer input takes a whole alpha
    (2.0 is 2; PyTorch truncates 0.5 to 0, here refused). One ``index_add`` node (after a ``mul``
    for alpha ≠ 1): the gradient of input is gy, that of source gy.index_select(dim,
    index) · alpha."""
    x = tensor_arg("index_add", "input", input)
    axis = _dim("index_add", dim, x)
    idx = _index("index_add", x, index, 1)
    idx = idx.reshape(1) if idx.ndim == 0 else idx
    v = tensor_arg("index_add", "source", source)
    want = x.shape[:axis] + (idx.shape[0],) + x.shape[axis + 1:] if x.ndim else idx.shape
    if v.shape != want and not (x.ndim == 0 and v.shape == ()):
        raise ValueError(f"index_add: source must have input's shape with index's length "
                         f"along dim {axis}, {want}; got {v.shape}")
    _same_dtype("index_add", x, v, "source")
    _check_range("index_add", x, idx, axis)
    if not is_real(alpha) or isinstance(alpha, bool):
        raise TypeError(f"index_add: alpha must be a number, got {alpha!r}")
    if not x.backend.is_floating(x.dtype):      # source * 0.5 would make the result float
        if not float(alpha).is_integer():
            raise TypeError(f"index_add: alpha={alpha!r} for an input of dtype "
                            f"{dtype_name(x.dtype)}; an integer input takes an integer alpha "
                            "(PyTorch truncates it silently), or cast input with .float()")
        alpha = int(alpha)
    return _index_added(x, axis, idx, v, alpha)


def _index_added(x, axis: int, idx, v, alpha=1):
    """``x.index_add(axis, idx, v, alpha=alpha)`` for an ``idx`` (1-D) known to fit:
    checked by :func:`index_add`, or made by tinyffn (MoEFFN's choices sorted by argsort).
    There it is not checked again: the check reads a flag from the device, on a GPU a wait
    for every kernel queued before it."""
    sizes = v.shape if x.ndim else (idx.shape[0],)
    with grad_mode.scope("function", "index_add"):
        v = v if alpha == 1 else v * alpha
        y = x if x.ndim else x.reshape(1)
        v = v if v.shape == sizes else v.reshape(sizes)             # (a 0-d x: one entry)
        y = IndexAdd.apply(y, v, key=_key(x, idx.data, axis, sizes))
        return y if x.ndim else y.reshape(())


def scatter_add(input, dim, index, src):
    """``input`` with src[i][j] added into y[index[i][j]][j] for dim 0 (y[i][index[i][j]]
    for dim 1, and so on), as ``torch.scatter_add``: ``counts.scatter_add(0, labels,
    ones)``. ``index`` (int64) has input's number of axes, is no longer than ``src``
    along any axis nor than input along any but ``dim``; src's entries beyond index's
    shape are not read (PyTorch's rule). One ``index_add`` node: the gradient of input is
    gy, that of src gy.gather(dim, index) where read, 0 beyond."""
    x = tensor_arg("scatter_add", "input", input)
    v = tensor_arg("scatter_add", "src", src)
    axis, idx = _scatter_args("scatter_add", x, dim, index, v)
    _same_dtype("scatter_add", x, v, "src")
    return _scatter_added(x, axis, idx, v)


def _scatter_added(x, axis: int, idx, v):
    """``x.scatter_add(axis, idx, v)`` for an ``idx`` known to fit (checked by
    :func:`scatter_add`, or by max_unpool): not checked again, which would read a flag from
    the device, on a GPU a wait for every kernel queued before it."""
    with grad_mode.scope("function", "scatter_add"):
        return _added(x, _read(v, idx.shape), idx, axis)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``input`` with src[i][j] written into y[index[i][j]][j] for dim 0 (and so on), or
    with the number ``value`` (which may stand in ``src``'s place) written there, as
    ``torch.scatter``: ``zeros(n, C).scatter(1, labels.unsqueeze(1), 1.0)`` is one-hot.
    Index and src as :func:`scatter_add`'s. A number: ``masked_fill`` of the places
    written (a fraction into an integer tensor is refused, as ``masked_fill`` refuses it).
    A tensor: a ``where`` between input and src added into zeros, so input's gradient is
    gy where nothing was written, src's gy.gather(dim, index). An index that names one
    place twice is refused for a tensor src: PyTorch keeps one of the values, which one
    unspecified (``scatter_add`` adds them). ``reduce`` is refused (PyTorch deprecates
    it): ``scatter_add``, or ``scatter_reduce`` written with these."""
    x = tensor_arg("scatter", "input", input)
    if reduce is not None:
        raise NotImplementedError("scatter: reduce is not supported (PyTorch deprecates it); "
                                  "for reduce='add' use scatter_add")
    if (src is None) == (value is None):
        raise TypeError("scatter: pass src (a tensor, or a number) or value, one of them")
    fill = value if src is None else src
    number = not isinstance(fill, _tensor.Tensor)
    if number and not (is_real(fill) or isinstance(fill, bool)):
        raise TypeError(f"scatter: src must be a Tensor or a number, got {type_name(fill)}")
    axis, idx = _scatter_args("scatter", x, dim, index, None if number else fill)
    xp = x.backend.xp
    hits = xp.zeros(x.shape if x.ndim else (1,), dtype=xp.int64)
    x.backend.index_add(hits, _key(x, idx.data, axis, idx.shape), xp.ones(idx.shape, dtype=xp.int64))
    written = _tensor.Tensor(xp.reshape(hits > 0, x.shape), _backend=x.backend)
    with grad_mode.scope("function", "scatter"):
        if number:
            return x.masked_fill(written, fill)
        _same_dtype("scatter", x, fill, "src")
        if bool(xp.any(hits > 1)):
            raise ValueError("scatter: index names a place more than once, where PyTorch "
                             "keeps one of the values (which one is unspecified); make the "
                             "indices distinct, or use scatter_add to add them")
        from .composed import where     # composed.py imports tensor.py, which imports this
        from .creation import zeros_like
        return where(written, _added(zeros_like(x), _read(fill, idx.shape), idx, axis), x)


# ----------------------------------------------------------------------------- the parts
def _added(x, v, idx, axis: int):
    """x with v added at the places idx names along axis: one IndexAdd."""
    y = x if x.ndim else x.reshape(1)
    v = v if v.shape == idx.shape else v.reshape(idx.shape)
    y = IndexAdd.apply(y, v, key=_key(x, idx.data, axis, idx.shape))
    return y if x.ndim else y.reshape(())


def _read(v, shape: tuple):
    """v's first entries along each axis, to ``shape`` (a getitem, when it is shorter)."""
    if v.ndim == 0:
        return v.reshape(1)
    if v.shape == shape:
        return v
    return v[tuple(slice(0, n) for n in shape)]


def _key(x, idx, axis: int, sizes: tuple) -> tuple:
    """The integer-array key of the places named: ``idx`` at ``axis`` and, at every other
    axis a, arange(sizes[a]) laid along axis a alone; they broadcast to ``sizes``."""
    xp, key = x.backend.xp, []
    for a, n in enumerate(sizes):
        if a == axis:
            key.append(xp.astype(idx if idx.ndim == len(sizes) else xp.reshape(
                idx, tuple(n if b == a else 1 for b in range(len(sizes)))), xp.int64))
        else:
            along_a = tuple(n if b == a else 1 for b in range(len(sizes)))
            key.append(xp.reshape(xp.arange(n), along_a))          # (1, ..., n, ..., 1)
    return CheckedKey(key)              # idx range-checked by the caller: IndexAdd does not


def _scatter_args(op: str, x, dim: Any, index: Any, v: Any) -> tuple:
    """(axis, index tensor) for scatter and scatter_add, checked as PyTorch checks them."""
    axis = _dim(op, dim, x)
    idx = _index(op, x, index, max(x.ndim, 1))
    idx = idx.reshape(1) if idx.ndim == 0 else idx
    shape = x.shape if x.ndim else (1,)
    for a, (m, n) in enumerate(zip(idx.shape, shape)):
        if a != axis and m > n:
            raise ValueError(f"{op}: index of shape {idx.shape} is longer than input of "
                             f"shape {x.shape} along dim {a}; except along dim {axis}, index "
                             "may be as long as input or shorter")
    if v is not None:
        vshape = v.shape if v.ndim else (1,)
        if len(vshape) != idx.ndim or any(m > n for m, n in zip(idx.shape, vshape)):
            raise ValueError(f"{op}: index of shape {idx.shape} must be no longer than src "
                             f"of shape {v.shape} along every axis (PyTorch's rule)")
    _check_range(op, x, idx, axis)
    return axis, idx


def _index(op: str, x, index: Any, ndim: int):
    if not isinstance(index, _tensor.Tensor) or dtype_name(index.dtype) not in ("int64",
                                                                               "int32"):
        got = dtype_name(index.dtype) if isinstance(index, _tensor.Tensor) else \
            type_name(index)
        raise TypeError(f"{op}: index must be a tinyffn Tensor of int64 (or int32), as in "
                        f"PyTorch, got {got}; write tinyffn.tensor(...) or index.long()")
    if index.backend is not x.backend:
        raise ValueError(f"{op}: index is on {index.device} and input on {x.device}; move "
                         f"index with .to('{x.device}')")
    if index.ndim not in (0, ndim):
        raise ValueError(f"{op}: index must have {ndim} axis(es){' (or none)' if ndim == 1 else ''}"
                         f", as input{' has' if ndim > 1 else ''}; got shape {index.shape}")
    return index


def _check_range(op: str, x, idx, axis: int) -> None:
    xp, n = x.backend.xp, (x.shape[axis] if x.ndim else 1)
    if math.prod(idx.shape) and bool(xp.any((idx.data < 0) | (idx.data >= n))):
        bad = int(xp.max(idx.data)) if bool(xp.any(idx.data >= n)) else int(xp.min(idx.data))
        raise IndexError(f"{op}: index {bad} is out of range for dim {axis} of size {n} "
                         f"(input of shape {x.shape}); the indices must lie in [0, {n})")


def _dim(op: str, dim: Any, x) -> int:
    n = max(x.ndim, 1)
    if not _is_int(dim) or not -n <= dim < n:
        raise ValueError(f"{op}: dim must be an int in [{-n}, {n - 1}] for input of shape "
                         f"{x.shape}, got {dim!r}")
    return int(dim) % n


def _same_dtype(op: str, x, v, name: str) -> None:
    if v.dtype != x.dtype:
        raise TypeError(f"{op}: input ({dtype_name(x.dtype)}) and {name} "
                        f"({dtype_name(v.dtype)}) must have the same dtype, as in PyTorch; "
                        f"cast {name} with .to(dtype=input.dtype)")



class ScatterMethods:
    """The Tensor methods of the functions above (their in-place forms: in_place.py)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def index_add(self, dim, index, source, *, alpha=1):
        return index_add(self, dim, index, source, alpha=alpha)

    def scatter_add(self, dim, index, src): return scatter_add(self, dim, index, src)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        return scatter(self, dim, index, src, value=value, reduce=reduce)


__all__ = ["index_add", "scatter_add", "scatter", "ScatterMethods"]
