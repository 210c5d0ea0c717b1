"""trapezoid, trapz, cumulative_trapezoid (tinyffn/torch_calculus.py), renorm
(torch_linalg.py) and addbmm (torch_accumulate.py): names ported scripts hit
AttributeError on.

References: hand-written NumPy sums and PyTorch 2.13's values written out (so they run
without torch), torch live where installed (values and gradients), gradcheck.
"""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn.backend import dtype_name

Y = [[1, 2, 4], [3, 5, 9]]


def test_trapezoid_is_pytorchs_written_out(device):
    """torch 2.13's answers, integer samples giving float32."""
    y = tinyffn.tensor(Y, device=device)
    x = tinyffn.tensor([0.0, 1.0, 3.0], device=device)
    r = tinyffn.trapezoid(y)
    assert r.tolist() == [4.5, 11.0] and dtype_name(r.dtype) == "float32"
    assert tinyffn.trapezoid(y, dx=2).tolist() == [9.0, 22.0]
    assert tinyffn.trapezoid(y, x).tolist() == [7.5, 18.0]
    assert tinyffn.trapz(y, x).tolist() == [7.5, 18.0]
    assert tinyffn.trapezoid(y, dim=0).tolist() == [2.0, 3.5, 6.5]
    xs = tinyffn.tensor([[0.0, 1.0, 3.0], [0.0, 2.0, 3.0]], device=device)
    assert tinyffn.trapezoid(y, xs).tolist() == [7.5, 15.0]
    assert tinyffn.trapezoid(tinyffn.ones(2, 1, device=device)).tolist() == [0.0, 0.0]
    assert tinyffn.trapezoid(tinyffn.ones(2, 0, device=device)).tolist() == [0.0, 0.0]
    c = tinyffn.cumulative_trapezoid(y)
    assert c.tolist() == [[1.5, 4.5], [4.0, 11.0]]
    assert tinyffn.cumulative_trapezoid(y, dx=0.5).tolist() == [[0.75, 2.25], [2.0, 5.5]]
    assert tinyffn.cumulative_trapezoid(y, x).tolist() == [[1.5, 7.5], [4.0, 18.0]]
    assert tinyffn.cumulative_trapezoid(tinyffn.ones(2, 1, device=device)).shape == (2, 0)


def test_trapezoid_against_numpy_sums_and_gradcheck():
    rng = np.random.default_rng(0)
    a, pts = rng.normal(size=(3, 4, 5)), np.sort(rng.normal(size=4))
    y = tinyffn.tensor(a, dtype="float64", requires_grad=True)
    x = tinyffn.tensor(pts, dtype="float64", requires_grad=True)
    gaps = np.diff(pts)[None, :, None]
    want = (gaps * (a[:, 1:] + a[:, :-1]) / 2)
    np.testing.assert_allclose(tinyffn.trapezoid(y, x, dim=1).detach().numpy(),
                               want.sum(1), rtol=1e-13)
    np.testing.assert_allclose(tinyffn.cumulative_trapezoid(y, x, dim=1).detach().numpy(),
                               want.cumsum(1), rtol=1e-13)
    assert tinyffn.gradcheck(lambda y, x: tinyffn.trapezoid(y, x, dim=1), (y, x))
    assert tinyffn.gradcheck(lambda y: tinyffn.cumulative_trapezoid(y, dx=0.3, dim=-1), (y,))


@pytest.mark.parametrize("call, error, message", [
    (lambda d: tinyffn.trapezoid(tinyffn.tensor(3.0, device=d)), ValueError, "0-d"),
    (lambda d: tinyffn.trapezoid(tinyffn.ones(2, 3, device=d), tinyffn.ones(2, device=d)),
     ValueError, "one x value per sample"),
    (lambda d: tinyffn.trapezoid(tinyffn.ones(3, device=d), tinyffn.ones(3, device=d), dx=1.0),
     TypeError, "not both"),
    (lambda d: tinyffn.trapezoid(tinyffn.ones(3, 4, device=d), tinyffn.ones(2, 4, device=d)),
     ValueError, r"trapezoid: x of shape \(2, 4\) .* y of shape \(3, 4\)"),  # was mul's
    (lambda d: tinyffn.cumulative_trapezoid(tinyffn.ones(3, device=d), 0.5), TypeError,
     r"dx=0\.5"),                                      # a spacing given where x goes
    (lambda d: tinyffn.renorm(tinyffn.ones(3, device=d), 2, 0, 1.0), ValueError,
     "at least 2 dimensions"),
    (lambda d: tinyffn.renorm(tinyffn.ones(2, 3, device=d), 0, 0, 1.0), ValueError, "p must"),
    (lambda d: tinyffn.renorm(tinyffn.ones(2, 3, device=d), 2, 0, -1.0), ValueError,
     "maxnorm must"),
    (lambda d: tinyffn.renorm(tinyffn.ones(2, 3, dtype="int64", device=d), 2, 0, 1.0),
     TypeError, "floating"),
    (lambda d: tinyffn.addbmm(tinyffn.ones(2, 2, device=d), tinyffn.ones(3, 2, 4, device=d),
                              tinyffn.ones(2, 4, 2, device=d)), ValueError, "addbmm: batch1"),
    (lambda d: tinyffn.addbmm(tinyffn.ones(3, 2, device=d), tinyffn.ones(3, 2, 4, device=d),
                              tinyffn.ones(3, 4, 2, device=d)), ValueError, "broadcast"),
])
def test_what_pytorch_refuses_is_refused_by_name(call, error, message, device):
    with pytest.raises(error, match=message):
        call(device)


