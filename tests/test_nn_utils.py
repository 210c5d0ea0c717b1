"""tinyffn.nn.utils: gradient clipping, against PyTorch 2.13's numbers written out and
against the formula in NumPy."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import nn
from tinyffn.backend import dtype_name


def with_grads(grads, device="cpu", dtype="float32"):
    """Parameters whose .grad holds ``grads``."""
    params = []
    for g in grads:
        p = tinyffn.zeros(*np.shape(g), dtype=dtype, device=device, requires_grad=True)
        p.grad = tinyffn.tensor(g, dtype=dtype, device=device)
        params.append(p)
    return params


@pytest.mark.parametrize("max_norm, norm_type, total, a, b", [
    # torch.nn.utils.clip_grad_norm_ in PyTorch 2.13, on a.grad = [[3, -4]], b.grad = [12]
    (1.0, 2.0, 13.0, [[0.23076921701431274, -0.307692289352417]], [0.923076868057251]),
    (100.0, 2.0, 13.0, [[3.0, -4.0]], [12.0]),
    (2.0, math.inf, 12.0, [[0.4999999701976776, -0.6666666269302368]], [1.9999998807907104]),
    (2.0, 1, 19.0, [[0.31578943133354187, -0.42105257511138916]], [1.2631577253341675]),
])
def test_clip_grad_norm_gives_pytorchs_numbers(max_norm, norm_type, total, a, b):
    pa, pb = with_grads([[[3.0, -4.0]], [12.0]])
    grad_a = pa.grad
    n = nn.utils.clip_grad_norm_([pa, pb], max_norm, norm_type=norm_type)
    assert n.item() == total and dtype_name(n.dtype) == "float32"
    np.testing.assert_array_equal(pa.grad.numpy(), np.float32(a))
    np.testing.assert_array_equal(pb.grad.numpy(), np.float32(b))
    assert pa.grad is grad_a                     # the same .grad tensor, new values


@pytest.mark.parametrize("norm_type", [1, 2, 3, 3.5, math.inf])   # 3: a ** p, not p = 2's a * a
def test_clip_grad_norm_follows_the_formula(norm_type, device):
    rng = np.random.default_rng(7)
    grads = [rng.standard_normal((4, 3)), rng.standard_normal(3), rng.standard_normal((2, 2))]
    params = with_grads(grads, device, dtype="float64")
    flat = np.concatenate([g.ravel() for g in grads])
    n = np.abs(flat).max() if norm_type == math.inf else (np.abs(flat) ** norm_type).sum() ** (
        1 / norm_type)
    total = nn.utils.clip_grad_norm_(params, 0.5, norm_type)
    assert total.item() == pytest.approx(n, rel=1e-12)
    scale = 0.5 / (n + 1e-6)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.numpy(), g * scale, rtol=1e-12)
    flat_after = np.concatenate([p.grad.numpy().ravel() for p in params])
    after = np.abs(flat_after).max() if norm_type == math.inf else \
        (np.abs(flat_after) ** norm_type).sum() ** (1 / norm_type)
    assert after == pytest.approx(0.5, rel=1e-5)


def test_float16_gradients_are_summed_in_float32():
    """300² = 90,000 is past float16's largest number: the norm would be inf."""
    (p,) = with_grads([[300.0, 400.0]], dtype="float16")
    n = nn.utils.clip_grad_norm_(p, 1.0)
    assert n.item() == 500.0 and dtype_name(n.dtype) == "float32"
    assert dtype_name(p.grad.dtype) == "float16"
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-3)


def test_a_0d_gradient_keeps_its_dtype_next_to_wider_ones(device):
    """torch 2.13 scales in place (mul_), so every .grad keeps its dtype; a 0-d float16
    .grad times the 0-d float32 scale became float32, and the optimizer's step refused it.
    PyTorch's numbers: 300 and [400, 0] in float16 clip to 0.6001 and [0.8003, 0]."""
    if device != "strict":
        s, w = with_grads([300.0, [400.0, 0.0]], device, dtype="float16")
        assert nn.utils.clip_grad_norm_([s, w], 1.0).item() == 500.0
        assert [dtype_name(p.grad.dtype) for p in (s, w)] == ["float16", "float16"]
        np.testing.assert_array_equal(s.grad.numpy(), np.float16(0.6001))
        np.testing.assert_array_equal(w.grad.numpy(), np.float16([0.8003, 0.0]))
        tinyffn.optim.SGD([s, w], lr=1.0).step()
    (a,) = with_grads([3.0], device)
    (b,) = with_grads([[4.0]], device, dtype="float64")
    assert nn.utils.clip_grad_norm_([a, b], 1.0, norm_type="inf").item() == 4.0  # torch's "inf"
    assert dtype_name(a.grad.dtype) == "float32"
    assert a.grad.item() == pytest.approx(0.75, rel=1e-6)


