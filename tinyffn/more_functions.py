"""More of PyTorch's functions, with their Tensor methods: ``logsumexp``, ``sin``, ``cos``,
``sign``, ``log1p``, ``floor_divide``, ``remainder``, ``fmod``, ``prod``, ``cumsum``,
``flip``, ``unbind``, ``index_select``, ``mm``, ``bmm``, ``outer``,
``is_floating_point``, and the counts ``unique`` and ``bincount`` (``tinyffn.sin(x)`` and
``x.sin()`` alike), and the operators ``x // y`` and ``x % y``.

They arrived after :mod:`tinyffn.torch_functions` and :mod:`tinyffn.torch_methods` had
filled up, so they live here: :class:`MoreMethods` is a base class of ``Tensor`` (through
``TorchMethods``) and holds the methods, each a line over the function of its name.

Nine are primitives with a hand-written backward (:mod:`tinyffn.ops`): ``sin``, ``cos``,
``sign`` (gradient 0), ``log1p``, ``floor_divide`` (gradient 0), ``remainder``, ``fmod``,
``prod`` (exact with zeros) and ``cumsum`` (backward: the running sum from the end). The others
are composed: ``logsumexp`` of amax, exp, sum and log, as
softmax is; ``flip`` one ``getitem`` with step -1; ``unbind`` and ``index_select``
getitems; ``mm``, ``bmm`` one matmul each after PyTorch's checks of the shapes; ``outer``
a reshape and a mul; ``unique`` and ``bincount`` count with NumPy, outside any graph.
The module-level functions take a Tensor first, as the others in torch_functions.py do; this
file imports nothing of tensor.py (the checks of
torch_functions.py and sorting.py are imported at call time), because tensor.py imports it
before its class exists.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import backend as backends
from . import grad_mode
from .amp_casts import outside_autocast
from .arguments import _axes, _axis_list, _is_int
from .in_place import as_view, in_place
from .ops import elementwise as E
from .ops import division as D
from .ops import reduce as R


def _input(op: str, input: Any):
    """``input``, which must be a Tensor (the errors of torch_functions.py)."""
    from .torch_functions import _tensor_input     # torch_functions.py imports tensor.py
    return _tensor_input(op, input)


def _cast(x, dtype: Any):
    """``x`` in ``dtype`` first (a recorded cast), as PyTorch's ``dtype=`` does."""
    return x if dtype is None else x.to(dtype=dtype)


def _dim(op: str, dim: Any, ndim: int) -> int:
    """One axis in [0, max(ndim, 1)): a 0-d tensor has dim 0 (or -1), as in PyTorch."""
    if not _is_int(dim):
        raise TypeError(f"{op}: dim must be an int, got {dim!r}")
    return _axis_list((dim,), max(ndim, 1), op)[0]


# ----------------------------------------------------------------------------- elementwise
def sin(input):
    """sin, elementwise, as ``torch.sin`` (a primitive: gradient cos x)."""
    return E.Sin.apply(_input("sin", input))


def cos(input):
    """cos, elementwise, as ``torch.cos`` (a primitive: gradient -sin x)."""
    return E.Cos.apply(_input("cos", input))


def sign(input):
    """-1, 0 or 1 by the sign of each entry, in its dtype, as ``torch.sign``: sign(NaN) is
    0 there and here. A primitive whose gradient is 0 (its result is in the graph)."""
    return E.Sign.apply(_input("sign", input))


def log1p(input):
    """log(1 + x), elementwise, as ``torch.log1p``: exact for tiny x, where log(1 + x)
    rounds 1 + x first (a primitive: gradient 1 / (1 + x)). Integers compute in float32."""
    return E.Log1p.apply(_input("log1p", input))


# ----------------------------------------------------------------------------- // and %
def _operands(op: str, input, other) -> tuple:
    """``(input, other)``, at least one a Tensor (a number may stand on either side, as
    in ``5 % x``); the op's dtypes then meet as in ``+``."""
    from .tensor import Tensor                      # tensor.py imports this file
    if not isinstance(other, Tensor):
        _input(op, input)
    return input, other


def floor_divide(input, other):
    """floor(input / other), rounded as Python's ``//`` (``x // y``), as
    ``torch.floor_divide``: integers stay integers (int64 // int64 is int64), an integer
    next to a float computes in the float's dtype; an integer divisor 0 raises
    ZeroDivisionError, as in PyTorch (a float one gives ±inf or nan). A primitive whose
    gradient is 0 (a staircase; PyTorch refuses to backpropagate through it)."""
    return D.FloorDivide.apply(*_operands("floor_divide", input, other))


