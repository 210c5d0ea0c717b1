"""Tensor methods built from the primitives, under PyTorch's names (and NumPy's).

Each function here is a few calls of the ops that :class:`tinyffn.Tensor` exposes, so its
gradient follows from theirs and a drawing shows what it is made of: ``x.abs()`` is a
``neg`` and a ``maximum``, ``x.unsqueeze(0)`` a ``reshape``, ``x.chunk(2)`` two
``getitem`` slices. The elementwise ones run inside a frame of their name, ``amin`` in
one called ``min``, ``x.max(1)``'s values (a ``gather`` at the indices) in ``max``.
The Tensor methods (``x.abs()``, ``x.min()``, ``x.chunk(2)``, ...) call these; the names
here are NumPy's where a Python builtin would be shadowed (``absolute``, ``amin``).
At the end, what records no graph: ``any``/``all``, and formatting; the comparisons and
``~ & | ^`` are in :mod:`tinyffn.comparisons`, ``x += y`` in :mod:`tinyffn.in_place`.
"""
from __future__ import annotations

import math
import types
from typing import Any, NamedTuple, Sequence

import numpy as np

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .backend import DEFAULTS, dtype_name
from .arguments import _axes, _axis_list, _is_int, _numpy_names, _shape_arg, is_real
from .comparisons import compare, invert
from .ops import elementwise as E
from .ops import reduce as R


class ValuesIndices(NamedTuple):
    """A pair ``(values, indices)`` that unpacks as ``v, i = x.max(1)``, as PyTorch's
    ``torch.return_types`` do. Each op that returns one has its subclass, so that a
    printed pair says where it came from: ``MaxResult`` below, ``SortResult`` and
    ``TopkResult`` in :mod:`tinyffn.sorting`; ``made_by`` names it in error messages."""
    values: Any
    indices: Any


class MaxResult(ValuesIndices):
    """What ``x.max(dim=d)`` and ``x.min(dim=d)`` return, as ``torch.max(x, d)`` does."""
    __slots__ = ()
    made_by = "x.max(dim) and x.min(dim)"

    @classmethod
    def over(cls, op: str, x: Any, dim: Any, keepdim: Any, axis: Any, keepdims: bool,
             other: Any = None) -> Any:
        """``x.max(...)`` and ``x.min(...)`` (``op``): over one axis, named ``dim`` (by name
        or position) or ``axis`` (PyTorch takes it as ``dim`` too), the pair (values,
        indices) of ``torch.max(x, dim)``; with neither, the value over all entries; with a
        tensor, ``torch.max(x, other)``: the elementwise ``maximum`` (``minimum``).
        ``x.amax`` / ``x.amin`` give the values alone, over any axes."""
        if other is not None and (dim is not None or axis is not None or
                                  not isinstance(other, _tensor.Tensor)):
            raise TypeError(f"{op}: x.{op}(other=y) takes a Tensor y and no dim (it is "
                            f"the elementwise {op}imum)")
        given = dim if dim is not None else axis if axis is not None else other
        if isinstance(given, _tensor.Tensor):           # torch's x.max(other): maximum
            method = {"max": "maximum", "min": "minimum"}[op]
            if keepdim is not None or keepdims:
                raise TypeError(f"{op}: with a tensor in place of dim, x.{op}(other) is the "
                                f"elementwise {method}, which takes no keepdim")
            return getattr(x, method)(given)
        if given is not None and not _is_int(given):
            several = isinstance(given, (tuple, list))
            raise TypeError(f"{op}: dim must be one int for (values, indices), as in "
                            f"torch.{op}(x, dim), got {given!r}"
                            + ("" if not several else
                               f"; for the values over several axes write x.a{op}({given!r})"
                               if given else "; for the values over all axes pass no dim"))
        dim, keepdim = _numpy_names(op, axis, keepdims, dim, keepdim)
        _axes(dim, x.ndim, op)          # checked here, so that an error says max, not amax
        if dim is None:
            return amax(x) if op == "max" else amin(x)
        # the values are read at the indices returned, so that the gradient goes to that
        # entry alone, as PyTorch's (amax shares it among ties: PyTorch's amax does too)
        index = getattr(x, "arg" + op)(dim, True)
        from .sorting import _gathered  # sorting.py imports tensor.py, which imports this
        with grad_mode.scope("function", op):
            values = _gathered(x, dim % max(x.ndim, 1), index)   # argmax's: in range
            if not keepdim and x.ndim:
                values, index = values.squeeze(dim), index.squeeze(dim)
        return cls(values, index)


