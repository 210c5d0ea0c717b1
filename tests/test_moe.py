"""nn.MoEFFN, a sparse mixture of FFN experts, against a dense NumPy mixture written out.

The reference runs every expert on every position and keeps, per position, the k of
largest router probability: the same function computed another way (no gathers, no
index_add), so a wrong row, slot or weight in the module's routing shows as a mismatch.
"""
import copy
import math
import warnings
import weakref

import numpy as np
import pytest

import numpy_reference as ref
from host_reads import counting_host_reads
import tinyffn
from tinyffn import accounting, nn, optim
from tinyffn.moe import load_balancing_loss, router_z_loss


def as_numpy(module):
    return {name: p.numpy() for name, p in module.named_parameters()}


def z_loss_reference(logits):
    """ST-MoE's z = mean over rows of (log Σ exp l)², the log-sum-exp shifted by the max."""
    top = logits.max(axis=-1, keepdims=True)
    log_z = (top + np.log(np.exp(logits - top).sum(axis=-1, keepdims=True)))[:, 0]
    return (log_z ** 2).mean()


def reference(x, params, num_experts, top_k, renormalize, gated, act, capacity=None):
    """y = Σ over the k chosen experts of w_e · FFN_e(x), every expert run densely; with a
    ``capacity``, a loop hands out each expert's places: every first choice, position by
    position, then every second choice, ...; a choice past its expert's capacity counts 0."""
    rows = x.reshape(-1, x.shape[-1])
    logits = rows @ params["gate.weight"].T
    probs = ref.softmax(logits)
    chosen = np.argsort(-probs, axis=-1, kind="stable")[:, :top_k]       # (N, k)
    weight = np.take_along_axis(probs, chosen, axis=-1)
    if renormalize:
        weight = weight / weight.sum(axis=-1, keepdims=True)
    kept = np.ones(chosen.shape, dtype=bool)
    if capacity is not None:
        taken = [0] * num_experts
        for j in range(top_k):
            for n in range(rows.shape[0]):
                kept[n, j] = taken[chosen[n, j]] < capacity
                taken[chosen[n, j]] += 1
    y = np.zeros_like(rows)
    for e in range(num_experts):
        p = {k.split(".", 2)[2]: v for k, v in params.items() if k.startswith(f"experts.{e}.")}
        if gated:
            out = ref.gated_ffn(rows, p["w1.weight"], p["w2.weight"], p["w3.weight"], act)
        else:
            out = ref.ffn(rows, p["w1.weight"], p["w1.bias"], p["w2.weight"], p["w2.bias"], act)
        y += out * (weight * (chosen == e) * kept).sum(axis=-1, keepdims=True)
    share = np.bincount(chosen.ravel(), minlength=num_experts) / chosen.size
    aux = num_experts * (share * probs.mean(axis=0)).sum()
    return (y.reshape(x.shape), aux, np.bincount(chosen.ravel(), minlength=num_experts),
            z_loss_reference(logits), np.bincount(chosen[~kept], minlength=num_experts))


@pytest.mark.parametrize("top_k, gated, renormalize", [
    (1, False, None), (2, False, None), (2, True, None), (3, False, False), (1, True, True)])
def test_the_mixture_equals_the_dense_reference(device, top_k, gated, renormalize):
    moe = nn.MoEFFN(6, num_experts=4, top_k=top_k, d_ff=8, gated=gated,
                    renormalize=renormalize, dtype="float64", device=device)
    x = np.random.default_rng(1).normal(size=(3, 5, 6))
    y = moe(tinyffn.tensor(x, device=device))
    want, aux, counts, z, _ = reference(x, as_numpy(moe), 4, top_k,
                                        top_k > 1 if renormalize is None else renormalize,
                                        gated, ref.swish if gated else ref.relu)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(moe.aux_loss.item(), aux, rtol=1e-12)
    np.testing.assert_allclose(moe.z_loss.item(), z, rtol=1e-12)
    np.testing.assert_array_equal(moe.tokens_per_expert.numpy(), counts)
    assert moe.tokens_per_expert.sum().item() == 15 * top_k
    assert moe.dropped_per_expert.tolist() == [0] * 4 and moe.expert_capacity is None


