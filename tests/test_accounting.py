"""tinyffn.accounting: the seed's formulas, and the same numbers measured on real modules."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import accounting as A
from tinyffn import nn


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("d", [1, 2, 3, 8, 16])
def test_ffn_parameter_count(d):
    # self-test (a): the entries of W1 (4d, d), W2 (d, 4d), b1 (4d,), b2 (d,)
    entries = 4 * d * d + d * 4 * d + 4 * d + d
    assert A.ffn_params(d) == entries == 8 * d * d + 5 * d
    assert A.count_parameters(nn.FFN(d)) == 8 * d * d + 5 * d
    assert A.count_parameters(nn.FFN(d, bias=False)) == A.ffn_params(d, bias=False) == 8 * d * d
    assert A.count_parameters(nn.FFN(d, d_ff=3)) == A.ffn_params(d, d_ff=3) == 6 * d + 3 + d


@pytest.mark.parametrize("d, multiple_of", [(3, 1), (12, 1), (12, 8), (40, 16)])
def test_gated_ffn_parameter_count(d, multiple_of):
    gated = nn.GatedFFN(d, multiple_of=multiple_of)
    assert A.count_parameters(gated) == A.gated_ffn_params(d, multiple_of=multiple_of)
    assert A.count_parameters(gated) == 3 * d * gated.d_ff
    with_bias = nn.GatedFFN(d, d_ff=5, bias=True)
    assert A.count_parameters(with_bias) == A.gated_ffn_params(d, d_ff=5, bias=True)


def test_a_width_and_a_rounding_together_are_refused_by_the_counts_as_by_gated_ffn():
    """multiple_of only rounds the default width: with d_ff given it would be ignored in
    silence, so GatedFFN refuses the pair, and the counts that stand for it refuse it too."""
    for make in (lambda: nn.GatedFFN(8, 20, multiple_of=4),
                 lambda: A.gated_ffn_params(8, 20, multiple_of=4),
                 lambda: A.gated_ffn_flops(3, 8, 20, multiple_of=4)):
        with pytest.raises(ValueError, match="got both d_ff=20 and multiple_of=4"):
            make()
    assert A.gated_ffn_flops(3, 8, 20) == 6 * 3 * 8 * 20 == 6 * 3 * 8 * nn.GatedFFN(8, 20).d_ff


def test_self_test_e_gated_widths():
    d = 96
    # at the plain FFN's width the gated FFN costs 1.5 times as much (three matrices, not two)
    assert A.gated_ffn_params(d, d_ff=4 * d) == 12 * d * d == 1.5 * A.ffn_params(d, bias=False)
    # d_ff = 2/3 · 4d brings it back to 8d² (exact when 3 divides 8d)
    assert A.gated_ffn_params(d) == 8 * d * d
    assert abs(A.gated_ffn_params(4096, multiple_of=256) / (8 * 4096 ** 2) - 1) < 0.01


def test_shared_parameters_are_counted_once():
    layer = nn.Linear(3, 3)
    assert A.count_parameters(nn.Sequential(layer, nn.ReLU(), layer)) == 12


def test_block_and_llama_totals():
    assert A.attention_params(10) == 400
    assert A.block_params(10) == 1200 == A.attention_params(10) + A.ffn_params(10, bias=False)
    totals = A.llama7b_totals()
    d, L, V = 4096, 32, 32000
    assert totals["per_block"] == 12 * d * d == 201_326_592               # ≈ 2e8 per block
    assert totals["blocks"] == 12 * d * d * L == 6_442_450_944             # ≈ 6.4e9
    assert totals["embedding"] == V * d
    assert totals["total_tied"] == 12 * d * d * L + V * d                  # ≈ 6.57e9
    assert totals["total_untied"] == 12 * d * d * L + 2 * V * d            # ≈ 6.70e9
    assert round(totals["total_untied"] / 1e9, 1) == 6.7
    assert totals["exact"] == 6_738_415_616                                # LLaMA-7B's count


def test_the_defaults_are_the_seeds():
    """multiple_of 1 (⌊8·5/3⌋ = 13, not rounded), tied embeddings, LLaMA's multiple_of 256."""
    assert A.gated_ffn_params(5) == 3 * 5 * 13 == 195
    assert A.gated_ffn_flops(2, 5) == 6 * 2 * 5 * 13 == 780
    assert A.transformer_params(10, 2, 7) == 2 * 1200 + 7 * 10 == 2470
    assert A.llama_params(4096, 32, 32000) == 6_738_415_616


