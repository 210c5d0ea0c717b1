"""cross_entropy with class probabilities as targets (floating point), as PyTorch's since
1.10: L_n = -Σ_c w_c y_nc log softmax(x_n)_c, y smoothed to (1 - ε) y + ε/C first, "mean"
over the rows (tinyffn/losses.py).

References: the formula in NumPy, one row at a time; finite differences (gradcheck), for
the logits and the targets; PyTorch itself where installed.
"""
import itertools

import numpy as np
import pytest

import tinyffn
import tinyffn.nn.functional as F

RNG = np.random.default_rng(7)
LOGITS = RNG.normal(size=(5, 4)) * 2
PROBS = RNG.dirichlet(np.ones(4), size=5)
W = np.array([0.3, 1.5, 2.0, 0.7])
OPTIONS = list(itertools.product(["mean", "sum", "none"], [None, W], [0.0, 0.2]))


def numpy_soft(logits, probs, reduction, w=None, eps=0.0):
    """PyTorch's definition, row by row: no vectorised trick shared with the code."""
    rows = []
    for x, y in zip(np.atleast_2d(logits), np.atleast_2d(probs)):
        logp = x - x.max() - np.log(np.sum(np.exp(x - x.max())))
        y = (1 - eps) * y + eps / len(x)
        rows.append(-sum((1.0 if w is None else w[c]) * y[c] * logp[c] for c in range(len(x))))
    rows = np.array(rows).reshape(np.shape(logits)[:-1])
    return {"none": rows, "sum": rows.sum(), "mean": rows.mean()}[reduction]


@pytest.mark.parametrize("reduction, w, eps", OPTIONS)
def test_probability_targets_match_the_formula(reduction, w, eps, device):
    x = tinyffn.tensor(LOGITS, dtype="float64", device=device)
    weight = None if w is None else tinyffn.tensor(w, dtype="float64", device=device)
    y = F.cross_entropy(x, tinyffn.tensor(PROBS, device=device), reduction, weight=weight,
                        label_smoothing=eps)
    np.testing.assert_allclose(y.numpy(), numpy_soft(LOGITS, PROBS, reduction, w, eps),
                               rtol=1e-13)


def test_one_hot_probabilities_give_the_class_index_loss_and_gradient(device):
    """y = onehot(t) is the same target said two ways; "mean" divides by the rows in
    both (without weights: with them the index form divides by Σ w[t_n] instead)."""
    t = [1, 3, 0, 3, 2]
    onehot = np.eye(4)[t]
    grads = []
    for target in (t, onehot):
        x = tinyffn.tensor(LOGITS, dtype="float64", device=device, requires_grad=True)
        F.cross_entropy(x, target, label_smoothing=0.1).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-13, atol=1e-16)


def test_gradcheck_through_logits_and_targets(device):
    x = tinyffn.tensor(LOGITS, dtype="float64", device=device, requires_grad=True)
    p = tinyffn.tensor(PROBS, dtype="float64", device=device, requires_grad=True)
    w = tinyffn.tensor(W, dtype="float64", device=device)
    assert tinyffn.gradcheck(lambda x, p: F.cross_entropy(x, p, weight=w, label_smoothing=0.3),
                             [x, p])
    assert tinyffn.gradcheck(lambda x, p: F.cross_entropy(x, p, "none"), [x, p])


def test_unbatched_logits_a_list_target_and_the_module(device):
    x = tinyffn.tensor(LOGITS[0], dtype="float32", device=device)
    y = F.cross_entropy(x, PROBS[0].tolist())           # a list: taken in the logits' dtype
    assert y.shape == () and y.dtype == x.dtype
    assert y.item() == pytest.approx(numpy_soft(LOGITS[0], PROBS[0], "mean"), rel=1e-6)
    m = tinyffn.nn.CrossEntropyLoss(weight=tinyffn.tensor(W, device=device), reduction="sum")
    got = m(tinyffn.tensor(LOGITS, device=device), tinyffn.tensor(PROBS, device=device))
    assert got.item() == pytest.approx(numpy_soft(LOGITS, PROBS, "sum", W), rel=1e-13)


