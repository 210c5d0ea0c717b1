"""Gradient clipping, as ``torch.nn.utils``: ``tinyffn.nn.utils.clip_grad_norm_`` between
``loss.backward()`` and ``opt.step()``, as nanoGPT and most transformer recipes do.

One update can be huge when a gradient spikes (a bad batch, a loss near a cliff); clipping
the norm keeps its direction and limits its length:

    n = (Σ over every gradient entry |g|^p)^(1/p)     (p = 2: the Euclidean length of all
                                                       gradients seen as one vector)
    g ← g · min(1, max_norm / (n + 1e-6))

All gradients are scaled by one factor, so the update keeps its direction. The sums run
on the gradients' own device, in float32 at least (a float16 sum of squares overflows
past 65,504).
"""
from __future__ import annotations

import math
from typing import Any, Iterable

from .arguments import is_real, type_name
from .backend import check_one_device, dtype_name
from .creation import tensor
from .grad_mode import no_grad
from .tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Scale every ``.grad`` of ``parameters`` in place by one factor, so that their total
    ``norm_type``-norm is at most ``max_norm``; returns the norm before clipping.

    ``norm_type``: any p > 0, or ``math.inf`` (the largest |g|; also ``"inf"``, as in
    PyTorch). Parameters without a ``.grad`` are skipped (no gradient at all: the norm is
    0). A NaN norm scales every gradient to NaN and an inf norm scales by 0 (the inf
    entries to inf · 0 = NaN), as in PyTorch, unless ``error_if_nonfinite`` makes either
    an error. An empty gradient adds nothing to an inf norm (PyTorch refuses it: max of
    no entries). The ``.grad`` tensors stay the same objects, of the same dtypes, holding
    new arrays (as an optimizer step leaves its parameters).
    """
    grads = _grads("clip_grad_norm_", parameters)
    if not (is_real(max_norm) and max_norm >= 0):
        raise ValueError(f"clip_grad_norm_: max_norm must be a number >= 0, got {max_norm!r}")
    if isinstance(norm_type, str) and norm_type == "inf":
        norm_type = math.inf
    if not (is_real(norm_type) and norm_type > 0):
        raise ValueError(f"clip_grad_norm_: norm_type must be a number > 0 or math.inf, got "
                         f"{norm_type!r}")
    if not grads:
        return tensor(0.0)
    with no_grad():
        total = _total_norm(grads, float(norm_type))
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} of the "
                               f"gradients is {total.item()}, so they cannot be clipped; find "
                               "where it comes from (tinyffn.detect_anomaly()), or pass "
                               "error_if_nonfinite=False to scale them by it anyway (NaN)")
        scale = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g *= scale      # in place, as torch's mul_: g keeps its dtype, also a 0-d g
    return total


def _total_norm(grads: list, p: float) -> Tensor:
    """(Σ |g|^p)^(1/p) over every entry of every gradient (max |g| for p = inf): a 0-d
    tensor of the widest gradient dtype, float32 at least."""
    total = None
    for g in grads:
        a = g.abs().float() if dtype_name(g.dtype) == "float16" else g.abs()
        if p == math.inf:
            part = a.max() if a.numel() else tensor(0.0, device=a.device)
        else:
            part = (a * a).sum() if p == 2 else (a ** p).sum()
        # 0-d tensors of two dtypes meet in the wider one
        total = part if total is None else total.maximum(part) if p == math.inf else total + part
    return total if p == math.inf else total ** (1 / p)


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float) -> None:
    """Clamp every entry of every ``.grad`` of ``parameters`` to [-clip_value, clip_value],
    in place (new arrays, the same ``.grad`` tensors); parameters without one are skipped."""
    grads = _grads("clip_grad_value_", parameters)
    if not (is_real(clip_value) and clip_value >= 0):
        raise ValueError(f"clip_grad_value_: clip_value must be a number >= 0, got "
                         f"{clip_value!r}")
    with no_grad():
        for g in grads:
            g.data = g.clamp(-clip_value, clip_value).data


def _grads(op: str, parameters: Any) -> list:
    """The ``.grad`` tensors of ``parameters`` (one Tensor, or an iterable of them) that
    have one, all on one device."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{op}: parameters must be tensors (model.parameters()), got "
                            f"{type_name(p)}")
    grads = [p.grad for p in params if p.grad is not None]
    for g in grads[1:]:
        check_one_device(op, "gradients", grads[0], g)
    return grads
