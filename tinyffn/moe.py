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
overloaded experts. ST-MoE's router z-loss (Zoph et al. 2022, eq. 5)

    z = (1/N) Σ_n (log Σ_e exp(l_ne))²,   l_n = W_g x_n, the router's logits,

kept as ``moe.z_loss``, to add times about 0.001 (ST-MoE's weight), keeps the logits
small (it is least where a row's logsumexp is 0): large logits lose precision in float16
and bfloat16 and make the router, and training, unstable. Both losses are means over the
N positions; over no positions (an empty batch) both are 0, what their sums over no
positions give, not the NaN of a mean of nothing.

Computation (the dispatch of Megablocks and fairseq: sort, gather, run, scatter back).
The N·k choices are laid out choice-major, i = j·N + n for position n's (j+1)-th pick
(GShard's priority order, below), and sorted by expert (a stable argsort, so each
expert's choices stay in that order); counting n_e = Σ_i [e_i = e] per expert and reading
those E counts to the host once tells where each expert's slice of the sorted choices
begins and ends. The rows x_n of all the kept choices are gathered in that order with one
``index_select``, each expert runs once on its own slice, and the outputs, concatenated,
go back to their choices' places with one ``index_add`` (the adjoint of that gather)
into h, a (k·N, d) buffer: then

    y_n = Σ_j w_nj · h_{j·N+n}                 (h: 0 at a dropped choice)

A forward reads from the device to the host once however large E is: the counts (a loop
with one ``nonzero`` per expert would wait on a GPU E times). The gather's and the
scatter's indices are the sort's own, in range by making, so they skip the range checks
that ``index_select`` and ``index_add`` make of a user's index (a read each).

By default every position reaches its k experts (no capacity limit and no dropped
positions, as in Mixtral); an expert that no position chose does not run, and its
parameters get no gradient from that step (``grad`` stays None, as in PyTorch).

Capacity (Switch, GShard). With ``capacity_factor`` c, each expert takes at most

    C = ⌈c · N · k / E⌉

of the N·k choices (c = 1: an even share; Switch found 1 to 1.25 work well), so that a
fixed-size buffer per expert holds them all. Choices are served in priority order: all
first choices, in position order, then all second choices, and so on (GShard's top 2,
flaxformer's top k: a position's first choice is never dropped for another's second):
the sorted order above, so expert e serves the first min(n_e, C) choices of its slice and
drops the other max(n_e − C, 0). For those positions that expert contributes nothing
(the others' weights are not renormalized, as flaxformer; DeepSpeed's top 2 renormalizes
over the kept ones). A position all of whose choices were dropped gets y = 0: the
residual connection around the layer, x + MoE(x), is what carries it on. c ≥ E/k gives
C ≥ N and drops nothing.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

from . import functional as F
from . import grad_mode
from .containers import ModuleList
from .creation import arange, cat, zeros
from .module import Module
from .more_functions import _index_selected
from .nn import FFN, GatedFFN, Linear, _check_size, _check_width
from .scatter import _index_added
from .tensor import Tensor

__all__ = ["MoEFFN", "load_balancing_loss", "router_z_loss"]


def load_balancing_loss(router_probs: Tensor, expert_index: Tensor) -> Tensor:
    """Switch's load-balancing loss, E · Σ_e f_e · P_e (the module docstring).

    ``router_probs`` (N, E): g(x) for N positions; ``expert_index`` (N, k): the experts
    chosen for each. f_e, the share of the N·k choices that went to e, is a count and
    carries no gradient; P_e, the mean of g_e over the N positions, does. The loss is 1
    for an even load (f_e = P_e = 1/E) and approaches E when one expert takes everything
    (E/k when k experts do, k choices per position). Hugging Face's Mixtral divides the
    counts by N, not N·k: k times this loss. N = 0 gives 0 (torch's mean would give NaN).
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
    return _balance_loss(router_probs, counts, expert_index.numel())


def _balance_loss(router_probs: Tensor, counts: Tensor, choices: int) -> Tensor:
    """E · Σ_e f_e · P_e from ``counts`` (E,), the choices c_e each expert got of all
    ``choices`` (N·k): f_e = c_e / (N·k). MoEFFN counts them once, for its dispatch too."""
    n, e = router_probs.shape
    share = counts.to(dtype=router_probs.dtype) / max(choices, 1)       # f_e, no grad
    mean_probs = router_probs.sum(dim=0) / max(n, 1)    # P_e: a mean, 0 (not NaN) over N = 0
    return e * (share * mean_probs).sum()


def router_z_loss(router_logits: Tensor) -> Tensor:
    """ST-MoE's router z-loss, z = (1/N) Σ_n (logsumexp_e l_ne)² (the module docstring).

    ``router_logits`` (N, E): the router's logits l = W_g x for N positions (before the
    softmax). The gradient of (logsumexp l_n)² is 2 · logsumexp(l_n) · softmax(l_n): a
    step lowers a row's logits, the largest most, while its logsumexp is positive (raises
    them while negative), toward small logits that round little. float16 logits are
    squared in float32, as ST-MoE computes its router in float32. N = 0 gives 0 (torch's
    mean would give NaN).
    """
    if not isinstance(router_logits, Tensor) or router_logits.ndim != 2 or \
            router_logits.shape[1] == 0:
        got = getattr(router_logits, "shape", router_logits)
        raise ValueError("router_z_loss: router_logits must be a (N, E) tensor of router "
                         f"logits with E >= 1, got {got!r}; reshape (B, T, E) logits with "
                         ".reshape(-1, E)")
    with grad_mode.scope("function", "router_z_loss"):
        if router_logits.dtype == "float16":
            router_logits = router_logits.float()
        log_z = router_logits.logsumexp(dim=-1)               # (N,)
        return log_z.square().sum() / max(router_logits.shape[0], 1)


class MoEFFN(Module):
    """A sparse mixture of ``num_experts`` FFNs, each position sent to ``top_k`` of them
    by a learned router (the module docstring has the math).

    Submodules: ``gate`` = Linear(d_model, num_experts, bias=False), the router, and
    ``experts``, a ModuleList of :class:`~tinyffn.nn.FFN` (or, with ``gated=True``,
    :class:`~tinyffn.nn.GatedFFN`: then the state_dict keys ``gate.weight``,
    ``experts.0.w1.weight``, ... are those of Mixtral's sparse MoE block). ``d_ff``,
    ``activation``, ``bias`` and ``fused`` are each expert's, with each class's
    defaults (ReLU and biases; SwiGLU and none when gated).

    ``multiple_of`` rounds the gated experts' default ``d_ff`` (:class:`GatedFFN`'s).
    ``renormalize``: divide the k chosen probabilities by their sum (Mixtral); None
    (default) does so for ``top_k`` ≥ 2 and not for ``top_k`` = 1 (Switch), where it
    would make every weight 1 and leave the router without a gradient.

    ``capacity_factor``: None (default) drops nothing (Mixtral); a number c > 0 lets each
    expert take at most C = ⌈c · N · top_k / num_experts⌉ of a forward's N·top_k choices,
    first choices before second ones, earlier positions first, and drops the rest (the
    module docstring): for those positions that expert adds nothing, so put a residual
    connection around the layer. Weights are not renormalized over the kept choices. The
    attribute is read at each forward: set it to None (or larger) to evaluate with more
    room than training had, as DeepSpeed's ``eval_capacity_factor`` does (docs/ffn.md
    measures what drops cost a model without a residual).

    After each forward: ``aux_loss``, the load-balancing loss, and ``z_loss``, the router
    z-loss (tensors in the graph, float32 or float64, 0 for an empty input);
    ``tokens_per_expert``, how many choices each expert got from the router (an int64
    tensor, outside the graph; before any dropping, as ``aux_loss`` counts them);
    ``dropped_per_expert``, how many of those were past its capacity (int64 zeros without
    ``capacity_factor``) and ``expert_capacity``, the last forward's C (None without).
    ``aux_loss`` and ``z_loss`` are in the graph because their gradient is what balances
    and steadies the router (Hugging Face's Switch and Mixtral return theirs as graph
    tensors too; DeepSpeed keeps its ``l_aux`` on the layer, as here), so they hold the
    last forward's graph up to the router: the router's arrays and those of everything x
    was computed from (in a model, the layers below), not the experts', which go with y.
    A backward through them frees those arrays (the nodes stay, empty, until the next
    forward); the next forward lets the whole graph go. A forward run with gradients on
    and never backpropagated (an evaluation without ``no_grad()``) holds them until then;
    under ``no_grad()`` they hold none. float16 logits are routed in float32, as Mixtral does
    (fewer ties); ``aux_loss``
    and ``z_loss`` are then float32. Shapes: x (..., d_model) -> y (..., d_model); an empty
    x (..., 0, d_model) gives an empty y.
    """

    def __init__(self, d_model: int, num_experts: int = 8, top_k: int = 2,
                 d_ff: int | None = None, activation: Any = None, bias: bool | None = None,
                 gated: bool = False, renormalize: bool | None = None,
                 capacity_factor: float | None = None, *, multiple_of: int | None = None,
                 device: Any = None, dtype: Any = None, fused: bool = False):
        super().__init__()
        _check_size("MoEFFN", "d_model", d_model)
        _check_size("MoEFFN", "num_experts", num_experts)
        _check_size("MoEFFN", "top_k", top_k)
        if top_k > num_experts:
            raise ValueError(f"MoEFFN: top_k={top_k} is more than num_experts={num_experts}; "
                             "each position is sent to top_k different experts")
        if renormalize is not None and not isinstance(renormalize, bool):
            raise TypeError(f"MoEFFN: renormalize must be True, False or None, got {renormalize!r}")
        _check_capacity_factor(capacity_factor)
        if multiple_of is not None and not gated:
            raise ValueError(f"MoEFFN: multiple_of={multiple_of!r} rounds the default d_ff of "
                             "gated experts (GatedFFN); pass gated=True, or d_ff for FFN experts")
        expert = GatedFFN if gated else FFN
        kwargs = {"device": device, "dtype": dtype, "fused": fused}
        if activation is not None:
            kwargs["activation"] = activation
        if bias is not None:
            kwargs["bias"] = bias
        if multiple_of is not None:
            kwargs["multiple_of"] = multiple_of
        self.d_model, self.num_experts, self.top_k = d_model, num_experts, top_k
        self.capacity_factor = capacity_factor
        self.renormalize = top_k > 1 if renormalize is None else renormalize
        self.gate = Linear(d_model, num_experts, bias=False, device=device, dtype=dtype)
        try:
            experts = [expert(d_model, d_ff, **kwargs) for _ in range(num_experts)]
        except (TypeError, ValueError) as err:      # a wrong width or activation, named
            raise type(err)(f"MoEFFN, whose experts are {expert.__name__}s: {err}") from None
        self.experts = ModuleList(experts)
        self.d_ff = self.experts[0].d_ff
        self.aux_loss: Tensor | None = None
        self.z_loss: Tensor | None = None
        self.tokens_per_expert: Tensor | None = None
        self.dropped_per_expert: Tensor | None = None
        self.expert_capacity: int | None = None

    def __getstate__(self) -> dict:
        """Copies and pickles leave the last forward's losses behind, as a Parameter
        leaves its ``.grad``: it is a node of that forward's graph, which cannot be copied
        (PyTorch refuses to deep-copy one too), and ``copy.deepcopy(moe)`` (an EMA copy,
        ``swa_utils.AveragedModel``) must work after training. The copy's is None until
        its first forward."""
        return {**vars(self), "aux_loss": None, "z_loss": None}

    def extra_repr(self) -> str:
        capacity = "" if self.capacity_factor is None else \
            f", capacity_factor={self.capacity_factor}"
        return (f"num_experts={self.num_experts}, top_k={self.top_k}, "
                f"renormalize={self.renormalize}{capacity}")

    def forward(self, x: Tensor) -> Tensor:
        _check_width("MoEFFN", x, self.d_model)
        rows_in = x.reshape(-1, self.d_model)                 # (N, d): positions are independent
        n, k, num_experts = rows_in.shape[0], self.top_k, self.num_experts
        logits = self.gate(rows_in)                             # (N, E)
        if logits.dtype == "float16":   # routed in float32, as Mixtral does: fewer ties, flips
            logits = logits.float()
        probs = F.softmax(logits, dim=-1)                       # (N, E)
        weight, index = probs.topk(k, dim=-1)                   # (N, k) each, largest first
        if self.renormalize:
            weight = weight / weight.sum(dim=-1, keepdim=True)
        weight = weight.to(dtype=rows_in.dtype)                 # the experts' dtype

        # Dispatch (the module docstring): the choices sorted by expert, a slice for each
        choice = index.transpose(0, 1).reshape(-1)    # (k·N,) e_i, i = j·N + n: n's (j+1)-th
        order = choice.argsort(stable=True)           # (k·N,) by expert, then priority
        expert_ids = arange(num_experts, device=x.device)                    # (E,)
        # n_e by a compare on the device: bincount would count on the host (NumPy)
        counts = (choice.unsqueeze(-1) == expert_ids).sum(dim=0)             # (E,) n_e
        sizes = counts.tolist()                 # the forward's one read to the host
        _check_capacity_factor(self.capacity_factor)   # it may be set between forwards
        if self.capacity_factor is None:
            self.expert_capacity, room = None, k * n                   # room for every choice
        else:
            self.expert_capacity = room = math.ceil(self.capacity_factor * n * k / num_experts)
        kept = [min(size, room) for size in sizes]      # an expert serves its first C choices
        starts = [sum(sizes[:e]) for e in range(num_experts)]
        served = cat([order[s:s + m] for s, m in zip(starts, kept)])   # (K,) i of the K kept
        # choice i = j·N + n is position n's: i mod N is the row to gather (N = 0: none).
        # served is argsort's output, in [0, k·N) by making, so the gather and the scatter
        # are index_select and index_add without their range check of a user's index
        # (each a read from the device: on a GPU, a wait for the kernels queued before)
        x_served = _index_selected(rows_in, 0, served % max(n, 1))          # (K, d)
        outs, at = [], 0
        for expert, m in zip(self.experts, kept):
            if m:                                       # no choice kept: the expert does not run
                outs.append(expert(x_served[at:at + m]))                       # (m, d)
            at += m
        h = zeros(k * n, self.d_model, dtype=rows_in.dtype, device=x.device)   # (k·N, d)
        if outs:            # each output back to its choice's row (the gather's adjoint)
            h = _index_added(h, 0, served, cat(outs))   # a dropped choice's row stays 0
        w = weight.transpose(0, 1).unsqueeze(-1)                        # (k, N, 1) w_nj
        y = (h.reshape(k, n, self.d_model) * w).sum(dim=0)             # (N, d) Σ_j w_nj h_jN+n

        self.aux_loss = _balance_loss(probs, counts, k * n)    # the choices, before dropping
        self.z_loss = router_z_loss(logits)
        self.tokens_per_expert = counts
        self.dropped_per_expert = (counts - room).clamp(min=0)  # max(n_e − C, 0)
        return y.reshape(x.shape)                               # (..., d)


def _check_capacity_factor(capacity_factor) -> None:
    """None, or a finite number > 0: checked when the layer is made and at each forward,
    as the docs invite setting ``moe.capacity_factor`` between forwards."""
    if capacity_factor is None:
        return
    if isinstance(capacity_factor, bool) or not isinstance(capacity_factor, numbers.Real):
        raise TypeError("MoEFFN: capacity_factor must be a number (Switch used 1.0 to "
                        "1.25) or None for no limit, got "
                        f"{type(capacity_factor).__name__} {capacity_factor!r}")
    if not 0 < capacity_factor < math.inf:
        raise ValueError(f"MoEFFN: capacity_factor must be a finite number > 0, got "
                         f"{capacity_factor!r}; each expert takes ⌈capacity_factor · "
                         "N · top_k / num_experts⌉ choices: pass None for no limit")
