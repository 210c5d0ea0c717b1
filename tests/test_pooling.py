"""F.max_pool1d, F.avg_pool1d, nn.MaxPool1d and nn.AvgPool1d (tinyffn/pooling.py): values and
input gradients against PyTorch live for kernel, stride, padding, dilation, ceil_mode and
count_include_pad; the defining max and mean in NumPy loops; gradcheck on every device;
the modules' repr; the errors.
"""
import numpy as np
import pytest

import tinyffn
from torch_parity import assert_forward_and_backward_as_torchs
from tinyffn import nn
import tinyffn.functional as F

rng = np.random.default_rng(3)

MAX_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=1), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=2, stride=1, dilation=3), dict(kernel_size=3, stride=2, ceil_mode=True),
             dict(kernel_size=4, stride=3, padding=2, ceil_mode=True), dict(kernel_size=(3,), stride=(2,))]
AVG_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=1), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
             dict(kernel_size=3, stride=2, ceil_mode=True),
             dict(kernel_size=4, stride=3, padding=2, ceil_mode=True),
             dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False)]


def _max_loops(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """max over x_pad[n, c, t*s + k*d] in plain loops, -inf padding; L_out as PyTorch's."""
    K, s = kernel_size, stride or kernel_size
    L = x.shape[-1]
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding + K * dilation)), constant_values=-np.inf)
    reach = L + 2 * padding - dilation * (K - 1) - 1
    L_out = (int(np.ceil(reach / s)) if ceil_mode else reach // s) + 1
    if ceil_mode and (L_out - 1) * s >= L + padding:
        L_out -= 1
    y = np.empty(x.shape[:2] + (L_out,))
    for t in range(L_out):
        y[..., t] = np.max([xp[..., t * s + k * dilation] for k in range(K)], axis=0)
    return y


@pytest.mark.parametrize("kw", MAX_CASES[:4])
def test_max_pool1d_is_the_defining_max(kw, device):
    x = rng.standard_normal((2, 3, 11))
    y = F.max_pool1d(tinyffn.tensor(x, dtype="float64", device=device), **kw)
    np.testing.assert_array_equal(y.numpy(), _max_loops(x, **kw))


def test_avg_pool1d_is_the_defining_mean():
    x = rng.standard_normal((2, 3, 10))
    y = F.avg_pool1d(tinyffn.tensor(x), 3, stride=2, padding=1)       # divisor 3, zeros padded
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    want = np.stack([xp[..., 2 * t:2 * t + 3].sum(-1) / 3 for t in range(5)], -1)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
    y = F.avg_pool1d(tinyffn.tensor(x), 3, stride=2, padding=1, count_include_pad=False)
    assert y.numpy()[..., 0] == pytest.approx(x[..., :2].mean(-1), rel=1e-6)   # 2 real entries


def test_max_pool1d_sends_the_gradient_to_the_first_largest_entry(device):
    x = tinyffn.tensor([[[1.0, 3.0, 3.0, 0.0, 2.0, 2.0]]], dtype="float64", device=device,
                       requires_grad=True)
    y, i = F.max_pool1d(x, 3, stride=1, return_indices=True)
    assert y.tolist() == [[[3.0, 3.0, 3.0, 2.0]]] and i.tolist() == [[[1, 1, 2, 4]]]
    y.sum().backward()
    assert x.grad.tolist() == [[[0.0, 2.0, 1.0, 0.0, 1.0, 0.0]]]


@pytest.mark.parametrize("fn,kw", [("max_pool1d", MAX_CASES[2]), ("max_pool1d", MAX_CASES[5]),
                                   ("avg_pool1d", AVG_CASES[3]), ("avg_pool1d", AVG_CASES[6])])
def test_pooling_is_gradchecked(fn, kw, device):
    x = tinyffn.tensor(rng.standard_normal((2, 2, 9)), dtype="float64", device=device,
                       requires_grad=True)
    assert tinyffn.gradcheck(lambda v: getattr(F, fn)(v, **kw), [x])


@pytest.mark.parametrize("fn,kw", [("max_pool1d", kw) for kw in MAX_CASES]
                         + [("avg_pool1d", kw) for kw in AVG_CASES])
@pytest.mark.parametrize("L", [9, 10])
def test_pooling_matches_torch_live(fn, kw, L):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, L))
    ours = tinyffn.tensor(x, dtype="float64", requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y, yt = getattr(F, fn)(ours, **kw), getattr(torch.nn.functional, fn)(theirs, **kw)
    assert y.shape == tuple(yt.shape)
    assert_forward_and_backward_as_torchs(y, yt, [ours], [theirs], rng.standard_normal(y.shape),
                                          rtol=1e-14, atol=1e-15, grad_rtol=1e-13)
    if fn == "max_pool1d":
        i, it = F.max_pool1d(ours, return_indices=True, **kw)[1], \
            torch.nn.functional.max_pool1d(theirs, return_indices=True, **kw)[1]
        assert i.tolist() == it.tolist()
    unbatched = getattr(F, fn)(tinyffn.tensor(x[0]), **kw)
    np.testing.assert_allclose(unbatched.numpy(), y.numpy()[0], rtol=1e-6)


def test_the_modules_match_torch_live():
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 4, 12))
    for ours, theirs in [(nn.MaxPool1d(3, 2, 1), torch.nn.MaxPool1d(3, 2, 1)),
                         (nn.AvgPool1d(2), torch.nn.AvgPool1d(2)),
                         (nn.AvgPool1d(3, 1, 1, count_include_pad=False),
                          torch.nn.AvgPool1d(3, 1, 1, count_include_pad=False))]:
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(tinyffn.tensor(x, dtype="float64")).numpy(),
                                   theirs(torch.tensor(x)).numpy(), rtol=1e-14, atol=1e-15)
    assert list(nn.MaxPool1d(2).parameters()) == []


