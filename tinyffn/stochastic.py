"""The functions of ``torch.nn.functional`` that draw noise, besides ``dropout``:
``F.gumbel_softmax``, ``F.alpha_dropout``, ``F.feature_alpha_dropout``, and the modules
``nn.AlphaDropout``, ``nn.FeatureAlphaDropout``.

The noise is drawn from the generator :func:`tinyffn.manual_seed` seeds (uniform float64
numbers, as ``dropout``'s mask), so a seed gives the same draw on every backend (not
PyTorch's numbers, whose generator differs), and it enters the graph as a constant: the
gradients are those of the composed arithmetic around it.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

from . import grad_mode
from .arguments import check_axis, check_inplace, check_probability, is_real
from .backend import dtype_name
from .creation import arange, rand
from .random_sampling import _kept_mask
from .functional import _check_tensor, _dropout_is_identity
from .module import Module
from .tensor import Tensor

SELU_ALPHA_SCALED = 1.7580993408473766      # SELU's scale · alpha: -this is its saturation
GUMBEL_EPS = 1e-10                          # PyTorch's eps, deprecated and unused


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = GUMBEL_EPS,
                   dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax (Concrete) distribution (Jang et al. 2016, Maddison
    et al. 2016), as ``F.gumbel_softmax``: a differentiable stand-in for drawing one class
    of softmax(logits) along ``dim``::

        g = -log(-log u),  u ~ U[0, 1)  (Gumbel(0, 1) noise, a constant of the graph)
        y_soft = softmax((logits + g) / tau, dim)

    so argmax(y_soft) is distributed as softmax(logits) (the Gumbel-max trick), and y_soft
    approaches that one-hot as ``tau`` → 0. dL/dlogits is softmax's Jacobian applied to gy,
    divided by tau. ``hard=True`` returns the one-hot of argmax(y_soft) (the first maximum)
    in value, and y_soft's gradient (straight-through): y_hard - y_soft.detach() + y_soft.
    ``eps`` is PyTorch's deprecated argument: any other value warns, as there. ``tau``
    must be > 0 (PyTorch takes any number; 0 gives NaN and a negative tau flips the
    sample). Shapes: logits (...) -> the same.
    """
    op = "gumbel_softmax"
    _check_tensor(op, "logits", logits)
    if not logits.backend.is_floating(logits.dtype):
        raise TypeError(f"{op}: logits have dtype {dtype_name(logits.dtype)}; cast them with "
                        "logits.to(dtype='float32')")
    if not (is_real(tau) and 0 < tau < math.inf):
        raise ValueError(f"{op}: tau must be a finite number > 0 (the temperature), got {tau!r}")
    if hard not in (True, False):
        raise TypeError(f"{op}: hard must be True or False, got {hard!r}")
    if eps != GUMBEL_EPS:
        warnings.warn("gumbel_softmax: `eps` parameter is deprecated and has no effect.",
                      UserWarning, stacklevel=2)
    dim = check_axis(op, logits, dim)
    u = rand(logits.shape, dtype="float64", device=logits.device)      # U[0, 1), constant
    gumbels = (-(-u.log()).log()).to(logits.dtype)                     # Gumbel(0, 1)
    gumbels.name = "gumbel noise"                                      # (in graph drawings)
    with grad_mode.scope("function", op):
        y_soft = ((logits + gumbels) / tau).softmax(dim)
        if not hard or logits.ndim == 0:        # one class: y_soft is 1 already
            return y_soft
        index = y_soft.detach().argmax(dim, keepdim=True)              # (..., 1, ...)
        classes = [1] * logits.ndim
        classes[dim] = logits.shape[dim]
        y_hard = (arange(logits.shape[dim], device=logits.device).reshape(classes) == index)
        return y_hard.to(logits.dtype) - y_soft.detach() + y_soft      # straight-through


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Alpha dropout (Klambauer et al. 2017, for self-normalizing SELU networks), as
    ``F.alpha_dropout``: in training each element is, with probability p, set to SELU's
    saturation value -α' (α' = scale · alpha = 1.7581), then all are moved by an affine
    map that keeps mean 0 and variance 1 for an input of mean 0 and variance 1::

        a = ((α'² p + 1)(1 - p))^(-1/2),    y = a x + a α' p       (kept)
                                            y = -a α' (1 - p)      (dropped)

    dL/dx = a gy where kept, 0 where dropped. ``training=False`` (the default, as PyTorch's
    function) or p = 0 returns ``input`` itself; p = 1 gives zeros, as PyTorch.
    ``inplace``: only a false value. Shapes: input (...) -> the same.
    """
    return _alpha_dropout("alpha_dropout", input, p, training, inplace, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """:func:`alpha_dropout` of whole channels, as ``F.feature_alpha_dropout``: one draw
    per x[n, c] (all its values kept or all set together), for an input (N, C, *) of
    at least 2 axes (axis 0 is always the batch, as PyTorch's)."""
    return _alpha_dropout("feature_alpha_dropout", input, p, training, inplace, feature=True)


def _alpha_dropout(op: str, input: Any, p: Any, training: Any, inplace: Any,
                   feature: bool) -> Tensor:
    if _dropout_is_identity(op, input, p, training, inplace,
                            "alpha dropout moves values by fractions"):
        return input
    with grad_mode.scope("function", op):
        if p == 1:
            return input * 0.0                  # every element dropped, as PyTorch
        # checked only where one draw per channel is made, as PyTorch checks it
        if feature and input.ndim < 2:
            raise ValueError(f"{op}: input of shape {input.shape}: feature dropout requires "
                             "at least 2 dimensions, (N, C, *) (PyTorch refuses it too)")
        shape = input.shape[:2] + (1,) * (input.ndim - 2) if feature else input.shape
        keep = _kept_mask(shape, p, input.device)                          # P(keep) = 1 - p
        noise = keep.to(input.dtype)                                      # 1 or 0, constant
        a = ((SELU_ALPHA_SCALED ** 2 * p + 1) * (1 - p)) ** -0.5
        scale = noise * a                                                 # a or 0
        shift = (noise - 1) * (SELU_ALPHA_SCALED * a) + SELU_ALPHA_SCALED * a * p
        scale.name, shift.name = "alpha dropout scale", "alpha dropout shift"
        return input * scale + shift                                      # PyTorch's order


class AlphaDropout(Module):
    """:func:`alpha_dropout` while ``training`` (``model.train()``), the identity after
    ``model.eval()``, as ``torch.nn.AlphaDropout``. ``inplace``: only a false value."""

    _function = staticmethod(alpha_dropout)

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        check_probability(type(self).__name__, p)
        check_inplace(type(self).__name__, inplace)
        self.p, self.inplace = p, False

    def forward(self, input: Tensor) -> Tensor:
        return self._function(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class FeatureAlphaDropout(AlphaDropout):
    """:func:`feature_alpha_dropout` while ``training``, as
    ``torch.nn.FeatureAlphaDropout``: whole channels x[n, c] of an (N, C, *) input."""

    _function = staticmethod(feature_alpha_dropout)