def routed_to_every_expert(device, top_k):
    """A 3-expert mixture whose router sends position i to the expert of its largest x_i,
    and 6 positions that use all three experts."""
    moe = nn.MoEFFN(3, num_experts=3, top_k=top_k, d_ff=2, activation="gelu",
                    dtype="float64", device=device)
    with tinyffn.no_grad():
        moe.gate.weight.copy_(2 * tinyffn.eye(3, dtype="float64", device=device))
    x = tinyffn.tensor(np.random.default_rng(2).normal(size=(6, 3)), device=device,
                       requires_grad=True)
    moe(x)
    assert (moe.tokens_per_expert.numpy() > 0).all(), "every expert should run in this check"
    return moe, x


@pytest.mark.parametrize("top_k", [1, 2])
def test_gradcheck_input_router_and_experts(top_k):
    moe, x = routed_to_every_expert("cpu", top_k)
    # gradcheck perturbs the parameters' arrays in place, so fn can ignore them; 1e-6 steps
    # do not change which experts are chosen at these (generic) inputs
    assert tinyffn.gradcheck(lambda x, *_: moe(x) + moe.aux_loss, [x, *moe.parameters()])


def test_gradcheck_input_and_router_on_every_backend(device):
    moe, x = routed_to_every_expert(device, 2)
    assert tinyffn.gradcheck(lambda x, _: moe(x) + moe.aux_loss, [x, moe.gate.weight])


def test_the_load_balancing_loss_is_one_when_even_and_E_when_one_expert_takes_all():
    n, e = 8, 4
    even = tinyffn.full((n, e), 1 / e)
    index = tinyffn.tensor([[i % e] for i in range(n)])
    assert load_balancing_loss(even, index).item() == pytest.approx(1.0)
    probs = tinyffn.tensor([[1.0, 0, 0, 0]] * n)
    assert load_balancing_loss(probs, tinyffn.zeros(n, 1, dtype="int64")).item() == \
        pytest.approx(e)
    # with k = 2 choices per position the most is E/k, two experts taking everything
    pair = tinyffn.tensor([[0, 1]] * n)
    assert load_balancing_loss(probs, pair).item() == pytest.approx(e / 2)
    assert load_balancing_loss(tinyffn.tensor([[0.5, 0.5, 0, 0]] * n), pair).item() == \
        pytest.approx(e / 2)


def test_the_load_balancing_gradient_flows_through_the_mean_probability_only():
    probs = tinyffn.tensor(np.random.default_rng(3).dirichlet(np.ones(4), size=6),
                           requires_grad=True)
    index = tinyffn.tensor([[0, 1], [0, 2], [0, 1], [3, 0], [0, 1], [2, 0]])
    load_balancing_loss(probs, index).backward()
    share = np.bincount(index.numpy().ravel(), minlength=4) / 12
    # d/dP_ne of E · Σ_e f_e mean_n(P_ne) = E · f_e / N, the same for every row
    np.testing.assert_allclose(probs.grad.numpy(), np.tile(4 * share / 6, (6, 1)), rtol=1e-6)
    assert tinyffn.gradcheck(lambda p: load_balancing_loss(p, index),
                             [probs.detach().double().requires_grad_()])


def test_with_one_expert_per_position_the_router_still_learns_from_the_loss():
    """Switch's top-1: the output is g_e(x) FFN_e(x), so the loss reaches the router; with
    renormalized weights (all 1) it would not."""
    for renormalize, learns in [(None, True), (True, False)]:
        tinyffn.manual_seed(0)
        moe = nn.MoEFFN(4, num_experts=3, top_k=1, renormalize=renormalize)
        moe(tinyffn.randn(10, 4)).square().sum().backward()
        assert bool(np.abs(moe.gate.weight.grad.numpy()).max() > 0) is learns


def test_an_expert_no_position_chose_does_not_run_and_gets_no_gradient():
    moe = nn.MoEFFN(4, num_experts=3, top_k=1)
    with tinyffn.no_grad():
        moe.gate.weight.zero_()
        moe.gate.weight[1] = 1.0                        # expert 1 scores sum(x): positive x wins
    x = tinyffn.rand(6, 4) + 0.1                        # every row positive
    moe(x).sum().backward()
    assert moe.tokens_per_expert.tolist() == [0, 6, 0]
    assert moe.experts[1].w1.weight.grad is not None
    assert moe.experts[0].w1.weight.grad is None and moe.experts[2].w2.bias.grad is None


