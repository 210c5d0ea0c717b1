"""More PyTorch names ported programs reach for, each a function and a Tensor method:
moving entries (``roll``, ``movedim``/``moveaxis``, ``narrow``, ``unflatten``; the method
``x.unfold(dimension, size, step)``, sliding windows, which has no function), running
differences and products (``diff``, ``cumprod``, ``dot``), and rounding (``floor``,
``ceil``, ``trunc``, ``round``).

All are composed, in a frame of their name, so a drawing shows what they are made of and
the gradient follows from the primitives': ``roll`` of slices and a ``cat``, ``movedim`` of
a ``permute``, ``narrow`` of one slice, ``unfold`` of slices and a ``stack``, ``unflatten``
of a ``reshape``, ``diff`` of slices and a sub, ``cumprod`` of a ``where`` and a ``prod``
(whose backward is exact at zeros), ``dot`` of mul and sum, the rounding functions of
``floor_divide(x, 1)`` (whose gradient is 0, as floor's is in PyTorch).
:class:`NameMethods` is a base class of ``Tensor`` (through ``TorchMethods``); this file
reads tensor.py's class at call time.
"""
from __future__ import annotations

import math

from . import grad_mode
from .amp_casts import outside_autocast, promoted
from .arguments import _is_int, tensor_arg
from .backend import dtype_name


def _axis(op: str, dim, ndim: int, name: str = "dim") -> int:
    """One axis in [0, ndim), negatives counted from the end, else an error naming ``op``."""
    if not _is_int(dim):
        raise TypeError(f"{op}: {name} must be an int, got {dim!r}")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{op}: {name}={dim} is out of range for a tensor of {ndim} axes "
                         f"(expected {-n} to {n - 1})")
    return int(dim) % n


def _ints(op: str, name: str, value) -> tuple:
    value = (value,) if _is_int(value) else value
    if not isinstance(value, (tuple, list)) or not all(_is_int(v) for v in value):
        raise TypeError(f"{op}: {name} must be an int or a tuple of ints, got {value!r}")
    return tuple(int(v) for v in value)


# ----------------------------------------------------------------------------- moving entries
def roll(input, shifts, dims=None):
    """Entries moved ``shifts`` places along ``dims``, those pushed off the end coming back
    at the start, as ``torch.roll``: roll([1, 2, 3], 1) is [3, 1, 2]. ``dims`` None rolls
    the flattened tensor and gives its shape back. Per axis, two slices (the last s
    entries, then the rest) and a ``cat``, so the gradient is rolled back."""
    x = tensor_arg("roll", "input", input)
    shifts = _ints("roll", "shifts", shifts)
    if dims is None:
        if len(shifts) != 1:
            raise ValueError(f"roll: without dims, shifts must be one int, got {shifts}")
        with grad_mode.scope("function", "roll"):
            return roll(x.reshape(-1), shifts, 0).reshape(*x.shape)
    dims = _ints("roll", "dims", dims)
    if len(shifts) != len(dims):
        raise ValueError(f"roll: shifts {shifts} and dims {dims} must have one entry each "
                         "per axis rolled")
    from .creation import cat       # creation.py imports tensor.py, which imports this
    with grad_mode.scope("function", "roll"):
        y = x
        for s, d in zip(shifts, dims):
            a = _axis("roll", d, x.ndim, "dims")
            n = x.shape[a] if x.ndim else 1
            if x.ndim == 0 or n == 0 or s % n == 0:
                continue
            k = n - s % n                            # the entries from k on come first
            head = (slice(None),) * a
            y = cat([y[head + (slice(k, None),)], y[head + (slice(0, k),)]], dim=a)
        return y if y is not x else x.clone()        # a new tensor, as PyTorch's