def test_pooling_errors_name_the_op():
    x = tinyffn.randn(2, 3, 8)
    with pytest.raises(ValueError, match=r"max_pool1d: padding must be .* kernel_size / 2"):
        F.max_pool1d(x, 2, padding=2)
    with pytest.raises(ValueError, match=r"avg_pool1d: input must be .*\(N, C, L\).*\(8,\)"):
        F.avg_pool1d(tinyffn.randn(8), 2)
    with pytest.raises(ValueError, match=r"max_pool1d: the window spans 9 positions"):
        F.max_pool1d(x, 3, dilation=4)
    with pytest.raises(ValueError, match=r"avg_pool1d: kernel_size must be a positive"):
        F.avg_pool1d(x, 0)
    with pytest.raises(TypeError, match=r"max_pool1d: input must be floating point"):
        F.max_pool1d(tinyffn.arange(8).reshape(1, 1, 8), 2)


def test_avg_pool1d_sums_float16_in_float32():
    # A float16 sum of two 60000s is inf (float16's largest is 65504); PyTorch sums in
    # float32, so the mean is 60000. The reference: the mean in float64, rounded once.
    x = np.array([[[60000, 60000, 50000, 65000, 1, 3]]], dtype="float16")
    ours = tinyffn.tensor(x, requires_grad=True)
    y = F.avg_pool1d(ours, 2)
    assert y.dtype == np.float16
    want = x.astype("float64").reshape(1, 1, 3, 2).mean(-1).astype("float16")
    np.testing.assert_array_equal(y.numpy(), want)
    y.backward(tinyffn.ones_like(y))               # (y.sum() would overflow float16)
    np.testing.assert_array_equal(ours.grad.numpy(), np.full(x.shape, 0.5, "float16"))
    with_pad = F.avg_pool1d(tinyffn.tensor(x), 3, 2, 1, count_include_pad=False)
    assert np.isfinite(with_pad.numpy()).all()


