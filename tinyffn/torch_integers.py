"""PyTorch's functions on the bits of integers and floats, and its questions about dtypes:
``bitwise_and``, ``bitwise_or``, ``bitwise_xor``, ``bitwise_not``, the shifts
``bitwise_left_shift`` and ``bitwise_right_shift`` (and the operators ``<<`` and ``>>``),
``gcd`` and ``lcm``; ``frexp``, ``ldexp`` and ``nextafter`` on floats; ``result_type``,
``promote_types`` and ``can_cast``, which read the rules of :mod:`tinyffn.promotion`
(the ones every op follows), not a copy of them.

The integer functions compute outside any graph, as the comparisons do (an integer has no
gradient), in the dtype PyTorch's promotion gives, wrapping around where the dtype
overflows as PyTorch's do (``int8 127 << 1`` is −2, ``lcm`` of int8 −128 and 3 is −128).
A float tensor is refused, as PyTorch refuses it. ``ldexp`` is composed (x · 2^e), and
``frexp``'s mantissa is x / 2^e, so both have PyTorch's gradients, as ``nextafter`` has
(1 for its input). Each is also a Tensor method, with its in-place
form, from :class:`IntegerMethods`, a base class of ``Tensor`` (through ``TorchMethods``).
"""
from __future__ import annotations

import types
from typing import Any, NamedTuple

import numpy as np

from . import comparisons as K
from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import tensor_arg, type_name
from .backend import check_one_device, dtype_name, get_backend


# ----------------------------------------------------------------------------- bitwise
def bitwise_and(input, other):
    """``input & other`` on bool or integer tensors (a number on either side), as
    ``torch.bitwise_and``: logical for bools, bit by bit for integers."""
    return _bitwise("bitwise_and", input, other)


def bitwise_or(input, other):
    """``input | other``, as ``torch.bitwise_or``."""
    return _bitwise("bitwise_or", input, other)


def bitwise_xor(input, other):
    """``input ^ other``, as ``torch.bitwise_xor``."""
    return _bitwise("bitwise_xor", input, other)


def bitwise_not(input):
    """``~input``, as ``torch.bitwise_not``: logical not of bools, −x − 1 for integers."""
    x = tensor_arg("bitwise_not", "input", input)
    K._integral("bitwise_not", x)
    return K.invert(x)


def _bitwise(op: str, input, other):
    if not isinstance(input, _tensor.Tensor) and isinstance(other, _tensor.Tensor):
        input, other = other, input             # each is symmetric: 3 & x is x & 3
    x = tensor_arg(op, "input", input)
    return K.bitwise(x, other, op)


def bitwise_left_shift(input, other):
    """input · 2^other on integer tensors, as ``torch.bitwise_left_shift`` (``x << k``):
    bits shifted past the dtype's width are lost (int8 127 << 1 is −2), and a shift of
    at least the width, or a negative one, gives 0, as PyTorch's."""
    return _shift("bitwise_left_shift", input, other)


def bitwise_right_shift(input, other):
    """⌊input / 2^other⌋ on integer tensors, as ``torch.bitwise_right_shift`` (``x >> k``):
    the sign is kept (−8 >> 1 is −4); a shift of at least the width, or a negative one,
    gives 0 for x >= 0 and −1 for x < 0, as PyTorch's."""
    return _shift("bitwise_right_shift", input, other)


def _shift(op: str, input, other):
    x, w, be = _integer_pair(op, input, other)
    xp = be.xp
    bits = np.dtype(dtype_name(x.dtype)).itemsize * 8
    inside = (w >= 0) & (w < bits)
    k = xp.where(inside, w, xp.zeros_like(w))               # a shift the dtype can do
    if op == "bitwise_left_shift":
        y = xp.where(inside, xp.bitwise_left_shift(x, k), xp.zeros_like(x))
    else:
        y = xp.where(inside, xp.bitwise_right_shift(x, k),
                     xp.where(x < 0, -xp.ones_like(x), xp.zeros_like(x)))
    return _tensor.Tensor(y, _backend=be)


