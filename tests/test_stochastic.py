"""F.gumbel_softmax, F.alpha_dropout, F.feature_alpha_dropout and nn.AlphaDropout,
nn.FeatureAlphaDropout (tinyffn/stochastic.py): the formulas against the noise drawn again
from the same seed (on every device), the straight-through gradient, the statistics that
define the distributions (the Gumbel-max trick; alpha dropout's mean 0 and variance 1),
gradcheck with the noise fixed, and the errors and warnings PyTorch gives.
"""

import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn

ALPHA = 1.7580993408473766
LOGITS = [[0.5, -1.0, 2.0, 0.0], [1.0, 1.0, -3.0, 0.25]]


def _softmax(z, axis):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_is_softmax_of_logits_plus_gumbel_noise(dim, device):
    logits = tinyffn.tensor(LOGITS, dtype="float64", device=device)
    tinyffn.manual_seed(7)
    u = tinyffn.rand(2, 4, dtype="float64").numpy()                 # the draw it makes
    tinyffn.manual_seed(7)
    y = F.gumbel_softmax(logits, tau=0.5, dim=dim)
    want = _softmax((np.array(LOGITS) - np.log(-np.log(u))) / 0.5, dim)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12)
    tinyffn.manual_seed(7)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True, dim=dim)
    np.testing.assert_array_equal(hard.numpy(), np.eye(4)[want.argmax(1)] if dim == -1
                                  else np.eye(2)[want.argmax(0)].T)


def test_hard_gumbel_softmax_has_the_soft_samples_gradient():
    """Straight-through: y_hard - y_soft.detach() + y_soft, so dL/dlogits is the soft
    sample's: softmax's Jacobian applied to gy, over tau."""
    gy = np.array([[0.3, -1.0, 2.0, 0.5], [1.0, 0.1, -0.2, 0.7]])
    grads = []
    for hard in (True, False):
        logits = tinyffn.tensor(LOGITS, dtype="float64", requires_grad=True)
        tinyffn.manual_seed(1)
        (F.gumbel_softmax(logits, tau=2.0, hard=hard) * tinyffn.tensor(gy)).sum().backward()
        grads.append(logits.grad.numpy())
    tinyffn.manual_seed(1)
    u = tinyffn.rand(2, 4, dtype="float64").numpy()
    s = _softmax((np.array(LOGITS) - np.log(-np.log(u))) / 2.0, 1)
    want = s * (gy - (gy * s).sum(1, keepdims=True)) / 2.0
    np.testing.assert_allclose(grads[0], want, rtol=1e-12)
    np.testing.assert_allclose(grads[1], want, rtol=1e-12)


def test_gumbel_max_trick_samples_softmax():
    """argmax of a hard sample is distributed as softmax(logits): 20,000 rows, each class's
    frequency within 4 standard errors."""
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    logits = tinyffn.tensor(np.tile(np.log(probs), (20000, 1)))
    counts = F.gumbel_softmax(logits, tau=0.3, hard=True).numpy().sum(0)
    assert counts.sum() == 20000
    se = np.sqrt(probs * (1 - probs) / 20000)
    assert (np.abs(counts / 20000 - probs) < 4 * se).all(), counts


def test_gumbel_softmax_is_gradchecked_with_its_noise_fixed():
    logits = tinyffn.tensor(LOGITS, dtype="float64", requires_grad=True)

    def f(z):
        tinyffn.manual_seed(2)
        return F.gumbel_softmax(z, tau=0.7)
    assert tinyffn.gradcheck(f, [logits])


def test_gumbel_softmax_matches_torch_in_distribution_and_warns_as_it():
    torch = pytest.importorskip("torch")
    x = torch.tensor(LOGITS)
    assert F.gumbel_softmax(tinyffn.tensor(LOGITS)).shape == tuple(
        torch.nn.functional.gumbel_softmax(x).shape)
    with pytest.warns(UserWarning, match=r"`eps` parameter is deprecated and has no effect"):
        F.gumbel_softmax(tinyffn.tensor(LOGITS), eps=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # eps=1e-10, the default spelled out: silent
        F.gumbel_softmax(tinyffn.tensor(LOGITS), eps=1e-10)
    with pytest.raises(ValueError, match=r"gumbel_softmax: tau must be a finite number > 0"):
        F.gumbel_softmax(tinyffn.tensor(LOGITS), tau=0)


# ----------------------------------------------------------------------------- alpha dropout
@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_is_the_affine_map_of_its_mask(feature, device):
    p = 0.3
    x = tinyffn.tensor(np.linspace(-2, 2, 24).reshape(2, 3, 4), dtype="float64", device=device)
    tinyffn.manual_seed(4)
    keep = tinyffn.rand(*((2, 3, 1) if feature else (2, 3, 4)), dtype="float64").numpy() >= p
    tinyffn.manual_seed(4)
    y = (F.feature_alpha_dropout if feature else F.alpha_dropout)(x, p, training=True)
    a = ((ALPHA ** 2 * p + 1) * (1 - p)) ** -0.5
    want = np.where(keep, a * x.numpy() + a * ALPHA * p, -a * ALPHA * (1 - p))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-13, atol=1e-15)


