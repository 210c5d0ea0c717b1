"""Attention, as PyTorch names it: ``F.scaled_dot_product_attention`` (reached from
:mod:`tinyffn.functional`, which imports it; ``nn.MultiheadAttention`` builds on it, in
:mod:`tinyffn.attention_modules`).

The seed chapter sets the FFN against attention: the FFN transforms each position on its
own, attention mixes positions. One query row ``q_t`` takes a weighted average of the
value rows, weighted by how well it matches each key::

    scores  = Q K^T / sqrt(E) + bias          (..., L, S)   one score per (query, key) pair
    weights = softmax(scores, axis=-1)        (..., L, S)   each row sums to 1
    out     = weights V                       (..., L, Ev)

Composed from primitives (matmul, div, where, add, the softmax's exp, sum and div), in a
frame named ``scaled_dot_product_attention`` that the graph view opens into them; the
gradient follows from theirs. Its two products cost 2·L·S·E + 2·L·S·Ev FLOPs: with
L = S = T and E = Ev = d, the seed's 4·T²·d (``demos/cost_model.py`` measures it).

Masks, as PyTorch's: a bool mask marks the pairs that take part (True = attend; the
others get score -inf, so weight 0); a float mask is added to the scores (0 or -inf
entries mask, other values bias). ``is_causal`` lets query i see keys 0..i only. A query
row whose every key is masked has no weights to share out: PyTorch 2.13 gives that row
zeros (output and gradients), not the NaN that softmax of all -inf would give, and so
does this function (for any row of -inf scores, masked or not, as PyTorch).
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import is_real, type_name
from .backend import dtype_name
from .composed import where
from .creation import ones
from .functional import dropout, softmax
from .tensor import Tensor
from .in_place import _broadcast_shape

_OP = "scaled_dot_product_attention"


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(Q K^T · scale + mask) V, as ``torch.nn.functional.scaled_dot_product_attention``.

    Shapes: query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev); the
    leading axes broadcast (as matmul's). ``attn_mask``: bool (True = take part) or a
    float of the query's dtype (added), broadcasting to (..., L, S). ``is_causal``: the
    lower-triangular mask, query i sees keys j <= i (top-left aligned when L != S); not
    together with ``attn_mask`` (PyTorch refuses that too). ``scale``: 1/sqrt(E) if None
    (computed as a division by sqrt(E), the seed's formula). ``dropout_p``: dropout of the
    weights, applied whenever it is > 0, as PyTorch's function does (a module passes 0
    in evaluation); it draws from :func:`tinyffn.manual_seed`'s generator.
    ``enable_gqa``: grouped-query attention, query (..., Hq, L, E) with key and value
    (..., Hk, S, ·), Hk dividing Hq; each key/value head serves Hq/Hk query heads
    (``repeat_interleave`` on axis -3). A query row whose scores are all -inf (its keys
    all masked, or a -inf in the query) gives zeros, as PyTorch 2.13's.

    Derivatives: those of the primitives: gV = weights^T gy, gweights = gy V^T, through
    softmax's y (g - Σ g y), then gQ = gscores K · scale, gK = gscores^T Q · scale.
    """
    query, key, value = _checked(query, key, value, dropout_p, is_causal, scale, enable_gqa)
    if is_causal and attn_mask is not None:
        raise ValueError(f"{_OP}: give attn_mask or is_causal=True, not both (PyTorch's "
                         "reference path refuses both; its fused CPU kernel for 4-D inputs "
                         "ANDs them); for a causal mask with padding, pass one bool mask: "
                         "causal & padding")
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    with grad_mode.scope("function", _OP):
        if enable_gqa:
            key, value = _repeat_heads(query, key, value)          # (..., Hq, S, ·)
        scores = query @ key.transpose(-2, -1)                      # (..., L, E) @ (..., E, S)
        scores = scores / math.sqrt(E) if scale is None else scores * scale     # (..., L, S)
        if is_causal:
            causal = ones(L, S, dtype="bool", device=query.device).tril()        # (L, S)
            scores = where(causal, scores, -math.inf)
        if attn_mask is not None:
            scores = _apply_mask(scores, attn_mask, query)
        weights = _softmax_rows(scores)                              # (..., L, S)
        if dropout_p > 0:
            weights = dropout(weights, dropout_p)
        return weights @ value                                       # (..., L, S) @ (..., S, Ev)


def _softmax_rows(scores: Tensor) -> Tensor:
    """softmax over the last axis, where a row that is -inf throughout gives weights 0, as
    PyTorch 2.13's attention does (masks or not: a -inf in a query row does it too),
    instead of 0/0 = NaN. The test is on the values (detached): the row is swapped for
    zeros before the softmax, so no NaN enters the graph, and its weights set to 0 after,
    so its gradient is 0 too. Shapes: (..., L, S) -> (..., L, S)."""
    if not scores.shape[-1]:        # S = 0: no keys, no weights (weights @ V is 0, as torch)
        return softmax(scores, axis=-1)
    dead = scores.detach().amax(axis=-1, keepdims=True) == -math.inf     # (..., L, 1)
    weights = softmax(where(dead, 0.0, scores), axis=-1)                 # (..., L, S)
    return where(dead, 0.0, weights)


