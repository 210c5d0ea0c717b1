"""The losses as modules, as ``torch.nn.BCELoss``, ``nn.HuberLoss``: the base class
``_Loss`` and the losses of :mod:`tinyffn.binary_losses` (those of
:mod:`tinyffn.losses`, ``MSELoss`` to ``NLLLoss``, are in nn.py). Reached as
``tinyffn.nn.BCELoss``, ...; they live in this file so that nn.py stays a file one can
read in a sitting.

Each fixes the reduction and its options when it is made (checked then) and calls its
function; a ``weight`` or ``pos_weight`` tensor is a buffer, as in PyTorch, so
``loss_fn.to(device)`` moves it and ``state_dict`` holds it.
"""
from __future__ import annotations

from typing import Any

from . import binary_losses as B
from . import losses
from .arguments import check_choice, is_real
from .module import Module
from .tensor import Tensor

__all__ = ["BCELoss", "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss"]


class _Loss(Module):
    """A loss of :mod:`tinyffn.losses` as a module, as in ``torch.nn``: the reduction (and
    any option) is fixed when it is made, ``loss_fn(input, target)`` computes it."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        losses._check_reduction(type(self).__name__, reduction)
        self.reduction = reduction

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return self.loss(input, target, reduction=self.reduction, **self.options())

    def options(self) -> dict:
        """The loss function's keyword arguments besides ``reduction``."""
        return {}

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


def _weight_buffer(owner: str, name: str, w: Any) -> Tensor | None:
    if w is not None and not isinstance(w, Tensor):
        raise TypeError(f"{owner}: {name} must be a Tensor or None, got {type(w).__name__}"
                        + (f"; pass the reduction by name, reduction={w!r}"
                           if isinstance(w, str) else ""))
    return w


class BCELoss(_Loss):
    """:func:`tinyffn.functional.binary_cross_entropy`: probabilities in [0, 1] against
    targets in [0, 1], shapes equal; ``weight`` (a buffer) rescales each entry."""

    loss = staticmethod(B.binary_cross_entropy)

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean"):
        super().__init__(reduction)
        self.register_buffer("weight", _weight_buffer("BCELoss", "weight", weight))

    def options(self) -> dict:
        return {"weight": self.weight}


class BCEWithLogitsLoss(_Loss):
    """:func:`tinyffn.functional.binary_cross_entropy_with_logits`: logits against
    targets in [0, 1], computed stably; ``weight`` and ``pos_weight`` (one per class)
    are buffers."""

    loss = staticmethod(B.binary_cross_entropy_with_logits)

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None):
        super().__init__(reduction)
        self.register_buffer("weight", _weight_buffer("BCEWithLogitsLoss", "weight", weight))
        self.register_buffer("pos_weight",
                             _weight_buffer("BCEWithLogitsLoss", "pos_weight", pos_weight))

    def options(self) -> dict:
        return {"weight": self.weight, "pos_weight": self.pos_weight}


class SmoothL1Loss(_Loss):
    """:func:`tinyffn.functional.smooth_l1_loss`: 0.5 d² / β below |d| = β, |d| - 0.5 β
    above."""

    loss = staticmethod(B.smooth_l1_loss)

    def __init__(self, reduction: str = "mean", beta: float = 1.0):
        super().__init__(reduction)
        if not (is_real(beta) and beta >= 0):
            raise ValueError(f"SmoothL1Loss: beta must be a number >= 0, got {beta!r}")
        self.beta = beta

    def options(self) -> dict:
        return {"beta": self.beta}

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, beta={self.beta}"


class HuberLoss(_Loss):
    """:func:`tinyffn.functional.huber_loss`: 0.5 d² below |d| = δ, δ (|d| - 0.5 δ) above."""

    loss = staticmethod(B.huber_loss)

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        if not (is_real(delta) and delta > 0):
            raise ValueError(f"HuberLoss: delta must be a number > 0, got {delta!r}")
        self.delta = delta

    def options(self) -> dict:
        return {"delta": self.delta}

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, delta={self.delta}"


class KLDivLoss(Module):
    """:func:`tinyffn.functional.kl_div`: log probabilities against probabilities (log
    probabilities with ``log_target``); ``reduction`` also ``"batchmean"``, and
    ``"mean"``, the default, warns as PyTorch's does (see ``kl_div``)."""

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__()
        if size_average is not None or reduce is not None:
            raise TypeError("KLDivLoss: size_average and reduce are PyTorch's deprecated "
                            "arguments; pass reduction= by name")
        check_choice("KLDivLoss", "reduction", reduction, B.KL_REDUCTIONS,
                     "pass it by name, reduction=...")
        if not isinstance(log_target, bool):
            raise TypeError(f"KLDivLoss: log_target must be True or False, got {log_target!r}")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return B.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, log_target={self.log_target}"