def test_what_probability_targets_refuse(device):
    x = tinyffn.tensor(LOGITS, device=device)
    with pytest.raises(ValueError, match=r"cross_entropy: floating-point targets are class "
                                         r"probabilities, one row per row of logits, so of "
                                         r"shape \(5, 4\); got \(5, 3\)$"):
        F.cross_entropy(x, tinyffn.tensor(PROBS[:, :3], device=device))
    with pytest.raises(TypeError, match=r"probability targets are float32 but logits float64; "
                                        r"cast them: targets.to\(logits.dtype\)"):
        F.cross_entropy(x, tinyffn.tensor(PROBS, dtype="float32", device=device))
    with pytest.raises(ValueError, match=r"ignore_index=0 picks rows by class index, but these "
                                         r"targets are probabilities"):
        F.cross_entropy(x, tinyffn.tensor(PROBS, device=device), ignore_index=0)
    three = tinyffn.zeros(2, 4, 3, device=device, dtype="float64")
    with pytest.raises(ValueError, match=r"shape \(2, 4, 3\) fit two layouts: PyTorch's, "
                                         r"classes on axis 1.*x.permute\(0, 2, 1\)"
                                         r".reshape\(-1, 3\) of both, for tinyffn's, "
                                         r"x.reshape\(-1, 3\)"):
        F.cross_entropy(three, three)


def test_probability_targets_on_another_device_are_refused():
    x = tinyffn.tensor(LOGITS)
    with pytest.raises(tinyffn.DeviceError, match=r"cross_entropy: targets are on strict but "
                                                  r"logits on cpu"):
        F.cross_entropy(x, tinyffn.tensor(PROBS, device="strict"))


@pytest.mark.parametrize("reduction, w, eps", OPTIONS)
def test_probability_targets_match_pytorch(reduction, w, eps):
    torch = pytest.importorskip("torch")
    x, p = tinyffn.tensor(LOGITS, requires_grad=True), tinyffn.tensor(PROBS, requires_grad=True)
    tx = torch.tensor(LOGITS, requires_grad=True)
    tp = torch.tensor(PROBS, requires_grad=True)
    kw = {} if w is None else {"weight": W}
    ours = F.cross_entropy(x, p, reduction, label_smoothing=eps,
                           **{k: tinyffn.tensor(v) for k, v in kw.items()})
    theirs = torch.nn.functional.cross_entropy(tx, tp, reduction=reduction, label_smoothing=eps,
                                               **{k: torch.tensor(v) for k, v in kw.items()})
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-13)
    ours.sum().backward(), theirs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_ignore_index_with_probability_targets_is_refused_as_pytorch_refuses_it():
    """The message says PyTorch refuses it too: so it must (torch 2.13: "ignore_index is
    not supported for floating point target"); its default, -100, passes in both."""
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point"):
        torch.nn.functional.cross_entropy(torch.tensor(LOGITS), torch.tensor(PROBS),
                                          ignore_index=0)
    with pytest.raises(ValueError, match=r"ignore_index=0 .* probabilities \(floating point\), "
                                         r"for which PyTorch refuses it too"):
        F.cross_entropy(tinyffn.tensor(LOGITS), tinyffn.tensor(PROBS), ignore_index=0)
    theirs = torch.nn.functional.cross_entropy(torch.tensor(LOGITS), torch.tensor(PROBS),
                                               ignore_index=-100)
    ours = F.cross_entropy(tinyffn.tensor(LOGITS), tinyffn.tensor(PROBS), ignore_index=-100)
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-13)


def test_integer_one_hot_targets_are_told_to_be_floats(device):
    """F.one_hot gives int64 rows; as class probabilities they must be floating point (as
    PyTorch: "Expected floating point type for target with class probabilities")."""
    x = tinyffn.tensor(LOGITS, device=device)
    one_hot = F.one_hot(tinyffn.tensor([0, 3, 1, 1, 2], device=device), 4)
    with pytest.raises(ValueError, match=r"need targets of shape \(5,\) .* got \(5, 4\); for "
                                         r"class probabilities \(one-hot rows\) pass floating "
                                         r"point: targets.float\(\)$"):
        F.cross_entropy(x, one_hot)
    assert F.cross_entropy(x, one_hot.double()).item() == pytest.approx(
        numpy_soft(LOGITS, np.eye(4)[[0, 3, 1, 1, 2]], "mean"), rel=1e-13)