class _LlamaLayer(nn.Module):
    """A LLaMA layer's parameters as real modules: two RMSNorms, W_Q, W_K, W_V, W_O
    without biases, a SwiGLU FFN (the computation is not needed to count them)."""

    def __init__(self, d, multiple_of):
        super().__init__()
        self.attention_norm, self.ffn_norm = nn.RMSNorm(d), nn.RMSNorm(d)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.feed_forward = nn.GatedFFN(d, multiple_of=multiple_of)


@pytest.mark.parametrize("d, L, V, multiple_of", [(8, 1, 11, 1), (32, 3, 50, 16)])
def test_llama_count_from_real_modules(d, L, V, multiple_of):
    model = nn.Module()
    model.tok_embeddings = nn.Parameter(tinyffn.zeros(V, d))
    model.layers = nn.ModuleList(_LlamaLayer(d, multiple_of) for _ in range(L))
    model.norm = nn.RMSNorm(d)
    model.output = nn.Linear(d, V, bias=False)                  # untied, as LLaMA
    assert A.count_parameters(model) == A.llama_params(d, L, V, multiple_of=multiple_of)
    assert A.count_parameters(nn.RMSNorm(d)) == d               # the gain only
    assert A.count_parameters(nn.LayerNorm(d)) == 2 * d         # gain and shift


# ----------------------------------------------------------------------------- FLOPs
def test_flop_formulas_and_the_crossover():
    T, d = 2048, 4096
    # self-test (b): LLaMA-7B at T = 2048
    assert A.ffn_flops(T, d) == 16 * T * d * d == 549_755_813_888            # ≈ 5.5e11
    assert A.attention_flops(T, d) == 4 * T * T * d == 68_719_476_736        # ≈ 6.9e10
    assert A.ffn_flops(T, d) == 8 * A.attention_flops(T, d)                  # FFN dominates
    assert A.crossover_T(d) == 4 * d == 16_384
    T_x = A.crossover_T(d)
    assert A.ffn_flops(T_x, d) == A.attention_flops(T_x, d)
    assert A.ffn_flops(T_x + 1, d) < A.attention_flops(T_x + 1, d)
    assert A.ffn_flops(T_x - 1, d) > A.attention_flops(T_x - 1, d)
    assert A.crossover_T(d, d_ff=3 * d) == 3 * d
    assert A.ffn_flops(3 * d, d, d_ff=3 * d) == A.attention_flops(3 * d, d)
    assert A.attention_flops(5, 4, projections=True) == 4 * 25 * 4 + 8 * 5 * 16


@pytest.mark.parametrize("shape", [(7, 4), (2, 5, 6), (3,)])
def test_measured_forward_flops_equal_16_T_d_squared(shape, device):
    d = shape[-1]
    T = math.prod(shape[:-1])              # every position of every leading axis
    ffn = nn.FFN(d, device=device)
    counter = A.measure_forward_flops(ffn, tinyffn.randn(*shape, device=device))
    assert counter.forward["matmul"] == 16 * T * d * d == A.ffn_flops(T, d)
    assert not counter.backward


def test_measured_gated_flops(device):
    T, d = 5, 6
    gated = nn.GatedFFN(d, device=device)
    counter = A.measure_forward_flops(gated, tinyffn.randn(T, d, device=device))
    assert counter.forward["matmul"] == A.gated_ffn_flops(T, d) == 6 * T * d * gated.d_ff


def test_backward_matmul_flops_are_twice_the_forward():
    T, d = 6, 4
    ffn = nn.FFN(d)
    x = tinyffn.randn(T, d, requires_grad=True)
    counter = A.measure_training_flops(ffn, x)
    assert counter.forward["matmul"] == 16 * T * d * d
    assert counter.backward["matmul"] == 2 * counter.forward["matmul"]
    assert all(p.grad is None for p in ffn.parameters()) and x.grad is None
    # without dL/dx the first layer computes only dL/dW1: 2·T·d·d_ff less
    counter = A.measure_training_flops(ffn, tinyffn.randn(T, d))
    assert counter.backward["matmul"] == 2 * 16 * T * d * d - 2 * T * d * 4 * d


