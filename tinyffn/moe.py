"""A sparse mixture of FFN experts: more parameters for the same FLOPs per position.

The FFN holds most of a transformer's parameters (8d² of a block's 12d²) and, as a
key-value memory (docs/key_value_memory.md), what it stores grows with d_ff, while its
cost grows with d_ff too: every position pays for every unit. A mixture of experts
(Shazeer et al. 2017; Switch, Fedus et al. 2021; Mixtral, Jiang et al. 2024) keeps E
FFNs, the experts, and sends each position to only k of them, chosen by a router:

    g(x) = softmax(W_g x)                          (E probabilities, W_g: E × d)
    S(x) = the k experts of largest g(x)
    y    = Σ_{e ∈ S(x)} w_e(x) FFN_e(x),   w_e = g_e(x)        (k = 1, Switch)
                                            w_e = g_e(x) / Σ_{j ∈ S(x)} g_j(x)  (Mixtral)

Parameters: E·(8d² + 5d) + E·d, E times the FFN's. FLOPs per position: k·16d² + 2·E·d,
k times the FFN's plus the router's. Mixtral's 8 experts, top 2, hold 4 times the
parameters that a position pays for.

How it learns. The choice S(x) is discrete, so no gradient flows through *which*
experts were picked; the gradient reaches the router through the weights w_e(x), which
are differentiable in W_g. With k = 1 and renormalized weights, w = 1 and the router
would get no gradient from the loss at all: hence Switch's unnormalized g_e(x), and the
default here (``renormalize=None``: Mixtral's renormalization for k ≥ 2, Switch's
g_e(x) for k = 1). A router left alone tends to send most positions to a few experts,
which then learn faster and are chosen more: the load-balancing loss (Switch's)

    aux = E · Σ_e f_e · P_e,   f_e = the share of the N·k choices that went to e,
                               P_e = the mean of g_e(x) over the N positions,

is 1 when the load is even and E when one expert takes everything (E/k, its largest
value for k choices per position, when k experts take everything); it is kept after
each forward as ``moe.aux_loss``, to add (times about 0.01) to the training loss. Only
P_e carries a gradient (f_e is a count), which pushes probability away from the
overloaded experts.

Computation. Each expert runs once, on the rows routed to it (``x[rows]``), and its
weighted output is added back into place with ``index_add`` (the adjoint of that
gather): a position's k outputs meet in y. Every position reaches its k experts (no
capacity limit and no dropped positions, as in Mixtral); an expert that no position
chose does not run, and its parameters get no gradient from that step (``grad`` stays
None, as in PyTorch).
"""
from __future__ import annotations

from typing import Any

from . import functional as F
from .containers import ModuleList
from .creation import zeros
from .module import Module
from .nn import FFN, GatedFFN, Linear, _check_size, _check_width
from .tensor import Tensor

__all__ = ["MoEFFN", "load_balancing_loss"]


def load_balancing_loss(router_probs: Tensor, expert_index: Tensor) -> Tensor:
    """Switch's load-balancing loss, E · Σ_e f_e · P_e (the module docstring).

    ``router_probs`` (N, E): g(x) for N positions; ``expert_index`` (N, k): the experts
    chosen for each. f_e, the share of the N·k choices that went to e, is a count and
    carries no gradient; P_e, the mean of g_e over the N positions, does. The loss is 1
    for an even load (f_e = P_e = 1/E) and approaches E when one expert takes everything
    (E/k when k experts do, k choices per position). Hugging Face's Mixtral divides the
    counts by N, not N·k: k times this loss.
    """
    if not isinstance(router_probs, Tensor) or router_probs.ndim != 2:
        got = getattr(router_probs, "shape", router_probs)
        raise ValueError("load_balancing_loss: router_probs must be a (N, E) tensor of "
                         f"router probabilities, got {got!r}")
    n, e = router_probs.shape
    if not isinstance(expert_index, Tensor) or expert_index.ndim != 2 or \
            expert_index.shape[0] != n:
        raise ValueError(f"load_balancing_loss: expert_index must be (N, k) = ({n}, k), one "
                         f"row of chosen experts per row of router_probs {router_probs.shape}, "
                         f"got {getattr(expert_index, 'shape', expert_index)!r}")
    counts = expert_index.reshape(-1).bincount(minlength=e)            # choices per expert
    if counts.shape[0] != e:    # an index past E made bincount longer: say so, not "mul: ..."
        raise ValueError(f"load_balancing_loss: expert_index names expert {counts.shape[0] - 1}"
                         f", but router_probs {router_probs.shape} has E = {e} experts "
                         f"(0 to {e - 1}); pass the indices topk chose from these probabilities")
    share = counts.to(dtype=router_probs.dtype) / expert_index.numel()  # f_e, no gradient
    return e * (share * router_probs.mean(dim=0)).sum()