def test_parameters_without_gradients_are_skipped():
    p, q = with_grads([[3.0, 4.0], [1.0]])
    q.grad = None
    assert nn.utils.clip_grad_norm_([p, q], 10.0).item() == 5.0
    assert q.grad is None
    none = nn.utils.clip_grad_norm_([q], 1.0)
    assert none.item() == 0.0 and dtype_name(none.dtype) == "float32"    # torch: tensor(0.)


def test_an_empty_gradient_adds_nothing_to_the_max_norm():
    """torch 2.13 refuses this ("cannot compute the infinity norm on an empty tensor");
    here a gradient with no entries has no largest entry to contribute."""
    p, q = with_grads([np.zeros(0), [3.0, -4.0]])
    assert nn.utils.clip_grad_norm_([p, q], 2.0, norm_type=math.inf).item() == 4.0
    np.testing.assert_allclose(q.grad.numpy(), [1.5, -2.0], rtol=1e-6)
    assert nn.utils.clip_grad_norm_([p], 1.0, norm_type=math.inf).item() == 0.0


def test_a_nonfinite_norm_is_an_error_only_when_asked():
    p, q = with_grads([[np.nan, 1.0], [2.0]])
    with pytest.raises(RuntimeError, match=r"total norm of order 2.0 of the gradients is nan, "
                                           r"so they cannot be clipped; .*detect_anomaly"):
        nn.utils.clip_grad_norm_([p, q], 1.0, error_if_nonfinite=True)
    np.testing.assert_array_equal(q.grad.numpy(), [2.0])                 # left as it was
    assert math.isnan(nn.utils.clip_grad_norm_([p, q], 1.0).item())
    assert np.isnan(q.grad.numpy()).all()                               # as PyTorch: NaN
    (r,) = with_grads([[np.inf, 1.0]])
    with pytest.raises(RuntimeError, match="total norm of order 2.0 of the gradients is inf"):
        nn.utils.clip_grad_norm_(r, 1.0, error_if_nonfinite=True)
    with np.errstate(invalid="ignore"):                                  # inf * 0: expected
        assert nn.utils.clip_grad_norm_(r, 1.0).item() == np.inf
    np.testing.assert_array_equal(r.grad.numpy(), [np.nan, 0.0])         # torch 2.13: inf * 0


def test_clip_grad_value_clamps_every_entry(device):
    p, q = with_grads([[[3.0, -4.0]], [12.0]], device)
    assert nn.utils.clip_grad_value_([p, q], 3.5) is None
    np.testing.assert_array_equal(p.grad.numpy(), [[3.0, -3.5]])        # torch 2.13
    np.testing.assert_array_equal(q.grad.numpy(), [3.5])


def test_clipping_to_zero_zeroes_the_gradients():
    p, q = with_grads([[3.0, 4.0], [3.0, -4.0]])
    assert nn.utils.clip_grad_norm_(p, 0.0).item() == 5.0                # torch 2.13: 5
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    nn.utils.clip_grad_value_(q, 0)
    np.testing.assert_array_equal(q.grad.numpy(), [0.0, 0.0])           # torch: [0., -0.]


def test_clipping_refuses_bad_arguments():
    (p,) = with_grads([[1.0]])
    with pytest.raises(ValueError, match="max_norm must be a number >= 0, got -1"):
        nn.utils.clip_grad_norm_(p, -1)
    with pytest.raises(ValueError, match="norm_type must be a number > 0 or math.inf, got 0"):
        nn.utils.clip_grad_norm_(p, 1.0, norm_type=0)
    with pytest.raises(ValueError, match="norm_type must be a number > 0 or math.inf, got 'fro'"):
        nn.utils.clip_grad_norm_(p, 1.0, norm_type="fro")      # torch refuses it too
    with pytest.raises(ValueError, match="clip_value must be a number >= 0, got None"):
        nn.utils.clip_grad_value_(p, None)
    with pytest.raises(TypeError, match=r"parameters must be tensors \(model.parameters\(\)\), "
                                        "got numpy.ndarray"):
        nn.utils.clip_grad_norm_([np.ones(2)], 1.0)
    (q,) = with_grads([[1.0]], device="strict")
    with pytest.raises(tinyffn.DeviceError, match="clip_grad_norm_"):
        nn.utils.clip_grad_norm_([p, q], 1.0)


