"""Class weights in cross_entropy and nll_loss (tinyffn/losses.py), and in
nn.CrossEntropyLoss and nn.NLLLoss, as PyTorch's ``weight``.

References: a NumPy formula written from PyTorch's definition (row n counts w[t_n] times;
"mean" divides by Σ w[t_n] over the rows kept; label smoothing spreads ε/C Σ_c w[c]
(-log p[c])), and PyTorch itself where installed, with ignore_index and label_smoothing,
every reduction, values and gradients.
"""
import itertools

import numpy as np
import pytest

import tinyffn
import tinyffn.nn.functional as F
from numpy_reference import log_softmax

LOGITS = np.array([[1.0, 2.0, 0.5, -1.0], [0.0, -0.5, 3.0, 1.0], [2.0, 2.0, -2.0, 0.0],
                   [0.3, -1.2, 0.7, 2.2], [-0.4, 0.1, 0.0, 1.5]])
TARGETS = [1, 3, 0, 3, 2]
W = np.array([0.3, 1.5, 2.0, 0.7])
OPTIONS = list(itertools.product(["mean", "sum", "none"], [-100, 3], [0.0, 0.2]))


def numpy_weighted(logits, targets, w, reduction, ignore_index=-100, eps=0.0):
    """PyTorch's weighted, smoothed cross-entropy, row by row in NumPy."""
    logp = log_softmax(np.asarray(logits, dtype=np.float64))
    t = np.asarray(targets)
    kept = t != ignore_index
    tk = np.where(kept, t, 0)
    w_t = w[tk] * kept
    rows = (1 - eps) * -w_t * logp[np.arange(len(t)), tk] + eps / logp.shape[-1] * \
        -(logp * w).sum(-1) * kept
    return {"none": rows, "sum": rows.sum(), "mean": rows.sum() / w_t.sum()}[reduction]


@pytest.mark.parametrize("reduction, ignore_index, eps", OPTIONS)
def test_weighted_cross_entropy_matches_the_formula(reduction, ignore_index, eps, device):
    y = F.cross_entropy(tinyffn.tensor(LOGITS, dtype="float64", device=device), TARGETS,
                        reduction, weight=W.tolist(), ignore_index=ignore_index,
                        label_smoothing=eps)
    np.testing.assert_allclose(y.numpy(), numpy_weighted(LOGITS, TARGETS, W, reduction,
                                                         ignore_index, eps), rtol=1e-13)


@pytest.mark.parametrize("reduction, ignore_index, eps", OPTIONS)
def test_weighted_cross_entropy_values_and_gradients_are_pytorchs(reduction, ignore_index, eps):
    torch = pytest.importorskip("torch")
    x = tinyffn.tensor(LOGITS, dtype="float64", requires_grad=True)
    xt = torch.tensor(LOGITS, requires_grad=True)
    y = F.cross_entropy(x, tinyffn.tensor(TARGETS), reduction, weight=tinyffn.tensor(W),
                        ignore_index=ignore_index, label_smoothing=eps)
    yt = torch.nn.functional.cross_entropy(xt, torch.tensor(TARGETS), torch.tensor(W),
                                           ignore_index=ignore_index, reduction=reduction,
                                           label_smoothing=eps)
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=1e-13)
    gy = np.arange(1.0, y.numel() + 1).reshape(y.shape)
    y.backward(tinyffn.tensor(gy, dtype="float64"))
    yt.backward(torch.tensor(gy))
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_weighted_nll_loss_and_the_modules_are_pytorchs():
    torch = pytest.importorskip("torch")
    logp = log_softmax(LOGITS)
    got = [F.nll_loss(tinyffn.tensor(logp), TARGETS, weight=tinyffn.tensor(W)),
           tinyffn.nn.NLLLoss("sum", weight=tinyffn.tensor(W))(tinyffn.tensor(logp), TARGETS),
           tinyffn.nn.CrossEntropyLoss(weight=tinyffn.tensor(W), label_smoothing=0.1,
                                       ignore_index=0)(tinyffn.tensor(LOGITS), TARGETS)]
    t, w = torch.tensor(TARGETS), torch.tensor(W)
    want = [torch.nn.functional.nll_loss(torch.tensor(logp), t, w),
            torch.nn.NLLLoss(w, reduction="sum")(torch.tensor(logp), t),
            torch.nn.CrossEntropyLoss(w, label_smoothing=0.1, ignore_index=0)(
                torch.tensor(LOGITS), t)]
    for a, b in zip(got, want):
        assert a.item() == pytest.approx(b.item(), rel=1e-13)


