"""PyTorch's elementwise names that ported code reaches for, each a function and (where
torch has one) a Tensor method: the function forms of the operators, ``add``, ``sub``,
``mul``, ``div`` (with ``rounding_mode``) and the comparisons ``eq``, ``ne``, ``lt``,
``le``, ``gt``, ``ge``, with their NumPy-style aliases (``subtract``, ``multiply``,
``divide``, ``not_equal``, ``less``, ``less_equal``, ``greater``, ``greater_equal``,
``absolute``); ``fmax`` and ``fmin``, the maximum and minimum that ignore a NaN; and
``tan`` with the inverse trigonometric and hyperbolic functions ``asin``, ``acos``,
``atanh``, ``asinh``, ``acosh`` (and their ``arc`` names), primitives of
ops/logs_and_angles.py with their derivatives written out there.

The operators' functions are the operators themselves (``add(a, b, alpha=2)`` is
``a + 2 * b``); ``fmax`` is a ``where``, so the gradient goes to the entry chosen: to
``input`` on a tie (PyTorch's rule; ``maximum`` splits it in halves) and to the number
where the other is NaN.
"""
from __future__ import annotations

from . import grad_mode
from .arguments import tensor_arg, type_name
from .backend import dtype_name
from .ops.logs_and_angles import Acos, Acosh, Asin, Asinh, Atanh, Tan
from .torch_math import _float


def _number_first(op: str, input, other) -> bool:
    """Whether ``input`` is a number beside a Tensor ``other`` (``torch.add(2.5, x)``);
    then the operator computes the call (``2.5 + x``), so the number gets the dtype it gets
    there, as PyTorch's (2.5 + an int64 tensor is float32; an int outside a uint8
    tensor's range is refused by name). Else input must be a Tensor."""
    from .tensor import Tensor
    if isinstance(input, Tensor):
        return False
    if isinstance(other, Tensor) and isinstance(input, (int, float, bool)):
        return True
    raise TypeError(f"{op}: input must be a tinyffn Tensor (or a number with a Tensor "
                    f"other), got {type_name(input)}; wrap it with tinyffn.tensor(...)")


# ----------------------------------------------------------------------------- operators
def add(input, other, *, alpha=1):
    """``input + alpha * other``, as ``torch.add``."""
    if _number_first("add", input, other):
        input = input + other.new_zeros(())     # the number in the dtype + gives it there
    return input.add(other, alpha=alpha)


def sub(input, other, *, alpha=1):
    """``input - alpha * other``, as ``torch.sub``."""
    if _number_first("sub", input, other):
        input = input - other.new_zeros(())
    return input.sub(other, alpha=alpha)


def subtract(input, other, *, alpha=1):
    """``sub``, under NumPy's name, as ``torch.subtract``."""
    return sub(input, other, alpha=alpha)


def mul(input, other):
    """``input * other``, as ``torch.mul``."""
    _number_first("mul", input, other)                  # refuses what is not a number
    return input * other


def multiply(input, other):
    """``mul``, under NumPy's name, as ``torch.multiply``."""
    _number_first("multiply", input, other)
    return input * other


def div(input, other, *, rounding_mode=None):
    """``input / other``, as ``torch.div``: true division (integers give floats), or with
    ``rounding_mode="trunc"`` the quotient rounded toward zero, ``"floor"`` rounded down
    (``floor_divide``); those two keep an integer dtype and have gradient 0, as
    PyTorch's."""
    return _divided("div", input, other, rounding_mode)


def divide(input, other, *, rounding_mode=None):
    """``div``, under NumPy's name, as ``torch.divide``."""
    return _divided("divide", input, other, rounding_mode)


def _divided(op: str, input, other, rounding_mode):
    _number_first(op, input, other)
    if rounding_mode is None:
        return input / other
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError(f"{op}: rounding_mode must be None, 'trunc' or 'floor', got "
                         f"{rounding_mode!r}")
    from .more_functions import floor_divide
    with grad_mode.scope("function", op):
        if rounding_mode == "floor":
            return floor_divide(input, other)
        if _floating(input) or _floating(other):
            return (input / other).trunc()
        # integers, C's division (toward zero): the floor, one up where it rounded a
        # negative quotient down. Not floor(|x| / |w|) · sign: |x| overflows at the
        # dtype's minimum (-128 // 3 in int8 gave +43). The product q · w may wrap too,
        # but it equals x only where the division was exact: x − q · w is less than |w|
        q = floor_divide(input, other)
        return q + ((q < 0) & (q * other != input))


def _floating(v) -> bool:
    return isinstance(v, float) or hasattr(v, "dtype") and v.backend.is_floating(v.dtype)


def eq(input, other):
    """``input == other`` as a bool tensor, as ``torch.eq``."""
    return tensor_arg("eq", "input", input).eq(other)


def ne(input, other):
    """``input != other``, as ``torch.ne``."""
    return tensor_arg("ne", "input", input).ne(other)


def not_equal(input, other):
    """``ne``, as ``torch.not_equal``."""
    return tensor_arg("not_equal", "input", input).ne(other)


def lt(input, other):
    """``input < other``, as ``torch.lt``."""
    return tensor_arg("lt", "input", input).lt(other)


def less(input, other):
    """``lt``, as ``torch.less``."""
    return tensor_arg("less", "input", input).lt(other)


def le(input, other):
    """``input <= other``, as ``torch.le``."""
    return tensor_arg("le", "input", input).le(other)


