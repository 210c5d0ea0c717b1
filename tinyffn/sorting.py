"""Sorting and picking entries by index, under PyTorch's names: ``sort``, ``argsort``,
``topk``, ``gather`` and ``take_along_dim`` (``h.topk(5)``: which hidden units fire most).

``sort`` and ``topk`` take two steps; ``argsort`` is the first alone, ``gather`` and
``take_along_dim`` (given the indices) the second alone. None is a new primitive:

1. **Which entry goes where** is decided on the arrays, by the backend's stable
   ``argsort``: an int64 tensor outside any graph, as ``argmax``'s (an order has no
   gradient).
2. **The values** are picked out of x with those indices by one ``getitem`` (NumPy's
   ``take_along_axis``; see :func:`_along`), so their gradient is getitem's scatter-add:
   the gradient of ``sort``'s and ``topk``'s values lands on the entries chosen, and in
   ``gather`` an entry picked twice receives the sum of both gradients.

The order is PyTorch's: NaN counts as larger than every number, so it comes last in
ascending order and first in descending order (and first in ``topk``); -0.0 equals 0.0;
ties keep their order in x. tinyffn always sorts stably: ``stable=False`` (the default,
as in PyTorch) leaves the order of ties unspecified there, so the stable order is one of
the answers it allows, and one that no sorting algorithm changes. A descending sort is
the ascending sort of x reversed, reversed back: the ties stay in their order, and the
NaNs, last when ascending, come first. ``topk(sorted=False)`` returns them sorted too
(PyTorch's order is unspecified there), and among tied values takes the earlier index
(PyTorch's choice among ties is unspecified). A 0-d tensor is read as one entry along
dim 0, as in PyTorch.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import _is_int, type_name
from .backend import DeviceError, dtype_name
from .composed import ValuesIndices
from .in_place import as_view
from .ops.shape import CheckedKey, GetItem
from .tensor import Tensor
from .torch_functions import _tensor_input


class SortResult(ValuesIndices):
    """What ``sort`` returns, as ``torch.return_types.sort``: ``.values`` (in the graph)
    and ``.indices`` (int64), or unpacked, ``values, indices = x.sort()``."""
    __slots__ = ()
    made_by = "x.sort()"


class TopkResult(ValuesIndices):
    """What ``topk`` returns, as ``torch.return_types.topk``: ``.values``, ``.indices``."""
    __slots__ = ()
    made_by = "x.topk(k)"


# ----------------------------------------------------------------------------- sorting
def sort(input, dim=-1, descending=False, *, stable=False):
    """``input``'s entries along ``dim`` in ascending order (descending with
    ``descending=True``), and where each came from, as ``torch.sort``: ``values, indices
    = x.sort()``, with values[..., j, ...] = x[..., indices[..., j, ...], ...]. Ties keep
    their order (``stable`` is accepted: tinyffn always sorts stably, see the module's
    docstring); NaN counts as the largest. The values' gradient returns to the entry
    each came from."""
    x = _tensor_input("sort", input)
    _check_flags("sort", descending=descending, stable=stable)
    return SortResult(*_sorted("sort", x, _dim("sort", dim, x.ndim), descending, None))


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``input`` along ``dim``, as ``torch.argsort``: ``sort``'s
    ``.indices``, an int64 tensor outside any graph."""
    x = _tensor_input("argsort", input)
    _check_flags("argsort", descending=descending, stable=stable)
    axis, xp = _dim("argsort", dim, x.ndim), x.backend.xp
    if x.ndim == 0:                                  # one entry: it is at index 0
        return Tensor(xp.zeros((), dtype=xp.int64), _backend=x.backend)
    return Tensor(_order(xp, x.data, axis, descending), _backend=x.backend)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest entries along ``dim`` (the smallest with ``largest=False``) and
    their indices, as ``torch.topk``: ``values, indices = h.topk(5)``, largest first.
    ``sort``'s first k: NaN counts as the largest; among ties the earlier index comes
    first; ``sorted=False`` returns them sorted as well. k lies in [0, size of dim]. A
    bool tensor is refused, as in PyTorch. The values' gradient lands on the entries
    chosen; the others get 0."""
    x = _tensor_input("topk", input)
    _check_flags("topk", largest=largest, sorted=sorted)
    axis = _dim("topk", dim, x.ndim)
    if dtype_name(x.dtype) == "bool":
        raise TypeError("topk: a bool tensor has no k largest (PyTorch refuses it too); "
                        "write x.long().topk(k), or x.sort(descending=True) to order it")
    if not _is_int(k):
        raise TypeError(f"topk: k must be an int, got {k!r}" +
                        ("; for a one-element tensor write int(k)" if isinstance(k, Tensor)
                         else ""))
    n = x.shape[axis] if x.ndim else 1
    if not 0 <= k <= n:
        raise ValueError(f"topk: k={k} is out of range for dim {dim} of size {n} (input of "
                         f"shape {x.shape}); k must lie in [0, {n}]")
    return TopkResult(*_sorted("topk", x, axis, largest, k))


def _sorted(op: str, x, axis: int, descending: bool, k: int | None) -> tuple:
    """(values, indices): x's entries along ``axis`` in order, the first ``k`` of them
    (all when None), in a frame ``op``. A 0-d x is one entry: itself and index 0 (in
    PyTorch ``topk`` gives them for k = 0 too, as a 0-d result has room for one)."""
    xp, scalar = x.backend.xp, x.ndim == 0
    with grad_mode.scope("function", op):
        if scalar:
            x = x.reshape(1)                                 # (1,)
        order = _order(xp, x.data, axis, descending)         # x's shape, int64
        if k is not None and not scalar:
            order = order[(slice(None),) * axis + (slice(0, k), ...)]   # k along axis
        values = _along(x, order, axis, tuple(order.shape))
        if scalar:
            values, order = as_view(values.reshape(()), None), xp.reshape(order, ())
    return values, Tensor(order, _backend=x.backend)


def _order(xp, data, axis: int, descending: bool):
    """The indices that sort ``data`` along ``axis`` (int64, ``data``'s shape); ties in
    their order. Descending: the ascending order of ``data`` reversed, reversed back and
    counted from the other end, so that ties stay in their order (reversing the
    ascending order would reverse them) and NaN, which NumPy's sort puts last (and
    CuPy's, for a NaN without its sign bit), comes first."""
    if xp.isdtype(data.dtype, "bool"):              # the standard sorts numbers, not bools
        data = xp.astype(data, xp.uint8)
    elif xp.isdtype(data.dtype, "real floating"):
        # CuPy radix-sorts floats by their bits, which puts a NaN with its sign bit set
        # first and may put -0.0 before 0.0: sort a key with every NaN as NaN and -0.0
        # as 0.0 (-0.0 + 0.0 is 0.0), as NumPy's and PyTorch's comparisons see them
        data = xp.where(xp.isnan(data), xp.nan, data + 0.0)
    if not descending:
        order = xp.argsort(data, axis=axis, stable=True)
    else:
        reversed_order = xp.argsort(xp.flip(data, axis=axis), axis=axis, stable=True)
        order = (data.shape[axis] - 1) - xp.flip(reversed_order, axis=axis)
    return xp.astype(order, xp.int64)


# ----------------------------------------------------------------------------- gathering
def gather(input, dim, index, *, sparse_grad=False):
    """The entries of ``input`` that ``index`` names along ``dim``, as ``torch.gather``;
    for a matrix, y[i][j] = x[index[i][j]][j] for dim 0 and x[i][index[i][j]] for dim 1.
    ``index`` is an int64 (or int32) tensor with as many axes as x, no longer than x along
    the other axes (it may be shorter: it reads their first entries), with values in
    [0, size of dim) (negative ones are refused, as in PyTorch); y has index's shape. One
    ``getitem``: an entry picked twice receives the sum of both gradients. PyTorch's
    ``sparse_grad=False`` is taken; True (a sparse gradient) is refused: tinyffn's are dense."""
    x = _tensor_input("gather", input)
    if sparse_grad is not False:
        raise ValueError(f"gather: sparse_grad={sparse_grad!r}: tinyffn's gradients are dense "
                         "arrays (no sparse tensors); leave sparse_grad False")
    axis = _dim("gather", dim, x.ndim)
    index = _index_array("gather", x, index, "index", ("int64", "int32"))
    xp = x.backend.xp
    idx = index if index.ndim else xp.reshape(index, (1,))   # PyTorch reads 0-d as one entry
    shape = tuple(x.shape) if x.ndim else (1,)
    if idx.ndim != len(shape):
        raise ValueError(f"gather: index has shape {tuple(index.shape)} and input shape "
                         f"{tuple(x.shape)}; index needs as many axes as input, as in "
                         "PyTorch (index.unsqueeze(d) adds one of length 1)")
    for a, (m, n) in enumerate(zip(idx.shape, shape)):
        if a != axis and m > n:
            raise ValueError(f"gather: index of shape {tuple(index.shape)} is longer than "
                             f"input of shape {tuple(x.shape)} along dim {a}; except along "
                             f"dim {axis}, index may be as long as input or shorter")
    _check_range("gather", xp, idx, shape[axis], f"dim {axis}", x.shape, negatives=False)
    return _gathered(x, axis, Tensor(index, _backend=x.backend))


def _gathered(x, axis: int, index):
    """``x.gather(axis, index)`` for an ``index`` known to fit: checked by :func:`gather`,
    or made by tinyffn (``argmax``'s, an argsort's order) for ``max(dim)``, ``median``,
    ``cummax``, ... There it is not checked again: the check reads a flag from the device,
    on a GPU a wait for every kernel queued before it."""
    xp = x.backend.xp
    idx = index.data if index.ndim else xp.reshape(index.data, (1,))    # 0-d: one entry
    with grad_mode.scope("function", "gather"):
        y = _along(x if x.ndim else x.reshape(1), xp.astype(idx, xp.int64), axis,
                   tuple(idx.shape))
        return y if index.ndim else y.reshape(())


def take_along_dim(input, indices, dim=None):
    """``input``'s entries at ``indices`` along ``dim``, as ``torch.take_along_dim`` (NumPy's
    ``take_along_axis``): ``x.take_along_dim(x.argsort(1), 1)`` is ``x.sort(1).values``.
    As ``gather``, but the other axes broadcast against each other (a length 1 against
    any), and an index may be negative, counted from the end. With ``dim=None``, both are
    flattened first. ``indices`` is an int64 tensor, as in PyTorch."""
    x = _tensor_input("take_along_dim", input)
    idx = _index_array("take_along_dim", x, indices, "indices", ("int64",))
    xp = x.backend.xp
    if dim is None:
        with grad_mode.scope("function", "take_along_dim"):
            flat = x.reshape(-1)                                         # (numel,)
        idx, axis, where = xp.reshape(idx, (-1,)), 0, "the flattened input"
    else:
        if x.ndim == 0:
            raise ValueError(f"take_along_dim: a 0-d input has no dim {dim!r}; pass dim=None")
        axis, flat, where = _dim("take_along_dim", dim, x.ndim), x, f"dim {dim}"
        if idx.ndim != x.ndim or any(a != axis and m != n and 1 not in (m, n)
                                     for a, (m, n) in enumerate(zip(idx.shape, x.shape))):
            raise ValueError(f"take_along_dim: indices of shape {tuple(idx.shape)} do not fit "
                             f"input of shape {x.shape} along dim {dim}: they need as many "
                             "axes, and along the others the same length or 1")
    _check_range("take_along_dim", xp, idx, flat.shape[axis], where, x.shape, negatives=True)
    with grad_mode.scope("function", "take_along_dim"):
        return _along(flat, idx, axis, tuple(flat.shape))


def _along(x, index, axis: int, sizes: tuple):
    """x's entries at ``index`` along ``axis``, as NumPy's ``take_along_axis``:

        y[i_0, ..., i_axis, ..., i_last] = x[i_0, ..., index[i_0, ..., i_axis, ..., i_last], ..., i_last]

    One ``getitem`` whose key holds ``index`` (an integer array with x's number of axes)
    at ``axis`` and, at every other axis a, arange(sizes[a]) laid along axis a alone; the
    key's arrays broadcast together to y's shape. Its backward, dL/dx, is gy added into
    zeros of x's shape at the key (``index_add``): an entry picked twice gets both.

    ``index`` must lie in [-n, n) along ``axis`` (the caller has checked it, or made it:
    argsort's order) and sizes[a] <= x.shape[a]: the key is a ``CheckedKey``, which the
    getitem does not read back to check again."""
    xp, key = x.backend.xp, []
    for a, n in enumerate(sizes):
        if a == axis:
            key.append(index)
        else:
            along_a = tuple(n if b == a else 1 for b in range(len(sizes)))
            key.append(xp.reshape(xp.arange(n), along_a))          # (1, ..., n, ..., 1)
    return GetItem.apply(x, key=CheckedKey(key))


# ----------------------------------------------------------------------------- arguments
def _dim(op: str, dim: Any, ndim: int) -> int:
    """``dim`` in [0, n), n = max(ndim, 1): a 0-d tensor has one dim, 0 (or -1)."""
    n = max(ndim, 1)
    if not _is_int(dim):
        raise TypeError(f"{op}: dim must be an int, got {dim!r}")
    if not -n <= dim < n:
        raise ValueError(f"{op}: dim {dim} is out of range for a tensor with {ndim} "
                         f"dimensions; use an integer in [{-n}, {n - 1}]")
    return int(dim) % n


def _check_flags(op: str, **flags: Any) -> None:
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{op}: {name} must be True or False, got {value!r}")


def _index_array(op: str, x, index: Any, name: str, dtypes: tuple):
    """The array of ``index``, which must be a tinyffn Tensor of one of ``dtypes`` on x's
    device: PyTorch refuses a list there too."""
    if not isinstance(index, Tensor):
        hint = (f"it is the pair (values, indices) from {index.made_by}: pass its .indices"
                if isinstance(index, ValuesIndices) else
                "wrap it with tinyffn.tensor(...), as PyTorch wants a tensor too")
        raise TypeError(f"{op}: {name} must be a tinyffn Tensor of integers, got "
                        f"{type_name(index)}; {hint}")
    if index.backend is not x.backend:
        raise DeviceError(f"{op}: {name} is on {index.device} and input on {x.device}; "
                          f"move {name} with .to('{x.device}')")
    if dtype_name(index.dtype) not in dtypes:
        raise TypeError(f"{op}: {name} must have dtype {' or '.join(dtypes)}, as in PyTorch, "
                        f"got {dtype_name(index.dtype)}; write {name}.long()")
    return index.data


def _check_range(op: str, xp, idx, n: int, where: str, shape: tuple, negatives: bool):
    """Raise for an index outside [0, n) (or [-n, n)), naming the first bad value found:
    a CuPy getitem would wrap it around instead."""
    low = -n if negatives else 0
    if not math.prod(idx.shape) or not bool(xp.any((idx < low) | (idx >= n))):
        return
    bad = int(xp.max(idx)) if bool(xp.any(idx >= n)) else int(xp.min(idx))
    raise IndexError(f"{op}: index {bad} is out of range for {where} of size {n} (input of "
                     f"shape {tuple(shape)}); the indices must lie in [{low}, {n})" +
                     ("; negative indices are refused, as in PyTorch" if bad < 0 else ""))