def _apply_mask(scores: Tensor, attn_mask: Any, query: Tensor) -> Tensor:
    """scores with the mask applied: bool -> -inf where False, float -> added. The mask
    must broadcast to the scores' shape (..., L, S) without growing it."""
    if not isinstance(attn_mask, Tensor):
        raise TypeError(f"{_OP}: attn_mask must be a tinyffn Tensor (bool or "
                        f"{dtype_name(query.dtype)}) or None, got {type_name(attn_mask)}")
    if _broadcast_shape(attn_mask.shape, scores.shape) != scores.shape:
        raise ValueError(f"{_OP}: attn_mask of shape {attn_mask.shape} does not broadcast to "
                         f"the scores' shape {scores.shape} (..., L, S); give it shape (L, S) "
                         f"= ({scores.shape[-2]}, {scores.shape[-1]}) or a batch of them")
    name = dtype_name(attn_mask.dtype)
    if name == "bool":
        masked = where(attn_mask, scores, -math.inf)
    elif attn_mask.dtype == query.dtype:
        masked = scores + attn_mask
    else:
        raise TypeError(f"{_OP}: attn_mask has dtype {name}; it must be bool (True = take "
                        f"part) or the query's dtype, {dtype_name(query.dtype)} (added to the "
                        f"scores): cast it with attn_mask.to(query.dtype)")
    return masked


def _repeat_heads(query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
    """key and value with each head repeated Hq/Hk times along axis -3 (grouped-query
    attention: head h of the query reads key/value head h // (Hq/Hk))."""
    groups = query.shape[-3] // key.shape[-3]
    return (key.repeat_interleave(groups, dim=-3),                  # (..., Hq, S, E)
            value.repeat_interleave(groups, dim=-3))                # (..., Hq, S, Ev)


def _checked(query: Any, key: Any, value: Any, dropout_p: Any, is_causal: Any, scale: Any,
             enable_gqa: Any) -> tuple[Tensor, Tensor, Tensor]:
    for what, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{_OP}: {what} must be a tinyffn Tensor, got {type_name(t)}; "
                            "convert arrays (and torch tensors) with tinyffn.tensor(...)")
    shapes = f"query {query.shape}, key {key.shape}, value {value.shape}"
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise ValueError(f"{_OP}: query, key and value must be at least 2-D, (..., L, E), "
                         f"(..., S, E), (..., S, Ev); got {shapes}")
    if not (query.dtype == key.dtype == value.dtype):
        raise TypeError(f"{_OP}: query, key and value must have one dtype, got "
                        f"{dtype_name(query.dtype)}, {dtype_name(key.dtype)}, "
                        f"{dtype_name(value.dtype)}; cast them with .to(dtype)")
    if not query.backend.is_floating(query.dtype):
        raise TypeError(f"{_OP}: query, key and value have dtype {dtype_name(query.dtype)}; "
                        "attention computes in floating point: cast them with .float()")
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(f"{_OP}: the query's last axis E = {query.shape[-1]} must equal "
                         f"the key's, {key.shape[-1]} (each score is a dot product q · k); "
                         f"got {shapes}")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"{_OP}: key and value must have one length S (one value per key), "
                         f"got {key.shape[-2]} and {value.shape[-2]}: {shapes}")
    if not (is_real(dropout_p) and 0 <= dropout_p <= 1):
        raise ValueError(f"{_OP}: dropout_p must be a number in [0, 1] (the fraction of "
                         f"weights zeroed), got {dropout_p!r}")
    for what, flag in (("is_causal", is_causal), ("enable_gqa", enable_gqa)):
        if flag not in (True, False):
            raise TypeError(f"{_OP}: {what} must be True or False, got {flag!r}")
    if scale is not None and not (is_real(scale) and math.isfinite(scale)):
        raise TypeError(f"{_OP}: scale must be a finite number or None (1/sqrt(E)), "
                        f"got {scale!r}")
    if enable_gqa:
        if min(query.ndim, key.ndim, value.ndim) < 3:
            raise ValueError(f"{_OP}: enable_gqa needs a heads axis, (..., H, L, E); got "
                             f"{shapes}")
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk != hv or hq % hk:
            raise ValueError(f"{_OP}: with enable_gqa the key and value heads (axis -3: "
                             f"{hk}, {hv}) must be equal and divide the query heads ({hq}); "
                             f"got {shapes}")
    heads = 3 if enable_gqa else 2                  # the axes matmul does not broadcast
    if _broadcast_shape(query.shape[:-heads], key.shape[:-heads]) is None or \
            _broadcast_shape(query.shape[:-heads], value.shape[:-heads]) is None:
        gqa = (not enable_gqa and min(query.ndim, key.ndim) >= 3 and key.shape[-3] > 1
               and query.shape[-3] % key.shape[-3] == 0)    # fewer key heads than query's
        raise ValueError(f"{_OP}: the leading (batch) axes of query, key and value must "
                         f"broadcast, as matmul's do; got {shapes}" + (
                             "; for grouped-query attention (key/value heads on axis -3 "
                             "dividing the query's) pass enable_gqa=True" if gqa else ""))
    return query, key, value