# ----------------------------------------------------------------------------- elementwise
def sqrt(x):
    """x ** 0.5 (``pow``)."""
    with grad_mode.scope("function", "sqrt"):
        return x ** 0.5


def absolute(x):
    """x · sign(x) + 0.0: the gradient gy · sign(x), PyTorch's formula (0 at 0 and at
    NaN), with sign(x) recorded on x (its derivative 0), so that a gradient recorded with
    create_graph stays in x's graph as torch's does. x · sign(x) is |x| exactly (NaN stays
    NaN); it is -0.0 at -0.0, and adding 0.0 makes it 0.0 (-0.0 + 0.0 is 0.0 in IEEE
    arithmetic, any other y + 0.0 is y), as PyTorch's.

    An integer or bool x (no gradient) takes the array's abs: -x wraps around in unsigned
    dtypes (-1 is 255 in uint8), so maximum(-x, x) would be wrong there."""
    if not _floating(x):
        return _tensor.Tensor(x.backend.xp.abs(x.data), _backend=x.backend)
    with grad_mode.scope("function", "abs"):
        return x * x.sign() + 0.0


def minimum(x, other):
    """-maximum(-x, -other), elementwise with broadcasting; ties share the gradient.

    Negation is exact only in floating point (-x wraps around for uint8, and for the most
    negative integer): integers and bools take the array's minimum (no gradient to give),
    and an integer operand next to a float one is made float first, as the op would."""
    if not isinstance(other, (_tensor.Tensor, int, float)):   # a list, an array: read as
        other = _tensor.as_tensors((x, other), _MINIMUM)[1]   # maximum reads it, then cast
    if not _floating(x) and not _floating(other):
        return compare(x, other, "minimum")
    x, other = _float_like(x, other), _float_like(other, x)
    with grad_mode.scope("function", "minimum"):
        return -(-x).maximum(-other)


_MINIMUM = types.SimpleNamespace(op_name=lambda: "minimum")     # the name errors give


def _floating(v) -> bool:
    """Whether ``v`` (a Tensor, a number or an array) is floating point: negating it is exact."""
    if isinstance(v, _tensor.Tensor):
        return v.backend.is_floating(v.dtype)
    return isinstance(v, float) or getattr(getattr(v, "dtype", None), "kind", "") == "f"


def _float_like(v, other):
    """``v``, or an integer / bool Tensor ``v`` cast to the float dtype of ``other`` (the
    default float next to a Python float), as promotion would cast it inside the op anyway."""
    if not isinstance(v, _tensor.Tensor) or _floating(v):
        return v
    return v.to(dtype=other.dtype if isinstance(other, _tensor.Tensor) else DEFAULTS.float)


def clamp(x, low: Any = None, high: Any = None):
    """x limited to [low, high] (either bound may be None), as ``torch.clamp``: where x is
    in range, bounds included, x and its gradient; below, ``low`` (and the gradient goes
    to ``low``, if it is a tensor that needs one); above, ``high``; a NaN, in x or in a
    bound, gives NaN and passes no gradient. Each bound is one ``where`` on masks that
    record nothing; where neither holds (x or the bound is NaN) the array maximum (minimum
    for ``high``), NaN there, recorded as nothing either::

        y = where(x >= low, x, where(x < low, low, maximum(x, low)))

    A bound may be a number, an array or a tensor; x and it meet in one dtype first, as
    in every op (an integer x and a float bound: the default float). Integers and bools with integer
    bounds take the exact array functions (no gradient to give, and a bound outside the
    dtype, uint8 clamped to 300, compares exactly)."""
    if low is None and high is None:
        raise ValueError("clamp: give min, max or both")
    if not _floating(x) and not any(_floating(np.asarray(b) if isinstance(b, (list, tuple))
                                         else b) for b in (low, high)):
        y = x if low is None else compare(x, low, "maximum")
        return y if high is None else compare(y, high, "minimum")
    with grad_mode.scope("function", "clamp"):
        y = x
        if low is not None:
            y, low = _meet(y, low)
            y = where(y >= low, y, where(y < low, low, compare(y, low, "maximum")))
        if high is not None:
            y, high = _meet(y, high)
            y = where(y <= high, y, where(y > high, high, compare(y, high, "minimum")))
        return y


