"""Gradient clipping, as ``torch.nn.utils``: ``tinyffn.nn.utils.clip_grad_norm_`` between
``loss.backward()`` and ``opt.step()``, as nanoGPT and most transformer recipes do.

One update can be huge when a gradient spikes (a bad batch, a loss near a cliff); clipping
the norm keeps its direction and limits its length:

    n = (Σ over every gradient entry |g|^p)^(1/p)     (p = 2: the Euclidean length of all
                                                       gradients seen as one vector)
    g ← g · min(1, max_norm / (n + 1e-6))

All gradients are scaled by one factor, so the update keeps its direction. The sums run
on the gradients' own device, in float32 at least (a float16 sum of squares overflows
past 65,504). ``get_total_norm`` and ``clip_grads_with_norm_`` are its two halves, as
PyTorch's. ``parameters_to_vector`` and ``vector_to_parameters`` see a model's parameters
as one vector, and back.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Iterable

from .arguments import is_real, type_name
from .backend import check_one_device, dtype_name
from .creation import cat, tensor
from .grad_mode import no_grad
from .tensor import Tensor
from . import rnn_utils as rnn      # nn.utils.rnn: pad_sequence, pack_padded_sequence, ...
from . import parametrize, parametrizations     # nn.utils.parametrize, .parametrizations
from . import fusion                # nn.utils.fusion: a BatchNorm folded into its layer
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)
from .weight_hooks import (SpectralNorm, WeightNorm, remove_spectral_norm,  # the older forms,
                           remove_weight_norm, spectral_norm, weight_norm)   # by pre-hooks
from . import prune                             # nn.utils.prune: masks on weights
from . import stateless         # nn.utils.stateless: functional_call's old home (deprecated)

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
           "clip_grad_norm", "parameters_to_vector", "vector_to_parameters", "rnn",
           "parametrize", "parametrizations", "prune", "stateless", "fusion", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
           "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm",
           "WeightNorm", "SpectralNorm"]


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Scale every ``.grad`` of ``parameters`` in place by one factor, so that their total
    ``norm_type``-norm is at most ``max_norm``; returns the norm before clipping. As
    PyTorch's, it is :func:`get_total_norm` of the gradients, then
    :func:`clip_grads_with_norm_` with that norm.

    ``norm_type``: any p > 0, or ``math.inf`` (the largest |g|; also ``"inf"``, as in
    PyTorch). Parameters without a ``.grad`` are skipped (no gradient at all: the norm is
    0). A NaN norm scales every gradient to NaN and an inf norm scales by 0 (the inf
    entries to inf · 0 = NaN), as in PyTorch, unless ``error_if_nonfinite`` makes either
    an error. An empty gradient adds nothing to an inf norm (PyTorch refuses it: max of
    no entries). The ``.grad`` tensors stay the same objects, of the same dtypes, holding
    new arrays (as an optimizer step leaves its parameters).
    """
    op = "clip_grad_norm_"
    grads = _grads(op, parameters)
    _check_max_norm(op, max_norm)
    total = _norm_of(op, grads, norm_type, error_if_nonfinite)
    _scale(grads, max_norm, total)
    return total


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float,
                   norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """:func:`clip_grad_norm_` under its old name, as ``torch.nn.utils.clip_grad_norm``
    (deprecated: a FutureWarning, PyTorch's words)."""
    warnings.warn("`nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0,
                   error_if_nonfinite: bool = False) -> Tensor:
    """The ``norm_type``-norm of ``tensors`` seen as one vector, (Σ |t|^p)^(1/p) over
    every entry (max |t| for p = inf), as PyTorch's: usually the gradients,
    ``get_total_norm([p.grad for p in model.parameters() if p.grad is not None])``, to log
    or to clip with :func:`clip_grads_with_norm_`. A 0-d tensor in float32 at least, on
    the tensors' device; 0 for no tensors."""
    op = "get_total_norm"
    ts = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    for t in ts:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: tensors must be tinyffn tensors (the gradients: "
                            f"[p.grad for p in params]), got {type_name(t)}")
    for t in ts[1:]:
        check_one_device(op, "tensors", ts[0], t)
    return _norm_of(op, ts, norm_type, error_if_nonfinite)


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                          total_norm: Tensor | float) -> None:
    """Scale every ``.grad`` of ``parameters`` in place by min(1, max_norm / (total_norm +
    1e-6)), as PyTorch's: the second half of :func:`clip_grad_norm_`, for a
    ``total_norm`` computed apart (by :func:`get_total_norm`, or summed over several
    models or processes). Gradients keep their dtypes; parameters without one are skipped."""
    op = "clip_grads_with_norm_"
    grads = _grads(op, parameters)
    _check_max_norm(op, max_norm)
    if isinstance(total_norm, Tensor):
        if total_norm.numel() != 1:
            raise ValueError(f"{op}: total_norm must be one number (a 0-d tensor, as "
                             f"get_total_norm returns), got shape {total_norm.shape}")
        if grads:
            check_one_device(op, "total_norm and the gradients", total_norm, grads[0])
        total_norm = total_norm.detach().reshape(())
    elif not is_real(total_norm):
        raise TypeError(f"{op}: total_norm must be a tensor or a number, got "
                        f"{type_name(total_norm)}")
    _scale(grads, max_norm, total_norm)


