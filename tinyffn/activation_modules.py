"""The activation functions as modules, as ``torch.nn.ReLU``, ``nn.Tanh``, ``nn.Softmax``.

Each holds no parameters and calls the function of :mod:`tinyffn.functional` (or the
Tensor method) of its name, so it draws as that function does; ``FFN`` and ``GatedFFN``
make theirs with ``nn._activation``. Reached as ``tinyffn.nn.ReLU``, ...; they live in
this file so that nn.py stays a file one can read in a sitting.
"""
from __future__ import annotations

from . import functional as F
from . import init
from typing import Any

from .arguments import _is_int, check_inplace
from .backend import DEFAULTS
from .creation import full
from .module import Module, Parameter
from .tensor import Tensor

__all__ = ["ReLU", "LeakyReLU", "GELU", "Swish", "SiLU", "Tanh", "Sigmoid", "Softmax",
           "Softplus", "ELU", "SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "LogSigmoid",
           "Hardtanh", "ReLU6", "Softsign", "Tanhshrink", "Softmin", "Threshold", "GLU",
           "LogSoftmax", "PReLU", "Softshrink", "Hardshrink", "RReLU", "Softmax2d"]


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
    """y = x sigmoid(x), elementwise (:func:`tinyffn.functional.silu`).    Shape preserved.

    ``inplace``: PyTorch's argument, only a false value, as ReLU's; ``fused`` (tinyffn's,
    by keyword): one node with its backward written out."""

    def __init__(self, inplace: bool = False, *, fused: bool = False):
        super().__init__()
        check_inplace("SiLU", inplace)
        self.inplace = False                        # PyTorch's attribute, always False here
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


class Softmax2d(Module):
    """Softmax over the channels at each location, as ``torch.nn.Softmax2d``: input
    (N, C, H, W) or (C, H, W), ``F.softmax`` along dim -3 (C), so each pixel's C values
    are positive and sum to 1. Other ranks are refused, as PyTorch's."""

    def forward(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor) or x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D (C, H, W) or 4D "
                             f"(N, C, H, W), got {getattr(x, 'ndim', type(x).__name__)}"
                             f"{'D' if isinstance(x, Tensor) else ''} instead")
        return F.softmax(x, dim=-3)


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


# ----------------------------------------------------------------------------- the zoo
# The rest of PyTorch's activation modules, each calling its function in
# tinyffn/activations_extra.py (through F). extra_repr prints what torch's prints;
# ``inplace=True`` is refused as ReLU refuses it, so ", inplace=True" never shows.
class ELU(Module):
    """y = x where x > 0, else alpha (exp(x) - 1) (:func:`tinyffn.functional.elu`)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        check_inplace("ELU", inplace)
        self.alpha, self.inplace = alpha, False

    def forward(self, x: Tensor) -> Tensor:
        return F.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class SELU(Module):
    """y = 1.0507 · ELU(x, 1.6733), self-normalising (:func:`tinyffn.functional.selu`)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        check_inplace("SELU", inplace)
        self.inplace = False

    def forward(self, x: Tensor) -> Tensor:
        return F.selu(x)


class CELU(Module):
    """y = x where x > 0, else alpha (exp(x / alpha) - 1) (:func:`tinyffn.functional.celu`)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        check_inplace("CELU", inplace)
        self.alpha, self.inplace = alpha, False

    def forward(self, x: Tensor) -> Tensor:
        return F.celu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class Mish(Module):
    """y = x tanh(softplus(x)) (:func:`tinyffn.functional.mish`).    Shape preserved."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        check_inplace("Mish", inplace)
        self.inplace = False

    def forward(self, x: Tensor) -> Tensor:
        return F.mish(x)


class Hardswish(Module):
    """y = x relu6(x + 3) / 6 (:func:`tinyffn.functional.hardswish`).    Shape preserved."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        check_inplace("Hardswish", inplace)
        self.inplace = False

    def forward(self, x: Tensor) -> Tensor:
        return F.hardswish(x)


class Hardsigmoid(Module):
    """y = relu6(x + 3) / 6 (:func:`tinyffn.functional.hardsigmoid`).    Shape preserved."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        check_inplace("Hardsigmoid", inplace)
        self.inplace = False

    def forward(self, x: Tensor) -> Tensor:
        return F.hardsigmoid(x)


