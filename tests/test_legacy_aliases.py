"""nn.Softmax2d (tinyffn/activation_modules.py) and PyTorch's deprecated names
(tinyffn/legacy_aliases.py): F.upsample, F.upsample_nearest, F.upsample_bilinear and
nn.NLLLoss2d, which raised AttributeError.

References: the functions they stand for, the sums they must keep, and torch live where
installed (values, gradients and the warnings' category).
"""
import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import nn
from tinyffn import functional as F

rng = np.random.default_rng(0)


def test_softmax2d_is_a_softmax_over_the_channels(device):
    x = tinyffn.tensor(rng.normal(size=(2, 3, 2, 4)), dtype="float64", device=device)
    y = nn.Softmax2d()(x)
    np.testing.assert_allclose(y.numpy().sum(1), np.ones((2, 2, 4)), rtol=1e-14)
    e = np.exp(x.numpy())
    np.testing.assert_allclose(y.numpy(), e / e.sum(1, keepdims=True), rtol=1e-13)
    np.testing.assert_allclose(nn.Softmax2d()(x[0]).numpy(), y.numpy()[0], rtol=1e-14)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D"):
        nn.Softmax2d()(x[0, 0])
    w = tinyffn.tensor(rng.normal(size=(1, 3, 2, 2)), dtype="float64", requires_grad=True)
    assert tinyffn.gradcheck(nn.Softmax2d(), (w,))


@pytest.mark.parametrize("name, kwargs", [
    ("upsample", {"scale_factor": 2, "mode": "bilinear", "align_corners": False}),
    ("upsample", {"size": (3, 5)}),
    ("upsample_nearest", {"scale_factor": 2}),
    ("upsample_bilinear", {"size": (4, 7)}),
])
def test_upsample_names_warn_and_are_interpolate(name, kwargs, device):
    x = tinyffn.tensor(rng.normal(size=(1, 2, 2, 3)), dtype="float64", device=device)
    with pytest.warns(UserWarning, match=rf"`nn.functional.{name}` is deprecated. Use "
                                         r"`nn.functional.interpolate` instead"):
        y = getattr(F, name)(x, **kwargs)
    mode = {"upsample_nearest": {"mode": "nearest"},
            "upsample_bilinear": {"mode": "bilinear", "align_corners": True}}.get(name, {})
    want = F.interpolate(x, **kwargs, **mode)
    np.testing.assert_array_equal(y.numpy(), want.numpy())


def test_nllloss2d_reads_pytorchs_layout(device):
    logp = F.log_softmax(tinyffn.tensor(rng.normal(size=(2, 3, 2, 2)), dtype="float64",
                                        device=device), dim=1)
    target = tinyffn.tensor(rng.integers(0, 3, size=(2, 2, 2)), device=device)
    with pytest.warns(FutureWarning, match="NLLLoss2d` has been deprecated"):
        loss = nn.NLLLoss2d()
    a, t = logp.numpy(), target.numpy()
    picked = np.take_along_axis(a, t[:, None], axis=1)[:, 0]    # (N, H, W): log p[target]
    np.testing.assert_allclose(loss(logp, target).item(), -picked.mean(), rtol=1e-14)
    with pytest.warns(FutureWarning):
        weighted = nn.NLLLoss2d(tinyffn.tensor([1.0, 2.0, 0.5], dtype="float64", device=device),
                                ignore_index=1, reduction="sum")
    w = np.array([1.0, 2.0, 0.5])[t] * (t != 1)
    np.testing.assert_allclose(weighted(logp, target).item(), -(w * picked).sum(), rtol=1e-14)
    with pytest.warns(FutureWarning):
        each = nn.NLLLoss2d(reduction="none")(logp, target)
    np.testing.assert_allclose(each.numpy(), -picked, rtol=1e-14)
    with pytest.warns(FutureWarning), pytest.raises(TypeError, match="deprecated arguments"):
        nn.NLLLoss2d(size_average=True)


def test_live_against_torch():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(2, 3, 3, 3))
    t = rng.integers(0, 3, size=(2, 3, 3))
    x, tx = tinyffn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ours = nn.NLLLoss2d(ignore_index=2)(F.log_softmax(x, dim=1), tinyffn.tensor(t))
        theirs = torch.nn.NLLLoss2d(ignore_index=2)(torch.log_softmax(tx, 1), torch.tensor(t))
    ours.backward()
    theirs.backward()
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-16)
    g = rng.normal(size=a.shape)
    x, tx = tinyffn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (nn.Softmax2d()(x) * tinyffn.tensor(g)).sum().backward()
    (torch.nn.Softmax2d()(tx) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-16)
    for name, kwargs in (("upsample", {"scale_factor": 2, "mode": "bicubic"}),
                         ("upsample_bilinear", {"scale_factor": 2})):
        with pytest.warns(UserWarning) as ours_w:
            ours = getattr(F, name)(tinyffn.tensor(a), **kwargs)
        with pytest.warns(UserWarning) as theirs_w:
            theirs = getattr(torch.nn.functional, name)(torch.tensor(a), **kwargs)
        assert str(ours_w[0].message) == str(theirs_w[0].message)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)
