"""max_unpool1d/2d and their modules (tinyffn/unpooling.py), channel_shuffle
(image_layers.py), lp_pool1d/2d (pooling2d.py), UpsamplingNearest2d / Bilinear2d.

References: NumPy placement and formulas on every device; unpool(max_pool(x)) against
finite differences where windows overlap; gradcheck; PyTorch 2.13 live where installed.
"""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn


def _values(*shape, start=0.0):
    return np.sin(1.3 * np.arange(math.prod(shape)) + start).reshape(shape)


X2 = _values(2, 3, 4, 6)


# ----------------------------------------------------------------------------- max_unpool
def test_max_unpool2d_puts_each_maximum_back_and_zeros_elsewhere(device):
    x = tinyffn.tensor(X2, device=device)
    y, i = F.max_pool2d(x, 2, return_indices=True)                 # (2, 3, 2, 3)
    u = F.max_unpool2d(y, i, 2).numpy()                            # (2, 3, 4, 6)
    want = np.zeros((2, 3, 24))
    np.put_along_axis(want, i.numpy().reshape(2, 3, -1), y.numpy().reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(u, want.reshape(2, 3, 4, 6))
    np.testing.assert_array_equal(u[u != 0], X2[u != 0])           # maxima where they were
    unbatched = F.max_unpool2d(y[0], i[0], 2).numpy()
    np.testing.assert_array_equal(unbatched, u[0])


def test_max_unpool1d_output_size_recovers_an_odd_length(device):
    x = tinyffn.tensor(_values(1, 2, 7), device=device)
    y, i = F.max_pool1d(x, 2, return_indices=True)                 # (1, 2, 3): 7 floored to 6
    assert F.max_unpool1d(y, i, 2).shape == (1, 2, 6)
    u = nn.MaxUnpool1d(2)(y, i, output_size=x.shape)
    assert u.shape == (1, 2, 7) and float(u.numpy()[..., 6].sum()) == 0.0


def test_gradient_through_overlapping_windows_is_the_true_one(device):
    """max_pool(3, stride 1) picks x[1] = 5 twice; unpool(pool(x)) is x at its kept
    maxima, so d/dx[1] of Σ g·unpool(pool(x)) is g[1], not 2·g[1] (PyTorch's)."""
    x = tinyffn.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0]]], dtype="float64", device=device,
                       requires_grad=True)
    g = tinyffn.tensor([[[1.0, 10.0, 100.0, 1000.0, 10000.0]]], dtype="float64", device=device)

    def f(x):
        y, i = F.max_pool1d(x, 3, 1, return_indices=True)
        return F.max_unpool1d(y, i, 3, 1)
    u = f(x)
    np.testing.assert_array_equal(u.numpy(), [[[0.0, 5.0, 0.0, 0.0, 3.0]]])
    (u * g).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[[0.0, 10.0, 0.0, 0.0, 10000.0]]])
    assert tinyffn.gradcheck(f, [x.detach().requires_grad_()])


def test_gradcheck_max_unpool2d(device):
    x = tinyffn.tensor(X2[:1, :2], device=device)
    y, i = F.max_pool2d(x, (2, 3), stride=(2, 3), return_indices=True)
    v = y.detach().requires_grad_()
    assert tinyffn.gradcheck(lambda v: F.max_unpool2d(v, i, (2, 3), output_size=(4, 6)), [v])


def test_max_unpool_is_pytorchs():
    torch = pytest.importorskip("torch")
    x = X2[:, :, :, :5]                                            # W = 5: output_size needed
    for kw in (dict(kernel_size=2), dict(kernel_size=(2, 3), stride=1, padding=(1, 0))):
        y, i = F.max_pool2d(tinyffn.tensor(x), **kw, return_indices=True)
        yt, it = torch.nn.functional.max_pool2d(torch.tensor(x), **kw, return_indices=True)
        v, vt = y.detach().requires_grad_(), yt.detach().requires_grad_()
        np.testing.assert_array_equal(i.numpy(), it.numpy())
        u = F.max_unpool2d(v, i, **kw, output_size=(4, 5))
        ut = torch.nn.functional.max_unpool2d(vt, it, **kw, output_size=(4, 5))
        np.testing.assert_allclose(u.numpy(), ut.detach().numpy(), rtol=1e-15)  # k·(v/k)
        if kw.get("stride", 2) == 2:                   # no overlap: the gradients agree
            gy = _values(*u.shape, start=3.0)
            (u * tinyffn.tensor(gy)).sum().backward()
            (ut * torch.tensor(gy)).sum().backward()
            np.testing.assert_array_equal(v.grad.numpy(), vt.grad.numpy())
    assert repr(nn.MaxUnpool2d((2, 3), stride=1, padding=1)) == repr(
        torch.nn.MaxUnpool2d((2, 3), stride=1, padding=1))
    assert repr(nn.MaxUnpool1d(2)) == repr(torch.nn.MaxUnpool1d(2))