def movedim(input, source, destination):
    """Axes ``source`` moved to positions ``destination`` (ints or tuples of one length),
    the other axes keeping their order, as ``torch.movedim`` (``moveaxis`` is the same):
    movedim(x of shape (2, 3, 4), 0, -1) has shape (3, 4, 2). One ``permute``."""
    x = tensor_arg("movedim", "input", input)
    src, dst = _ints("movedim", "source", source), _ints("movedim", "destination", destination)
    if len(src) != len(dst):
        raise ValueError(f"movedim: source {src} and destination {dst} must have the same "
                         "number of entries")
    src = tuple(_axis("movedim", d, x.ndim, "source") for d in src)
    dst = tuple(_axis("movedim", d, x.ndim, "destination") for d in dst)
    for name, axes in (("source", src), ("destination", dst)):
        if len(set(axes)) != len(axes):
            raise ValueError(f"movedim: {name} names an axis twice: {axes}")
    if x.ndim == 0:                 # dims 0 and -1 of a 0-d tensor, as PyTorch's
        return x.clone()
    order = [None] * x.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(a for a in range(x.ndim) if a not in src)
    order = [next(rest) if a is None else a for a in order]
    with grad_mode.scope("function", "movedim"):
        return x.permute(*order)


moveaxis = movedim


def narrow(input, dim, start, length):
    """``length`` entries along ``dim`` from ``start`` (negative: from the end), as
    ``torch.narrow``: ``x[..., start:start + length, ...]``, one slice."""
    x = tensor_arg("narrow", "input", input)
    if x.ndim == 0:
        raise ValueError("narrow: a 0-d tensor has no dim to narrow")
    a = _axis("narrow", dim, x.ndim)
    n = x.shape[a]
    from .tensor import Tensor      # tensor.py imports this module before its class exists
    if isinstance(start, Tensor) and start.numel() == 1:
        start = int(start.item())
    for name, v in (("start", start), ("length", length)):
        if not _is_int(v):
            raise TypeError(f"narrow: {name} must be an int, got {v!r}")
    if not -n <= start <= n:
        raise IndexError(f"narrow: start={start} is out of range for dim {a} of size {n}")
    start = start % n if start < 0 else start
    if length < 0 or start + length > n:
        raise ValueError(f"narrow: start ({start}) + length ({length}) must lie in dim {a} "
                         f"of size {n} (shape {x.shape}), length >= 0")
    with grad_mode.scope("function", "narrow"):
        return x[(slice(None),) * a + (slice(start, start + length),)]


def _unfold(x, dimension, size, step):
    """``x.unfold(dimension, size, step)``, as ``torch.Tensor.unfold``: the windows of
    ``size`` entries every ``step`` along ``dimension``, that axis becoming the number of
    windows, (L - size) // step + 1, and a new last axis of ``size`` holding each:
    y[..., t, ..., k] = x[..., t·step + k, ...]. PyTorch returns a view; here it is
    ``size`` strided slices (tap k of every window) stacked on the last axis, so the
    gradient adds back each window's share onto the entries it copied (an entry in two
    overlapping windows gets both)."""
    from .creation import stack     # creation.py imports tensor.py, which imports this
    op = "unfold"
    a = _axis(op, dimension, x.ndim, "dimension")
    L = x.shape[a] if x.ndim else 1
    for name, v, least in (("size", size, 1), ("step", step, 1)):
        if not _is_int(v) or v < least:
            raise ValueError(f"{op}: {name} must be an int >= {least}, got {v!r}"
                             + ("; PyTorch's size=0 gives empty windows, which tinyffn "
                                "does not make" if name == "size" and v == 0 else ""))
    if size > L:
        raise ValueError(f"{op}: size={size} is longer than dimension {a} of the tensor of "
                         f"shape {x.shape} ({L} entries); at most {L}")
    n = (L - size) // step + 1                                  # windows
    with grad_mode.scope("function", op):
        v = x if x.ndim else x.reshape(1)
        at = (slice(None),) * a
        y = stack([v[at + (slice(k, k + step * (n - 1) + 1, step),)] for k in range(size)],
                  axis=-1)                                      # (..., n, ..., size)
        return y if x.ndim else y.reshape(size)