def _meet(y, bound) -> tuple:
    """``y`` and a bound of clamp in one dtype, as an op would promote them: a number as it
    is (an integer y next to a float made the default float), anything else a tensor."""
    if is_real(bound) and not isinstance(bound, np.generic):
        return _float_like(y, bound), bound
    return _tensor.as_tensors((y, bound), _CLAMP)


_CLAMP = types.SimpleNamespace(op_name=lambda: "clamp")         # the name errors give


def rpow(base, t):
    """``base ** t``. For a float ``t``: exp(t · ln base), a positive number as the base,
    recorded as mul and exp (its derivative, ln(base) · base ** t, follows). For an integer
    or bool ``t`` and an integer base: the exact integer power, int64 for bools, as in
    PyTorch (no gradient); a negative exponent, and a base or a power its dtype cannot hold
    (PyTorch and NumPy wrap around in silence), are errors."""
    if not _floating(t) and isinstance(base, int) and not isinstance(base, bool):
        xp = t.backend.xp
        n = xp.astype(t.data, xp.int64) if xp.isdtype(t.dtype, "bool") else t.data
        top = int(xp.max(n)) if n.size else 0
        if n.size and int(xp.min(n)) < 0:
            raise ValueError(f"pow: {base} ** an integer tensor holding a negative exponent has "
                             f"no integer result; use a float base ({float(base)} ** t) or "
                             "t.float()")
        info = xp.iinfo(n.dtype)
        if not info.min <= base <= info.max:        # -2 ** a uint8 tensor: NumPy's error
            raise OverflowError(f"pow: the base {base} does not fit in {dtype_name(n.dtype)} "
                                f"({info.min} to {info.max}), the exponents' dtype; use "
                                "t.to(dtype='int64') or t.float()")
        if abs(base) > 1 and (top >= 64 or not info.min <= base ** top <= info.max):
            wider = "" if n.dtype == xp.int64 else "t.to(dtype='int64') or "
            raise OverflowError(f"pow: {base if base > 0 else f'({base})'} ** {top} does not "
                                f"fit in {dtype_name(n.dtype)} ({info.min} to {info.max}); "
                                f"use {wider}t.float()")
        return _tensor.Tensor(xp.pow(xp.asarray(base, dtype=n.dtype), n), _backend=t.backend)
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 0:
        raise TypeError(f"pow: base ** tensor needs a positive Python number as the base, "
                        f"got {base!r}; for other bases write exp(t * log(base)) yourself")
    return (t * math.log(base)).exp()


def where(condition, x, other):
    """x where ``condition`` holds, else ``other``, broadcasting all three, as
    ``torch.where``: the ``where`` primitive. ``x`` and ``other`` may be numbers (the
    result then takes the tensor's dtype, or PyTorch's default for two numbers); the
    condition must be a bool tensor (``x > 0``)."""
    _check_bool("where", "the condition", condition)
    return E.Where.apply(condition, x, other)


def _check_bool(op: str, what: str, c) -> None:
    if not (isinstance(c, _tensor.Tensor) and c.backend.xp.isdtype(c.dtype, "bool")):
        name = dtype_name(c.dtype) if isinstance(c, _tensor.Tensor) else ""
        got = f"a{'n' * name.startswith('i')} {name} tensor" if name else type(c).__name__
        raise TypeError(f"{op}: {what} must be a bool tensor, such as x > 0, got {got}; "
                        "compare it first (c != 0)")


