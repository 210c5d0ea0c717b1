"""What a script checking its numbers reaches for, as PyTorch names it: the limits of a
dtype (``tinyffn.finfo(tinyffn.float16).max``, ``iinfo``), non-finite values replaced
(``nan_to_num``), counts (``count_nonzero``, the histogram ``histc``), and order
statistics (``median``, ``kthvalue``: an entry of :func:`tinyffn.sort`'s order, read by a
``gather``).

``finfo`` and ``iinfo`` read NumPy's, as Python numbers. ``nan_to_num`` is composed: three
``where`` nodes in a frame of its name, so the gradient reaches the finite entries alone,
as PyTorch's. ``count_nonzero`` and ``histc`` count, and record no graph (PyTorch's have
no gradient either). Each is a function (``tinyffn.histc(x)``) and a Tensor method
(``x.histc()``), from :class:`NumericsMethods`, a base class of ``Tensor`` (through
``TorchMethods``); this file reads tensor.py's class at call time, as torch_extras.py does.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import _axes, _is_int, is_real, tensor_arg, type_name
from .backend import DEFAULTS, dtype_name
from .composed import ValuesIndices


def _dtype_of(op: str, type: Any) -> np.dtype:
    """A dtype argument (a NumPy dtype, a name, a Tensor's ``.dtype`` on any device) as a
    NumPy dtype."""
    try:
        return np.dtype(type if isinstance(type, (str, np.dtype)) else dtype_name(type))
    except (TypeError, ValueError, AttributeError):
        raise TypeError(f"{op}: expected a dtype (tinyffn.float16, 'float32', x.dtype), got "
                        f"{type_name(type)}") from None


class finfo:
    """The limits of a floating dtype, as ``torch.finfo``: ``bits``, ``eps`` (the gap from
    1 to the next number), ``max``, ``min`` (= -max), ``tiny`` and ``smallest_normal`` (the
    smallest positive normal number), ``resolution`` (10^-digits) and ``dtype`` (its name),
    each a Python number. ``finfo()`` is the default float dtype's (float32 unless set), as PyTorch. An integer
    dtype is refused, naming ``iinfo``."""

    def __init__(self, type: Any = None):
        dtype = np.dtype(DEFAULTS.float) if type is None else _dtype_of("finfo", type)
        if dtype.kind != "f":
            raise TypeError(f"finfo: {dtype.name} is not a floating dtype; for the limits of "
                            "an integer dtype use tinyffn.iinfo, as in PyTorch")
        info = np.finfo(dtype)
        self.bits, self.dtype = int(info.bits), dtype.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)       # NumPy rounds it to the dtype

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``min``, ``max`` (Python
    ints) and ``dtype`` (its name). A float dtype, and bool, are refused as in PyTorch."""

    def __init__(self, type: Any):
        dtype = _dtype_of("iinfo", type)
        if dtype.kind not in "iu":
            raise TypeError(f"iinfo: {dtype.name} is not an integer dtype" + (
                "; for the limits of a floating dtype use tinyffn.finfo, as in PyTorch"
                if dtype.kind == "f" else ", as in PyTorch"))
        info = np.iinfo(dtype)
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), \
            int(info.max), dtype.name

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # PyTorch's %g


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``input`` with NaN replaced by ``nan``, inf by ``posinf`` and -inf by ``neginf``, as
    ``torch.nan_to_num``; ``None`` for an inf means the largest (most negative) finite number
    of the dtype, ``finfo(dtype).max`` (``.min``). A replacement the dtype cannot hold
    rounds as a cast does (1e10 into float16 is inf, as in PyTorch). Integer and bool
    tensors have nothing to replace: a copy, as there.

    Three ``where`` nodes: y = x where x is finite, so dy/dx = 1 there and 0 at the
    replaced entries (PyTorch's gradient, grad · isfinite(x))."""
    x = tensor_arg("nan_to_num", "input", input)
    for name, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if not (v is None and name != "nan" or is_real(v) and not isinstance(v, bool)):
            raise TypeError(f"nan_to_num: {name} must be a number"
                            f"{'' if name == 'nan' else ' or None'}, got {v!r}")
    if not x.backend.is_floating(x.dtype):
        return x.clone()
    info = finfo(dtype_name(x.dtype))
    with np.errstate(over="ignore"):        # as a cast rounds them: 1e10 in float16 is inf
        fills = [float(np.asarray(v, dtype=dtype_name(x.dtype))) for v in (
            nan, info.max if posinf is None else posinf, info.min if neginf is None else neginf)]
    from .composed import where     # composed.py imports tensor.py, which imports this
    with grad_mode.scope("function", "nan_to_num"):
        # the places are x's, not y's: a replacement that is itself inf (nan=inf, or 1e300
        # into float32) is not replaced again, as in PyTorch and NumPy
        nans, posinfs, neginfs = x.isnan(), x == math.inf, x == -math.inf
        y = where(nans, fills[0], x)
        y = where(posinfs, fills[1], y)
        return where(neginfs, fills[2], y)


def count_nonzero(input, dim=None):
    """The number of nonzero entries (a NaN counts), over ``dim`` (an int, a tuple, or None
    for all), as ``torch.count_nonzero``: an int64 tensor, with no graph."""
    x = tensor_arg("count_nonzero", "input", input)
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    axes = _axes(dim, x.ndim, "count_nonzero")
    with grad_mode.no_grad():
        return (x != 0).sum(axis=axes)


def histc(input, bins=100, min=0, max=0):
    """A histogram of ``input``'s entries in ``bins`` bins of equal width from ``min`` to
    ``max``, as ``torch.histc``: a tensor of counts in the input's (float) dtype, with no
    graph. Entry x lands in bin floor((x - min) · bins / (max - min)), computed in the
    input's dtype, as PyTorch's CPU kernel (so an entry on an edge lands where PyTorch
    puts it); x = max in the last bin; entries outside [min, max], and NaN, are left out.
    min = max (the default 0, 0) takes the least and the largest entry (widened by 1 either
    side if they are equal, as PyTorch). Integer inputs are refused, as there. Counted by
    NumPy, as ``bincount``."""
    x = tensor_arg("histc", "input", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"histc: the tensor has dtype {dtype_name(x.dtype)}; histc counts "
                        "floating-point values, as in PyTorch: call x.float() first")
    if not _is_int(bins) or isinstance(bins, bool) or bins < 1:
        raise ValueError(f"histc: bins must be a positive int, got {bins!r}")
    for name, v in (("min", min), ("max", max)):
        if not is_real(v) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"histc: {name} must be a finite number, got {v!r}")
    if min > max:
        raise ValueError(f"histc: max must be larger than min, got min={min!r}, max={max!r}")
    a = x.backend.to_numpy(x.data).reshape(-1)
    dtype = a.dtype.type
    lo, hi = dtype(min), dtype(max)
    if lo == hi and a.size:
        finite = a[~np.isnan(a)]
        lo, hi = (finite.min(), finite.max()) if finite.size else (lo, hi)
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"histc: the range of the entries, [{lo}, {hi}], is not "
                             "finite; pass min and max, or nan_to_num(x) first")
    if lo == hi:
        lo, hi = lo - dtype(1), hi + dtype(1)
    inside = a[(a >= lo) & (a <= hi)]                       # NaN compares False: left out
    with np.errstate(over="ignore"):
        i = ((inside - lo) * dtype(bins) / (hi - lo)).astype(np.int64)   # (in the dtype)
    i = np.minimum(i, bins - 1)                             # x = max: the last bin
    counts = np.bincount(i, minlength=bins).astype(a.dtype)
    return _tensor.Tensor(x.backend.from_numpy(counts), _backend=x.backend)


