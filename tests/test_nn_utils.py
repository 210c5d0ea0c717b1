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
