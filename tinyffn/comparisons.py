"""The comparisons (``==``, ``<``, ...) and the bitwise operators (``~ & | ^``): bool or
integer tensors, computed outside any graph (no derivative to record).

A Python (or NumPy) number next to a tensor of another kind (bool < integer < float) is
compared as PyTorch compares it: ``mask == 0`` as integers, ``i < 1.5`` in float32 and
``x < True`` in the higher kind. NumPy does that by itself; the array API standard refuses a number of another kind,
so each operand is brought to the higher kind here first (:func:`_with_number`), and the
same code runs on every backend. Two tensors of different dtypes are compared in the dtype
PyTorch's promotion gives them (:func:`_with_array`): ``i < x`` in float32, as there.
"""
from __future__ import annotations

import numbers
import types
from typing import Any

import numpy as np

from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .backend import check_one_device, dtype_name

__all__ = ["compare", "bitwise", "invert"]


def compare(x, other, name: str):
    """``x == other`` and the other comparisons (``name`` is the array function, e.g.
    ``"less"``): a bool tensor, outside any graph. An operand that is not a number, an
    array or a tensor (``None``, a string) is Python's business: ``x == None`` is False."""
    w = _operand(x, other, name)
    if w is NotImplemented:
        return NotImplemented
    xp, data = x.backend.xp, x.data
    if isinstance(w, complex) and name not in ("equal", "not_equal"):
        raise TypeError(f"{name}: complex numbers have no order (PyTorch refuses this too); "
                        "compare with a real number, such as z.real")
    if isinstance(w, (int, float)):
        data, w = _with_number(x.backend, data, w)
    elif hasattr(w, "dtype") and w.dtype != data.dtype:
        data, w = _with_array(x.backend, data, w, name)
    return _tensor.Tensor(getattr(xp, name)(data, w), _backend=x.backend)


def bitwise(x, other, name: str):
    """``x & other``, ``x | other``, ``x ^ other`` (and reflected) on bool (logical) or
    integer tensors, as in PyTorch: ``(x > 0) & (x < 3)``. Outside any graph."""
    _integral(name, x)
    if isinstance(other, _tensor.Tensor):
        _integral(name, other)
    elif np.asarray(other).dtype.kind in "fc":      # 2.5, np.float64(1), [1.0, 0.0]
        raise TypeError(f"{name}: needs bool or integer operands, got {other!r}; for a "
                        "float mask compare first, x > 0")
    elif isinstance(other, int) and not isinstance(other, bool) and \
            dtype_name(x.dtype) != "bool":          # int8 & 1000: PyTorch wraps 1000 to -24
        info = np.iinfo(dtype_name(x.dtype))
        if not info.min <= other <= info.max:
            raise OverflowError(f"{name}: the number {other} does not fit in "
                                f"{dtype_name(x.dtype)} ({info.min} to {info.max}); cast the "
                                "tensor to a wider dtype first, x.to(dtype='int64')")
    return compare(x, other, name)


def invert(x):
    """``~x``: logical not of a bool mask, bitwise not of an integer tensor."""
    _integral("bitwise_invert", x)
    return _tensor.Tensor(x.backend.xp.bitwise_invert(x.data), _backend=x.backend)


def _integral(name: str, t) -> None:
    if t.backend.is_floating(t.dtype):
        raise TypeError(f"{name}: needs bool or integer tensors, got {dtype_name(t.dtype)}; "
                        "for a float 0/1 mask m write 1 - m (not), m * k (and)")


def _operand(x, other, name: str) -> Any:
    """``other`` as an operand of ``x``'s array functions: a tensor's array (on x's device,
    else a DeviceError), a number, or an array or list made one of x's backend; anything
    else NotImplemented."""
    if isinstance(other, _tensor.Tensor):
        check_one_device(name, "operands", x, other)
        return other.data
    if isinstance(other, np.generic) or isinstance(other, np.ndarray) and other.ndim == 0:
        return other.item()     # a NumPy number compares as the Python number it holds
    if isinstance(other, (list, tuple, np.ndarray)):
        if isinstance(other, (list, tuple)):
            from .promotion import check_no_tensors     # promotion.py imports tensor.py
            check_no_tensors(name, other)
        return x.backend.asarray(np.asarray(other))
    if isinstance(other, numbers.Complex):          # bool, int, float, complex
        return other
    return NotImplemented


def _with_number(be: Any, data: Any, w: int | float) -> tuple:
    """The array ``data`` and the Python number ``w`` in one kind (bool < integer < float),
    the higher of theirs, as PyTorch's promotion gives: a bool or integer array meets a
    float in the default float dtype (in float32, 16777217 == 16777216.0 is True), a
    bool array meets an int as int64, a bool number meets an integer array as 0 or 1 and a
    float array as 0.0 or 1.0. An int outside an integer array's dtype (uint8 < 300) makes
    the array int64: exact, where CuPy might wrap it (PyTorch wraps it)."""
    from .promotion import kind_of          # promotion.py imports tensor.py, which imports this
    xp, kind = be.xp, kind_of(data.dtype, be)
    w_kind = 0 if isinstance(w, bool) else 1 if isinstance(w, int) else 2
    if w_kind > kind:
        return xp.astype(data, xp.int64 if w_kind == 1 else be.default_float()), w
    if w_kind < kind:
        return data, int(w) if kind == 1 else float(w)
    if kind == 1 and not xp.iinfo(data.dtype).min <= w <= xp.iinfo(data.dtype).max:
        return xp.astype(data, xp.int64), w
    return data, w


def _with_array(be: Any, data: Any, w: Any, name: str) -> tuple:
    """Two arrays of different dtypes, cast to the dtype PyTorch compares them in, by the
    rules of :mod:`tinyffn.promotion`: ``i < x`` in float32 (NumPy: float64), ``mask == i``
    in int64. The array API standard refuses to mix kinds at all."""
    from .promotion import _target          # promotion.py imports tensor.py, which imports this
    pair = (_tensor.Tensor._wrap(data, be), _tensor.Tensor._wrap(w, be))
    target = _target(pair, be, types.SimpleNamespace(op_name=lambda: name))[2]
    return tuple(a if a.dtype == target else be.xp.astype(a, target) for a in (data, w))