def less_equal(input, other):
    """``le``, as ``torch.less_equal``."""
    return tensor_arg("less_equal", "input", input).le(other)


def gt(input, other):
    """``input > other``, as ``torch.gt``."""
    return tensor_arg("gt", "input", input).gt(other)


def greater(input, other):
    """``gt``, as ``torch.greater``."""
    return tensor_arg("greater", "input", input).gt(other)


def ge(input, other):
    """``input >= other``, as ``torch.ge``."""
    return tensor_arg("ge", "input", input).ge(other)


def greater_equal(input, other):
    """``ge``, as ``torch.greater_equal``."""
    return tensor_arg("greater_equal", "input", input).ge(other)


def absolute(input):
    """``abs``, as ``torch.absolute``."""
    return tensor_arg("absolute", "input", input).abs()


# ----------------------------------------------------------------------------- NaN-ignoring
def fmax(input, other):
    """The larger of each pair, a NaN losing to a number (NaN only where both are), as
    ``torch.fmax`` (``maximum`` propagates NaN instead). A ``where``: the gradient goes to
    ``input`` where input >= other or other is NaN, else to ``other``, as PyTorch's."""
    return _nan_ignoring("fmax", input, other, lambda a, b: a >= b)


def fmin(input, other):
    """The smaller of each pair, a NaN losing to a number, as ``torch.fmin``."""
    return _nan_ignoring("fmin", input, other, lambda a, b: a <= b)


def _nan_ignoring(op: str, input, other, keeps):
    from .composed import where
    from .torch_shapes import _broadcast_shape  # torch_shapes.py imports more than this
    x, w = tensor_arg(op, "input", input), tensor_arg(op, "other", other)
    for name, t in (("input", x), ("other", w)):
        if dtype_name(t.dtype) == "bool":
            raise TypeError(f"{op}: {name} is a bool tensor, which PyTorch refuses too; "
                            "cast it first, .to(dtype='int64')")
    _broadcast_shape(op, (x.shape, w.shape))    # else the backend's message, naming no op
    with grad_mode.scope("function", op):
        take_x = keeps(x, w)
        if w.backend.is_floating(w.dtype):
            take_x = take_x | w.isnan()
        return where(take_x, x, w)


# ----------------------------------------------------------------------------- trigonometry
def tan(input):
    """The tangent, as ``torch.tan``. The Tan primitive: dy/dx = 1 + y²."""
    return Tan.apply(_float(tensor_arg("tan", "input", input)))


def asin(input):
    """The inverse sine, in [-pi/2, pi/2] (NaN outside [-1, 1]), as ``torch.asin``. The
    Asin primitive: dy/dx = 1 / sqrt(1 - x²)."""
    return Asin.apply(_float(tensor_arg("asin", "input", input)))


def acos(input):
    """The inverse cosine, in [0, pi] (NaN outside [-1, 1]), as ``torch.acos``. The Acos
    primitive: dy/dx = -1 / sqrt(1 - x²)."""
    return Acos.apply(_float(tensor_arg("acos", "input", input)))


def atanh(input):
    """The inverse hyperbolic tangent, as ``torch.atanh`` (±inf at ±1, NaN outside). The
    Atanh primitive: dy/dx = 1 / (1 - x²)."""
    return Atanh.apply(_float(tensor_arg("atanh", "input", input)))


def asinh(input):
    """The inverse hyperbolic sine, log(x + sqrt(x² + 1)), as ``torch.asinh``. The Asinh
    primitive: dy/dx = 1 / sqrt(x² + 1)."""
    return Asinh.apply(_float(tensor_arg("asinh", "input", input)))


def acosh(input):
    """The inverse hyperbolic cosine, log(x + sqrt(x² - 1)) for x >= 1 (NaN below), as
    ``torch.acosh``. The Acosh primitive: dy/dx = 1 / sqrt(x² - 1)."""
    return Acosh.apply(_float(tensor_arg("acosh", "input", input)))


arcsin, arccos, arctanh, arcsinh, arccosh = asin, acos, atanh, asinh, acosh


class OperatorMethods:
    """The Tensor methods of the functions above that Tensor did not have (``add``,
    ``eq``, ... are its own, in torch_methods.py; ``div`` is here, for ``rounding_mode``)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def div(self, other, *, rounding_mode=None):
        return _divided("div", self, other, rounding_mode)
    def divide(self, other, *, rounding_mode=None):
        return _divided("divide", self, other, rounding_mode)
    def subtract(self, other, *, alpha=1): return self.sub(other, alpha=alpha)
    def multiply(self, other): return self * other
    def not_equal(self, other): return self.ne(other)
    def less(self, other): return self.lt(other)
    def less_equal(self, other): return self.le(other)
    def greater(self, other): return self.gt(other)
    def greater_equal(self, other): return self.ge(other)
    def absolute(self): return self.abs()
    def fmax(self, other): return fmax(self, other)
    def fmin(self, other): return fmin(self, other)
    def tan(self): return tan(self)
    def asin(self): return asin(self)
    def acos(self): return acos(self)
    def atanh(self): return atanh(self)
    def asinh(self): return asinh(self)
    def acosh(self): return acosh(self)
    arcsin, arccos, arctanh, arcsinh, arccosh = asin, acos, atanh, asinh, acosh


__all__ = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "eq", "ne",
           "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge",
           "greater_equal", "absolute", "fmax", "fmin", "tan", "asin", "acos", "atanh",
           "asinh", "acosh", "arcsin", "arccos", "arctanh", "arcsinh", "arccosh",
           "OperatorMethods"]
