"""More of PyTorch's elementwise functions, each a function and (where torch has one) a
Tensor method: ``frac``, ``sinc``, ``deg2rad``, ``rad2deg``, ``copysign``,
``float_power``, ``heaviside``, ``isin``.

The differentiable ones are composed, each in a frame of its name (the helpers of
:mod:`tinyffn.torch_math`: integers compute in float32, as PyTorch). ``heaviside`` and
``isin`` give steps and bools, without a gradient. :class:`PointwiseMethods` is a base
class of ``Tensor`` (through ``TorchMethods``).
"""
from __future__ import annotations

import math
import numbers

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import tensor_arg, type_name
from .backend import dtype_name
from .torch_math import _binary, _composed


def frac(input):
    """x − trunc(x), the fractional part with the sign of x, as ``torch.frac``
    (frac(−2.5) is −0.5, frac(±inf) NaN); floating point only, as PyTorch's. Gradient 1."""
    x = tensor_arg("frac", "input", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"frac: input has dtype {dtype_name(x.dtype)}; integers have no "
                        "fractional part (PyTorch refuses them too): call x.float() first")
    with grad_mode.scope("function", "frac"):
        return x - x.detach().trunc()


def sinc(input):
    """sin(πx) / (πx), and 1 at x = 0, as ``torch.sinc`` (the normalized sinc). At 0 the
    quotient's operand is replaced by 1 (the double where), so the gradient there is 0,
    as PyTorch's, not NaN."""
    from .composed import where

    def fn(x):
        zero = x == 0
        px = where(zero, 1.0, x) * math.pi                  # harmless where not taken
        return where(zero, 1.0, px.sin() / px)
    return _composed("sinc", input, fn)


def deg2rad(input):
    """Degrees to radians, x · π/180, as ``torch.deg2rad`` (integers give float32)."""
    return _composed("deg2rad", input, lambda x: x * (math.pi / 180))


def rad2deg(input):
    """Radians to degrees, x · 180/π, as ``torch.rad2deg`` (integers give float32)."""
    return _composed("rad2deg", input, lambda x: x * (180 / math.pi))


def copysign(input, other):
    """|input| with the sign bit of ``other``, elementwise with broadcasting, as
    ``torch.copysign`` (−0.0 and a NaN's sign bit count: copysign(1, −0.0) is −1). The
    result has the dtype input and other promote to (float32 input, float64 other:
    float64). The gradient to input is ±1 (0 where input is 0, as PyTorch's; PyTorch's is
    NaN at ±inf); to ``other`` 0, as PyTorch's: only its sign bit is read, so y is
    multiplied by sign(other) · 0 + 1, exactly 1, whose derivative (sign's) is 0."""
    from .composed import where
    from .promotion import _target
    from .torch_math import _Named
    from .torch_stats import signbit

    def fn(a, b):
        dtype = _target((a, b), a.backend, _Named("copysign"))[2]          # PyTorch's
        a = a if a.dtype == dtype else a.to(dtype=dtype)
        y = where(signbit(a) != signbit(b), -a, a)
        y = where(a == 0, y.detach(), y)
        return y * (b.sign() * 0 + 1) if b.requires_grad else y
    return _binary("copysign", input, other, fn, widen=False)


def float_power(input, exponent):
    """input ** exponent computed in float64, as ``torch.float_power``: the result is
    float64 whatever the dtypes; the gradient reaches the tensor in its own dtype. A
    tensor to a number's power or a number to a tensor's; a tensor to a tensor's power is
    refused, as ``pow`` refuses it (PyTorch's takes it)."""
    Tensor = _tensor.Tensor
    for name, v in (("input", input), ("exponent", exponent)):
        if not isinstance(v, (Tensor, numbers.Real)):
            raise TypeError(f"float_power: {name} must be a tinyffn Tensor or a number, got "
                            f"{type_name(v)}")
    if isinstance(input, Tensor) == isinstance(exponent, Tensor):
        raise TypeError("float_power: one of input and exponent must be a tinyffn Tensor and "
                        "the other a number, got " f"{type_name(input)} and "
                        f"{type_name(exponent)}; for two tensors write exp(p * log(x))")
    a, p = (v.to(dtype="float64") if isinstance(v, Tensor) else float(v)
            for v in (input, exponent))
    with grad_mode.scope("function", "float_power"):
        return a ** p


def heaviside(input, values):
    """The step function, as ``torch.heaviside``: 0 where input < 0 (and where it is NaN),
    1 where input > 0, ``values`` (broadcast) where input is 0. input and values must share
    a dtype, as PyTorch asks. A step has no useful gradient: the result is outside the
    graph (PyTorch's raises at backward)."""
    from .composed import where
    x, v = tensor_arg("heaviside", "input", input), tensor_arg("heaviside", "values", values)
    if x.dtype != v.dtype:
        raise TypeError(f"heaviside: input is {dtype_name(x.dtype)} and values "
                        f"{dtype_name(v.dtype)}; they must share a dtype, as in PyTorch: "
                        "cast values with values.to(input.dtype)")
    x, v = x.detach(), v.detach()
    return where(x == 0, v, (x > 0).to(dtype=x.dtype))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each entry of ``elements`` is among ``test_elements``, as ``torch.isin``:
    a bool tensor of elements' shape (``invert=True`` negates it). Either may be a number,
    not both; dtypes are compared after promotion (isin(tensor([2]), tensor([2.0])) is
    True). Compares every pair, in memory numel(elements) · numel(test_elements);
    ``assume_unique`` is accepted and changes nothing here."""
    from .promotion import as_tensors
    from .torch_math import _Named
    Tensor = _tensor.Tensor
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin: elements or test_elements must be a tinyffn Tensor, got "
                        f"{type_name(elements)} and {type_name(test_elements)}")
    e, t = as_tensors((elements, test_elements), _Named("isin"))
    hit = (e.detach().unsqueeze(-1) == t.detach().reshape(-1)).any(-1)    # (*e.shape)
    return ~hit if invert else hit


class PointwiseMethods:
    """The Tensor methods of the functions above that torch's Tensor has."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def frac(self): return frac(self)
    def sinc(self): return sinc(self)
    def deg2rad(self): return deg2rad(self)
    def rad2deg(self): return rad2deg(self)
    def copysign(self, other): return copysign(self, other)
    def float_power(self, exponent): return float_power(self, exponent)
    def heaviside(self, values): return heaviside(self, values)


__all__ = ["frac", "sinc", "deg2rad", "rad2deg", "copysign", "float_power", "heaviside",
           "isin", "PointwiseMethods"]