def remainder(input, other):
    """input mod other with the sign of ``other``, as Python's ``%`` and
    ``torch.remainder``: ``-5 % 3`` is 1; x - y · floor(x / y), computed exactly. Dtypes
    and division by zero as :func:`floor_divide`. A primitive: gradient 1 for input,
    -floor(input / other) for other, as PyTorch's."""
    return D.Remainder.apply(*_operands("remainder", input, other))


def fmod(input, other):
    """input mod other with the sign of ``input``, as C's fmod and ``torch.fmod``:
    ``fmod(-5, 3)`` is -2; x - y · trunc(x / y), exact. Dtypes and division by zero as
    :func:`floor_divide`. A primitive: gradient 1 for input, -trunc(input / other) for
    other, as PyTorch's. ``input`` must be a Tensor, as in PyTorch."""
    return D.Fmod.apply(_input("fmod", input), other)


# ----------------------------------------------------------------------------- reductions
def logsumexp(input, dim, keepdim=False):
    """log Σ exp(x) over ``dim`` (an int or a tuple), as ``torch.logsumexp``, computed
    stably as softmax is: with c = max x over dim (detached; c = 0 where that max is ±inf,
    as PyTorch), c + log Σ exp(x - c). Its gradient is softmax(x) along dim. A row of
    -inf gives -inf, a row holding +inf gives inf (their gradients NaN, as PyTorch's);
    an empty dim gives -inf. Integers compute in float32."""
    x = _input("logsumexp", input)
    if dim is None or dim == ():
        raise TypeError("logsumexp: dim is required (an int or a tuple of ints), as in "
                        "PyTorch; for every axis pass dim=tuple(range(x.ndim))")
    if not isinstance(keepdim, bool):
        raise TypeError(f"logsumexp: keepdim must be True or False, got {keepdim!r}")
    axes = _axes(dim, x.ndim, "logsumexp")
    with grad_mode.scope("function", "logsumexp"):
        if not x.backend.is_floating(x.dtype):
            x = x.float()
        if 0 in [x.shape[a] for a in axes]:          # nothing to add: log 0
            return x.sum(axis=axes, keepdims=keepdim) + float("-inf")
        c = x.amax(axes, True).detach()                               # kept axes of length 1
        c = c.masked_fill(c.isinf(), 0.0)        # an inf max: subtracting it gives NaN
        y = (x - c).exp().sum(axis=axes, keepdims=True).log() + c    # kept axes of length 1
        return y if keepdim else as_view(y.squeeze(axes), None)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product over ``dim`` (an int; None: every entry), as ``torch.prod``; integers
    and bools multiply in int64. A primitive whose gradient is exact also where entries
    are 0 (see :class:`tinyffn.ops.reduce.Prod`). ``dtype``: cast ``input`` first."""
    x = _cast(_input("prod", input), dtype)
    if dim is not None and not _is_int(dim):
        raise TypeError(f"prod: dim must be an int or None, got {dim!r} (PyTorch's prod "
                        "takes one dim; for several, call it once per dim)")
    if not isinstance(keepdim, bool):
        raise TypeError(f"prod: keepdim must be True or False, got {keepdim!r}")
    with outside_autocast(dtype is not None):       # the dtype asked for wins, as in torch
        return R.Prod.apply(x, axis=_axes(dim, x.ndim, "prod"), keepdims=keepdim)


def cumsum(input, dim, *, dtype=None):
    """The running sum along ``dim``, y_i = x_1 + ... + x_i, as ``torch.cumsum`` (``dim``
    required); integers and bools add up in int64. A primitive: its backward is the running
    sum of the gradient from the end. ``dtype``: cast ``input`` first."""
    x = _cast(_input("cumsum", input), dtype)
    with outside_autocast(dtype is not None):       # the dtype asked for wins, as in torch
        return R.Cumsum.apply(x, axis=_dim("cumsum", dim, x.ndim))


# ----------------------------------------------------------------------------- picking along an axis
def flip(input, dims):
    """The entries in reverse order along each axis in ``dims`` (a tuple or list), as
    ``torch.flip``: one ``getitem`` with a step of -1 on those axes, so the gradient is
    flipped back. A new tensor, as PyTorch's (a copy there)."""
    x = _input("flip", input)
    if _is_int(dims):
        dims = (dims,)
    if not isinstance(dims, (tuple, list)) or not all(_is_int(d) for d in dims):
        raise TypeError(f"flip: dims must be a tuple of ints, got {dims!r}")
    axes = _axis_list(tuple(dims), max(x.ndim, 1), "flip")
    if x.ndim == 0:
        return x.clone()                             # one entry: nothing to reverse
    key = tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))
    with grad_mode.scope("function", "flip"):
        return as_view(x[key], None)