def test_feature_alpha_dropout_of_a_2d_input_draws_per_entry_in_one_frame():
    """(N, C) is enough for feature dropout: each x[n, c] is a channel of one value."""
    p, x = 0.3, tinyffn.tensor(np.linspace(-2, 2, 12).reshape(4, 3), requires_grad=True)
    tinyffn.manual_seed(4)
    keep = tinyffn.rand(4, 3, dtype="float64").numpy() >= p
    tinyffn.manual_seed(4)
    y = F.feature_alpha_dropout(x, p, training=True)
    a = ((ALPHA ** 2 * p + 1) * (1 - p)) ** -0.5
    want = np.where(keep, a * x.numpy() + a * ALPHA * p, -a * ALPHA * (1 - p))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-13, atol=1e-15)
    assert 'label="feature_alpha_dropout"' in tinyffn.to_dot(y)


def test_alpha_dropout_keeps_mean_zero_and_variance_one():
    x = tinyffn.randn(200000, dtype="float64")
    for p in (0.1, 0.5):
        y = F.alpha_dropout(x, p, training=True).numpy()
        assert abs(y.mean()) < 0.01 and abs(y.var() - 1) < 0.015, (p, y.mean(), y.var())


def test_alpha_dropout_gradient_is_the_scale_where_kept():
    x = tinyffn.randn(50, dtype="float64", requires_grad=True)
    y = F.alpha_dropout(x, 0.4, training=True)
    y.sum().backward()
    a = ((ALPHA ** 2 * 0.4 + 1) * 0.6) ** -0.5
    kept = ~np.isclose(y.numpy(), -a * ALPHA * 0.6)
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, a, 0.0), rtol=1e-15)
    assert 0 < kept.sum() < 50


def test_alpha_dropout_edges_and_modules():
    x = tinyffn.randn(3, 4)
    assert F.alpha_dropout(x, 0.5) is x                     # training=False, the default
    assert F.alpha_dropout(x, 0.0, True) is x
    assert F.alpha_dropout(x, 1.0, True).tolist() == [[0.0] * 4] * 3
    m = nn.AlphaDropout(0.2)
    assert repr(m) == "AlphaDropout(p=0.2, inplace=False)"
    assert m(x) is not x and m.eval()(x) is x
    assert repr(nn.FeatureAlphaDropout()) == "FeatureAlphaDropout(p=0.5, inplace=False)"
    y = nn.FeatureAlphaDropout(0.5)(tinyffn.randn(8, 6, 5)).numpy()
    assert all(len(set(row.round(6))) == 1 or len(set(row.round(6))) == 5
               for row in y.reshape(48, 5))             # a channel is dropped whole or kept
    # PyTorch checks feature dropout's (N, C, *) only where it draws: a 1-D input passes
    # through in eval mode (and at p = 0), and p = 1 zeroes it (torch 2.13, checked)
    v = tinyffn.randn(3)
    assert nn.FeatureAlphaDropout(0.5).eval()(v) is v
    assert F.feature_alpha_dropout(v, 0.0, True) is v
    assert F.feature_alpha_dropout(v, 1.0, True).tolist() == [0.0] * 3


ERRORS = [
    (lambda: F.alpha_dropout(tinyffn.randn(3), 1.5, True), ValueError, r"alpha_dropout: the probability p must be a number in \[0, 1\]"),
    (lambda: F.feature_alpha_dropout(tinyffn.randn(5), 0.5, True), ValueError,
     r"feature_alpha_dropout: input of shape \(5,\): feature dropout requires at least 2 "
     r"dimensions"),
    (lambda: F.alpha_dropout(tinyffn.tensor([1, 2]), 0.5, True), TypeError,
     r"alpha_dropout: input has dtype int64"),
    (lambda: F.alpha_dropout(tinyffn.randn(3), 0.5, True, inplace=True), ValueError,
     r"alpha_dropout: inplace=True is not supported"),
    (lambda: nn.AlphaDropout(-0.1), ValueError, r"AlphaDropout: the probability p must be"),
    (lambda: F.gumbel_softmax(tinyffn.randn(3), dim=1), ValueError,
     r"gumbel_softmax: axis 1 is out of range for an input of shape \(3,\)"),
    (lambda: F.gumbel_softmax(tinyffn.tensor([1, 2])), TypeError,
     r"gumbel_softmax: logits have dtype int64"),
    (lambda: F.gumbel_softmax(tinyffn.randn(3), tau=float("inf")), ValueError,
     r"gumbel_softmax: tau must be a finite number > 0 \(the temperature\), got inf"),
    (lambda: F.gumbel_softmax(tinyffn.randn(3), hard="yes"), TypeError,
     r"gumbel_softmax: hard must be True or False, got 'yes'"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
