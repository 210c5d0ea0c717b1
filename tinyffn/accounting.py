"""The seed's parameter and FLOP counts: as formulas, and measured from real objects.

Formulas (d = d_model, T positions, d_ff = 4d unless given; FLOPs count a multiply and an
add as two, and only the matrix products, which are almost all of the work)::

    plain FFN      params 2·d·d_ff + d_ff + d  = 8d² + 5d     FLOPs 4·T·d·d_ff = 16·T·d²
    gated FFN      params 3·d·d_ff             ≈ 8d²          FLOPs 6·T·d·d_ff ≈ 16·T·d²
                   (d_ff = 2/3·4d, LLaMA's choice to keep the plain FFN's count)
    E experts,     params E·(8d² + 5d) + E·d                  FLOPs k·16·T·d² + 2·T·d·E
    top k          (a mixture of E FFNs and a router; each position runs k of them)
    attention      params 4d² (Q, K, V, O)                    FLOPs ≈ 4·T²·d (scores + mixing)
    one block      params 12d² (attention + FFN, no biases or norms)
    cross-over     16·T·d² = 4·T²·d  at  T = 4d = d_ff

Measured: :func:`count_parameters` counts a module's parameter entries,
:func:`measure_forward_flops` and :func:`measure_training_flops` run the module under a
:class:`~tinyffn.flops.FlopCounter`. The tests assert the two sides agree.
"""
from __future__ import annotations

from . import autograd, grad_mode
from .flops import FlopCounter
from .nn import Module, _check_size, _gated_width
from .tensor import Tensor

LLAMA_7B = {"d": 4096, "L": 32, "V": 32000, "T": 2048, "multiple_of": 256}
"""LLaMA-7B's sizes: width d, layers L, vocabulary V (SentencePiece, 32,000 tokens),
training context T, and the rounding of its SwiGLU width (d_ff = 11008)."""


def _check_sizes(owner: str, d_ff: int | None = None, **sizes: int) -> None:
    """Every size a positive integer, and d_ff too unless it is None (its default):
    ffn_params(-2) would otherwise be 22, and ffn_flops(-1, 4) negative."""
    for name, n in sizes.items():
        _check_size(owner, name, n)
    if d_ff is not None:
        _check_size(owner, "d_ff", d_ff)


# ----------------------------------------------------------------------------- parameters
def ffn_params(d: int, d_ff: int | None = None, bias: bool = True) -> int:
    """Entries of W1 (d_ff, d), W2 (d, d_ff), b1 (d_ff,), b2 (d,): 2·d·d_ff + d_ff + d.

    At d_ff = 4d: 8d² + 5d with biases, 8d² without (seed §4, self-test (a)).
    """
    _check_sizes("ffn_params", d=d, d_ff=d_ff)
    d_ff = 4 * d if d_ff is None else d_ff
    return 2 * d * d_ff + ((d_ff + d) if bias else 0)


def gated_ffn_params(d: int, d_ff: int | None = None, bias: bool = False,
                     multiple_of: int = 1) -> int:
    """Entries of W1, W3 (d_ff, d) and W2 (d, d_ff): 3·d·d_ff (+ 2·d_ff + d with biases).

    Self-test (e): at the plain FFN's d_ff = 4d this is 12d², 1.5 times 8d² (two expand
    matrices instead of one); the default d_ff = 2/3·4d (:func:`tinyffn.nn.gated_d_ff`)
    brings it back to about 8d².
    """
    _check_sizes("gated_ffn_params", d=d, d_ff=d_ff)
    d_ff = _gated_width("gated_ffn_params", d, d_ff, multiple_of)
    return 3 * d * d_ff + ((2 * d_ff + d) if bias else 0)