@pytest.mark.parametrize("fn, L, kw", [("max_pool1d", 1, dict(kernel_size=2, ceil_mode=True)),
                                       ("avg_pool1d", 1, dict(kernel_size=2, ceil_mode=True)),
                                       ("avg_pool1d", 3, dict(kernel_size=4, ceil_mode=True)),
                                       ("max_pool1d", 2, dict(kernel_size=5, padding=1,
                                                              ceil_mode=True))])
def test_ceil_mode_keeps_a_partial_window_of_an_input_shorter_than_one(fn, L, kw):
    # PyTorch's L_out = ceil((L + 2p - K) / s) + 1 is 1 here: one window, clipped to the
    # input (a conv net that halves with ceil_mode reaches L = 1 and pools once more);
    # these were refused as 'the window spans K positions'.
    x = rng.standard_normal((2, 3, L))
    y = getattr(F, fn)(tinyffn.tensor(x, dtype="float64"), **kw)
    want = x.max(-1, keepdims=True) if fn == "max_pool1d" else x.mean(-1, keepdims=True)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-15, atol=1e-15)
    torch = pytest.importorskip("torch")
    yt = getattr(torch.nn.functional, fn)(torch.tensor(x), **kw)
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("call, L", [
    (lambda x: F.max_pool1d(x, 2, None, 1, 2), 1),             # positions -1 and 1 of L = 1
    (lambda x: F.max_pool1d(x, 2, 1, 1, 3), 2),                # -1 and 2: none in [0, 2)
])
def test_a_window_of_only_padding_is_refused(call, L):
    """A window that reads no input entry (dilation steps over the input) has nothing to
    pool: it gave -inf and index -1; PyTorch 2.13 crashes the process there."""
    with pytest.raises(ValueError, match=r"max_pool1d: window 0 reads only padding \(positions "
                                         rf"-1 to \d+ step \d+ of an input of length {L}"):
        call(tinyffn.ones(1, 1, L))


@pytest.mark.parametrize("L,L_out", [(7, 1), (7, 3), (10, 5), (5, 8), (9, (4,))])
def test_adaptive_avg_pool1d_matches_torch_live_and_the_windows(L, L_out):
    x = rng.standard_normal((2, 3, L))
    ours = tinyffn.tensor(x, dtype="float64", requires_grad=True)
    y = F.adaptive_avg_pool1d(ours, L_out)
    n = L_out[0] if isinstance(L_out, tuple) else L_out
    want = np.stack([x[..., t * L // n:-(-(t + 1) * L // n)].mean(-1) for t in range(n)], -1)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-14, atol=1e-15)
    torch = pytest.importorskip("torch")
    theirs = torch.tensor(x, requires_grad=True)
    yt = torch.nn.functional.adaptive_avg_pool1d(theirs, L_out)
    assert_forward_and_backward_as_torchs(y, yt, [ours], [theirs], rng.standard_normal(y.shape),
                                          rtol=1e-14, atol=1e-15, grad_rtol=1e-13)
    m, mt = nn.AdaptiveAvgPool1d(L_out), torch.nn.AdaptiveAvgPool1d(L_out)
    assert repr(m) == repr(mt)
    np.testing.assert_allclose(m(tinyffn.tensor(x[0])).numpy(), y.numpy()[0], rtol=1e-14, atol=1e-15)


def test_adaptive_avg_pool1d_is_gradchecked_and_names_its_errors(device):
    x = tinyffn.tensor(rng.standard_normal((2, 2, 7)), dtype="float64", device=device,
                       requires_grad=True)
    assert tinyffn.gradcheck(lambda v: F.adaptive_avg_pool1d(v, 3), [x])
    with pytest.raises(ValueError, match=r"adaptive_avg_pool1d: output_size must be a positive"):
        F.adaptive_avg_pool1d(x, 0)
    with pytest.raises(ValueError, match=r"adaptive_avg_pool1d: input must be .*\(7,\)"):
        F.adaptive_avg_pool1d(tinyffn.randn(7), 2)