def test_backward_matches_the_measured_forward_with_a_real_loss():
    T, d = 3, 2
    ffn = nn.FFN(d)
    x = tinyffn.randn(T, d, requires_grad=True)
    with tinyffn.FlopCounter() as counter:
        ffn(x).sum().backward()
    assert counter.backward["matmul"] == 2 * counter.forward["matmul"] == 2 * A.ffn_flops(T, d)


@pytest.mark.parametrize("call", [
    lambda: A.ffn_params(-2),                       # once 22
    lambda: A.ffn_params(2.5),                      # once 62.5
    lambda: A.ffn_flops(-1, 4),                     # once -256
    lambda: A.ffn_params(4, d_ff=0),
    lambda: A.gated_ffn_flops(8, True),
    lambda: A.attention_flops(0, 4),
    lambda: A.crossover_T(0),
    lambda: A.transformer_params(8, 2, V=-3),
    lambda: A.moe_ffn_params(4, 0),                 # once 0
    lambda: A.moe_ffn_params(4, -2),                # once negative
    lambda: A.moe_ffn_flops(3, 4, 2, 0),            # once the router's alone
    lambda: A.moe_ffn_flops(3, 4, 0, 1),
])
def test_formulas_refuse_sizes_that_are_no_positive_integers(call):
    with pytest.raises(ValueError, match=r"\w+: \w+ must be a positive integer, got "):
        call()


def test_numpy_integers_are_sizes_too():
    assert A.ffn_params(np.int64(4)) == 8 * 16 + 5 * 4
    assert A.transformer_params(8, 2) == 2 * 12 * 64          # V = 0: no embedding
    assert A.count_parameters(nn.FFN(np.int64(4))) == A.ffn_params(4)


def test_fused_and_composed_ffns_count_the_same_products():
    """The fused Linear's bias gradient (a sum, N·out) was once charged as a matrix product:
    its backward came out 1.5 × the composed FFN's."""
    T, d = 4, 8
    x = tinyffn.randn(T, d, requires_grad=True)
    plain = A.measure_training_flops(nn.FFN(d), x)
    fused = A.measure_training_flops(nn.FFN(d, fused=True), x)
    bias_adds = T * 4 * d + T * d                           # b1 over (T, 4d), b2 over (T, d)
    assert fused.forward["linear"] == plain.forward["matmul"] + bias_adds
    # backward: both products of each layer, plus one sum per bias gradient
    assert fused.backward["linear"] == plain.backward["matmul"] + bias_adds
    assert plain.backward["matmul"] == 2 * A.ffn_flops(T, d)


def test_a_fused_linear_charges_only_the_gradients_it_computes():
    """With data that needs no gradient, W1's layer skips dL/dx: 2·T·d·4d fewer FLOPs. The
    fused Linear's backward_flops once charged both products whatever was needed."""
    T, d = 4, 8
    x = tinyffn.randn(T, d)                                 # data: no gradient
    plain = A.measure_training_flops(nn.FFN(d), x)
    fused = A.measure_training_flops(nn.FFN(d, fused=True), x)
    bias_adds = T * 4 * d + T * d
    assert plain.backward["matmul"] == 2 * A.ffn_flops(T, d) - 2 * T * d * 4 * d
    assert fused.backward["linear"] == plain.backward["matmul"] + bias_adds


def test_gated_flops_use_multiple_of():
    T = 2048
    assert nn.gated_d_ff(4096, 256) == 11008                  # LLaMA-7B's SwiGLU width
    assert A.gated_ffn_flops(T, 4096, multiple_of=256) == 6 * T * 4096 * 11008
    gated = nn.GatedFFN(40, multiple_of=16)
    c = A.measure_forward_flops(gated, tinyffn.randn(5, 40))
    assert c.forward["matmul"] == A.gated_ffn_flops(5, 40, multiple_of=16)


@pytest.mark.parametrize("call", [lambda: A.crossover_T(4, d_ff=0),
                                  lambda: A.gated_ffn_params(4, d_ff=-5)])
def test_a_bad_d_ff_is_refused(call):
    with pytest.raises(ValueError, match="d_ff must be a positive integer"):
        call()