def test_torchs_import_paths_work():
    from tinyffn.nn.utils import clip_grad_norm_
    import tinyffn.nn.utils as utils
    assert clip_grad_norm_ is utils.clip_grad_norm_ is nn.utils.clip_grad_norm_


# ------------------------------------------------ get_total_norm, clip_grads_with_norm_
GRADS3 = [[[3.0, -4.0]], [12.0], [[0.5], [-2.0]]]


@pytest.mark.parametrize("norm_type, want", [
    # (Σ |g|^p)^(1/p) of GRADS3, by hand: 9 + 16 + 144 + 0.25 + 4 = 173.25
    (2.0, math.sqrt(173.25)), (1, 21.5), (math.inf, 12.0), ("inf", 12.0),
    (3.0, (27 + 64 + 1728 + 0.125 + 8) ** (1 / 3))])
def test_get_total_norm_follows_the_formula(norm_type, want, device):
    ts = [tinyffn.tensor(g, device=device) for g in GRADS3]
    total = nn.utils.get_total_norm(ts, norm_type)
    assert total.shape == () and total.device == ts[0].device
    assert total.item() == pytest.approx(want, rel=1e-6)
    assert nn.utils.get_total_norm(ts[1], norm_type).item() == pytest.approx(12.0, rel=1e-6)


def test_get_total_norm_and_clip_grads_with_norm_are_clip_grad_norm_():
    """PyTorch's clip_grad_norm_ is get_total_norm then clip_grads_with_norm_; so is ours,
    and a norm summed over two models clips both by one factor."""
    a, b = with_grads(GRADS3, dtype="float64"), with_grads(GRADS3, dtype="float64")
    total = nn.utils.clip_grad_norm_(a, 5.0)
    norm = nn.utils.get_total_norm([p.grad for p in b])
    assert nn.utils.clip_grads_with_norm_(b, 5.0, norm) is None
    assert norm.item() == total.item() == pytest.approx(math.sqrt(173.25), rel=1e-15)
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    c = with_grads(GRADS3, dtype="float64")
    nn.utils.clip_grads_with_norm_(c, 1.0, 26.0)          # a number, as a norm from elsewhere
    np.testing.assert_allclose(c[1].grad.numpy(), [12.0 / (26.0 + 1e-6)], rtol=1e-15)
    d = with_grads(GRADS3, dtype="float64")
    nn.utils.clip_grads_with_norm_(d, 100.0, norm)        # below max_norm: unchanged
    np.testing.assert_array_equal(d[0].grad.numpy(), GRADS3[0])


def test_get_total_norm_and_clip_grads_with_norm_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=s) for s in [(2, 3), (4,), (1, 2, 2)]]
    for p in (2.0, 1.0, 3.5, math.inf):
        ours = nn.utils.get_total_norm([tinyffn.tensor(a) for a in arrays], p)
        theirs = torch.nn.utils.get_total_norm([torch.tensor(a) for a in arrays], p)
        assert ours.item() == pytest.approx(theirs.item(), rel=1e-14)
    ps = with_grads(arrays, dtype="float64")
    tps = [torch.nn.Parameter(torch.zeros(a.shape, dtype=torch.float64)) for a in arrays]
    for t, a in zip(tps, arrays):
        t.grad = torch.tensor(a)
    nn.utils.clip_grads_with_norm_(ps, 0.5, nn.utils.get_total_norm([p.grad for p in ps]))
    torch.nn.utils.clip_grads_with_norm_(tps, 0.5, torch.nn.utils.get_total_norm(
        [t.grad for t in tps]))
    for p, t in zip(ps, tps):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-14)