class LogSigmoid(Module):
    """y = log sigmoid(x), computed stably (:func:`tinyffn.functional.logsigmoid`)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.logsigmoid(x)


class Hardtanh(Module):
    """y = x clipped to [min_val, max_val] (:func:`tinyffn.functional.hardtanh`). As
    PyTorch's, min_val must be below max_val (its deprecated min_value/max_value are not
    taken)."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        check_inplace(type(self).__name__, inplace)
        if not max_val > min_val:
            raise ValueError(f"{type(self).__name__}: max_val ({max_val}) must be greater "
                             f"than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, False

    def forward(self, x: Tensor) -> Tensor:
        return F.hardtanh(x, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class ReLU6(Hardtanh):
    """y = min(max(x, 0), 6) (:func:`tinyffn.functional.relu6`), a Hardtanh from 0 to 6,
    as PyTorch's."""

    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu6(x)

    def extra_repr(self) -> str:
        return ""


class Softsign(Module):
    """y = x / (1 + |x|) (:func:`tinyffn.functional.softsign`).    Shape preserved."""

    def forward(self, x: Tensor) -> Tensor:
        return F.softsign(x)


class Tanhshrink(Module):
    """y = x - tanh(x) (:func:`tinyffn.functional.tanhshrink`).    Shape preserved."""

    def forward(self, x: Tensor) -> Tensor:
        return F.tanhshrink(x)


class Softshrink(Module):
    """y = x ∓ lambd outside [-lambd, lambd], else 0 (:func:`tinyffn.functional.softshrink`)."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, x: Tensor) -> Tensor:
        return F.softshrink(x, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)                                  # as PyTorch prints it


class Hardshrink(Module):
    """y = x outside [-lambd, lambd], else 0 (:func:`tinyffn.functional.hardshrink`)."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, x: Tensor) -> Tensor:
        return F.hardshrink(x, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class RReLU(Module):
    """y = x where x > 0, else a · x (:func:`tinyffn.functional.rrelu`): a random slope in
    [lower, upper) for each entry while ``training``, (lower + upper) / 2 in ``eval()``."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        check_inplace("RReLU", inplace)
        self.lower, self.upper, self.inplace = lower, upper, False

    def forward(self, x: Tensor) -> Tensor:
        return F.rrelu(x, self.lower, self.upper, self.training)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}"


class Softmin(Module):
    """y = softmax(-x) along ``dim`` (:func:`tinyffn.functional.softmin`); ``dim=None``
    takes the last axis, as ``Softmax`` here."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmin(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    """y = x where x > threshold, else value (:func:`tinyffn.functional.threshold`)."""

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        check_inplace("Threshold", inplace)
        self.threshold, self.value, self.inplace = threshold, value, False

    def forward(self, x: Tensor) -> Tensor:
        return F.threshold(x, self.threshold, self.value)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}"


class GLU(Module):
    """a · sigmoid(b), a and b the two halves of x along ``dim``
    (:func:`tinyffn.functional.glu`): that axis halves."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.glu(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """y = log softmax(x) along ``dim``, computed stably (:func:`tinyffn.functional.log_softmax`);
    ``dim=None`` takes the last axis, as ``Softmax`` here."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, dim=self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """y = x where x > 0, else w · x, the slopes w learned (:func:`tinyffn.functional.prelu`).

    ``weight``: (num_parameters,), each ``init``. num_parameters = 1 shares one slope;
    otherwise one per channel, and the channels are axis 1 of x, (N, C, ...), as in
    PyTorch (not the last axis: for (B, T, d) activations of an FFN, pass
    x.transpose(1, 2) or use one slope)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        if not _is_int(num_parameters) or num_parameters < 1:
            raise ValueError(f"PReLU: num_parameters must be a positive integer, got "
                             f"{num_parameters!r}")
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(full((num_parameters,), init, dtype=dtype or DEFAULTS.float,
                                     device=device or "cpu"))

    def reset_parameters(self) -> None:
        """Every slope back to ``init``, as PyTorch's."""
        init.constant_(self.weight, self.init)

    def forward(self, x: Tensor) -> Tensor:
        return F.prelu(x, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