def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple, ``dim`` removed, as ``torch.unbind``: ``a, b =
    pair.unbind(0)``. Each is ``x[..., i, ...]`` (a getitem; a view, as in PyTorch)."""
    x = _input("unbind", input)
    if x.ndim == 0:
        raise ValueError("unbind: a 0-d tensor has no dim to take slices along")
    axis = _dim("unbind", dim, x.ndim)
    with grad_mode.scope("function", "unbind"):
        return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))


def index_select(input, dim, index):
    """The slices of ``input`` along ``dim`` at ``index`` (a 1-D int64 or int32 tensor,
    values in [0, size of dim)), in its order, repeats allowed, as ``torch.index_select``:
    ``emb.index_select(0, ids)`` is ``emb[ids]``. One getitem (the key of ``gather``, see
    sorting.py): a slice picked twice gets the sum of both gradients. Negative indices are
    refused, as in PyTorch."""
    from .sorting import _check_range, _index_array   # sorting.py imports tensor.py
    x = _input("index_select", input)
    axis = _dim("index_select", dim, x.ndim)
    idx = _index_array("index_select", x, index, "index", ("int64", "int32"))
    if idx.ndim > 1:
        raise ValueError(f"index_select: index must be 1-D (a vector), got shape "
                         f"{tuple(idx.shape)}; flatten it, or use gather")
    xp = x.backend.xp
    idx = xp.astype(xp.reshape(idx, (-1,)), xp.int64)          # (k,)
    n = x.shape[axis] if x.ndim else 1
    _check_range("index_select", xp, idx, n, f"dim {axis}", x.shape, negatives=False)
    if x.ndim == 0 and idx.shape[0] != 1:
        raise ValueError(f"index_select: a 0-d input takes one index (PyTorch: 'Index to "
                         f"scalar can have only 1 value'), got {idx.shape[0]}; index a 1-d "
                         "x.reshape(1) for several")
    return _index_selected(x, axis, index)


def _index_selected(x, axis: int, index):
    """``x.index_select(axis, index)`` for an ``index`` known to fit: checked by
    :func:`index_select`, or made by tinyffn (MoEFFN's choices sorted by argsort). There
    it is not checked again: the check reads a flag from the device, on a GPU a wait for
    every kernel queued before it."""
    from .sorting import _along                     # sorting.py imports tensor.py
    xp = x.backend.xp
    idx = xp.astype(xp.reshape(index.data, (-1,)), xp.int64)   # (k,)
    with grad_mode.scope("function", "index_select"):
        if x.ndim == 0:
            return _along(x.reshape(1), idx, 0, (1,)).reshape(())
        sizes = x.shape[:axis] + (idx.shape[0],) + x.shape[axis + 1:]
        along_axis = tuple(n if a == axis else 1 for a, n in enumerate(sizes))
        return _along(x, xp.reshape(idx, along_axis), axis, sizes)     # (1, .., k, .., 1)


# ----------------------------------------------------------------------------- products
def mm(input, mat2):
    """``input @ mat2`` for two matrices, (n, k) @ (k, m), as ``torch.mm``: anything else
    is refused, as there (``matmul`` batches and broadcasts). Two float dtypes meet as in
    ``@`` (PyTorch refuses them)."""
    x, w = _input("mm", input), _input("mm", mat2)
    for name, t in (("input", x), ("mat2", w)):
        if t.ndim != 2:
            raise ValueError(f"mm: {name} must be a matrix (2 axes), got shape {t.shape}; "
                             "for batches use bmm or matmul")
    if x.shape[1] != w.shape[0]:
        raise ValueError(f"mm: shapes {x.shape} and {w.shape} cannot be multiplied: "
                         f"input's columns ({x.shape[1]}) must equal mat2's rows ({w.shape[0]})")
    return x @ w


def bmm(input, mat2):
    """A batch of matrix products, (b, n, k) @ (b, k, m) -> (b, n, m), as ``torch.bmm``: both
    3-D with the same batch size b (no broadcasting, as there; ``matmul`` broadcasts)."""
    x, w = _input("bmm", input), _input("bmm", mat2)
    for name, t in (("input", x), ("mat2", w)):
        if t.ndim != 3:
            raise ValueError(f"bmm: {name} must be a batch of matrices (3 axes), got "
                             f"shape {t.shape}")
    if x.shape[0] != w.shape[0] or x.shape[2] != w.shape[1]:
        raise ValueError(f"bmm: shapes {x.shape} and {w.shape} do not fit: mat2 must have "
                         f"shape ({x.shape[0]}, {x.shape[2]}, m), the same batch size and "
                         "input's columns as its rows")
    return x @ w


def outer(input, vec2):
    """The outer product of two vectors, y[i, j] = input[i] · vec2[j], as ``torch.outer``
    (both 1-D, as there): ``input.reshape(-1, 1) * vec2``, PyTorch's own form."""
    x, w = _input("outer", input), _input("outer", vec2)
    for name, t in (("input", x), ("vec2", w)):
        if t.ndim != 1:
            raise ValueError(f"outer: {name} must be a vector (1 axis), got shape {t.shape}")
    with grad_mode.scope("function", "outer"):
        return x.reshape(-1, 1) * w                  # (n, 1) * (m,) -> (n, m)


def is_floating_point(input) -> bool:
    """Whether the dtype is a floating one (float16, float32, float64), as
    ``torch.is_floating_point``."""
    x = _input("is_floating_point", input)
    return x.backend.is_floating(x.dtype)


# ----------------------------------------------------------------------------- counting
def _counted_input(op: str, input: Any):
    x = _input(op, input)
    return x, x.backend.to_numpy(x.data)


def _on(x, array, dtype: str | None = None):
    """A NumPy result as a Tensor on x's device, outside any graph."""
    from .tensor import Tensor                      # tensor.py imports this file
    import numpy as np
    return Tensor(x.backend.from_numpy(np.asarray(array, dtype=dtype)), _backend=x.backend)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of ``input``, ascending, as ``torch.unique``: ``labels.unique()``
    lists the classes present. ``return_inverse``: also, for each entry, the index of its
    value among them (input's shape); ``return_counts``: also how often each occurs; both
    int64. Over all the entries: ``dim`` is refused. NaN counts as one value (PyTorch lists
    some NaNs once, some one by one); ``sorted=False`` sorts too, as PyTorch's CPU does.
    Counted by NumPy, outside any graph (PyTorch records it, with no backward)."""
    import numpy as np
    if dim is not None:
        raise NotImplementedError(f"unique: dim={dim!r} (distinct slices) is not supported; "
                                  "unique() takes the distinct entries of the whole tensor")
    x, a = _counted_input("unique", input)
    values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
    found = (_on(x, values, a.dtype), _on(x, inverse.reshape(a.shape), "int64"),
             _on(x, counts, "int64"))
    chosen = [found[0]] + [t for t, keep in zip(found[1:], (return_inverse, return_counts))
                           if keep]
    return chosen[0] if len(chosen) == 1 else tuple(chosen)


def bincount(input, weights=None, minlength=0):
    """How often each of 0, 1, ..., n - 1 occurs in a 1-D tensor of non-negative integers,
    n = max(input) + 1 (at least ``minlength``), as ``torch.bincount``: ``bincount(labels)``
    counts each class. With ``weights`` (one per entry), each value's sum of weights
    instead, in float32 for float32 weights and float64 for any others (PyTorch's dtypes).
    Counted by NumPy, outside any graph."""
    import numpy as np
    x, a = _counted_input("bincount", input)
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and a.min() < 0):
        raise ValueError(f"bincount: takes a 1-D tensor of non-negative integers (PyTorch's "
                         f"rule), got {a.dtype} of shape {a.shape}" +
                         (f" holding {a.min()}" if a.ndim == 1 and a.dtype.kind == "i"
                          and a.size and a.min() < 0 else ""))
    if not (_is_int(minlength) and minlength >= 0):
        raise ValueError(f"bincount: minlength must be an int >= 0, got {minlength!r}")
    if weights is None:
        return _on(x, np.bincount(a, minlength=int(minlength)), "int64")
    w = _input("bincount", weights)
    if w.shape != x.shape or w.backend is not x.backend:
        raise ValueError(f"bincount: weights must be one per entry, shape {x.shape} on "
                         f"{x.device}, got shape {w.shape} on {w.device}")
    from .backend import dtype_name
    dtype = "float32" if dtype_name(w.dtype) == "float32" else "float64"
    return _on(x, np.bincount(a, weights=w.backend.to_numpy(w.data).astype(np.float64),
                              minlength=int(minlength)), dtype)


# ----------------------------------------------------------------------------- the methods
class MoreMethods:
    """The Tensor methods of the functions above: ``x.sin()`` is ``tinyffn.sin(x)``, and
    ``probs.multinomial(1)`` is :func:`tinyffn.multinomial` (sampling.py); and ``x.to``."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def to(self, device: Any = None, dtype: Any = None, non_blocking: bool = False,
           copy: bool = False) -> Any:
        """This tensor on another device and/or with another dtype (``to(np.float64)``).

        Returns ``self`` when nothing changes (``copy=True``: a ``clone()``). A device move
        returns a new *leaf* with the same ``requires_grad`` (its ``.grad`` is its own); a
        dtype change is recorded in the graph (``cast``). A graph lives on one device: a
        computed tensor cannot move. ``non_blocking`` is ignored: every copy is complete
        when ``to`` returns.
        """
        out, (device, dtype) = self, backends.device_and_dtype(device, dtype)
        if device is not None and backends.normalize_device(device) != self.device:
            if self.grad_fn is not None and grad_mode.STATE.grad_enabled:
                raise RuntimeError(
                    f"to: this tensor was computed by {self.grad_fn.name} on {self.device}, "
                    f"and a graph lives on one device: moving it to {device} would cut the "
                    "graph, and the tensors before it would get no gradient. Move the inputs "
                    "and the module first (Module.to), or .detach() it if no gradient "
                    "should flow back")
            from .tensor import Tensor          # tensor.py imports this module
            target = backends.get_backend(device)
            out = Tensor(target.from_numpy(self.numpy()), _backend=target, name=self.name,
                         requires_grad=self.requires_grad and grad_mode.STATE.grad_enabled)
        if dtype is not None and backends.dtype_name(dtype) != backends.dtype_name(out.dtype):
            kind = np.dtype(getattr(dtype, "_np_dtype", dtype)).kind
            if kind not in "biuf" or kind == "f" and not out.backend.is_floating(dtype):
                raise TypeError(f"to: tinyffn computes with bool, integer and float16/32/64 "
                                f"tensors, not {backends.dtype_name(dtype)}")
            out = E.Cast.apply(out, dtype=out.backend.dtype(dtype))
        return self.clone() if copy and out is self else out

    def sin(self): return sin(self)
    def cos(self): return cos(self)
    def sign(self): return sign(self)
    def log1p(self): return log1p(self)
    def floor_divide(self, other): return floor_divide(self, other)
    def remainder(self, other): return remainder(self, other)
    def fmod(self, other): return fmod(self, other)
    def __floordiv__(self, other): return D.FloorDivide.apply(self, other)
    def __rfloordiv__(self, other): return D.FloorDivide.apply(other, self)
    def __mod__(self, other): return D.Remainder.apply(self, other)
    def __rmod__(self, other): return D.Remainder.apply(other, self)
    def __ifloordiv__(self, other): return in_place(self, D.FloorDivide, other, "//=")
    def __imod__(self, other): return in_place(self, D.Remainder, other, "%=")
    def logsumexp(self, dim, keepdim=False): return logsumexp(self, dim, keepdim)
    def prod(self, dim=None, keepdim=False, *, dtype=None): return prod(self, dim, keepdim, dtype=dtype)
    def cumsum(self, dim, *, dtype=None): return cumsum(self, dim, dtype=dtype)
    def unbind(self, dim=0): return unbind(self, dim)
    def index_select(self, dim, index): return index_select(self, dim, index)
    def mm(self, mat2): return mm(self, mat2)
    def bmm(self, mat2): return bmm(self, mat2)
    def outer(self, vec2): return outer(self, vec2)
    def is_floating_point(self): return is_floating_point(self)
    def bincount(self, weights=None, minlength=0): return bincount(self, weights, minlength)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """``tinyffn.unique(self, ...)``: the distinct values, ascending."""
        return unique(self, sorted, return_inverse, return_counts, dim)

    def flip(self, *axes, dims=None):
        """``tinyffn.flip(self, dims)``; as PyTorch's method, ``x.flip(0, 1)``,
        ``x.flip((0, 1))`` or ``x.flip(dims=[0])``."""
        if dims is not None and axes:
            raise TypeError("flip: takes the dims by position or as dims=, not both")
        return flip(self, dims if dims is not None else axes[0] if len(axes) == 1 else axes)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """``tinyffn.multinomial(self, num_samples, replacement)``: indices drawn by the
        weights in each row."""
        from .sampling import multinomial       # sampling.py imports tensor.py
        return multinomial(self, num_samples, replacement, generator=generator)


__all__ = ["logsumexp", "sin", "cos", "sign", "log1p", "floor_divide", "remainder", "fmod", "prod", "cumsum", "flip", "unbind",
           "index_select", "mm", "bmm", "outer", "is_floating_point", "MoreMethods"]