def _check_max_norm(op: str, max_norm: Any) -> None:
    if not (is_real(max_norm) and max_norm >= 0):
        raise ValueError(f"{op}: max_norm must be a number >= 0, got {max_norm!r}")


def _norm_of(op: str, ts: list, norm_type: Any, error_if_nonfinite: bool) -> Tensor:
    """The checked ``norm_type`` and the total norm of ``ts``, refused if not finite when
    ``error_if_nonfinite``."""
    if isinstance(norm_type, str) and norm_type == "inf":
        norm_type = math.inf
    if not (is_real(norm_type) and norm_type > 0):
        raise ValueError(f"{op}: norm_type must be a number > 0 or math.inf, got "
                         f"{norm_type!r}")
    if not ts:
        return tensor(0.0)
    with no_grad():
        total = _total_norm(ts, float(norm_type))
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"{op}: the total norm of order {norm_type} of the "
                           f"gradients is {total.item()}, so they cannot be clipped; find "
                           "where it comes from (tinyffn.detect_anomaly()), or pass "
                           "error_if_nonfinite=False to scale them by it anyway (NaN)")
    return total


def _scale(grads: list, max_norm: float, total: Tensor | float) -> None:
    """g ← g · min(1, max_norm / (total + 1e-6)), the factor a 0-d tensor or a float."""
    with no_grad():
        scale = (max_norm / (total + 1e-6)).clamp(max=1.0) if isinstance(total, Tensor) \
            else min(1.0, max_norm / (float(total) + 1e-6))
        for g in grads:
            g *= scale      # in place, as torch's mul_: g keeps its dtype, also a 0-d g


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


def parameters_to_vector(parameters: Tensor | Iterable[Tensor]) -> Tensor:
    """Every parameter flattened and joined in order, as PyTorch's: one 1-D tensor of
    Σ numel entries, recorded in the graph (a loss of it backpropagates to the parameters).
    The parameters must share a device; their dtypes meet as in ``tinyffn.cat``."""
    op = "parameters_to_vector"
    params = _tensors(op, parameters)
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Tensor | Iterable[Tensor]) -> None:
    """Give each parameter, in order, the next numel entries of the 1-D ``vec``, reshaped
    to its shape (its ``.data``, outside the graph), as PyTorch's: the inverse of
    :func:`parameters_to_vector`. As there, a parameter takes ``vec``'s dtype. ``vec``
    must hold exactly Σ numel entries (PyTorch ignores extra ones), on their device."""
    op = "vector_to_parameters"
    if not isinstance(vec, Tensor):
        raise TypeError(f"{op}: vec must be a tinyffn Tensor, got {type_name(vec)}")
    params = _tensors(op, parameters)
    check_one_device(op, "vec and the parameters", vec, params[0])
    n = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.shape[0] != n:
        raise ValueError(f"{op}: vec must be 1-D with one entry per parameter entry, "
                         f"{n} for these parameters (shapes "
                         f"{[p.shape for p in params]}), got shape {vec.shape}; make it with "
                         "parameters_to_vector")
    xp, start = vec.backend.xp, 0
    for p in params:
        part = vec.data[start:start + p.numel()]                 # (numel,)
        p.data = xp.asarray(xp.reshape(part, p.shape), copy=True)  # (*p.shape)
        start += p.numel()


def _tensors(op: str, parameters: Any) -> list:
    """``parameters`` (one Tensor, or an iterable of them) as a non-empty list on one device."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    if not params:
        raise ValueError(f"{op}: got no parameters; pass model.parameters() (a generator is "
                         "consumed once: make a new one)")
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{op}: parameters must be tinyffn tensors (model.parameters()), "
                            f"got {type_name(p)}")
    for p in params[1:]:
        check_one_device(op, "parameters", params[0], p)
    return params