def masked_fill(x, mask, value):
    """x with ``value`` where the bool ``mask`` holds (``where(mask, value, x)``), keeping
    x's dtype, as ``torch.Tensor.masked_fill``: ``scores.masked_fill(~causal, -inf)``. The
    value is a number or a 0-d tensor; the mask broadcasts to x's shape."""
    if isinstance(value, _tensor.Tensor) and value.ndim != 0:
        raise ValueError(f"masked_fill: the value must be a number or a 0-d tensor, got "
                         f"shape {value.shape}; for a tensor of values use where(mask, values, x)")
    _check_bool("masked_fill", "the mask", mask)
    if dtype_name(x.dtype) == "bool" and not isinstance(value, _tensor.Tensor):
        if value not in (0, 1):         # 1 and 1.0 are True, as PyTorch reads them
            raise TypeError(f"masked_fill: a bool tensor takes True or False (or 1 and 0), "
                            f"got {value!r} (PyTorch would read it as True)")
        value = bool(value)
    elif x.backend.is_floating(x.dtype):        # 1e5 into float16: inf, refused by PyTorch
        number = value.item() if isinstance(value, _tensor.Tensor) else value
        if is_real(number):
            from .creation import _check_fits   # creation.py imports tensor.py, which imports this
            _check_fits("masked_fill", "value", number, x.dtype)
    y = where(mask, value, x)
    if y.shape != x.shape:
        raise ValueError(f"masked_fill: a mask of shape {mask.shape} does not broadcast to "
                         f"the tensor's shape {x.shape}; the result must keep it")
    if y.dtype != x.dtype and not x.backend.is_floating(x.dtype):   # a float value into an
        # integer (or bool) tensor; a float x changes dtype only in autocast (F.prelu)
        raise TypeError(f"masked_fill: the value {value!r} is not of the tensor's dtype, "
                        f"{dtype_name(x.dtype)} "
                        f"(PyTorch truncates it silently); cast the tensor first (x.float())")
    return y


# ----------------------------------------------------------------------------- reductions
def reduced(op: Any, name: str, x, axis: Any, keepdims: bool, dim: Any, keepdim: Any,
            dtype: Any):
    """``x.sum(...)`` and ``x.mean(...)`` (``op``: the primitive ``Sum`` or ``Mean``): the
    axes by NumPy's names or PyTorch's, and ``dtype``, as PyTorch's: x is cast to it
    first, a recorded ``cast`` (``x.sum(dtype=tinyffn.float64)``: the sum in float64, the
    gradient back in x's dtype). A mean's dtype must be a float one, as PyTorch says.
    The result has that dtype too: ``Sum`` adds int8 or bools up in int64 (as ``x.sum()``
    does), so a sum with ``dtype=int8`` is cast back, wrapping as PyTorch's int8 sum wraps,
    and ``dtype=bool`` gives whether any entry is nonzero, as PyTorch's."""
    axis, keepdims = _numpy_names(name, axis, keepdims, dim, keepdim)
    if dtype is None:
        return op.apply(x, axis=_axes(axis, x.ndim, name), keepdims=keepdims)
    if name == "mean" and not x.backend.is_floating(dtype):
        raise TypeError(f"mean: dtype={dtype_name(dtype)} is not a floating-point dtype; "
                        "a mean needs one (PyTorch refuses this too): pass dtype="
                        "tinyffn.float32 or float64")
    x = x.to(dtype=dtype)
    y = op.apply(x, axis=_axes(axis, x.ndim, name), keepdims=keepdims)
    return y if y.dtype == x.dtype else y.to(dtype=x.dtype)    # integers: not differentiable


def amax(x, axis: Any = None, keepdims: bool = False, *, dim: Any = None,
         keepdim: bool | None = None):
    """The maximum over ``axis`` (an int, a tuple, or None for all axes), the values
    alone, as ``torch.amax`` and ``numpy.amax``; ties share the gradient (the ``Max`` op)."""
    axis, keepdims = _numpy_names("amax", axis, keepdims, dim, keepdim)
    return R.Max.apply(x, axis=_axes(axis, x.ndim, "amax"), keepdims=keepdims)