def unflatten(input, dim, sizes):
    """Axis ``dim`` split into axes of ``sizes`` (one of them may be -1), as
    ``torch.unflatten``: (B, T·d) with unflatten(-1, (T, d)) becomes (B, T, d). A reshape."""
    x = tensor_arg("unflatten", "input", input)
    a = _axis("unflatten", dim, x.ndim)
    sizes = _ints("unflatten", "sizes", sizes)
    if not sizes:
        raise ValueError("unflatten: sizes must name at least one axis")
    n = x.shape[a] if x.ndim else 1
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes) or (
            n != known if -1 not in sizes else known == 0 or n % known):
        raise ValueError(f"unflatten: sizes {sizes} do not multiply to {n}, the size of dim "
                         f"{a} of shape {x.shape} (one size may be -1)")
    sizes = tuple(n // known if s == -1 else s for s in sizes)    # reshape cannot infer a
    with grad_mode.scope("function", "unflatten"):                   # -1 where x is empty
        return x.reshape(*x.shape[:a], *sizes, *x.shape[a + 1:])


# ----------------------------------------------------------------------------- differences, products
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The differences of neighbours along ``dim``, y_i = x_{i+1} - x_i, taken ``n``
    times, as ``torch.diff``; ``prepend`` and ``append`` are put on either end first (a
    ``cat``), unless n is 0: then x comes back as it is, as PyTorch's. Bools give
    x_{i+1} != x_i, as PyTorch's. Two slices and a sub per round."""
    x = tensor_arg("diff", "input", input)
    if x.ndim == 0:
        raise ValueError("diff: needs at least one axis, got a 0-d tensor")
    if not _is_int(n) or n < 0:
        raise ValueError(f"diff: n must be an int >= 0, got {n!r}")
    a = _axis("diff", dim, x.ndim)
    from .creation import cat       # creation.py imports tensor.py, which imports this
    with grad_mode.scope("function", "diff"):
        if n and (prepend is not None or append is not None):
            ends = {k: tensor_arg("diff", k, v) for k, v in (("prepend", prepend),
                                                              ("append", append)) if v is not None}
            for k, v in ends.items():
                if v.ndim != x.ndim:
                    raise ValueError(f"diff: {k} has shape {v.shape} and input {x.shape}; {k} "
                                     "needs as many axes as input, of input's sizes except "
                                     f"along dim {a} (e.g. {k}.unsqueeze({a}))")
            x = cat([*([ends["prepend"]] if "prepend" in ends else []), x,
                     *([ends["append"]] if "append" in ends else [])], dim=a)
        head = (slice(None),) * a
        for _ in range(n):
            later, earlier = x[head + (slice(1, None),)], x[head + (slice(None, -1),)]
            x = later != earlier if dtype_name(x.dtype) == "bool" else later - earlier
        return x


CUMPROD_LIMIT = 2 ** 26        # entries of cumprod's triangle: 512 MiB in float64


def cumprod(input, dim, *, dtype=None):
    """The running product along ``dim``, y_i = x_1 · ... · x_i, as ``torch.cumprod``;
    integers and bools multiply in int64. Composed as y_i = prod_j m_ij, with m_ij = x_j
    for j <= i and 1 after (a ``where`` on the (n, n) triangle and a ``prod``): prod's
    backward is exact where x has zeros (the product of the others), so the gradient is
    PyTorch's there too. ``dtype``: the input is cast to it first and the result has it
    (an int32 product stays int32, wrapping, as PyTorch's). O(n²) memory along ``dim``:
    more than ``CUMPROD_LIMIT`` entries in the triangle are refused, saying so, rather
    than exhausting memory."""
    x = tensor_arg("cumprod", "input", input)
    if dtype is not None:
        x = x.to(dtype=dtype)
        y = cumprod(x, dim)                         # integers in int64, then the dtype asked
        return y if y.dtype == x.dtype else y.to(dtype=x.dtype)
    a = _axis("cumprod", dim, x.ndim)
    if x.ndim == 0:
        return x.prod() if x.backend.is_floating(x.dtype) else x.to(dtype="int64")
    from .composed import where     # composed.py imports tensor.py, which imports this
    from .creation import arange
    n = x.shape[a]
    if n * x.numel() > CUMPROD_LIMIT:               # the (..., n, n) triangle's entries
        raise ValueError(f"cumprod: along dim {dim} of a tensor of shape {x.shape} this "
                         f"composition needs {n * x.numel():,} entries (n² per row; the limit "
                         f"is {CUMPROD_LIMIT:,}); split the axis into chunks and multiply "
                         "each chunk's running product by the last product of the one before")
    with grad_mode.scope("function", "cumprod"):
        y = movedim(x, a, -1).unsqueeze(-2)                         # (..., 1, n)
        j = arange(n, device=x.device)
        upto = j.reshape(n, 1) >= j                                 # (n, n): j <= i
        y = where(upto, y, 1).prod(-1)                              # (..., n)
        return movedim(y, -1, a)


def dot(input, tensor):
    """The dot product of two 1-D tensors of one length and dtype, Σ input_i · tensor_i, as
    ``torch.dot`` (PyTorch refuses other ranks and mixed dtypes too; for batches use
    ``matmul``). A mul and a sum; an integer result keeps the inputs' dtype. In an
    autocast region float16 and float32 inputs run in float32, as PyTorch's ``promote``
    list runs them (amp_casts.py)."""
    x, w = tensor_arg("dot", "input", input), tensor_arg("dot", "tensor", tensor)
    if x.ndim != 1 or w.ndim != 1 or x.shape != w.shape:
        raise ValueError(f"dot: takes two 1-D tensors of one length, got shapes {x.shape} and "
                         f"{w.shape}; for matrices use matmul")
    x, w = _one_dtype("dot", x, w, ("input", "tensor"))
    with grad_mode.scope("function", "dot"), outside_autocast():
        y = (x * w).sum()
        return y if y.dtype == x.dtype else y.to(dtype=x.dtype)


def _one_dtype(op: str, x, w, names: tuple) -> tuple:
    """x and w as autocast's ``promote`` list has them (amp_casts.py), then refused unless
    of one dtype, as PyTorch refuses them; ``names`` are the op's arguments, to spell the
    cast in the message."""
    x, w = promoted(op, x, w)
    if x.dtype != w.dtype:
        a, b = dtype_name(x.dtype), dtype_name(w.dtype)
        first, second, rest = names[0], names[1], "".join(", " + n for n in names[2:])
        raise TypeError(f"{op}: {first} and {second} must have one dtype, got {a} and {b} "
                        f"(PyTorch refuses this too); cast one first: "
                        f"{op}({first}.to(dtype={b!r}), {second}{rest}) or "
                        f"{op}({first}, {second}.to(dtype={a!r}){rest})")
    return x, w


def tensordot(a, b, dims=2):
    """The sum over paired axes of a and b of a_ij.. · b_..jk, as ``torch.tensordot``:
    ``dims`` an int n pairs a's last n axes with b's first n (0: the outer product), or
    two lists of axes, ``([1, 2], [0, 1])``; the result has a's other axes, then b's.
    Composed as PyTorch computes it: a's axes permuted (the paired ones last) and reshaped
    to a matrix (m, k), b's to (k, n), one matmul, reshaped back. Mixed dtypes are refused,
    as PyTorch refuses them; in an autocast region float16 with float32 runs in float32 and
    two float32 tensors stay float32 (PyTorch's CUDA ``promote`` list, amp_casts.py)."""
    x, w = tensor_arg("tensordot", "a", a), tensor_arg("tensordot", "b", b)
    axes_a, axes_b = _paired_axes(dims, x, w)
    for i, j in zip(axes_a, axes_b):
        if x.shape[i] != w.shape[j]:
            raise ValueError(f"tensordot: paired axes must have one size, but a's axis {i} "
                             f"has {x.shape[i]} and b's axis {j} has {w.shape[j]} (shapes "
                             f"{x.shape} and {w.shape})")
    x, w = _one_dtype("tensordot", x, w, ("a", "b", "dims"))
    free_a = [i for i in range(x.ndim) if i not in axes_a]
    free_b = [j for j in range(w.ndim) if j not in axes_b]
    k = math.prod(x.shape[i] for i in axes_a)
    m, n = math.prod(x.shape[i] for i in free_a), math.prod(w.shape[j] for j in free_b)
    with grad_mode.scope("function", "tensordot"), outside_autocast():
        xm = x.permute(*free_a, *axes_a).reshape(m, k)                 # (m, k)
        wm = w.permute(*axes_b, *free_b).reshape(k, n)                 # (k, n)
        return (xm @ wm).reshape(*[x.shape[i] for i in free_a],
                                 *[w.shape[j] for j in free_b])


def _paired_axes(dims, x, w) -> tuple:
    """tensordot's ``dims`` as two lists of axes in [0, ndim), checked as PyTorch checks
    them."""
    if _is_int(dims):
        if not 0 <= dims <= min(x.ndim, w.ndim):
            raise ValueError(f"tensordot: dims={dims} must be from 0 to the smaller number of "
                             f"axes, {min(x.ndim, w.ndim)} (shapes {x.shape} and {w.shape})")
        return list(range(x.ndim - dims, x.ndim)), list(range(dims))
    if not (isinstance(dims, (tuple, list)) and len(dims) == 2 and all(
            isinstance(d, (tuple, list)) and all(_is_int(i) for i in d) for d in dims)):
        raise TypeError(f"tensordot: dims must be an int or two lists of axes, ([axes of a], "
                        f"[axes of b]), got {dims!r}")
    if len(dims[0]) != len(dims[1]):
        raise ValueError(f"tensordot: the two lists of axes must have one length, got "
                         f"{list(dims[0])} and {list(dims[1])}")
    out = ([_axis("tensordot", i, x.ndim, "an axis of a") for i in dims[0]],
           [_axis("tensordot", j, w.ndim, "an axis of b") for j in dims[1]])
    for which, axes in zip("ab", out):
        if len(set(axes)) != len(axes):
            raise ValueError(f"tensordot: an axis of {which} is paired twice in {dims!r}")
    return out


# ----------------------------------------------------------------------------- rounding
def floor(input):
    """The largest integer <= x, elementwise, as ``torch.floor`` (-0.0 stays -0.0, ±inf and
    NaN are their own floor). ``floor_divide(x, 1)``, which is floor(x / 1), where x is
    finite; its gradient is 0, as PyTorch's ``floor`` gives (the function is flat between
    its jumps). Integers come back as they are (a copy), as in PyTorch."""
    return _rounded("floor", input, lambda x: _floor(x))


def ceil(input):
    """The smallest integer >= x, elementwise, as ``torch.ceil``: -floor(-x) (so ceil(-0.5)
    is -0.0, as PyTorch's); gradient 0."""
    return _rounded("ceil", input, lambda x: -_floor(-x))


def trunc(input):
    """x rounded toward 0, elementwise, as ``torch.trunc`` (trunc(-0.5) is -0.0): ceil
    where x < 0, floor elsewhere (a ``where``); gradient 0."""
    from .composed import where     # composed.py imports tensor.py, which imports this
    return _rounded("trunc", input, lambda x: where(x < 0, -_floor(-x), _floor(x)))


def round(input, *, decimals=0):
    """x rounded to the nearest integer, halves to the even one (round(0.5) is 0, round(1.5)
    and round(2.5) are 2), as ``torch.round``; gradient 0. With r = floor(x) and
    f = x - r (exact, except for -1 < x < 0, where the result is -1 or -0.0 either way):
    r + 1 where f > 1/2, or f = 1/2 and r is odd; r elsewhere; a 0 takes the sign of r
    (round(-0.4) is -0.0). ``decimals`` d: round(x · 10^d) / 10^d, for d < 0
    round(x / 10^-d) · 10^-d, as PyTorch computes it (so 0.125 may not go to 0.12); float16
    in float32, rounded back once, as PyTorch's (in float16, 1197 · 100 is inf); |d| > 308
    gives NaN, as PyTorch's (10^d is inf there)."""
    if not _is_int(decimals):
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    if decimals == 0:
        return _rounded("round", input, _round_half_even)
    x = tensor_arg("round", "input", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"round: decimals= needs a floating-point tensor, got "
                        f"{dtype_name(x.dtype)} (PyTorch refuses it too)")
    from .functional import _narrowed, _widened     # functional.py imports tensor.py
    scale = 10.0 ** abs(decimals) if abs(decimals) <= 308 else math.inf     # past a double
    with grad_mode.scope("function", "round"):
        w = _widened(x)                             # float16: float32, as PyTorch's opmath
        y = (_round_half_even(w * scale) / scale if decimals > 0
             else _round_half_even(w / scale) * scale)
        return _narrowed(y, x)


def _rounded(op: str, input, fn):
    x = tensor_arg(op, "input", input)
    if not x.backend.is_floating(x.dtype):
        if dtype_name(x.dtype) == "bool":
            raise TypeError(f"{op}: takes numbers, got a bool tensor (PyTorch refuses it too)")
        return x.clone()                    # an integer is its own floor, ceil and round
    with grad_mode.scope("function", op):
        return fn(x)


def _floor(x):
    from .composed import where     # composed.py imports tensor.py, which imports this
    from .more_functions import floor_divide
    finite = x.isfinite()
    return where(finite, floor_divide(where(finite, x, 0), 1), x.detach())  # inf, NaN: no grad


def _round_half_even(x):
    from .composed import where     # composed.py imports tensor.py, which imports this
    r = _floor(x)
    finite = x.isfinite()
    rf = where(finite, r, 0).detach()                       # inf - inf would warn
    f = where(finite, x, 0).detach() - rf                   # in [0, 1]; a mask, no gradient
    odd = _floor(rf / 2) * 2 != rf
    y = where((f > 0.5) | ((f == 0.5) & odd), r + 1, r)
    return where(y == 0, where(finite, r, 0) * 0, y)        # -0.0 where r = -1 or -0.0


class NameMethods:
    """The Tensor methods of the functions above."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def roll(self, shifts, dims=None): return roll(self, shifts, dims)
    def movedim(self, source, destination): return movedim(self, source, destination)
    def moveaxis(self, source, destination): return movedim(self, source, destination)
    def narrow(self, dim, start, length): return narrow(self, dim, start, length)
    def unflatten(self, dim, sizes): return unflatten(self, dim, sizes)
    def unfold(self, dimension, size, step): return _unfold(self, dimension, size, step)
    def diff(self, n=1, dim=-1, prepend=None, append=None): return diff(self, n, dim, prepend, append)
    def cumprod(self, dim, *, dtype=None): return cumprod(self, dim, dtype=dtype)
    def dot(self, tensor): return dot(self, tensor)
    def floor(self): return floor(self)
    def ceil(self): return ceil(self)
    def trunc(self): return trunc(self)
    def round(self, *, decimals=0): return round(self, decimals=decimals)


__all__ = ["roll", "movedim", "moveaxis", "narrow", "unflatten", "diff", "cumprod", "dot",
           "floor", "ceil", "trunc", "round", "NameMethods"]