def test_parameters_and_flops_are_the_formulas():
    d, num_experts, top_k, positions = 8, 4, 2, 12
    moe = nn.MoEFFN(d, num_experts=num_experts, top_k=top_k)
    assert accounting.count_parameters(moe) == \
        accounting.moe_ffn_params(d, num_experts) == num_experts * (8 * d * d + 5 * d) + 4 * d
    counter = accounting.measure_forward_flops(moe, tinyffn.randn(positions, d))
    # each position runs k experts (16d² each) and the router (2·d·E), however many experts
    assert counter.forward["matmul"] == accounting.moe_ffn_flops(positions, d, num_experts, top_k)
    assert counter.forward["matmul"] == top_k * 16 * positions * d * d + 2 * positions * d * 4
    assert counter.forward["matmul"] == \
        top_k * accounting.ffn_flops(positions, d) + 2 * positions * d * num_experts


def test_gated_experts_have_mixtrals_state_dict_keys():
    moe = nn.MoEFFN(4, num_experts=2, gated=True, d_ff=6)
    assert list(moe.state_dict()) == ["gate.weight"] + [
        f"experts.{e}.{w}.weight" for e in range(2) for w in ("w1", "w2", "w3")]
    assert isinstance(moe.experts[0].act, nn.Swish)


def test_a_trained_mixture_can_be_deep_copied():
    """An EMA copy or swa_utils.AveragedModel deep-copies a model after training; the last
    forward's aux_loss, a node of that forward's graph, is left behind (no copy can take
    a graph: it failed with "cannot pickle 'module' object"), and the copy computes alike."""
    moe = nn.MoEFFN(4, num_experts=3, top_k=1)
    moe(tinyffn.randn(5, 4)).sum().backward()
    twin = copy.deepcopy(moe)
    assert twin.aux_loss is None and moe.aux_loss is not None
    assert twin.z_loss is None and moe.z_loss is not None
    x = tinyffn.randn(5, 4)
    np.testing.assert_array_equal(twin(x).numpy(), moe(x).numpy())
    assert twin.aux_loss.item() == moe.aux_loss.item()
    assert twin.z_loss.item() == moe.z_loss.item()
    assert optim.swa_utils.AveragedModel(moe).module.aux_loss is None


def test_it_drops_in_for_the_ffn_and_keeps_the_input_shape():
    moe = nn.MoEFFN(4, num_experts=2, top_k=1)
    x = tinyffn.randn(2, 3, 4)
    assert moe(x).shape == (2, 3, 4)
    assert "num_experts=2, top_k=1, renormalize=False" in repr(moe)