def gcd(input, other):
    """The greatest common divisor of each pair of entries, as ``torch.gcd``: >= 0, and
    gcd(0, 0) = 0 (the int8 −128 and 0 give −128, as in PyTorch and NumPy: |−128| does
    not fit). Integer tensors alone, both tensors, as PyTorch asks. Euclid's algorithm on
    the arrays, one step for every entry at once, until every remainder is 0."""
    x, w, be = _integer_pair("gcd", input, other, numbers=False)
    return _tensor.Tensor(_gcd(be.xp, x, w), _backend=be)


def _gcd(xp, a, b):
    while bool(xp.any(b != 0)):                         # a read of one flag per step
        nonzero = b != 0
        r = xp.remainder(a, xp.where(nonzero, b, xp.ones_like(b)))
        a, b = xp.where(nonzero, b, a), xp.where(nonzero, r, xp.zeros_like(b))
    return xp.abs(a)


def lcm(input, other):
    """The least common multiple of each pair of entries, as ``torch.lcm``: |a / gcd(a, b) ·
    b|, 0 where either is 0, wrapping around as PyTorch's and NumPy's (int8 100 and −3
    give 44; for 8- and 16-bit dtypes the absolute value is taken before the wrap, as C's
    promotion to int does there, so int8 43 and 4 give −84)."""
    x, w, be = _integer_pair("lcm", input, other, numbers=False)
    xp, dtype = be.xp, x.dtype
    if np.dtype(dtype_name(dtype)).itemsize < 4:    # PyTorch's C++ takes |.| in int, as
        x, w = xp.astype(x, xp.int32), xp.astype(w, xp.int32)   # C promotes: then wraps
    g = _gcd(xp, x, w)
    zero = g == 0
    y = xp.where(zero, xp.zeros_like(g), xp.abs((x // xp.where(zero, xp.ones_like(g), g)) * w))
    return _tensor.Tensor(xp.astype(y, dtype), _backend=be)


def _integer_pair(op: str, input, other, *, numbers: bool = True) -> tuple:
    """The arrays of two operands in PyTorch's result dtype (which must be an integer
    one: a float, or bools alone, are refused as PyTorch refuses them), and their backend;
    a number on either side where ``numbers`` (it takes the tensor's dtype if of its
    kind, as in ``x << 1``)."""
    for name, v in (("input", input), ("other", other)):
        if isinstance(v, _tensor.Tensor) or numbers and isinstance(v, (int, float)):
            continue
        wanted = "a Tensor or a number" if numbers else "a Tensor"
        hint = f"; wrap a number: tinyffn.tensor({v!r})" if isinstance(v, int) else ""
        raise TypeError(f"{op}: {name} must be {wanted}, as in PyTorch, got {type_name(v)}"
                        + hint)
    ts = [v for v in (input, other) if isinstance(v, _tensor.Tensor)]
    if not ts:
        raise TypeError(f"{op}: needs a Tensor, got {type_name(input)} and {type_name(other)}")
    if len(ts) == 2:
        check_one_device(op, "operands", input, other)
    be = ts[0].backend
    from .promotion import kind_of, result_dtype    # promotion.py imports tensor.py
    # result_dtype names the op in its errors by asking a Function for op_name(); there is
    # no Function here, so a stand-in that answers with this function's name
    dtype = result_dtype(ts, [v for v in (input, other) if not isinstance(v, _tensor.Tensor)],
                         be, types.SimpleNamespace(op_name=lambda: op))
    if kind_of(dtype, be) != 1:
        raise TypeError(f"{op}: takes integers, but the operands ("
                        + ", ".join(dtype_name(v.dtype) if isinstance(v, _tensor.Tensor) else
                                    repr(v) for v in (input, other))
                        + f") meet in {dtype_name(dtype)}, as PyTorch refuses too; cast "
                        "first, x.long()")
    info = np.iinfo(dtype_name(dtype))

    def array(v, amount: bool):
        if isinstance(v, _tensor.Tensor):
            return v.data if v.dtype == dtype else be.xp.astype(v.data, dtype)
        if amount:                      # a shift by more than the width is one by the width
            v = min(max(v, -1), info.bits)
        if not info.min <= v <= info.max:
            raise OverflowError(f"{op}: the number {v} does not fit in {dtype_name(dtype)} "
                                f"({info.min} to {info.max}); cast the tensor to a wider "
                                "dtype first, x.long()")
        return be.xp.asarray(v, dtype=dtype)
    x, w = array(input, False), array(other, "shift" in op)
    if x.shape != w.shape:
        from .torch_shapes import _broadcast_shape  # names the op and both shapes: NumPy's not
        _broadcast_shape(op, (x.shape, w.shape))
        x, w = be.xp.broadcast_arrays(x, w)
    return x, w, be


# ----------------------------------------------------------------------------- floats
class FrexpResult(NamedTuple):
    """What ``frexp`` returns, as ``torch.return_types.frexp``: ``.mantissa``, ``.exponent``."""
    mantissa: Any
    exponent: Any


def frexp(input):
    """``input`` = mantissa · 2^exponent with 0.5 <= |mantissa| < 1 (0 for 0; inf and NaN
    keep their value, exponent 0), as ``torch.frexp``: the exponent int32, outside any
    graph; the mantissa x / 2^exponent, so its gradient is 2^−exponent, as PyTorch's.
    Floating tensors alone, as PyTorch. The exponent is ⌊log2 |x|⌋ + 1, corrected by one
    where log2 rounded across a power of two."""
    x = tensor_arg("frexp", "input", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"frexp: takes a floating tensor, got {dtype_name(x.dtype)} (PyTorch "
                        "refuses it too); cast first, x.float()")
    xp, a = x.backend.xp, x.data
    wide = xp.astype(a, xp.float64)                 # float16's subnormals, exactly
    finite = xp.isfinite(wide) & (wide != 0)
    size = xp.where(finite, xp.abs(wide), xp.ones_like(wide))     # |x|, 1 where 0/inf/NaN
    e = xp.floor(xp.log2(size)) + 1

    def halves(k):                  # 2^k in two factors: 2^1029 (a subnormal's) is inf
        return 2.0 ** xp.floor(k / 2), 2.0 ** (k - xp.floor(k / 2))
    m = size * halves(-e)[0] * halves(-e)[1]    # |mantissa|: in [0.5, 1) but for log2's
    e = e + xp.astype(m >= 1, e.dtype) - xp.astype(m < 0.5, e.dtype)       # rounding
    e = xp.where(finite, e, xp.zeros_like(e))
    exponent = _tensor.Tensor(xp.astype(e, xp.int32), _backend=x.backend)
    scales = [_tensor.Tensor(xp.astype(h, a.dtype), _backend=x.backend) for h in halves(-e)]
    with grad_mode.scope("function", "frexp"):
        return FrexpResult(x * scales[0] * scales[1], exponent)


def ldexp(input, other):
    """input · 2^other, as ``torch.ldexp`` (both tensors): in their promoted dtype if
    floating, else the default float; composed of ``pow`` and ``mul``, so
    the gradient is 2^other for input and input · 2^other · ln 2 for a float ``other``."""
    for name, v in (("input", input), ("other", other)):
        if not isinstance(v, _tensor.Tensor):
            raise TypeError(f"ldexp: {name} must be a Tensor, as in PyTorch, got "
                            f"{type_name(v)}; wrap a number: tinyffn.tensor({v!r})")
    check_one_device("ldexp", "operands", input, other)
    from .torch_shapes import _broadcast_shape      # else the error names mul, not ldexp
    _broadcast_shape("ldexp", (input.shape, other.shape))
    dtype = result_type(input, other)
    if not input.backend.is_floating(dtype):
        dtype = input.backend.default_float()       # int · 2^int: the default float
    with grad_mode.scope("function", "ldexp"):
        return input.to(dtype=dtype) * (2.0 ** other.to(dtype=dtype))


def nextafter(input, other):
    """The next float after ``input`` towards ``other``, as ``torch.nextafter`` (both
    floating tensors, in their promoted dtype): ``nextafter(x, inf) − x`` is the spacing
    of the floats at x. Its gradient is PyTorch's: 1 for input (x plus a constant step,
    exact, as the step between neighbours is one unit in the last place; 0 where input
    equals other, whose value y then is), 0 for other (y times sign(other) · 0 + 1,
    exactly 1, whose derivative is sign's, 0)."""
    from .composed import where     # composed.py imports tensor.py, which imports this
    for name, v in (("input", input), ("other", other)):
        if not isinstance(v, _tensor.Tensor):
            raise TypeError(f"nextafter: {name} must be a Tensor, as in PyTorch, got "
                            f"{type_name(v)}; wrap a number: tinyffn.tensor({v!r})")
        if not v.backend.is_floating(v.dtype):
            raise TypeError(f"nextafter: takes floating tensors, got {dtype_name(v.dtype)} "
                            "(PyTorch refuses it too); cast first, x.float()")
    check_one_device("nextafter", "operands", input, other)
    dtype, be = result_type(input, other), input.backend
    xp = be.xp
    x, w = (xp.astype(v.data, dtype) for v in (input, other))
    after, finite = xp.nextafter(x, w), xp.isfinite(x)
    step = xp.where(finite, after - x, xp.zeros_like(x))     # inf − inf would be NaN
    with grad_mode.scope("function", "nextafter"):
        y = input.to(dtype=dtype) + _tensor.Tensor(step, _backend=be)
        y = where(_tensor.Tensor(finite, _backend=be), y, _tensor.Tensor(after, _backend=be))
        y = where(_tensor.Tensor(x == w, _backend=be), y.detach(), y)
        return y * (other.sign() * 0 + 1) if other.requires_grad else y


# ----------------------------------------------------------------------------- dtypes
_RULES = types.SimpleNamespace(op_name=lambda: "result_type")   # a Function's op_name, for errors


def result_type(tensor, other):
    """The dtype an op on ``tensor`` and ``other`` (tensors or Python numbers) computes
    in, as ``torch.result_type``, by tinyffn's promotion (:mod:`tinyffn.promotion`): the
    highest kind (bool < integer < float) wins; among tensors of that kind, the widest one
    with axes (a 0-d one only where none with axes has it); a number only where its kind
    is higher, as the default dtype of its kind (``result_type(int_tensor, 1.0)`` is
    float32, ``result_type(int8_tensor, 1000)`` int8). In the tensors' backend's dtypes."""
    args = (tensor, other)
    for v in args:
        if not isinstance(v, (_tensor.Tensor, int, float)):
            raise TypeError(f"result_type: takes tensors and Python numbers, got "
                            f"{type_name(v)}")
    from .promotion import result_dtype     # promotion.py imports tensor.py, which imports this
    ts = [v for v in args if isinstance(v, _tensor.Tensor)]
    be = ts[0].backend if ts else get_backend("cpu")
    return result_dtype(ts, [v for v in args if not isinstance(v, _tensor.Tensor)], be, _RULES)


def promote_types(type1, type2):
    """The smallest dtype both ``type1`` and ``type2`` fit in by PyTorch's promotion, as
    ``torch.promote_types``: ``promote_types(int8, uint8)`` is int16, ``(int64, float16)``
    float16 (the kind wins, then the width). The dtypes of two tensors with axes, given to
    :mod:`tinyffn.promotion`'s rules; a NumPy dtype back."""
    be = get_backend("cpu")
    pair = [_tensor.Tensor._wrap(be.xp.empty((1,), dtype=_dtype("promote_types", t)), be)
            for t in (type1, type2)]
    from .promotion import result_dtype
    return result_dtype(pair, [], be, types.SimpleNamespace(op_name=lambda: "promote_types"))


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` in its ops' outputs, as
    ``torch.can_cast``: any dtype to one of its own kind or a higher one (bool < integer <
    float), whatever the widths (float64 to float16 is allowed, float to int is not)."""
    from .promotion import kind_of
    be = get_backend("cpu")
    return kind_of(_dtype("can_cast", from_), be) <= kind_of(_dtype("can_cast", to), be)


def _dtype(op: str, t: Any) -> np.dtype:
    try:
        dtype = np.dtype(dtype_name(t) if not isinstance(t, (str, np.dtype)) else t)
    except (TypeError, AttributeError):
        raise TypeError(f"{op}: expected a dtype (tinyffn.int8, 'float32', x.dtype), got "
                        f"{type_name(t)}") from None
    if dtype.kind not in "biuf":
        raise TypeError(f"{op}: tinyffn computes with float, integer and bool dtypes, not "
                        f"{dtype.name}")
    return dtype


# ----------------------------------------------------------------------------- the methods
class IntegerMethods:
    """The Tensor methods of the functions above, their in-place forms, and the shift
    operators ``x << k`` and ``x >> k``, as PyTorch's."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def bitwise_and(self, other): return bitwise_and(self, other)
    def bitwise_or(self, other): return bitwise_or(self, other)
    def bitwise_xor(self, other): return bitwise_xor(self, other)
    def bitwise_not(self): return bitwise_not(self)
    def bitwise_left_shift(self, other): return bitwise_left_shift(self, other)
    def bitwise_right_shift(self, other): return bitwise_right_shift(self, other)
    def gcd(self, other): return gcd(self, other)
    def lcm(self, other): return lcm(self, other)
    def frexp(self): return frexp(self)
    def ldexp(self, other): return ldexp(self, other)
    def nextafter(self, other): return nextafter(self, other)
    def bitwise_and_(self, other): return _in_place(self, "bitwise_and", other)
    def bitwise_or_(self, other): return _in_place(self, "bitwise_or", other)
    def bitwise_xor_(self, other): return _in_place(self, "bitwise_xor", other)
    def bitwise_not_(self): return _in_place(self, "bitwise_not")
    def bitwise_left_shift_(self, other): return _in_place(self, "bitwise_left_shift", other)
    def bitwise_right_shift_(self, other): return _in_place(self, "bitwise_right_shift", other)
    def gcd_(self, other): return _in_place(self, "gcd", other)
    def lcm_(self, other): return _in_place(self, "lcm", other)
    def ldexp_(self, other): return _in_place(self, "ldexp", other)
    def nextafter_(self, other): return _in_place(self, "nextafter", other)

    def __lshift__(self, other):
        return _operator(bitwise_left_shift, self, other)

    def __rshift__(self, other):
        return _operator(bitwise_right_shift, self, other)

    def __rlshift__(self, other):
        return _operator(bitwise_left_shift, other, self)

    def __rrshift__(self, other):
        return _operator(bitwise_right_shift, other, self)


def _operator(fn, x, w):
    """``x << w``: Python's TypeError for an operand that is not a tensor or an int."""
    if not all(isinstance(v, (_tensor.Tensor, int)) for v in (x, w)):
        return NotImplemented
    return fn(x, w)


def _in_place(x, name: str, *args):
    from .in_place import _replaced     # in_place.py imports tensor.py, which imports this
    return _replaced(x, name, *args)


__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift", "gcd", "lcm", "frexp", "ldexp", "nextafter", "result_type",
           "promote_types", "can_cast", "FrexpResult", "IntegerMethods"]
