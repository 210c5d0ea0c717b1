"""PyTorch's top-level names for the gamma, error and Bessel families: ``lgamma``,
``digamma``, ``polygamma``, ``erfc``, ``erfinv``, ``i0`` (the primitives of
:mod:`tinyffn.ops.special_functions`) and ``mvlgamma``, the multivariate log-gamma,
composed of lgamma. :class:`SpecialMethods` is a base class of ``Tensor`` (through
``TorchMethods``): ``x.lgamma()``, ``x.digamma()``, ``x.polygamma(n)``, ``x.erfc()``,
``x.erfinv()``, ``x.i0()``, ``x.mvlgamma(p)``, as torch's. The rest of
``torch.special`` is :mod:`tinyffn.special`.

Integers and bools compute in float32, float16 in float32 and rounded once, as PyTorch.
"""
from __future__ import annotations

import math
import numbers

from .arguments import tensor_arg, type_name
from .ops.special_functions import Digamma, Erfc, Erfinv, I0, Lgamma, Polygamma
from .torch_math import _composed


def lgamma(input):
    """ln |Γ(x)|, as ``torch.lgamma`` (inf at 0, -1, -2, ...). Gradient: digamma(x)."""
    return Lgamma.apply(tensor_arg("lgamma", "input", input))


def digamma(input):
    """ψ(x) = Γ'(x) / Γ(x), as ``torch.digamma`` (-inf at 0, NaN at -1, -2, ...).
    Gradient: polygamma(1, x)."""
    return Digamma.apply(tensor_arg("digamma", "input", input))


def _count(op: str, name: str, value, least: int) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be an int, got {type_name(value)}")
    if value < least:
        raise ValueError(f"{op}: {name} must be >= {least}, got {value}, as in PyTorch")
    return int(value)


def polygamma(n, input):
    """ψₙ(x), the n-th derivative of digamma (n = 0: digamma itself), as
    ``torch.polygamma(n, input)``; n an int >= 0. Gradient: polygamma(n + 1, x)."""
    n = _count("polygamma", "n", n, 0)
    return Polygamma.apply(tensor_arg("polygamma", "input", input), n=n)


def erfc(input):
    """1 - erf(x), as ``torch.erfc``, computed as erfc itself (erfc(10) is 2.1e-45, not 0).
    Gradient: -2/sqrt(pi) exp(-x²)."""
    return Erfc.apply(tensor_arg("erfc", "input", input))


def erfinv(input):
    """The inverse of erf, as ``torch.erfinv``: ±inf at ±1, NaN outside [-1, 1]. Gradient:
    sqrt(pi)/2 exp(erfinv(x)²)."""
    return Erfinv.apply(tensor_arg("erfinv", "input", input))


def i0(input):
    """I₀(x), the modified Bessel function of the first kind of order 0, as ``torch.i0``.
    Gradient: i1(x)."""
    return I0.apply(tensor_arg("i0", "input", input))


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p, as ``torch.mvlgamma``:
    Σᵢ₌₀^(p-1) lgamma(x - i/2) + p(p - 1)/4 · ln π, composed of lgamma (p nodes). As in
    PyTorch 2.13, x <= (p - 1)/2 is not refused: it meets a pole of lgamma (inf) there."""
    p = _count("mvlgamma", "p", p, 1)

    def fn(x):
        y = lgamma(x)
        for i in range(1, p):
            y = y + lgamma(x - i / 2)
        return y + p * (p - 1) / 4 * math.log(math.pi)
    return _composed("mvlgamma", input, fn)


class SpecialMethods:
    """The Tensor methods of the functions above that torch's Tensor has."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def lgamma(self): return lgamma(self)
    def digamma(self): return digamma(self)
    def polygamma(self, n): return polygamma(n, self)
    def erfc(self): return erfc(self)
    def erfinv(self): return erfinv(self)
    def i0(self): return i0(self)
    def mvlgamma(self, p): return mvlgamma(self, p)


__all__ = ["lgamma", "digamma", "polygamma", "erfc", "erfinv", "i0", "mvlgamma",
           "SpecialMethods"]