def test_torch_mixtral_style_loop_gives_the_same_gradients():
    torch = pytest.importorskip("torch")
    moe = nn.MoEFFN(5, num_experts=4, top_k=2, d_ff=7, gated=True, dtype="float64")
    x = np.random.default_rng(5).normal(size=(9, 5))
    xt = tinyffn.tensor(x, requires_grad=True)
    (moe(xt).square().sum() + 0.1 * moe.aux_loss).backward()

    p = {k: torch.tensor(v, requires_grad=True) for k, v in as_numpy(moe).items()}
    xr = torch.tensor(x, requires_grad=True)
    probs = torch.softmax(xr @ p["gate.weight"].T, dim=-1)
    weight, chosen = probs.topk(2, dim=-1)
    weight = weight / weight.sum(-1, keepdim=True)
    y = torch.zeros_like(xr)
    for e in range(4):
        rows, slot = torch.where(chosen == e)
        h = xr[rows]
        out = (torch.nn.functional.silu(h @ p[f"experts.{e}.w1.weight"].T)
               * (h @ p[f"experts.{e}.w3.weight"].T)) @ p[f"experts.{e}.w2.weight"].T
        y = y.index_add(0, rows, out * weight[rows, slot, None])
    share = torch.bincount(chosen.flatten(), minlength=4).double() / chosen.numel()
    aux = 4 * (share * probs.mean(0)).sum()
    (y.square().sum() + 0.1 * aux).backward()
    np.testing.assert_allclose(xt.grad.numpy(), xr.grad.numpy(), rtol=1e-10, atol=1e-12)
    for name, param in moe.named_parameters():
        np.testing.assert_allclose(param.grad.numpy(), p[name].grad.numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=name)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"top_k": 5, "num_experts": 4}, ValueError, "top_k=5 is more than num_experts=4"),
    ({"num_experts": 0}, ValueError, "num_experts must be a positive integer"),
    ({"top_k": 0}, ValueError, "MoEFFN: top_k must be a positive integer"),   # else y = 0, aux nan
    ({"d_model": 0}, ValueError, "MoEFFN: d_model must be a positive integer"),
    ({"renormalize": "yes"}, TypeError, "renormalize must be True, False or None"),
    ({"gated": True, "activation": "relu"}, ValueError, "experts are GatedFFNs"),
    ({"capacity_factor": 0}, ValueError, "MoEFFN: capacity_factor must be a finite number > 0"
     ", got 0; each expert takes .* pass None for no limit"),
    ({"capacity_factor": -1.5}, ValueError, "capacity_factor must be a finite number > 0"),
    ({"capacity_factor": float("nan")}, ValueError, "capacity_factor must be a finite number"),
    ({"capacity_factor": float("inf")}, ValueError, "pass None for no limit"),
    ({"capacity_factor": "1.25"}, TypeError, "MoEFFN: capacity_factor must be a number .* or "
     "None for no limit, got str '1.25'"),
    ({"capacity_factor": True}, TypeError, "capacity_factor must be a number"),
    ({"multiple_of": 8}, ValueError, "MoEFFN: multiple_of=8 rounds the default d_ff of gated "
     "experts .*; pass gated=True"),
    ({"gated": True, "multiple_of": 8, "d_ff": 6}, ValueError,
     "MoEFFN, whose experts are GatedFFNs: GatedFFN: got both d_ff=6 and multiple_of=8"),
])
def test_bad_arguments_are_refused_by_name(kwargs, error, words):
    with pytest.raises(error, match=words):
        nn.MoEFFN(**{"d_model": 4, **kwargs})


@pytest.mark.parametrize("value, error", [(0.0, ValueError), (-1.0, ValueError),
                                          (float("nan"), ValueError), ("2", TypeError)])
def test_a_capacity_factor_set_after_construction_is_checked_at_the_forward(value, error):
    """The docs invite setting moe.capacity_factor between forwards (more room to evaluate);
    a bad value is refused by name at the next forward: 0.0 dropped every choice without a
    word, -1.0 failed in index_add, NaN in int() (review 21)."""
    moe = nn.MoEFFN(4, 4, 1)
    moe.capacity_factor = value
    with pytest.raises(error, match="MoEFFN: capacity_factor must be a"):
        moe(tinyffn.randn(3, 4))
    moe.capacity_factor = 2.0
    assert moe(tinyffn.randn(3, 4)).shape == (3, 4) and moe.expert_capacity == 2


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="MoEFFN: input of shape .* must end in d_model=4"):
        nn.MoEFFN(4)(tinyffn.randn(3, 5))
    with pytest.raises(ValueError, match="router_probs must be a \\(N, E\\)"):
        load_balancing_loss(tinyffn.randn(4), tinyffn.zeros(4, 1, dtype="int64"))
    with pytest.raises(ValueError, match="expert_index must be \\(N, k\\) = \\(4, k\\)"):
        load_balancing_loss(tinyffn.randn(4, 2), tinyffn.zeros(3, 1, dtype="int64"))
    with pytest.raises(ValueError, match="expert_index must be \\(N, k\\) = \\(4, k\\)"):
        load_balancing_loss(tinyffn.randn(4, 2), tinyffn.zeros(4, dtype="int64"))   # (N,)
    # an expert past E: it was "mul: shapes (6,) and (2,) cannot be broadcast together"
    with pytest.raises(ValueError, match="load_balancing_loss: expert_index names expert 5, "
                       "but router_probs \\(4, 2\\) has E = 2 experts"):
        load_balancing_loss(tinyffn.randn(4, 2), tinyffn.tensor([[5], [0], [1], [0]]))