def test_flop_totals_include_the_backward():
    T, d = 3, 2
    F = 16 * T * d * d                                        # 192: forward matmuls
    bias_adds, relu = T * 4 * d + T * d, T * 4 * d            # 30 and 24
    c = A.measure_training_flops(nn.FFN(d), tinyffn.randn(T, d, requires_grad=True))
    assert c.by_op["matmul"] == 3 * F                         # forward + 2x backward
    assert c.total == 3 * F + 3 * bias_adds + 2 * relu == 714
    row = next(r for r in c.table().splitlines() if r.startswith("matmul"))
    assert row.split()[1:] == [f"{F:,}", f"{2 * F:,}", f"{3 * F:,}"]
    ffn, x = nn.FFN(d), tinyffn.randn(T, d, requires_grad=True)
    y = ffn(x)                                                # forward outside the counter
    with tinyffn.FlopCounter() as c:
        y.sum().backward()
    assert c.by_op["matmul"] == 2 * F


def test_training_flops_pass_over_a_parameter_the_forward_does_not_use():
    T, d = 3, 2
    ffn = nn.FFN(d)
    ffn.spare = nn.Parameter(tinyffn.zeros(4))                # registered, never used
    c = A.measure_training_flops(ffn, tinyffn.randn(T, d, requires_grad=True))
    assert c.by_op["matmul"] == 3 * 16 * T * d * d and ffn.spare.grad is None


def test_training_flops_skip_frozen_parameters_as_training_does():
    """A frozen w1 (fine-tuning) once made measure_training_flops raise 'input 0 does not
    require grad'; and a module with nothing to learn, on data, raised 'inputs is empty'."""
    T, d = 3, 2
    ffn = nn.FFN(d)
    ffn.w1.requires_grad_(False)
    x = tinyffn.randn(T, d)                                   # data: no dL/dx either
    c = A.measure_training_flops(ffn, x)
    with tinyffn.FlopCounter() as real:                       # what a training step runs
        ffn(x).sum().backward()
    assert c.backward["matmul"] == real.backward["matmul"] == 2 * T * 4 * d * d   # dW2 only
    assert ffn.w2.weight.grad is not None and ffn.w1.weight.grad is None
    c = A.measure_training_flops(nn.ReLU(), x)
    assert c.forward["relu"] == T * d and not any(c.backward.values())


@pytest.mark.parametrize("name, call, per_pass", [
    ("sum", lambda x: x.sum(axis=1), 12),           # one add per element of x, not of y
    ("mean", lambda x: x.mean(axis=0), 12),
    ("max", lambda x: x.amax(axis=1, keepdims=True), 12),
    ("cast", lambda x: x.double(), 0),              # these move numbers and compute none
    ("clone", lambda x: x.clone(), 0),
    ("reshape", lambda x: x.reshape(2, 6), 0),
    ("transpose", lambda x: x.T, 0),
    ("broadcastto", lambda x: x.broadcast_to(2, 3, 4), 0),
    ("getitem", lambda x: x[1:], 0),
    ("cat", lambda x: tinyffn.cat([x, x]), 0),
])
def test_reductions_count_their_inputs_and_moving_numbers_counts_nothing(name, call, per_pass):
    """The documented counts of the ops that override the default (one FLOP per output
    element), forward and backward, on a (3, 4) input."""
    x = tinyffn.randn(3, 4, requires_grad=True)
    with tinyffn.FlopCounter() as counter:
        y = call(x)
        y.backward(tinyffn.ones(*y.shape, dtype=y.dtype))
    assert counter.forward[name] == counter.backward[name] == per_pass
    assert counter.total == 2 * per_pass                      # no other op ran


@pytest.mark.parametrize("bias_grad", [True, False])
def test_a_fused_linear_charges_the_bias_gradient_only_when_it_is_computed(bias_grad):
    N, d_in, d_out = 4, 3, 5
    x = tinyffn.randn(N, d_in, requires_grad=True)
    w = tinyffn.randn(d_out, d_in, requires_grad=True)
    b = tinyffn.randn(d_out, requires_grad=bias_grad)
    y = tinyffn.functional.linear(x, w, b, fused=True)
    with tinyffn.FlopCounter() as counter:
        y.backward(tinyffn.ones(N, d_out))
    # dL/dx and dL/dw, 2·N·in·out each, and the sum over positions, N·out, if b needs it
    assert counter.backward["linear"] == 2 * (2 * N * d_in * d_out) + bias_grad * N * d_out