def moe_ffn_params(d: int, num_experts: int, d_ff: int | None = None, bias: bool = True) -> int:
    """Entries of a :class:`~tinyffn.moe.MoEFFN` of plain FFN experts: E experts of
    :func:`ffn_params` each and the router's E × d, E·(8d² + 5d) + E·d at d_ff = 4d."""
    _check_sizes("moe_ffn_params", d=d, num_experts=num_experts, d_ff=d_ff)
    return num_experts * ffn_params(d, d_ff, bias) + num_experts * d


def attention_params(d: int) -> int:
    """The four projections W_Q, W_K, W_V, W_O of multi-head attention, each d × d: 4d²."""
    _check_sizes("attention_params", d=d)
    return 4 * d * d


def block_params(d: int, d_ff: int | None = None) -> int:
    """One Transformer block without biases and norms: attention 4d² + FFN 8d² = 12d²."""
    return attention_params(d) + ffn_params(d, d_ff, bias=False)


def transformer_params(d: int, L: int, V: int = 0, tied_embeddings: bool = True) -> int:
    """L blocks of 12d² plus the token embedding V·d (seed §4's estimate).

    With ``tied_embeddings`` the output projection reuses the embedding matrix (V·d once);
    untied it is a second V × d matrix (2·V·d).
    """
    _check_sizes("transformer_params", d=d, L=L)
    if V != 0:                                              # 0: no embedding counted
        _check_size("transformer_params", "V", V)
    return L * block_params(d) + (1 if tied_embeddings else 2) * V * d


def llama_params(d: int, L: int, V: int, multiple_of: int = 256) -> int:
    """The exact count of a LLaMA model: per layer attention 4d², SwiGLU 3·d·d_ff and two
    RMSNorm weights (2d); then a final RMSNorm (d), the embedding and an untied output
    projection (2·V·d). LLaMA-7B: 6,738,415,616, the "7B"."""
    _check_sizes("llama_params", d=d, L=L, V=V)
    per_layer = attention_params(d) + gated_ffn_params(d, multiple_of=multiple_of) + 2 * d
    return L * per_layer + d + 2 * V * d


def llama7b_totals() -> dict:
    """Seed §4's arithmetic for LLaMA-7B (d = 4096, L = 32, V = 32,000), term by term.

    Returns a dict: ``per_block`` 12d² ≈ 2.0e8, ``blocks`` 12d²·L ≈ 6.4e9, ``embedding``
    V·d ≈ 1.3e8, ``total_tied`` (embedding counted once, as the seed says) ≈ 6.57e9,
    ``total_untied`` (a separate output projection, as LLaMA has) ≈ 6.70e9, and ``exact``
    from :func:`llama_params` (SwiGLU with d_ff = 11008, norms) = 6,738,415,616. The
    seed's "∼6.7e9" matches the untied total; with tying the estimate is ≈ 6.6e9.
    """
    d, L, V = LLAMA_7B["d"], LLAMA_7B["L"], LLAMA_7B["V"]
    return {
        "per_block": block_params(d),
        "blocks": L * block_params(d),
        "embedding": V * d,
        "total_tied": transformer_params(d, L, V, tied_embeddings=True),
        "total_untied": transformer_params(d, L, V, tied_embeddings=False),
        "exact": llama_params(d, L, V, LLAMA_7B["multiple_of"]),
    }


# ----------------------------------------------------------------------------- FLOPs
def ffn_flops(T: int, d: int, d_ff: int | None = None) -> int:
    """Forward matmul FLOPs of the plain FFN over T positions: two products of
    2·T·d·d_ff each, 4·T·d·d_ff = 16·T·d² at d_ff = 4d (seed §5)."""
    _check_sizes("ffn_flops", T=T, d=d, d_ff=d_ff)
    d_ff = 4 * d if d_ff is None else d_ff
    return 4 * T * d * d_ff


def gated_ffn_flops(T: int, d: int, d_ff: int | None = None, multiple_of: int = 1) -> int:
    """Forward matmul FLOPs of the gated FFN: three products, 6·T·d·d_ff (≈ 16·T·d² at the
    default d_ff ≈ 8d/3). The gate's elementwise product is not a matmul and not counted."""
    _check_sizes("gated_ffn_flops", T=T, d=d, d_ff=d_ff)
    d_ff = _gated_width("gated_ffn_flops", d, d_ff, multiple_of)
    return 6 * T * d * d_ff


