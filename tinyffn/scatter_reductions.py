"""Reducing into places, as PyTorch's ``scatter_reduce`` (sum, prod, mean, amax, amin of
the values each place receives, with or without its own: a segment max, a mean per class)
and ``index_reduce`` (the same with whole slices, as ``index_add``). Their Tensor methods
and in-place forms are in :mod:`tinyffn.index_writes`.

Both are compositions. ``sum`` and ``mean`` reduce with one ``IndexAdd`` (getitem's
adjoint); ``prod``, ``amax`` and ``amin`` lay the values out as a tensor of x's shape with
one more axis, each value at its place and at its own position along it (so no two
meet), and reduce along that axis: their gradients are ``prod``'s and ``amax``'s (ties
share it evenly, as in PyTorch). That tensor has x's size times the index's length along
``dim`` entries: fine for a class count or a sequence, large for a million rows reduced
into a million places (use sum or mean there).
"""
from __future__ import annotations

import math

from . import grad_mode
from .arguments import tensor_arg
from .backend import dtype_name
from .ops.shape import CheckedKey, IndexAdd
from .scatter import _added, _check_range, _dim, _index, _key, _read, _same_dtype, _scatter_args
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with each src[i][j] reduced into y[index[i][j]][j] for dim 0 (and so on,
    as :func:`~tinyffn.scatter.scatter_add` places them), as ``torch.scatter_reduce``:
    ``reduce`` is "sum", "prod", "mean", "amax" or "amin" of the values a place receives
    and, with ``include_self`` (the default), of its own value; a place that receives
    nothing keeps its value. An integer mean rounds down (PyTorch's rule). Index and src
    as scatter_add's; src of input's dtype. Gradients as PyTorch's: sum and mean spread
    gy, prod gives each factor the product of the others, amax and amin share gy evenly
    among the values equal to the result."""
    x = tensor_arg("scatter_reduce", "input", input)
    v = tensor_arg("scatter_reduce", "src", src)
    axis, idx = _scatter_args("scatter_reduce", x, dim, index, v)
    _same_dtype("scatter_reduce", x, v, "src")
    return _reduced("scatter_reduce", x, axis, idx, _read(v, idx.shape), reduce, include_self)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with the slices of ``source`` along ``dim`` reduced into the slices that
    ``index`` names, as ``torch.index_reduce``: ``reduce`` is "prod", "mean", "amax" or
    "amin" (for a sum, :func:`~tinyffn.scatter.index_add`), ``include_self`` as in
    :func:`scatter_reduce`, which this is with index laid along every slice. ``index``
    1-D (or 0-d), in [0, size of dim); source of input's shape but index's length along
    dim, and input's dtype."""
    x = tensor_arg("index_reduce", "input", input)
    if reduce == "sum":
        raise ValueError("index_reduce: reduce must be 'prod', 'mean', 'amax' or 'amin' (as "
                         "in PyTorch); for a sum use index_add")
    axis = _dim("index_reduce", dim, x)
    idx = _index("index_reduce", x, index, 1)
    idx = idx.reshape(1) if idx.ndim == 0 else idx
    v = tensor_arg("index_reduce", "source", source)
    want = x.shape[:axis] + idx.shape + x.shape[axis + 1:] if x.ndim else idx.shape
    if v.shape != want and not (x.ndim == 0 and v.shape == ()):
        raise ValueError(f"index_reduce: source must have input's shape with index's length "
                         f"along dim {axis}, {want}; got {v.shape}")
    _same_dtype("index_reduce", x, v, "source")
    _check_range("index_reduce", x, idx, axis)
    along = tuple(-1 if a == axis else 1 for a in range(len(want)))
    idx = idx.reshape(along).expand(*want)          # the index of each entry of source
    return _reduced("index_reduce", x, axis, idx, v.reshape(want), reduce, include_self)


def _reduced(op: str, x, axis: int, idx, v, reduce: str, include_self: bool):
    """x with v (of idx's shape, idx checked) reduced into the places idx names."""
    if reduce not in REDUCTIONS or (op == "index_reduce" and reduce == "sum"):
        names = REDUCTIONS if op == "scatter_reduce" else REDUCTIONS[1:]
        hint = {"max": "; the maximum is 'amax', as PyTorch names it here",
                "min": "; the minimum is 'amin', as PyTorch names it here"}.get(reduce, "")
        raise ValueError(f"{op}: reduce must be one of {', '.join(map(repr, names))}, got "
                         f"{reduce!r}{hint}")
    if not isinstance(include_self, bool):
        raise TypeError(f"{op}: include_self must be True or False, got {include_self!r}")
    if dtype_name(x.dtype) == "bool":
        raise TypeError(f"{op}: input is bool; reduce numbers: cast with .int() (or use "
                        "logical_or of scatter's results)")
    one = x if x.ndim else x.reshape(1)
    xp, be = x.backend.xp, x.backend
    hits = xp.zeros(one.shape, dtype=xp.int64)         # how many values each place receives
    be.index_add(hits, _key(one, idx.data, axis, idx.shape), xp.ones(idx.shape, dtype=xp.int64))
    hit = _tensor.Tensor(hits > 0, _backend=be)
    with grad_mode.scope("function", op):
        own = one if include_self else one.masked_fill(hit, 0)  # unreached: kept below
        if reduce in ("sum", "mean"):
            y = _added(own, v, idx, axis)
            if reduce == "mean":
                count = _tensor.Tensor(xp.astype(xp.maximum(hits + int(include_self), 1), x.dtype),
                                       _backend=be)
                y = y / count if be.is_floating(x.dtype) else y // count
        elif not math.prod(idx.shape):
            y = _added(one, v, idx, axis)       # no values: x, and src's gradient 0
        else:
            laid = _laid_out(one, axis, idx, v, reduce)
            if include_self:
                from .creation import cat       # creation.py imports tensor.py, which imports this
                laid = cat([laid, one.unsqueeze(-1)], -1)
            y = laid.prod(-1) if reduce == "prod" else getattr(laid, reduce)(-1)
            y = y if include_self else own.where(~hit, y)
        return y if x.ndim else y.reshape(())


def _laid_out(x, axis: int, idx, v, reduce: str):
    """A tensor of x's shape and one more axis, as long as idx along ``axis``: v[..., i,
    ...] at [..., idx[..., i, ...], ..., i] (each value at its place, and at its own
    position along the new axis, so no two meet) and, where no value is, the identity of
    ``reduce`` (1 for prod, -inf or the dtype's least for amax, +inf or its greatest for
    amin), which changes no result."""
    xp, be, m = x.backend.xp, x.backend, idx.shape[axis]
    position = xp.reshape(xp.arange(m), tuple(m if a == axis else 1 for a in range(idx.ndim)))
    key = CheckedKey(tuple(_key(x, idx.data, axis, idx.shape)) + (position,))
    shape = x.shape + (m,)
    placed = xp.zeros(shape, dtype=xp.int64)
    be.index_add(placed, key, xp.ones(idx.shape, dtype=xp.int64))
    from .creation import zeros         # creation.py imports tensor.py, which imports this
    laid = IndexAdd.apply(zeros(shape, dtype=x.dtype, device=x.device), v, key=key)
    if reduce == "prod":
        identity = 1
    elif be.is_floating(x.dtype):
        identity = -math.inf if reduce == "amax" else math.inf
    else:
        info = xp.iinfo(x.dtype)
        identity = int(info.min) if reduce == "amax" else int(info.max)
    return laid.masked_fill(_tensor.Tensor(placed == 0, _backend=be), identity)


__all__ = ["scatter_reduce", "index_reduce", "REDUCTIONS"]