@pytest.mark.parametrize("bias", [True, False])
def test_a_fused_linear_counts_every_position_of_a_batched_input(bias):
    """x (B, T, in): 2·B·T·in·out per product (in is x's last axis, not its second), and
    the bias add and its gradient's sum, B·T·out each, only when there is a bias."""
    B, T, d_in, d_out = 2, 4, 3, 5
    x = tinyffn.randn(B, T, d_in, requires_grad=True)
    w = tinyffn.randn(d_out, d_in, requires_grad=True)
    b = (tinyffn.randn(d_out, requires_grad=True),) if bias else ()
    with tinyffn.FlopCounter() as counter:
        y = tinyffn.ops.Linear.apply(x, w, *b)
        y.backward(tinyffn.ones(B, T, d_out))
    product, bias_add = 2 * B * T * d_in * d_out, bias * B * T * d_out
    assert counter.forward["linear"] == product + bias_add
    assert counter.backward["linear"] == 2 * product + bias_add


def test_nested_counters_both_count_and_stop_at_their_exit():
    """An outer counter sees every op, an inner one only those inside it; after its with
    block a counter counts nothing more, and its repr totals forward and backward."""
    a, b = tinyffn.randn(3, 4, requires_grad=True), tinyffn.randn(4, 5)
    with tinyffn.FlopCounter() as outer:
        a @ b                                               # 2 · 3 · 5 · 4 = 120
        with tinyffn.FlopCounter() as inner:
            y = a @ b
        y.sum().backward()                                  # dL/da only: 120, and the sum: 15
    a @ b                                                   # outside both
    assert dict(inner.forward) == {"matmul": 120} and not inner.backward
    assert outer.forward["matmul"] == 240 and outer.backward["matmul"] == 120
    assert outer.total == 240 + 120 + 2 * 15
    assert repr(outer) == "FlopCounter(total=390)"


def test_block_params_take_d_ff():
    # attention 4d² and a bias-free FFN 2·d·d_ff at d = 10, d_ff = 30
    assert A.block_params(10, d_ff=30) == 4 * 100 + 2 * 10 * 30 == 1000


def test_llama_7b_sizes():
    """LLaMA-7B (Touvron et al. 2023, table 2): d = 4096, 32 layers, a 32,000-token
    vocabulary, a context of 2048 tokens, SwiGLU width rounded to a multiple of 256."""
    assert A.LLAMA_7B == {"d": 4096, "L": 32, "V": 32000, "T": 2048, "multiple_of": 256}


def test_moe_formulas_take_d_ff_and_bias_as_the_module_does():
    """A mixture of 3 experts of d_ff = 6 without biases: E·2·d·d_ff + E·d entries, and
    k·4·T·d·d_ff + 2·T·d·E forward matmul FLOPs, counted and measured."""
    T, d, E, k, d_ff = 5, 4, 3, 2, 6
    moe = nn.MoEFFN(d, num_experts=E, top_k=k, d_ff=d_ff, bias=False)
    assert A.moe_ffn_params(d, E, d_ff=d_ff, bias=False) == A.count_parameters(moe) == \
        E * 2 * d * d_ff + E * d
    assert A.moe_ffn_params(d, E, d_ff=d_ff) == E * (2 * d * d_ff + d_ff + d) + E * d
    counter = A.measure_forward_flops(moe, tinyffn.randn(T, d))
    assert A.moe_ffn_flops(T, d, E, k, d_ff=d_ff) == counter.forward["matmul"] == \
        k * 4 * T * d * d_ff + 2 * T * d * E
    with pytest.raises(ValueError, match="moe_ffn_flops: top_k=3 is more than num_experts=2"):
        A.moe_ffn_flops(T, d, 2, 3)                 # no such mixture: MoEFFN refuses it


def test_a_mixture_that_runs_every_expert_is_counted():
    """top_k = num_experts is a mixture MoEFFN builds (each position runs both experts):
    2 · 16·T·d² + 2·T·d·2 = 408 matmul FLOPs at T = 3, d = 2, measured the same."""
    T, d = 3, 2
    assert A.moe_ffn_flops(T, d, 2, 2) == 2 * 16 * T * d * d + 2 * T * d * 2 == 408
    moe = nn.MoEFFN(d, num_experts=2, top_k=2)
    assert A.measure_forward_flops(moe, tinyffn.randn(T, d)).forward["matmul"] == 408


def test_the_counter_repr_groups_thousands_as_its_table():
    with tinyffn.FlopCounter() as c:
        tinyffn.randn(8, 8) @ tinyffn.randn(8, 12)          # 2 · 8 · 12 · 8 = 1,536
    assert repr(c) == "FlopCounter(total=1,536)"