def test_float16_is_routed_in_float32_as_mixtral_does():
    """float16 probabilities tie and round: over these 2,048 positions, routing by float16
    softmax picks another expert for some; the float32 routing of the same logits is the
    reference (Mixtral's softmax(router_logits, dtype=torch.float))."""
    moe = nn.MoEFFN(64, num_experts=8, top_k=2).half()
    x = tinyffn.randn(2048, 64).half()
    y = moe(x)
    logits = (x @ moe.gate.weight.T).numpy().astype(np.float32)
    chosen = np.argsort(-ref.softmax(logits), axis=-1, kind="stable")[:, :2]
    np.testing.assert_array_equal(moe.tokens_per_expert.numpy(),
                                  np.bincount(chosen.ravel(), minlength=8))
    assert y.dtype == "float16" and moe.aux_loss.dtype == "float32"
    # the z-loss squares float32 logsumexps: float16 would round them to 11 bits
    assert moe.z_loss.dtype == "float32"
    np.testing.assert_allclose(moe.z_loss.item(), z_loss_reference(logits.astype(np.float64)),
                               rtol=1e-6)


def test_the_experts_options_reach_every_expert():
    """d_ff, bias, activation and fused are each expert's: no biases, GELU, one linear node
    per layer; the fused mixture computes what the composed one with its weights does."""
    moe = nn.MoEFFN(4, num_experts=3, top_k=2, d_ff=6, activation="gelu", bias=False,
                    fused=True, dtype="float64")
    assert moe.d_ff == 6 and all(e.w1.fused and e.w2.fused and e.w1.bias is None and
                                 isinstance(e.act, nn.GELU) for e in moe.experts)
    assert accounting.count_parameters(moe) == 3 * (2 * 4 * 6) + 3 * 4     # no b1, b2
    composed = nn.MoEFFN(4, num_experts=3, top_k=2, d_ff=6, activation="gelu", bias=False,
                         dtype="float64")
    composed.load_state_dict(moe.state_dict())
    x = tinyffn.randn(7, 4, dtype="float64")
    np.testing.assert_allclose(moe(x).numpy(), composed(x).numpy(), rtol=1e-12, atol=1e-12)
    # the default d_ff is the experts' own: 4d, and 2/3 of that rounded when gated
    assert nn.MoEFFN(4).d_ff == 16 and nn.MoEFFN(6, gated=True).d_ff == nn.gated_d_ff(6)
    assert "renormalize=True" in repr(nn.MoEFFN(4, num_experts=2, top_k=1, renormalize=True))