def test_renorm_scales_the_long_slices_only(device):
    """torch 2.13: renorm(x, 2, 0, 1.0) row 0 is [1, 2, 3] / (√14 + 1e-7); row 1 stays."""
    x = tinyffn.tensor([[1.0, 2.0, 3.0], [0.1, 0.2, 0.1]], dtype="float64", device=device)
    y = x.renorm(2, 0, 1.0).numpy()
    np.testing.assert_allclose(y[0], np.array([1.0, 2.0, 3.0]) / (math.sqrt(14) + 1e-7),
                               rtol=1e-15)
    assert y[1].tolist() == [0.1, 0.2, 0.1]
    with tinyffn.no_grad():
        assert x.renorm_(1, 1, 0.25) is x
    np.testing.assert_allclose(x.numpy()[:, 0], np.array([1.0, 0.1]) * 0.25 / (1.1 + 1e-7))
    w = tinyffn.randn(3, 4, dtype="float64", requires_grad=True)
    assert tinyffn.gradcheck(lambda w: w.renorm(2, 1, 0.5), (w,))


def test_addbmm_sums_the_batch_of_products(device):
    b1 = tinyffn.randn(3, 2, 4, dtype="float64", device=device)
    b2 = tinyffn.randn(3, 4, 5, dtype="float64", device=device)
    x = tinyffn.randn(5, dtype="float64", device=device)
    want = 0.5 * x.numpy() + 2 * np.einsum("bnm,bmp->np", b1.numpy(), b2.numpy())
    np.testing.assert_allclose(tinyffn.addbmm(x, b1, b2, beta=0.5, alpha=2).numpy(), want,
                               rtol=1e-13)
    nan_input = tinyffn.full((2, 5), math.nan, dtype="float64", device=device)
    assert not np.isnan(nan_input.addbmm(b1, b2, beta=0).numpy()).any()   # not read
    i = tinyffn.zeros(2, 5, dtype="float64", device=device)
    i.addbmm_(b1, b2)
    np.testing.assert_allclose(i.numpy(), (want - 0.5 * x.numpy()) / 2, rtol=1e-12)
    args = [tinyffn.randn(*s, dtype="float64", requires_grad=True)
            for s in ((2, 1), (3, 2, 4), (3, 4, 5))]
    assert tinyffn.gradcheck(lambda a, b, c: tinyffn.addbmm(a, b, c, alpha=0.7), args)


def test_live_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a, pts = rng.normal(size=(4, 6)), np.sort(rng.normal(size=6))
    w = rng.normal(size=(4, 5))
    for fn, kwargs in (("trapezoid", {}), ("cumulative_trapezoid", {}),
                       ("trapezoid", {"dx": 0.4}), ("renorm", {})):
        y, ty = (tinyffn.tensor(a, dtype="float64", requires_grad=True),
                 torch.tensor(a, requires_grad=True))
        if fn == "renorm":
            ours, theirs = y.renorm(3, 0, 1.5), ty.renorm(3, 0, 1.5)
            weights = rng.normal(size=a.shape)
        elif kwargs:
            ours, theirs = getattr(tinyffn, fn)(y, **kwargs), getattr(torch, fn)(ty, **kwargs)
            weights = rng.normal(size=tuple(ours.shape))
        else:
            ours = getattr(tinyffn, fn)(y, tinyffn.tensor(pts, dtype="float64"))
            theirs = getattr(torch, fn)(ty, torch.tensor(pts))
            weights = rng.normal(size=tuple(ours.shape))
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-13)
        (ours * tinyffn.tensor(weights, dtype="float64")).sum().backward()
        (theirs * torch.tensor(weights)).sum().backward()
        np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12, atol=1e-15)
    b1, b2 = rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 2, 5))
    ours = tinyffn.addbmm(tinyffn.tensor(w), tinyffn.tensor(b1), tinyffn.tensor(b2), beta=2)
    theirs = torch.addbmm(torch.tensor(w), torch.tensor(b1), torch.tensor(b2), beta=2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
