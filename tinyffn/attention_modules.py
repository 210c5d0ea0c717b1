"""``nn.MultiheadAttention``, as PyTorch 2.13 defines it (parameter names, shapes, init,
masks, outputs), built on :func:`tinyffn.attention.scaled_dot_product_attention`.
:mod:`tinyffn.nn` imports it, so ``nn.MultiheadAttention`` is the one to use.

H heads of width hd = E/H each attend on their own, and ``out_proj`` mixes them::

    Q, K, V   = query W_q^T + b_q, key W_k^T + b_k, value W_v^T + b_v    (L, N, E), (S, N, E)
    head h    = softmax(Q_h K_h^T / sqrt(hd) + mask) V_h                 (N, L, hd) each
    output    = concat(head 1..H) W_o^T + b_o                            (L, N, E)

Its parameters are PyTorch's, key for key, so ``mha.load_state_dict(torch_mha.state_dict())``
copies a PyTorch layer: ``in_proj_weight`` (3E, E), W_q, W_k, W_v stacked, and
``in_proj_bias`` (3E,); or, when ``kdim`` or ``vdim`` differs from E, ``q_proj_weight``
(E, E), ``k_proj_weight`` (E, kdim), ``v_proj_weight`` (E, vdim); ``out_proj`` a Linear(E, E)
(PyTorch's ``NonDynamicallyQuantizableLinear``, a Linear under a name its quantizer reads).

Masks follow the module's convention, the opposite of the function's: here True means
*masked out* (``key_padding_mask`` True = padding, ``attn_mask`` True = not allowed to
attend); float masks are added in both. A query whose keys are all masked gets NaN
weights and output with ``need_weights=True`` (softmax of all -inf) and zeros with
``need_weights=False`` (the function's rule): what PyTorch 2.13 gives on each path.
"""
from __future__ import annotations

import math
from typing import Any

from . import init
from .attention import scaled_dot_product_attention
from .backend import DEFAULTS, dtype_name
from .creation import zeros
from .functional import dropout, linear, softmax
from .module import Module, Parameter
from .nn import Linear, _check_size
from .tensor import Tensor

_OP = "MultiheadAttention"


class NonDynamicallyQuantizableLinear(Linear):
    """A :class:`tinyffn.nn.Linear` under PyTorch's name for ``out_proj``'s class, so the
    module prints as PyTorch's does (PyTorch's name tells its quantizer to leave it be)."""