def moe_ffn_flops(T: int, d: int, num_experts: int, top_k: int, d_ff: int | None = None) -> int:
    """Forward matmul FLOPs of a :class:`~tinyffn.moe.MoEFFN` of plain FFN experts: each of
    the T positions runs k experts, 4·d·d_ff each, and the router, 2·d·E:
    k·16·T·d² + 2·T·d·E at d_ff = 4d, whatever the number of experts it holds. With a
    ``capacity_factor`` the experts run on Σ_e min(n_e, C) rows, which depends on the
    routing: this dropless count is then its upper bound."""
    _check_sizes("moe_ffn_flops", T=T, d=d, num_experts=num_experts, top_k=top_k, d_ff=d_ff)
    if top_k > num_experts:         # as MoEFFN refuses it: k different experts per position
        raise ValueError(f"moe_ffn_flops: top_k={top_k} is more than num_experts={num_experts}")
    return top_k * ffn_flops(T, d, d_ff) + 2 * T * d * num_experts


def attention_flops(T: int, d: int, projections: bool = False) -> int:
    """Forward matmul FLOPs of self-attention over T positions.

    The seed's ~4·T²·d counts the two products that grow with T²: the scores Q K^T
    (2·T·T·d) and the mixing A V (2·T·T·d). With ``projections`` the four d × d
    projections are added (4 · 2·T·d² = 8·T·d²).
    """
    _check_sizes("attention_flops", T=T, d=d)
    return 4 * T * T * d + (8 * T * d * d if projections else 0)


def crossover_T(d: int, d_ff: int | None = None) -> int:
    """The context length at which attention's 4·T²·d equals the FFN's 4·T·d·d_ff.

    Solving gives T = d_ff: 4d for the standard FFN (16,384 for LLaMA-7B's d = 4096).
    Below it the FFN dominates, above it attention does (seed §5).
    """
    _check_sizes("crossover_T", d=d, d_ff=d_ff)
    return 4 * d if d_ff is None else d_ff


# ----------------------------------------------------------------------------- measured
def count_parameters(module: Module) -> int:
    """The number of parameter entries of a module (each shared parameter counted once)."""
    return sum(p.numel() for p in module.parameters())


def measure_forward_flops(module: Module, x: Tensor) -> FlopCounter:
    """Run ``module(x)`` once (without recording a graph) under a FlopCounter; returns it.

    ``counter.forward["matmul"]`` is what :func:`ffn_flops` predicts. A ``fused=True``
    module counts each layer under ``"linear"``: its products plus its bias adds.
    """
    with grad_mode.no_grad(), FlopCounter() as counter:
        module(x)
    return counter


def measure_training_flops(module: Module, x: Tensor) -> FlopCounter:
    """FLOPs of one forward and one backward of ``module(x)``; returns the FlopCounter.

    The backward starts from dL/dy = 1 and computes the gradients of the parameters (and
    of x if it requires grad) without touching any ``.grad``. Each matmul's backward costs
    its forward once per input that needs a gradient: 2× forward when x requires grad;
    1.5× for an FFN when it does not (the first layer then skips dL/dx). A frozen
    parameter (``requires_grad=False``) gets no gradient, as in training; where nothing
    needs one, the backward is empty and costs 0.
    """
    wrt = [p for p in module.parameters() if p.requires_grad] + ([x] if x.requires_grad else [])
    with FlopCounter() as counter:
        y = module(x)
        if wrt:                     # else nothing to differentiate: grad() would refuse
            dy = Tensor(y.backend.xp.ones(y.shape, dtype=y.dtype), _backend=y.backend)
            autograd.grad(y, wrt, dy, allow_unused=True)
    return counter