@pytest.mark.parametrize("kw, error, match", [
    (dict(output_size=(6, 6)), ValueError, r"max_unpool2d: invalid output_size \(6, 6\) "
                                           r"\(dim 0 must be between 2 and 6"),
    (dict(output_size=(2, 6)), ValueError, r"max_unpool2d: invalid output_size \(2, 6\) "
                                           r"\(dim 0 must be between 2 and 6"),   # exclusive
    (dict(output_size=(4, 5, 6)), ValueError, r"output_size should be a sequence of 2 or 4"),
    (dict(output_size=(4, 5)), IndexError, r"max_unpool2d: index 2[0-9] is out of range for "
                                           r"an output of size 4 x 5 \(20 entries\)"),
    (dict(bad="float"), TypeError, r"indices must be an int64 tinyffn Tensor"),
    (dict(bad="short"), ValueError, r"indices must have the input's shape \(2, 3, 2, 3\)"),
])
def test_max_unpool_errors_and_torch_refuses_them_too(kw, error, match):
    kw = dict(kw)
    bad = kw.pop("bad", None)
    y, i = F.max_pool2d(tinyffn.tensor(X2), 2, return_indices=True)
    i = i.float() if bad == "float" else i[:, :, :1] if bad == "short" else i
    with pytest.raises(error, match=match):
        F.max_unpool2d(y, i, 2, **kw)
    torch = pytest.importorskip("torch")
    with pytest.raises((ValueError, RuntimeError)):
        torch.nn.functional.max_unpool2d(torch.tensor(y.numpy()), torch.tensor(i.numpy()), 2,
                                         **kw)


def test_max_unpool_refuses_the_index_one_past_the_end_and_torch_does_too():
    x, i = tinyffn.tensor([[[1.0, 2.0]]]), tinyffn.tensor([[[0, 4]]])   # output size 4
    with pytest.raises(IndexError, match=r"max_unpool1d: index 4 is out of range for an "
                                         r"output of size 4 \(4 entries\)"):
        F.max_unpool1d(x, i, 2)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.nn.functional.max_unpool1d(torch.tensor(x.numpy()), torch.tensor(i.numpy()), 2)


def test_max_unpool_output_sizes_one_allowed_zero_refused():
    """(L - 1)·stride + kernel_size - 2·padding: 1 for L = 1, kernel 1; 0 with kernel 2,
    padding 1, refused (torch returns an empty tensor there)."""
    x, i = tinyffn.tensor([[[1.5]]], requires_grad=True), tinyffn.tensor([[[0]]])
    y = F.max_unpool1d(x, i, 1)
    assert y.numpy().tolist() == [[[1.5]]]
    assert 'label="max_unpool1d"' in tinyffn.to_dot(y)
    with pytest.raises(ValueError, match=r"max_unpool1d: padding=1 leaves no output for an "
                                         r"input of shape \(1, 1, 1\); use less padding"):
        F.max_unpool1d(x, i, 2, padding=1)


# ----------------------------------------------------------------------------- channel_shuffle
def test_channel_shuffle_deals_the_groups_out(device):
    x = tinyffn.tensor(np.arange(6.0).reshape(1, 6, 1), device=device)
    assert F.channel_shuffle(x, 2).numpy().ravel().tolist() == [0, 3, 1, 4, 2, 5]
    assert nn.ChannelShuffle(3)(x).numpy().ravel().tolist() == [0, 2, 4, 1, 3, 5]
    x = tinyffn.tensor(_values(1, 6, 2), device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x: F.channel_shuffle(x, 3), [x])


def test_channel_shuffle_is_pytorchs():
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(F.channel_shuffle(tinyffn.tensor(X2), 3).numpy(),
                                  torch.nn.functional.channel_shuffle(torch.tensor(X2), 3))
    assert repr(nn.ChannelShuffle(3)) == repr(torch.nn.ChannelShuffle(3))
    for shape, g, match in (((2, 6, 3), 4, r"the 6 channels .* divisible by groups=4"),
                            ((2, 6), 3, r"at least 3 axes \(N, C, \*\)"),
                            ((2, 6, 3), 0, r"groups must be a positive integer")):
        with pytest.raises(ValueError, match=match):
            F.channel_shuffle(tinyffn.zeros(*shape), g)
        with pytest.raises(RuntimeError):
            torch.nn.functional.channel_shuffle(torch.zeros(*shape), g)


