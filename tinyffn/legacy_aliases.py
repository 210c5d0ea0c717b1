"""PyTorch's deprecated names, kept so that an older script runs (warning, as PyTorch's
do): ``F.upsample``, ``F.upsample_nearest`` and ``F.upsample_bilinear``, the names of
``F.interpolate`` before it had one (a UserWarning, PyTorch's words), and
``nn.NLLLoss2d``, ``NLLLoss`` for (N, C, H, W) log-probabilities (a FutureWarning).

Each is the function or module it stands for, nothing more, with one difference that a
reader of tinyffn must know: tinyffn's ``nll_loss`` takes the classes on the last axis,
PyTorch's on axis 1. ``NLLLoss2d`` says in its name that its input is PyTorch's
(N, C, H, W), so it moves axis 1 last (``movedim``) and gives ``nll_loss`` rows of C:
the losses and gradients are PyTorch's.
"""
from __future__ import annotations

import warnings
from typing import Any

from . import losses
from .loss_modules import NLLLoss
from .more_losses import _refuse_legacy
from .resampling import interpolate
from .tensor import Tensor


def _deprecated(name: str) -> None:
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", UserWarning, stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """:func:`interpolate` under its old name, as ``F.upsample`` (deprecated: warns)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate(input, size, scale_factor, mode='nearest')``, as
    ``F.upsample_nearest`` (deprecated: warns)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)``, as
    ``F.upsample_bilinear`` (deprecated: warns). Note align_corners=True, as PyTorch's
    (and ``nn.UpsamplingBilinear2d``'s)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` over PyTorch's (N, C, H, W) layout, as ``torch.nn.NLLLoss2d``
    (deprecated: warns when made): log-probabilities (N, C, ...) with the classes on axis
    1 (also (N, C) and (C,)), targets (N, ...). tinyffn's ``NLLLoss`` takes the classes
    last, so this one moves axis 1 there first; the arguments are PyTorch's ``NLLLoss``'s
    (size_average and reduce refused)."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = losses.IGNORE_INDEX, reduce: Any = None,
                 reduction: str = "mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead; in "
                      "tinyffn the classes go last: loss(log_probs.movedim(1, -1), target)",
                      FutureWarning, stacklevel=2)
        _refuse_legacy("NLLLoss2d", size_average, reduce)
        super().__init__(reduction, weight=weight, ignore_index=ignore_index)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        if not (isinstance(input, Tensor) and isinstance(target, Tensor) and input.ndim > 2):
            return super().forward(input, target)       # (N, C) and (C,): both layouts agree
        shape = target.shape                            # (N, H, W)
        C = input.shape[1]
        # rows of C log-probabilities, which both layouts read alike (nll_loss refuses the
        # 4-D form whose shapes fit either): (N, C, H, W) -> (N, H, W, C) -> (N·H·W, C)
        loss = super().forward(input.movedim(1, -1).reshape(-1, C), target.reshape(-1))
        return loss.reshape(shape) if self.reduction == "none" else loss


__all__ = ["upsample", "upsample_nearest", "upsample_bilinear", "NLLLoss2d"]