def test_get_total_norm_and_clip_grads_with_norm_refuse_bad_arguments():
    g = tinyffn.tensor([1.0, float("nan")])
    assert math.isnan(nn.utils.get_total_norm([g]).item())
    with pytest.raises(RuntimeError, match="get_total_norm: the total norm of order 2.0"):
        nn.utils.get_total_norm([g], error_if_nonfinite=True)
    assert nn.utils.get_total_norm([]).item() == 0.0
    with pytest.raises(TypeError, match="get_total_norm: tensors must be tinyffn tensors"):
        nn.utils.get_total_norm([np.ones(2)])
    with pytest.raises(ValueError, match="get_total_norm: norm_type must be a number > 0"):
        nn.utils.get_total_norm([g], norm_type=0)
    ps = with_grads(GRADS3)
    with pytest.raises(ValueError, match="clip_grads_with_norm_: max_norm must be a number"):
        nn.utils.clip_grads_with_norm_(ps, -1.0, tinyffn.tensor(1.0))
    with pytest.raises(ValueError, match=r"total_norm must be one number .* shape \(2,\)"):
        nn.utils.clip_grads_with_norm_(ps, 1.0, tinyffn.ones(2))
    with pytest.raises(TypeError, match="total_norm must be a tensor or a number, got str"):
        nn.utils.clip_grads_with_norm_(ps, 1.0, "13")


# ------------------------------------------------ parameters_to_vector, vector_to_parameters
def test_parameters_to_vector_and_back(device):
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=s) for s in [(2, 3), (4,), (1, 2, 2), ()]]
    ps = [nn.Parameter(tinyffn.tensor(a, device=device)) for a in arrays]
    vec = nn.utils.parameters_to_vector(ps)
    np.testing.assert_array_equal(vec.numpy(), np.concatenate([a.ravel() for a in arrays]))
    (vec * vec).sum().backward()                            # in the graph, as torch's
    for p, a in zip(ps, arrays):
        np.testing.assert_allclose(p.grad.numpy(), 2 * a, rtol=1e-15)
    new = tinyffn.tensor(np.arange(15.0), device=device)
    nn.utils.vector_to_parameters(new, ps)
    assert [p.shape for p in ps] == [(2, 3), (4,), (1, 2, 2), ()]
    np.testing.assert_array_equal(ps[1].numpy(), [6.0, 7.0, 8.0, 9.0])
    assert ps[3].item() == 14.0 and ps[0].requires_grad and ps[0].grad is not None
    np.testing.assert_array_equal(nn.utils.parameters_to_vector(ps).numpy(), np.arange(15.0))
    new.data = new.data * 0                                 # the parameters hold copies
    assert ps[3].item() == 14.0


def test_parameters_to_vector_matches_torch():
    torch = pytest.importorskip("torch")
    model = nn.FFN(4)
    tensors = [torch.tensor(p.numpy()) for p in model.parameters()]
    np.testing.assert_array_equal(nn.utils.parameters_to_vector(model.parameters()).numpy(),
                                  torch.nn.utils.parameters_to_vector(tensors).numpy())
    vec = np.random.default_rng(1).normal(size=sum(t.numel() for t in tensors))
    nn.utils.vector_to_parameters(tinyffn.tensor(vec, dtype="float32"), model.parameters())
    torch.nn.utils.vector_to_parameters(torch.tensor(vec, dtype=torch.float32), tensors)
    for p, t in zip(model.parameters(), tensors):
        np.testing.assert_array_equal(p.numpy(), t.numpy())


def test_vector_to_parameters_refuses_a_vector_that_does_not_fit():
    ps = [nn.Parameter(tinyffn.zeros(2, 3)), nn.Parameter(tinyffn.zeros(4))]
    with pytest.raises(ValueError, match=r"vec must be 1-D with one entry per parameter "
                                         r"entry, 10 for these parameters .* got shape \(11,\)"):
        nn.utils.vector_to_parameters(tinyffn.zeros(11), ps)     # torch ignores the extra one
    with pytest.raises(ValueError, match=r"got shape \(2, 5\)"):
        nn.utils.vector_to_parameters(tinyffn.zeros(2, 5), ps)
    with pytest.raises(TypeError, match="vec must be a tinyffn Tensor, got numpy.ndarray"):
        nn.utils.vector_to_parameters(np.zeros(10), ps)
    with pytest.raises(ValueError, match="parameters_to_vector: got no parameters"):
        nn.utils.parameters_to_vector([])
    with pytest.raises(TypeError, match="parameters must be tinyffn tensors"):
        nn.utils.parameters_to_vector([np.zeros(2)])