# ----------------------------------------------------------------------------- router z-loss
def test_router_z_loss_equals_numpy_and_torch_with_its_gradient():
    torch = pytest.importorskip("torch")
    logits = np.random.default_rng(6).normal(scale=4.0, size=(5, 3))
    lt = tinyffn.tensor(logits, requires_grad=True)
    z = router_z_loss(lt)
    np.testing.assert_allclose(z.item(), z_loss_reference(logits), rtol=1e-12)
    z.backward()
    tt = torch.tensor(logits, requires_grad=True)
    zt = torch.logsumexp(tt, dim=-1).square().mean()
    zt.backward()
    np.testing.assert_allclose(z.item(), zt.item(), rtol=1e-12)
    np.testing.assert_allclose(lt.grad.numpy(), tt.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert tinyffn.gradcheck(router_z_loss, [tinyffn.tensor(logits, requires_grad=True)])
    assert nn.router_z_loss is router_z_loss


def test_router_z_loss_refuses_what_is_not_n_by_e_logits():
    for bad in (tinyffn.randn(4), tinyffn.randn(2, 3, 4), tinyffn.randn(3, 0), [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="router_z_loss: router_logits must be a \\(N, E\\) "
                           "tensor .* reshape \\(B, T, E\\) logits"):
            router_z_loss(bad)


# ----------------------------------------------------------------------------- capacity
@pytest.mark.parametrize("top_k, capacity_factor, gated", [(1, 0.5, False), (3, 0.75, True)])
def test_capacity_drops_the_choices_a_loop_would_drop(device, top_k, capacity_factor, gated):
    """The reference hands out places one choice at a time; the module's cumsum must keep
    the same choices, run each expert on those rows alone, and count the rest."""
    moe = nn.MoEFFN(6, num_experts=4, top_k=top_k, d_ff=8, gated=gated, dtype="float64",
                    capacity_factor=capacity_factor, device=device)
    x = np.random.default_rng(7).normal(size=(3, 5, 6))
    y = moe(tinyffn.tensor(x, device=device))
    capacity = math.ceil(capacity_factor * 15 * top_k / 4)
    want, aux, counts, z, dropped = reference(x, as_numpy(moe), 4, top_k, top_k > 1, gated,
                                              ref.swish if gated else ref.relu, capacity)
    assert moe.expert_capacity == capacity and dropped.sum() > 0, "the check needs drops"
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(moe.dropped_per_expert.numpy(), dropped)
    # aux_loss and tokens_per_expert count the router's choices, before dropping (Switch)
    np.testing.assert_array_equal(moe.tokens_per_expert.numpy(), counts)
    np.testing.assert_allclose(moe.aux_loss.item(), aux, rtol=1e-12)
    np.testing.assert_allclose(moe.z_loss.item(), z, rtol=1e-12)


def test_capacity_arithmetic_and_what_the_experts_run():
    """C = ceil(c · N · k / E); each expert runs on min(its choices, C) rows, which the
    matmul FLOPs count (4·d·d_ff per row) besides the router's 2·N·d·E."""
    d, E = 4, 4
    for n, k, c, capacity in [(10, 1, 1.0, 3), (8, 2, 1.25, 5), (9, 2, 0.1, 1), (3, 3, 2.0, 5)]:
        moe = nn.MoEFFN(d, num_experts=E, top_k=k, d_ff=6, capacity_factor=c)
        counter = accounting.measure_forward_flops(moe, tinyffn.randn(n, d))
        assert moe.expert_capacity == capacity, (n, k, c)
        counts, dropped = moe.tokens_per_expert.numpy(), moe.dropped_per_expert.numpy()
        np.testing.assert_array_equal(counts - dropped, np.minimum(counts, capacity))
        assert counter.forward["matmul"] == \
            4 * d * 6 * np.minimum(counts, capacity).sum() + 2 * n * d * E


def test_a_capacity_factor_of_E_over_k_drops_nothing_and_changes_nothing():
    dropless = nn.MoEFFN(5, num_experts=4, top_k=2, d_ff=6, dtype="float64")
    roomy = nn.MoEFFN(5, num_experts=4, top_k=2, d_ff=6, dtype="float64", capacity_factor=2.0)
    roomy.load_state_dict(dropless.state_dict())
    x = tinyffn.randn(11, 5, dtype="float64")
    y, y_roomy = dropless(x), roomy(x)
    assert roomy.expert_capacity == 11 and roomy.dropped_per_expert.tolist() == [0] * 4
    np.testing.assert_array_equal(y_roomy.numpy(), y.numpy())
    (y.sum() + dropless.aux_loss).backward()
    (y_roomy.sum() + roomy.aux_loss).backward()
    for (name, p), q in zip(dropless.named_parameters(), roomy.parameters()):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy(), err_msg=name)


def test_gradcheck_with_dropped_choices():
    """Dropped choices add nothing and pass no gradient; gradcheck's 1e-6 steps change no
    choice and no place in a queue at these inputs."""
    moe = nn.MoEFFN(3, num_experts=3, top_k=2, d_ff=2, activation="gelu", dtype="float64",
                    capacity_factor=0.5)
    x = tinyffn.tensor(np.random.default_rng(8).normal(size=(6, 3)), requires_grad=True)
    moe(x)
    assert moe.dropped_per_expert.sum().item() > 0
    assert (moe.tokens_per_expert.numpy() > 0).all(), "every expert should run in this check"
    assert tinyffn.gradcheck(lambda x, *_: moe(x) + moe.aux_loss + moe.z_loss,
                             [x, *moe.parameters()])


# ----------------------------------------------------------------------------- empty input
@pytest.mark.parametrize("capacity_factor", [None, 1.0])
def test_an_empty_input_gives_an_empty_output_and_zero_losses(device, capacity_factor):
    """A sum over no positions is 0: the losses are 0, not torch's NaN mean of nothing, and
    nothing warns (it gave a NaN aux_loss and two NumPy RuntimeWarnings)."""
    moe = nn.MoEFFN(4, num_experts=3, top_k=2, capacity_factor=capacity_factor, device=device)
    for shape in [(0, 4), (2, 0, 4)]:
        x = tinyffn.zeros(shape, device=device, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = moe(x)
            assert y.shape == shape
            assert moe.aux_loss.item() == 0.0 and moe.z_loss.item() == 0.0
            assert moe.tokens_per_expert.tolist() == moe.dropped_per_expert.tolist() == [0] * 3
            (y.sum() + moe.aux_loss + moe.z_loss).backward()
        assert x.grad.shape == shape
        assert moe.gate.weight.grad.tolist() == [[0.0] * 4] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert router_z_loss(tinyffn.zeros(0, 3)).item() == 0.0
        assert load_balancing_loss(tinyffn.zeros(0, 3), tinyffn.zeros(0, 2, dtype="int64")
                                   ).item() == 0.0


def test_multiple_of_reaches_the_gated_experts():
    moe = nn.MoEFFN(10, num_experts=2, gated=True, multiple_of=8)     # 26, rounded up to 32
    assert moe.d_ff == nn.GatedFFN(10, multiple_of=8).d_ff == 32 and nn.gated_d_ff(10) == 26
    assert all(e.w1.weight.shape == e.w3.weight.shape == (32, 10) for e in moe.experts)
    assert "capacity_factor=1.25" in repr(nn.MoEFFN(4, num_experts=2, capacity_factor=1.25))


def test_router_z_loss_squares_float16_logits_in_float32():
    """Logits near 300 are exact enough in float16, but their squares pass float16's
    largest value, 65,504: squared in float16 the loss would be inf."""
    logits = np.array([[300.0, 299.0, -2.0], [1.0, 0.5, 0.25]])
    z = router_z_loss(tinyffn.tensor(logits).half())
    assert z.dtype == "float32"
    np.testing.assert_allclose(z.item(), z_loss_reference(logits), rtol=1e-3)


# ----------------------------------------------------------------------------- host reads
def test_the_forward_reads_to_the_host_a_fixed_number_of_times():
    """Sorting the choices by expert reads the E counts once; a loop with a ``nonzero`` per
    expert read 22 times at E = 2, 76 at E = 8 and 82 with a capacity (two bincounts
    of the same choices among them); then 4, the others the range checks of index_select
    and index_add (their getitem's and IndexAdd's, and topk's, read 9 times in all before
    they took a checked key) and ``served % n``'s check for a zero divisor, none needed:
    the indices are argsort's, the divisor a number. The backward reads nothing."""
    pytest.importorskip("array_api_strict")
    x = tinyffn.randn(32, 8, device="strict")
    seen = []
    for num_experts, capacity_factor in [(2, None), (8, None), (8, 1.0), (8, 0.25)]:
        moe = nn.MoEFFN(8, num_experts=num_experts, top_k=2, d_ff=4, device="strict",
                        capacity_factor=capacity_factor)
        with counting_host_reads() as reads:
            y = moe(x)
            forward = dict(reads)
            reads.clear()
            (y.sum() + moe.aux_loss + moe.z_loss).backward()
            assert not reads, f"the backward read to the host: {dict(reads)}"
        seen.append(forward)
        assert moe.experts[1].w1.weight.grad is not None       # the experts did run
    assert seen == [{"array": 1}] * 4, seen


def test_aux_loss_holds_the_router_graph_until_backward_or_the_next_forward():
    """The losses are graph tensors (their gradient trains the router), so the module's
    reference holds the router's nodes: with their arrays until a backward frees them,
    and no longer than the next forward (no step's graph piles up); the experts' nodes go
    with y. Weak references to the router's and an expert's nodes say which are alive."""
    moe = nn.MoEFFN(4, num_experts=3, top_k=2, d_ff=5)
    node = {}

    def remember(name):
        def hook(module, args, y):
            if y.grad_fn is not None:               # None under no_grad()
                node[name] = weakref.ref(y.grad_fn)
        return hook
    moe.gate.register_forward_hook(remember("router"))
    moe.experts[0].register_forward_hook(remember("expert"))
    x = tinyffn.randn(6, 4)
    moe(x)                                  # y dropped unused: an evaluation with grad on
    router = node["router"]
    assert node["expert"]() is None                     # the experts' graph went with y
    assert router() is not None and len(router()._saved) == 2     # x and W_g, still held
    y = moe(x)
    assert router() is None                 # the next forward let the last graph go
    router = node["router"]
    (y.sum() + moe.aux_loss + moe.z_loss).backward()
    assert router()._freed and router()._saved == ()    # the backward freed its arrays
    del y
    with tinyffn.no_grad():
        moe(x)
    assert router() is None and moe.aux_loss.grad_fn is None