class MultiheadAttention(Module):
    """Multi-head attention, as ``torch.nn.MultiheadAttention``.

    Shapes (L target length, S source length, N batch, E = embed_dim):
    query (L, N, E), key (S, N, kdim), value (S, N, vdim), or (N, L, E), ... with
    ``batch_first=True``, or unbatched (L, E), (S, kdim), (S, vdim).
    ``forward`` returns (output (L, N, E), weights (N, L, S), averaged over the heads, or
    (N, H, L, S) with ``average_attn_weights=False``; None with ``need_weights=False``).
    ``key_padding_mask`` (N, S), ``attn_mask`` (L, S) or (N·H, L, S): bool (True = masked
    out) or float (added). ``is_causal``: a hint that ``attn_mask`` is the causal mask,
    which must be given (as PyTorch requires); the mask given is what is applied.
    ``dropout``: on the attention weights, in training mode only.
    Init as PyTorch's: ``xavier_uniform_`` on the input projections, zero biases,
    ``out_proj.weight`` a Linear's default. ``add_bias_kv`` and ``add_zero_attn`` are
    not implemented (refused).
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        _check_size(_OP, "embed_dim", embed_dim)
        _check_size(_OP, "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"{_OP}: embed_dim = {embed_dim} must be divisible by num_heads "
                             f"= {num_heads} (each head gets embed_dim / num_heads features)")
        if not (isinstance(dropout, (int, float)) and 0 <= dropout <= 1):
            raise ValueError(f"{_OP}: dropout must be a probability in [0, 1], got {dropout!r}")
        for what, flag in (("add_bias_kv", add_bias_kv), ("add_zero_attn", add_zero_attn)):
            if flag:
                raise NotImplementedError(f"{_OP}: {what}=True is not implemented in tinyffn "
                                          "(it appends a learned or zero key/value position); "
                                          "leave it False")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        _check_size(_OP, "kdim", self.kdim)
        _check_size(_OP, "vdim", self.vdim)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim, self.batch_first = embed_dim // num_heads, batch_first
        dtype, device = dtype or DEFAULTS.float, device or "cpu"

        def weight(*shape):
            return Parameter(init.xavier_uniform_(zeros(*shape, dtype=dtype, device=device)))
        if self._qkv_same_embed_dim:
            self.in_proj_weight = weight(3 * embed_dim, embed_dim)       # W_q; W_k; W_v
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = weight(embed_dim, embed_dim)
            self.k_proj_weight = weight(embed_dim, self.kdim)
            self.v_proj_weight = weight(embed_dim, self.vdim)
            self.in_proj_weight = None
        self.in_proj_bias = (Parameter(zeros(3 * embed_dim, dtype=dtype, device=device))
                             if bias else None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        if bias:
            init.zeros_(self.out_proj.bias)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """(output, weights or None), as PyTorch's; shapes and masks in the class's
        docstring. Projects, splits E into H heads of hd, attends, merges, projects."""
        batched = self._check_inputs(query, key, value)
        if is_causal and attn_mask is None:
            raise ValueError(f"{_OP}: is_causal=True is a hint that attn_mask is the causal "
                             "mask, so it needs attn_mask (as PyTorch); pass a bool (L, S) "
                             "mask, True above the diagonal: ones(L, S).triu(1).bool()")
        if not batched:                         # one sequence: a batch of one, in the middle
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))    # (L, 1, E)
            if key_padding_mask is not None:
                _check_unbatched_padding(key_padding_mask, key.shape[0])
                key_padding_mask = key_padding_mask.unsqueeze(0)                   # (1, S)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))  # (L, N, E)
        L, N, E = query.shape
        S, H, hd = key.shape[0], self.num_heads, self.head_dim
        mask = self._merged_mask(attn_mask, key_padding_mask, L, S, N, query.dtype)
        q, k, v = self._in_projection(query, key, value)         # (L, N, E), (S, N, E) x 2
        q = q.reshape(L, N, H, hd).permute(1, 2, 0, 3)           # (N, H, L, hd)
        k = k.reshape(S, N, H, hd).permute(1, 2, 0, 3)           # (N, H, S, hd)
        v = v.reshape(S, N, H, hd).permute(1, 2, 0, 3)           # (N, H, S, hd)
        p = self.dropout if self.training else 0.0
        weights = None
        if need_weights:                        # PyTorch's path: the weights written out
            scores = q @ k.transpose(-2, -1) / math.sqrt(hd)     # (N, H, L, S)
            weights = softmax(scores if mask is None else scores + mask, axis=-1)
            weights = dropout(weights, p)                        # returned dropped, as PyTorch's
            heads = weights @ v                                  # (N, H, L, hd)
        else:
            heads = scaled_dot_product_attention(q, k, v, mask, p)      # (N, H, L, hd)
        y = self.out_proj(heads.permute(2, 0, 1, 3).reshape(L, N, E))   # (L, N, E)
        if weights is not None and average_attn_weights:
            weights = weights.mean(axis=1)                       # (N, L, S)
        if not batched:
            return y.squeeze(1), None if weights is None else weights.squeeze(0)
        return (y.transpose(0, 1) if self.batch_first else y), weights

    def _in_projection(self, query: Tensor, key: Tensor, value: Tensor) -> tuple:
        E = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            w_q, w_k, w_v = w[:E], w[E:2 * E], w[2 * E:]            # (E, E) each
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b = self.in_proj_bias
        b_q, b_k, b_v = (None,) * 3 if b is None else (b[:E], b[E:2 * E], b[2 * E:])
        return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)

    def _merged_mask(self, attn_mask: Any, key_padding_mask: Any, L: int, S: int, N: int,
                     dtype: Any) -> Tensor | None:
        """attn_mask and key_padding_mask as one float mask, -inf where masked out,
        shaped to broadcast against the scores (N, H, L, S); None if neither is given."""
        merged = None
        if attn_mask is not None:
            merged = _as_float("attn_mask", attn_mask, dtype)
            if merged.shape == (L, S):
                pass                                               # (L, S) for every head
            elif merged.shape == (N * self.num_heads, L, S):
                merged = merged.reshape(N, self.num_heads, L, S)   # (N, H, L, S)
            else:
                raise ValueError(f"{_OP}: attn_mask has shape {merged.shape}; it must be "
                                 f"(L, S) = ({L}, {S}) or (N·num_heads, L, S) = "
                                 f"({N * self.num_heads}, {L}, {S})")
        if key_padding_mask is not None:
            padding = _as_float("key_padding_mask", key_padding_mask, dtype)
            if padding.shape != (N, S):
                raise ValueError(f"{_OP}: key_padding_mask has shape {padding.shape}; it "
                                 f"must be (N, S) = ({N}, {S}), True at the padded keys "
                                 "((S,) for an unbatched input)")
            padding = padding.reshape(N, 1, 1, S)                  # (N, 1, 1, S)
            merged = padding if merged is None else merged + padding
        return merged

    def _check_inputs(self, query: Any, key: Any, value: Any) -> bool:
        """True if batched (3-D); raises on what PyTorch refuses, naming the shapes."""
        for what, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"{_OP}: {what} must be a tinyffn Tensor, got "
                                f"{type(t).__name__}")
        shapes = f"query {query.shape}, key {key.shape}, value {value.shape}"
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"{_OP}: query, key and value must all be 3-D (batched) or all "
                             f"2-D (unbatched), got {shapes}")
        batched = query.ndim == 3
        b = 0 if self.batch_first else 1                      # the batch axis, if batched
        for what, t, width in (("query", query, self.embed_dim), ("key", key, self.kdim),
                               ("value", value, self.vdim)):
            if t.shape[-1] != width:
                raise ValueError(f"{_OP}: {what}'s last axis must be {width} (embed_dim, "
                                 f"kdim, vdim = {self.embed_dim}, {self.kdim}, {self.vdim}), "
                                 f"got {shapes}")
        if key.shape[:-1] != value.shape[:-1] or (batched and key.shape[b] != query.shape[b]):
            layout = "(N, L, E)" if self.batch_first else "(L, N, E)"
            raise ValueError(f"{_OP}: key and value must have one shape but the last axis, "
                             f"and the query's batch size; got {shapes}"
                             + (f" (batch_first={self.batch_first}: {layout})" if batched else ""))
        return batched


def _check_unbatched_padding(key_padding_mask: Any, S: int) -> None:
    """An unbatched input's key_padding_mask is (S,), as PyTorch's (which asserts it)."""
    if isinstance(key_padding_mask, Tensor) and tuple(key_padding_mask.shape) != (S,):
        raise ValueError(f"{_OP}: with an unbatched (2-D) query the key_padding_mask must be "
                         f"1-D, (S,) = ({S},), True at the padded keys; got shape "
                         f"{tuple(key_padding_mask.shape)}" + (
                             " (take mask[0] for one sequence)"
                             if key_padding_mask.ndim == 2 else ""))


def _as_float(what: str, mask: Any, dtype: Any) -> Tensor:
    """A bool mask (True = masked out) as 0 / -inf in ``dtype``; a float mask of that dtype
    as it is (added to the scores)."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"{_OP}: {what} must be a tinyffn Tensor or None, got "
                        f"{type(mask).__name__}")
    if dtype_name(mask.dtype) == "bool":
        return zeros(*mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, -math.inf)
    if mask.dtype != dtype:
        raise TypeError(f"{_OP}: {what} has dtype {dtype_name(mask.dtype)}; it must be bool "
                        f"(True = masked out) or the query's dtype, {dtype_name(dtype)}")
    return mask