# ----------------------------------------------------------------------------- lp_pool
def test_lp_pool_is_the_p_norm_of_each_window(device):
    x = _values(1, 2, 7)
    x = np.abs(x)               # PyTorch's formula has no |x|: odd p of negatives is not a norm
    y = F.lp_pool1d(tinyffn.tensor(x, device=device), 3, 2).numpy()
    want = (x[..., :6].reshape(1, 2, 3, 2) ** 3).sum(-1) ** (1 / 3)
    np.testing.assert_allclose(y, want, rtol=1e-12)
    y2 = F.lp_pool2d(tinyffn.tensor(X2, device=device), 2, (2, 3)).numpy()
    want2 = np.sqrt((X2.reshape(2, 3, 2, 2, 2, 3) ** 2).sum(axis=(3, 5)))
    np.testing.assert_allclose(y2, want2, rtol=1e-12)
    inf = F.lp_pool2d(tinyffn.tensor(X2, device=device), float("inf"), 2).numpy()
    np.testing.assert_allclose(inf, np.abs(X2).reshape(2, 3, 2, 2, 3, 2).max(axis=(3, 5)))


def test_gradcheck_lp_pool_and_zero_windows_get_zero_gradient(device):
    x = tinyffn.tensor(np.abs(X2[:1, :1]) + 0.1, device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x: F.lp_pool2d(x, 1.5, 2, stride=1), [x])
    z = tinyffn.zeros(1, 1, 4, dtype="float64", device=device, requires_grad=True)
    F.lp_pool1d(z, 2, 2).sum().backward()
    assert z.grad.numpy().tolist() == [[[0.0, 0.0, 0.0, 0.0]]]


@pytest.mark.parametrize("p", [1, 2])
def test_a_window_of_zeros_pools_to_zero_with_zero_gradient(p):
    """0, not 1 ** (1/p) (the power sees 1 there), for p = 1 as for p = 2."""
    x = np.array([[[0.0, 0.0, 3.0, 4.0]]])
    a = tinyffn.tensor(x, requires_grad=True)
    y = F.lp_pool1d(a, p, 2)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), [[[0.0, 7.0 if p == 1 else 5.0]]], rtol=1e-15)
    want = [[[0.0, 0.0, 1.0, 1.0]]] if p == 1 else [[[0.0, 0.0, 0.6, 0.8]]]
    np.testing.assert_allclose(a.grad.numpy(), want, rtol=1e-15)


@pytest.mark.parametrize("p", [0, "2", True])
def test_lp_pool_refuses_a_norm_type_that_is_not_a_nonzero_number(p):
    with pytest.raises(ValueError, match=rf"lp_pool2d: norm_type must be a nonzero number "
                                         rf"\(p of the p-norm\), got {p!r}"):
        F.lp_pool2d(tinyffn.tensor(X2), p, 2)
    torch = pytest.importorskip("torch")
    if p is not True:               # torch reads True as 1; 0 divides by zero, "2" is no power
        with pytest.raises((ZeroDivisionError, TypeError)):
            torch.nn.functional.lp_pool2d(torch.tensor(X2), p, 2)


@pytest.mark.parametrize("n, p, kw", [(1, 2, dict(kernel_size=3, stride=2, ceil_mode=True)),
                                      (2, 1.5, dict(kernel_size=(2, 3), stride=1)),
                                      (2, 3, dict(kernel_size=2))])
def test_lp_pool_is_pytorchs(n, p, kw):
    torch = pytest.importorskip("torch")
    x = np.abs(X2) + 0.1 if n == 2 else np.abs(X2[0]) + 0.1
    a, t = tinyffn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = getattr(F, f"lp_pool{n}d")(a, p, **kw)
    yt = getattr(torch.nn.functional, f"lp_pool{n}d")(t, p, **kw)
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=1e-12)
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-11)
    cls = f"LPPool{n}d"
    assert repr(getattr(nn, cls)(p, **kw)) == repr(getattr(torch.nn, cls)(p, **kw))
    np.testing.assert_array_equal(getattr(nn, cls)(p, **kw)(a).numpy(), y.numpy())


# ----------------------------------------------------------------------------- upsampling
def test_upsampling_modules_are_pytorchs():
    torch = pytest.importorskip("torch")
    x = X2[:, :, :3, :4]
    for cls, kw in (("UpsamplingNearest2d", dict(scale_factor=2)),
                    ("UpsamplingBilinear2d", dict(scale_factor=2)),
                    ("UpsamplingBilinear2d", dict(size=(5, 7)))):
        ours, theirs = getattr(nn, cls)(**kw), getattr(torch.nn, cls)(**kw)
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(tinyffn.tensor(x)).numpy(),
                                   theirs(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-14)
    corners = nn.UpsamplingBilinear2d(size=(5, 7))(tinyffn.tensor(x)).numpy()
    np.testing.assert_allclose(corners[..., ::4, ::6], x[..., ::2, ::3], rtol=1e-12)
