"""The activation functions as modules, as ``torch.nn.ReLU``, ``nn.Tanh``, ``nn.Softmax``.

Each holds no parameters and calls the function of :mod:`tinyffn.functional` (or the
Tensor method) of its name, so it draws as that function does; ``FFN`` and ``GatedFFN``
make theirs with ``nn._activation``. Reached as ``tinyffn.nn.ReLU``, ...; they live in
this file so that nn.py stays a file one can read in a sitting.
"""
from __future__ import annotations

from . import functional as F
from .arguments import check_inplace
from .module import Module
from .tensor import Tensor

__all__ = ["ReLU", "LeakyReLU", "GELU", "Swish", "SiLU", "Tanh", "Sigmoid", "Softmax",
           "Softplus"]


class ReLU(Module):
    """y = max(x, 0), elementwise (:func:`tinyffn.functional.relu`).    Shape preserved.

    ``inplace``: PyTorch's argument, only a false value
    (:func:`tinyffn.arguments.check_inplace`).
    """

    def __init__(self, inplace: bool = False):
        super().__init__()
        check_inplace("ReLU", inplace)
        self.inplace = False                        # PyTorch's attribute, always False here

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class LeakyReLU(Module):
    """y = x where x > 0, else negative_slope · x (:func:`tinyffn.functional.leaky_relu`).

    Shape preserved. ``inplace``: PyTorch's argument, only a false value.
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        check_inplace("LeakyReLU", inplace)
        self.negative_slope, self.inplace = negative_slope, False

    def forward(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class GELU(Module):
    """y = x Φ(x), exact or with GPT-2's tanh approximation (:func:`tinyffn.functional.gelu`).

    Elementwise: shape preserved.
    """

    def __init__(self, approximate: str = "none", *, fused: bool = False):
        super().__init__()
        F._check_approximate("GELU", approximate)
        self.approximate, self.fused = approximate, fused

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, approximate=self.approximate, fused=self.fused)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}" + (", fused=True" if self.fused else "")


class Swish(Module):
    """y = x sigmoid(beta x), elementwise (:func:`tinyffn.functional.swish`); beta = 1 is SiLU.

    Shape preserved.
    """

    def __init__(self, beta: float = 1.0, *, fused: bool = False):
        super().__init__()
        self.beta, self.fused = beta, fused

    def forward(self, x: Tensor) -> Tensor:
        return F.swish(x, beta=self.beta, fused=self.fused)

    def extra_repr(self) -> str:
        return f"beta={self.beta}" + (", fused=True" if self.fused else "")


class SiLU(Module):
    """y = x sigmoid(x), elementwise (:func:`tinyffn.functional.silu`).    Shape preserved."""

    def __init__(self, *, fused: bool = False):
        super().__init__()
        self.fused = fused

    def forward(self, x: Tensor) -> Tensor:
        return F.silu(x, fused=self.fused)

    def extra_repr(self) -> str:
        return "fused=True" if self.fused else ""


class Tanh(Module):
    """y = tanh(x), elementwise (:meth:`tinyffn.Tensor.tanh`).    Shape preserved."""

    def forward(self, x: Tensor) -> Tensor:
        return x.tanh()


class Sigmoid(Module):
    """y = 1 / (1 + exp(-x)), elementwise (:meth:`tinyffn.Tensor.sigmoid`).    Shape preserved."""

    def forward(self, x: Tensor) -> Tensor:
        return x.sigmoid()


class Softmax(Module):
    """y = softmax(x) along ``dim`` (:func:`tinyffn.functional.softmax`): the entries along
    it are positive and sum to 1. ``dim=None`` takes the last axis, as ``F.softmax`` does
    here (PyTorch's implicit choice, deprecated, is axis 0 for 0-, 1- and 3-d inputs)."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, dim=self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softplus(Module):
    """y = log(1 + exp(beta x)) / beta, x itself where beta x > threshold
    (:func:`tinyffn.functional.softplus`).    Shape preserved."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: Tensor) -> Tensor:
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"     # as PyTorch prints it