def amin(x, axis: Any = None, keepdims: bool = False, *, dim: Any = None,
         keepdim: bool | None = None):
    """-amax(-x): the minimum over ``axis``, the values alone, as ``torch.amin``. For
    integers and bools, whose negation can wrap around (uint8, the most negative int),
    ~amax(~x), exact."""
    axis, keepdims = _numpy_names("amin", axis, keepdims, dim, keepdim)
    _axes(axis, x.ndim, "amin")         # checked here, so that an error says amin
    if not _floating(x):                # ~ reverses the order of integers and bools
        return invert(amax(invert(x), axis, keepdims))                  # exactly: no wrap
    with grad_mode.scope("function", "min"):
        return -amax(-x, axis, keepdims)


def arg_extreme(x, op: str, axis: Any, keepdims: bool, dim: Any, keepdim: Any):
    """``x.argmax`` and ``x.argmin`` (``op``): indices along one axis, or of the flattened
    tensor when none is given. Not differentiable: an int64 tensor outside any graph."""
    for name, value in (("axis", axis), ("dim", dim)):
        if value is not None and not _is_int(value):
            raise TypeError(f"{op}: {name} must be None or an int, got {value!r}")
    axis, keepdims = _numpy_names(op, axis, keepdims, dim, keepdim)
    if axis is not None:
        (axis,) = _axis_list((axis,), max(x.ndim, 1), op)
    xp, data = x.backend.xp, x.data
    if data.dtype == xp.bool:           # the standard's argmax takes no bools: as 0s and 1s
        data = xp.astype(data, xp.int8)
    found = getattr(xp, op)(data, axis=axis, keepdims=keepdims)
    return _tensor.Tensor(found, _backend=x.backend)


# ----------------------------------------------------------------------------- shape
def unsqueeze(x, dim: int):
    """A new axis of length 1 at ``dim``, in [-ndim - 1, ndim], as ``torch.unsqueeze``."""
    if not _is_int(dim) or not -x.ndim - 1 <= dim <= x.ndim:
        raise ValueError(f"unsqueeze: dim must be an integer in [{-x.ndim - 1}, {x.ndim}] "
                         f"for a tensor of shape {x.shape}, got {dim!r}")
    dim %= x.ndim + 1
    return x.reshape(x.shape[:dim] + (1,) + x.shape[dim:])


def squeeze(x, dim: int | tuple | None = None):
    """Without the axes of length 1 among ``dim`` (all of them when None); an axis named
    but longer than 1 stays, as in ``torch.squeeze``."""
    axes = range(x.ndim) if dim is None else _axes(dim, x.ndim, "squeeze")
    gone = {a for a in axes if x.shape[a] == 1}
    return x.reshape(tuple(n for a, n in enumerate(x.shape) if a not in gone))


def flatten(x, start_dim: int = 0, end_dim: int = -1):
    """Axes ``start_dim`` to ``end_dim`` (both included) merged into one, as
    ``torch.flatten``: ``x.flatten(1)`` turns (B, T, d) into (B, T·d)."""
    if x.ndim == 0:                             # as in PyTorch: (1,), dims 0 or -1 only
        _axis_list((start_dim,), 1, "flatten"), _axis_list((end_dim,), 1, "flatten")
        return x.reshape(1)
    (start,), (end,) = (_axis_list((d,), x.ndim, "flatten") for d in (start_dim, end_dim))
    if start > end:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} in "
                         f"a tensor of shape {x.shape}")
    merged = math.prod(x.shape[start:end + 1])
    return x.reshape(x.shape[:start] + (merged,) + x.shape[end + 1:])


def expand(x, *sizes):
    """``broadcast_to``, where -1 keeps an axis's length, as ``torch.Tensor.expand``."""
    sizes = _shape_arg(sizes, "expand")
    lead = len(sizes) - x.ndim
    if lead < 0 or any(n == -1 for n in sizes[:lead]):
        raise ValueError(f"expand: cannot expand shape {x.shape} to {sizes}; give at least "
                         "as many sizes as axes, and -1 only for existing axes")
    return x.broadcast_to(tuple(x.shape[i - lead] if n == -1 else n
                                for i, n in enumerate(sizes)))