class KthvalueResult(ValuesIndices):
    """What ``kthvalue`` returns, as ``torch.return_types.kthvalue``: ``.values``, ``.indices``."""
    __slots__ = ()
    made_by = "x.kthvalue(k)"


class MedianResult(ValuesIndices):
    """What ``median(dim)`` returns, as ``torch.return_types.median``."""
    __slots__ = ()
    made_by = "x.median(dim)"


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest entry along ``dim`` (k from 1) and its index, as
    ``torch.kthvalue``: ``values, indices = x.kthvalue(k)``. Entry k - 1 of the stable
    ascending order of :func:`tinyffn.sort` (NaN the largest; among equal values the
    earlier index, where PyTorch's choice among ties is unspecified), read by a
    ``gather``, so the gradient lands on that entry."""
    x = tensor_arg("kthvalue", "input", input)
    from .sorting import _dim       # sorting.py imports tensor.py, which imports this
    axis = _dim("kthvalue", dim, x.ndim)
    n = x.shape[axis] if x.ndim else 1
    if not _is_int(k) or isinstance(k, bool) or not 1 <= k <= n:
        raise ValueError(f"kthvalue: k must be an int in [1, {n}] (the size of dim {dim} of "
                         f"a tensor of shape {x.shape}), got {k!r}")
    return _selected("kthvalue", x, axis, keepdim, lambda xp, order: order[
        (slice(None),) * axis + (slice(k - 1, k), ...)])


def median(input, dim=None, keepdim=False):
    """The median, as ``torch.median``: of ``n`` entries the lower middle one, entry
    (n - 1) // 2 of the ascending order (no average of the two middle ones); NaN where
    there is a NaN. With no ``dim``, of every entry, a 0-d tensor whose gradient is shared
    by the entries equal to it (an ``amax`` of those, as PyTorch); over ``dim``, the pair
    ``(values, indices)``, its gradient on the index returned (among equal values the
    earlier one in a stable sort; PyTorch's choice among ties is unspecified)."""
    x = tensor_arg("median", "input", input)
    from .sorting import _dim, _order  # sorting.py imports tensor.py, which imports this
    if dim is None:
        if keepdim:
            raise TypeError("median: keepdim needs a dim, as in PyTorch")
        if not math.prod(x.shape):
            raise ValueError("median: the tensor is empty; there is no median (PyTorch "
                             "answers nan)")
        xp, flat = x.backend.xp, x.reshape(-1)
        if x.backend.is_floating(x.dtype) and bool(xp.any(xp.isnan(flat.data))):
            chosen = flat.isnan()                                    # NaN, as PyTorch
        else:
            order = _order(xp, flat.data, 0, False)
            chosen = flat == flat[int(order[(flat.shape[0] - 1) // 2])]
        from .composed import where     # composed.py imports tensor.py, which imports this
        with grad_mode.scope("function", "median"):
            if not x.backend.is_floating(x.dtype):
                return flat[chosen][0]
            return where(chosen, flat, -math.inf).amax()             # ties share
    axis = _dim("median", dim, x.ndim)
    if x.ndim and not x.shape[axis]:
        raise ValueError(f"median: dim {dim} of a tensor of shape {x.shape} is empty; there "
                         "is no median (PyTorch refuses it too)")

    def middle(xp, order):          # a row with a NaN: its first NaN, as PyTorch
        m = (order.shape[axis] - 1) // 2
        middle = order[(slice(None),) * axis + (slice(m, m + 1), ...)]
        if not x.backend.is_floating(x.dtype):
            return middle
        nan = xp.isnan(x.data if x.ndim else xp.reshape(x.data, (1,)))
        first_nan = xp.argmax(xp.astype(nan, xp.int8), axis=axis, keepdims=True)
        return xp.where(xp.any(nan, axis=axis, keepdims=True), first_nan, middle)
    return _selected("median", x, axis, keepdim, middle)


def _selected(op: str, x, axis: int, keepdim: bool, pick):
    """(values, indices) at the index ``pick(xp, order)`` chooses along ``axis`` (kept, of
    length 1) from the stable ascending ``order``; the values read by a ``gather``."""
    from .sorting import _gathered, _order
    xp = x.backend.xp
    data = x.data if x.ndim else xp.reshape(x.data, (1,))
    index = xp.astype(pick(xp, _order(xp, data, axis, False)), xp.int64)
    index = _tensor.Tensor(index, _backend=x.backend)                  # (..., 1, ...)
    with grad_mode.scope("function", op):
        values = _gathered(x if x.ndim else x.reshape(1), axis, index)    # made: in range
        if not keepdim or not x.ndim:
            values, index = values.squeeze(axis), index.squeeze(axis)
    return _RESULTS[op](values, index)



class NanmedianResult(ValuesIndices):
    """What ``nanmedian(dim)`` returns, as ``torch.return_types.nanmedian``."""
    __slots__ = ()
    made_by = "x.nanmedian(dim)"


class ModeResult(ValuesIndices):
    """What ``mode`` returns, as ``torch.return_types.mode``: ``.values``, ``.indices``."""
    __slots__ = ()
    made_by = "x.mode()"


_RESULTS = {"kthvalue": KthvalueResult, "median": MedianResult,
            "nanmedian": NanmedianResult, "mode": ModeResult}


def nanmedian(input, dim=None, keepdim=False):
    """:func:`median` of the entries that are not NaN, as ``torch.nanmedian``: of the m
    numbers (in a row), entry (m − 1) // 2 of the stable ascending order; NaN where there
    are none. Without ``dim`` a 0-d tensor whose gradient the entries equal to it share;
    over ``dim`` the pair ``(values, indices)``, its gradient on the index returned (among
    ties the earlier one, which is PyTorch's index too; a row of NaN alone gives index 0,
    where PyTorch's is any of them). An integer input has no NaN: its median."""
    x = tensor_arg("nanmedian", "input", input)
    if not x.backend.is_floating(x.dtype):
        v = median(x, dim, keepdim)
        return v if dim is None else NanmedianResult(*v)
    from .sorting import _dim, _order  # sorting.py imports tensor.py, which imports this
    if dim is None:
        if keepdim:
            raise TypeError("nanmedian: keepdim needs a dim, as in PyTorch")
        if not math.prod(x.shape):
            raise ValueError("nanmedian: the tensor is empty; there is no median (PyTorch "
                             "answers nan)")
        xp, flat = x.backend.xp, x.reshape(-1)
        m = int(xp.sum(xp.astype(~xp.isnan(flat.data), xp.int64)))     # numbers: a read
        if not m:
            chosen = flat.isnan()                                       # NaN alone
        else:
            order = _order(xp, flat.data, 0, False)                     # NaN last
            chosen = flat == flat[int(order[(m - 1) // 2])]
        from .composed import where     # composed.py imports tensor.py, which imports this
        with grad_mode.scope("function", "nanmedian"):
            return where(chosen, flat, -math.inf).amax()                # ties share
    axis = _dim("nanmedian", dim, x.ndim)
    if x.ndim and not x.shape[axis]:
        raise ValueError(f"nanmedian: dim {dim} of a tensor of shape {x.shape} is empty; "
                         "there is no median (PyTorch refuses it too)")

    def middle(xp, order):          # entry (m - 1) // 2 of each row's numbers, NaN last
        data = x.data if x.ndim else xp.reshape(x.data, (1,))
        m = xp.sum(xp.astype(~xp.isnan(data), xp.int64), axis=axis, keepdims=True)
        return xp.take_along_axis(order, xp.maximum((m - 1) // 2, 0), axis=axis)
    return _selected("nanmedian", x, axis, keepdim, middle)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` and where it is, as ``torch.mode``: ``(values,
    indices)``. Of values equally frequent the smallest; the index is the value's last
    place along dim (PyTorch's CPU answer for up to 16 entries; for more, its index is any
    place of the value). Each NaN counts once, as NaN != NaN (PyTorch's order of a row with
    a NaN, and so its answer there, depends on its sort). Counted by NumPy, as ``unique``
    (a read to the host); the values read by a ``gather``, so the gradient reaches the
    index returned, as PyTorch's."""
    x = tensor_arg("mode", "input", input)
    from .sorting import _dim       # sorting.py imports tensor.py, which imports this
    axis = _dim("mode", dim, x.ndim)
    if x.ndim and not x.shape[axis]:
        raise ValueError(f"mode: dim {dim} of a tensor of shape {x.shape} is empty; it has "
                         "no mode (PyTorch refuses it too)")

    def last_of_most_frequent(xp, order):
        a = np.moveaxis(x.backend.to_numpy(x.data).reshape(x.shape or (1,)), axis, -1)
        o = np.moveaxis(x.backend.to_numpy(order), axis, -1)              # (..., n)
        s = np.take_along_axis(a, o, -1)                                  # sorted, NaN last
        j = np.arange(s.shape[-1])
        new = np.ones(s.shape, dtype=bool)
        new[..., 1:] = s[..., 1:] != s[..., :-1]                          # a run starts
        count = j - np.maximum.accumulate(np.where(new, j, 0), axis=-1) + 1    # so far
        end = np.argmax(count, axis=-1)[..., None]     # the first run to reach the most
        index = np.moveaxis(np.take_along_axis(o, end, -1), -1, axis)    # (..., 1, ...)
        return x.backend.from_numpy(index)
    return _selected("mode", x, axis, keepdim, last_of_most_frequent)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive entries (slices along ``dim``) kept once, as
    ``torch.unique_consecutive``: ``[1, 1, 2, 2, 3, 1]`` gives ``[1, 2, 3, 1]``.
    ``return_inverse``: also each entry's run (input's shape, or dim's length); and
    ``return_counts``: the runs' lengths; both int64. NaN != NaN: each NaN its own run.
    Counted by NumPy (a read to the host), outside any graph, as ``unique``."""
    x = tensor_arg("unique_consecutive", "input", input)
    for name, v in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(v, bool):
            raise TypeError(f"unique_consecutive: {name} must be True or False, got {v!r}")
    a = x.backend.to_numpy(x.data)
    if dim is None:
        rows = a.reshape(-1, 1)                                         # (N, 1)
    else:
        from .sorting import _dim   # sorting.py imports tensor.py, which imports this
        axis = _dim("unique_consecutive", dim, a.ndim)
        rows = np.moveaxis(a.reshape(a.shape or (1,)), axis, 0)
        rows = rows.reshape(rows.shape[0], -1)                          # (n, rest)
    new = np.ones(rows.shape[0], dtype=bool)
    new[1:] = (rows[1:] != rows[:-1]).any(axis=1)                       # a run starts
    starts = np.flatnonzero(new)
    if dim is None:
        values = a.reshape(-1)[starts]
    else:
        values = np.moveaxis(np.take(np.moveaxis(a.reshape(a.shape or (1,)), axis, 0),
                                     starts, axis=0), 0, axis)
    inverse = (np.cumsum(new) - 1).reshape(a.shape if dim is None else -1)
    counts = np.diff(np.append(starts, rows.shape[0]))

    def on_x(v):
        return _tensor.Tensor(x.backend.from_numpy(np.array(v, copy=True)), _backend=x.backend)
    found = [on_x(values)] + [on_x(v.astype(np.int64)) for v, keep in
                              ((inverse, return_inverse), (counts, return_counts)) if keep]
    return found[0] if len(found) == 1 else tuple(found)


def is_complex(input) -> bool:
    """False: tinyffn has no complex dtype (``torch.is_complex``)."""
    tensor_arg("is_complex", "input", input)
    return False


def is_nonzero(input) -> bool:
    """Whether the one entry of ``input`` is not zero, as ``torch.is_nonzero``; a tensor of
    no or several entries is refused (which entry would decide?)."""
    x = tensor_arg("is_nonzero", "input", input)
    if x.numel() != 1:
        raise ValueError(f"is_nonzero: takes a tensor of one entry, got shape {x.shape} "
                         f"({x.numel()} entries); use .any() or .all()")
    return bool(x.item() != 0)


class NumericsMethods:
    """The Tensor methods of the functions above, and PyTorch's questions about a tensor's
    dtype (``element_size``, ``itemsize``, ``nbytes``, ``is_signed``, ...) and the casts
    ``byte``, ``char``, ``short``."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def is_complex(self) -> bool: return is_complex(self)
    def is_nonzero(self) -> bool: return is_nonzero(self)
    def ndimension(self) -> int: return self.ndim
    def element_size(self) -> int: return self.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per entry (4 for float32), as ``Tensor.itemsize``."""
        return np.dtype(dtype_name(self.dtype)).itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of all entries, numel · itemsize, as ``Tensor.nbytes``."""
        return self.numel() * self.itemsize

    def is_signed(self) -> bool:
        """Whether the dtype holds negative numbers (not bool, not uint8)."""
        return dtype_name(self.dtype) not in ("bool", "uint8")

    def is_contiguous(self, memory_format=None) -> bool:
        """True: layout never matters here, every tensor reads as a packed one (see
        ``contiguous()``), so code that asks before calling ``.contiguous()`` runs as is."""
        return True

    def byte(self): return self.to(dtype="uint8")
    def char(self): return self.to(dtype="int8")
    def short(self): return self.to(dtype="int16")

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return nan_to_num(self, nan, posinf, neginf)

    def count_nonzero(self, dim=None): return count_nonzero(self, dim)
    def histc(self, bins=100, min=0, max=0): return histc(self, bins, min, max)
    def kthvalue(self, k, dim=-1, keepdim=False): return kthvalue(self, k, dim, keepdim)
    def median(self, dim=None, keepdim=False): return median(self, dim, keepdim)
    def nanmedian(self, dim=None, keepdim=False): return nanmedian(self, dim, keepdim)
    def mode(self, dim=-1, keepdim=False): return mode(self, dim, keepdim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return unique_consecutive(self, return_inverse, return_counts, dim)


__all__ = ["finfo", "iinfo", "nan_to_num", "count_nonzero", "histc", "kthvalue", "median",
           "nanmedian", "mode", "unique_consecutive", "is_complex", "is_nonzero",
           "KthvalueResult", "MedianResult", "NanmedianResult", "ModeResult", "NumericsMethods"]