def test_weights_over_leading_axes_and_as_a_buffer(device):
    """(B, T, C) logits with (B, T) targets, as the unweighted loss; the module's weight is
    a buffer (state_dict, to())."""
    x = tinyffn.tensor(LOGITS[:4].reshape(2, 2, 4), dtype="float64", device=device)
    y = F.cross_entropy(x, tinyffn.tensor([[1, 3], [0, 3]], device=device),
                        weight=tinyffn.tensor(W, device=device))
    assert y.item() == pytest.approx(numpy_weighted(LOGITS[:4], TARGETS[:4], W, "mean"), rel=1e-13)
    m = tinyffn.nn.CrossEntropyLoss(weight=tinyffn.tensor(W))
    assert list(m.state_dict()) == ["weight"]
    assert m.to(device)(x, tinyffn.tensor([[1, 3], [0, 3]], device=device)).item() == \
        pytest.approx(y.item(), rel=1e-13)


def test_gradcheck_with_weights_smoothing_and_an_ignored_row(device):
    x = tinyffn.tensor(LOGITS, dtype="float64", device=device, requires_grad=True)
    w = tinyffn.tensor(W, dtype="float64", device=device)
    assert tinyffn.gradcheck(lambda x: F.cross_entropy(
        x, TARGETS, weight=w, ignore_index=0, label_smoothing=0.3), [x])
    assert tinyffn.gradcheck(lambda x: F.nll_loss(x.log_softmax(-1), TARGETS, "none",
                                                  weight=w), [x])


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_a_weight_that_requires_grad_is_refused_as_in_pytorch(loss, device):
    """A constant, as PyTorch's, which raises "not differentiable with respect to argument
    'weight'": taking it in silence would leave w.grad None without a word. Detached, or
    under no_grad, it is taken."""
    w = tinyffn.tensor(W, dtype="float64", device=device, requires_grad=True)
    x = tinyffn.tensor(LOGITS, dtype="float64", device=device, requires_grad=True)
    with pytest.raises(ValueError, match=rf"^{loss}: weight requires grad, .*weight\.detach\(\)"):
        getattr(F, loss)(x, TARGETS, weight=w)
    getattr(F, loss)(x, TARGETS, weight=w.detach()).backward()
    assert w.grad is None and x.grad is not None
    with tinyffn.no_grad():
        assert getattr(F, loss)(x, TARGETS, weight=w).item() == pytest.approx(
            getattr(F, loss)(x, TARGETS, weight=w.detach()).item())


def test_weights_that_sum_to_zero_give_nan_as_in_pytorch(device):
    with np.errstate(all="ignore"):
        y = F.cross_entropy(tinyffn.tensor(LOGITS, device=device), TARGETS,
                            weight=[0.0, 0.0, 0.0, 0.0])
    assert np.isnan(y.item())


@pytest.mark.parametrize("weight, error, message", [
    ([1.0, 2.0, 3.0], ValueError, r"cross_entropy: weight must hold one factor per class, "
                                  r"shape \(4,\) for logits of shape \(5, 4\), got shape \(3,\)"),
    ([[1.0, 2.0, 3.0, 4.0]], ValueError, r"shape \(4,\) .* got shape \(1, 4\)"),
    (np.array([1, 2, 3, 4]), TypeError, r"cross_entropy: weight must be floating point, got "
                                        r"int64; cast it with weight\.float\(\)"),
    ("sum", TypeError, r"cross_entropy: weight must be a Tensor of 4 class weights, got 'sum'"),
])
def test_weight_errors(weight, error, message):
    if isinstance(weight, np.ndarray):
        weight = tinyffn.tensor(weight)
    with pytest.raises(error, match=message):
        F.cross_entropy(tinyffn.tensor(LOGITS), TARGETS, weight=weight)


def test_weight_on_another_device_is_refused():
    x = tinyffn.tensor(LOGITS, device="strict")
    with pytest.raises(tinyffn.DeviceError, match=r"nll_loss: weight is on cpu but log_probs "
                                                  r"on strict"):
        F.nll_loss(x, TARGETS, weight=tinyffn.tensor(W))


def test_a_weight_passed_where_pytorch_puts_it_says_to_name_it():
    for call in (lambda: tinyffn.nn.CrossEntropyLoss(tinyffn.tensor(W)),
                 lambda: tinyffn.nn.NLLLoss(tinyffn.tensor(W)),
                 lambda: F.cross_entropy(tinyffn.tensor(LOGITS), TARGETS, tinyffn.tensor(W))):
        with pytest.raises(TypeError, match=r"class weights .* go by name here, weight="):
            call()
    with pytest.raises(TypeError, match=r"CrossEntropyLoss: weight must be a Tensor or None"):
        tinyffn.nn.CrossEntropyLoss(weight=[1.0, 2.0])