def split(x, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple:
    """Slices along ``dim``, as ``torch.split``: of ``split_size_or_sections`` each (the
    last may be shorter), or of the lengths in a list, which must add up to the axis."""
    (dim,) = _axis_list((dim,), x.ndim, "split")
    n, sizes = x.shape[dim], split_size_or_sections
    if _is_int(sizes):
        if sizes <= 0:
            raise ValueError(f"split: the size of each piece must be positive, got {sizes}")
        sizes = [min(sizes, n - start) for start in range(0, n, sizes)] or [0]
    elif not all(_is_int(k) and k >= 0 for k in sizes) or sum(sizes) != n:
        raise ValueError(f"split: lengths {list(sizes)} must be integers >= 0 adding up to "
                         f"{n}, the length of axis {dim} of shape {x.shape}")
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return tuple(x[(slice(None),) * dim + (slice(a, a + k),)] for a, k in zip(starts, sizes))


def chunk(x, chunks: int, dim: int = 0) -> tuple:
    """``chunks`` pieces along ``dim`` (fewer when the axis is short), as ``torch.chunk``:
    each ceil(n / chunks) long, the last shorter. ``a, b = h.chunk(2, -1)`` halves a gated
    FFN's fused first layer."""
    if not _is_int(chunks) or chunks <= 0:
        raise ValueError(f"chunk: chunks must be a positive integer, got {chunks!r}")
    (axis,) = _axis_list((dim,), x.ndim, "chunk")
    if x.shape[axis] == 0:                      # as torch.chunk: `chunks` empty pieces
        return split(x, [0] * chunks, dim)
    return split(x, -(-x.shape[axis] // chunks), dim)


# ----------------------------------------------------------------------------- not differentiable
# What records no graph lives here too: any/all, formatting (comparisons and bitwise
# logic: comparisons.py; in-place updates: in_place.py).
def any_all(x, op: str, dim: Any, keepdim: Any, axis: Any, keepdims: bool):
    """``x.any()`` and ``x.all()`` (``op``): whether any / every element along the axes is
    nonzero (a NaN counts as nonzero), as a bool tensor outside any graph. ``dim=()``
    reduces no axis here, as in PyTorch (whose sum and mean read it as every axis)."""
    no_axis = isinstance(dim, (tuple, list)) and len(dim) == 0
    axis, keepdims = _numpy_names(op, axis, keepdims, dim, keepdim)
    axes = () if no_axis else _axes(axis, x.ndim, op)
    data = getattr(x.backend.xp, op)(x.data, axis=axes, keepdims=keepdims)
    return _tensor.Tensor(data, _backend=x.backend)


def tensor_repr(x) -> str:
    """``repr(x)``, PyTorch's way: ``tensor([1., 2.], dtype=float64, grad_fn=<MulBackward>)``,
    naming the device, dtype and graph only where they are not the defaults."""
    body = np.array2string(x.numpy(), separator=", ", prefix="tensor(")
    extras = []
    if x.device != "cpu":
        extras.append(f"device='{x.device}'")
    if dtype_name(x.dtype) not in (DEFAULTS.float, "int64", "bool"):
        extras.append(f"dtype={dtype_name(x.dtype)}")
    if x.grad_fn is not None:
        extras.append(f"grad_fn=<{x.grad_fn.fn.__name__}Backward>")
    elif x.requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + extras) + ")"


def format_value(x, spec: str) -> str:
    """``f"{loss:.4f}"``: a 0-d tensor formats as its value, as in PyTorch; others as
    their repr, which takes no format spec."""
    if x.ndim == 0:
        return format(x.item(), spec)
    if spec:
        raise TypeError(f"format: {spec!r} formats a number, and this tensor has shape "
                        f"{x.shape}; format x.item() of a one-element tensor, or x.tolist()")
    return repr(x)