class MoEFFN(Module):
    """A sparse mixture of ``num_experts`` FFNs, each position sent to ``top_k`` of them
    by a learned router (the module docstring has the math).

    Submodules: ``gate`` = Linear(d_model, num_experts, bias=False), the router, and
    ``experts``, a ModuleList of :class:`~tinyffn.nn.FFN` (or, with ``gated=True``,
    :class:`~tinyffn.nn.GatedFFN`: then the state_dict keys ``gate.weight``,
    ``experts.0.w1.weight``, ... are those of Mixtral's sparse MoE block). ``d_ff``,
    ``activation``, ``bias`` and ``fused`` are each expert's, with each class's
    defaults (ReLU and biases; SwiGLU and none when gated).

    ``renormalize``: divide the k chosen probabilities by their sum (Mixtral); None
    (default) does so for ``top_k`` ≥ 2 and not for ``top_k`` = 1 (Switch), where it
    would make every weight 1 and leave the router without a gradient.

    After each forward: ``aux_loss``, the load-balancing loss (a tensor in the graph),
    and ``tokens_per_expert``, how many of the positions each expert received (an int64
    tensor, outside the graph). ``aux_loss`` keeps the last forward's graph up to the
    router, arrays and all, until a backward through it frees them or the next forward
    replaces it: a forward run with gradients on and never backpropagated (an evaluation
    without ``no_grad()``) holds one more forward's activations; under ``no_grad()`` it
    holds none. float16 logits are routed in float32, as Mixtral does (fewer ties);
    ``aux_loss`` is then float32. Shapes: x (..., d_model) -> y (..., d_model).
    """

    def __init__(self, d_model: int, num_experts: int = 8, top_k: int = 2,
                 d_ff: int | None = None, activation: Any = None, bias: bool | None = None,
                 gated: bool = False, renormalize: bool | None = None, *, device: Any = None,
                 dtype: Any = None, fused: bool = False):
        super().__init__()
        _check_size("MoEFFN", "d_model", d_model)
        _check_size("MoEFFN", "num_experts", num_experts)
        _check_size("MoEFFN", "top_k", top_k)
        if top_k > num_experts:
            raise ValueError(f"MoEFFN: top_k={top_k} is more than num_experts={num_experts}; "
                             "each position is sent to top_k different experts")
        if renormalize is not None and not isinstance(renormalize, bool):
            raise TypeError(f"MoEFFN: renormalize must be True, False or None, got {renormalize!r}")
        expert = GatedFFN if gated else FFN
        kwargs = {"device": device, "dtype": dtype, "fused": fused}
        if activation is not None:
            kwargs["activation"] = activation
        if bias is not None:
            kwargs["bias"] = bias
        self.d_model, self.num_experts, self.top_k = d_model, num_experts, top_k
        self.renormalize = top_k > 1 if renormalize is None else renormalize
        self.gate = Linear(d_model, num_experts, bias=False, device=device, dtype=dtype)
        try:
            experts = [expert(d_model, d_ff, **kwargs) for _ in range(num_experts)]
        except (TypeError, ValueError) as err:      # a wrong width or activation, named
            raise type(err)(f"MoEFFN, whose experts are {expert.__name__}s: {err}") from None
        self.experts = ModuleList(experts)
        self.d_ff = self.experts[0].d_ff
        self.aux_loss: Tensor | None = None
        self.tokens_per_expert: Tensor | None = None

    def __getstate__(self) -> dict:
        """Copies and pickles leave the last forward's ``aux_loss`` behind, as a Parameter
        leaves its ``.grad``: it is a node of that forward's graph, which cannot be copied
        (PyTorch refuses to deep-copy one too), and ``copy.deepcopy(moe)`` (an EMA copy,
        ``swa_utils.AveragedModel``) must work after training. The copy's is None until
        its first forward."""
        return {**vars(self), "aux_loss": None}

    def extra_repr(self) -> str:
        return (f"num_experts={self.num_experts}, top_k={self.top_k}, "
                f"renormalize={self.renormalize}")

    def forward(self, x: Tensor) -> Tensor:
        _check_width("MoEFFN", x, self.d_model)
        rows_in = x.reshape(-1, self.d_model)                 # (N, d): positions are independent
        logits = self.gate(rows_in)                             # (N, E)
        # float16 logits are routed in float32, as Mixtral does: fewer ties, fewer flips
        probs = F.softmax(logits, dim=-1, dtype="float32" if logits.dtype == "float16" else None)
        weight, index = probs.topk(self.top_k, dim=-1)         # (N, k) each, largest first
        if self.renormalize:
            weight = weight / weight.sum(dim=-1, keepdim=True)
        weight = weight.to(dtype=rows_in.dtype)                 # the experts' dtype
        y = zeros(rows_in.shape, dtype=rows_in.dtype, device=rows_in.device)
        for e, expert in enumerate(self.experts):
            rows, slot = (index == e).nonzero(as_tuple=True)    # who chose e, and as which pick
            if rows.shape[0] == 0:
                continue                                        # no position: e does not run
            out = expert(rows_in.index_select(0, rows)) * weight[rows, slot].unsqueeze(-1)
            y = y.index_add(0, rows, out)                       # back into each row's place
        self.aux_loss = load_balancing_loss(probs, index)
        self.tokens_per_expert = index.reshape(-1).bincount(minlength=self.num_experts)
        return y.reshape(x.shape)
