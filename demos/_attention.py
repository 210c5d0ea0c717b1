"""Single-head self-attention from tinyffn's primitives: the FFN's cross-position partner.

The seed chapter sets the FFN against attention (§2.1, §5, §7), so three demos need an
attention to compare with. tinyffn's ``nn.MultiheadAttention`` has biases and several
heads; this is the smallest honest one, written with the same pieces as the FFN: ``nn.Linear`` for the
projections and ``functional.scaled_dot_product_attention`` (``@``, ``softmax``, ``@``)::

    Q, K, V = X W_Q^T, X W_K^T, X W_V^T                    each (T, d)
    A       = softmax(Q K^T / sqrt(d))                     (T, T): row t mixes all positions
    Attn(X) = (A V) W_O^T                                  (T, d)

No mask, one head, no biases: 4d² parameters, as the seed counts (W_Q, W_K, W_V, W_O).
"""
from __future__ import annotations

from tinyffn import Tensor, nn
from tinyffn import functional as F


def attention_core(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """softmax(Q K^T / sqrt(d)) V: the part whose cost grows as T².

    PyTorch's ``F.scaled_dot_product_attention`` (tinyffn/attention.py), unmasked: its two
    matrix products are what the seed's ~4·T²·d counts: the scores Q K^T, (T, d) @ (d, T),
    cost 2·T·T·d, and the mixing A V, (T, T) @ (T, d), another 2·T·T·d.
    Shapes: q, k, v (T, d) -> (T, d).
    """
    return F.scaled_dot_product_attention(q, k, v)              # (T, d)


class SelfAttention(nn.Module):
    """One head of self-attention over T positions: Attn(X) = softmax(Q K^T / sqrt(d)) V W_O^T.

    Submodules ``wq``, ``wk``, ``wv``, ``wo`` = Linear(d, d, bias=False): 4d² parameters.
    Forward FLOPs: the four projections 4 · 2·T·d² = 8·T·d², plus the core's 4·T²·d.
    Shapes: x (T, d) -> (T, d).
    """

    def __init__(self, d_model: int, dtype=None, device=None):
        super().__init__()
        self.d_model = d_model
        self.wq = nn.Linear(d_model, d_model, bias=False, dtype=dtype, device=device)
        self.wk = nn.Linear(d_model, d_model, bias=False, dtype=dtype, device=device)
        self.wv = nn.Linear(d_model, d_model, bias=False, dtype=dtype, device=device)
        self.wo = nn.Linear(d_model, d_model, bias=False, dtype=dtype, device=device)

    def forward(self, x: Tensor) -> Tensor:
        mixed = attention_core(self.wq(x), self.wk(x), self.wv(x))     # (T, d)
        return self.wo(mixed)                                          # (T, d)
