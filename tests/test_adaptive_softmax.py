"""nn.AdaptiveLogSoftmaxWithLoss (tinyffn/adaptive_softmax.py): a distribution over all
classes (log_prob's probabilities add up to 1), forward's output is log_prob at the
target, each tail runs on its cluster's rows only, gradcheck on every device, a small
model that learns; PyTorch live where installed (repr, state_dict, output, loss, every
gradient, log_prob, predict, unbatched input); the errors.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn


def _model(device="cpu", dtype="float64", **kwargs):
    tinyffn.manual_seed(0)
    return nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, device=device,
                                         dtype=dtype, **kwargs)


X = np.random.default_rng(0).standard_normal((7, 8))
T = np.array([0, 4, 9, 2, 7, 3, 5])         # the shortlist, and both clusters


def test_a_distribution_over_all_classes_and_forward_reads_it_at_the_target(device):
    m = _model(device)
    x, t = tinyffn.tensor(X, device=device), tinyffn.tensor(T, device=device)
    logp = m.log_prob(x).numpy()
    assert logp.shape == (7, 10)
    np.testing.assert_allclose(np.exp(logp).sum(axis=1), 1.0, rtol=1e-14)
    out = m(x, t)
    np.testing.assert_allclose(out.output.numpy(), logp[np.arange(7), T], rtol=1e-13)
    np.testing.assert_allclose(out.loss.item(), -logp[np.arange(7), T].mean(), rtol=1e-13)
    assert m.predict(x).tolist() == logp.argmax(axis=1).tolist()
    one = m(x[2], t[2])
    assert one.output.shape == () and abs(one.output.item() - logp[2, 9]) < 1e-13


def test_each_tail_runs_on_its_clusters_rows_only():
    m = _model()
    seen = []
    for tail in m.tail:
        tail.register_forward_hook(lambda mod, inp, out: seen.append(inp[0].shape[0]))
    m(tinyffn.tensor(X), tinyffn.tensor(T))
    assert seen == [3, 2]           # targets 4, 3, 5 in [3, 6); 9, 7 in [6, 10)
    seen.clear()
    m(tinyffn.tensor(X[:1]), tinyffn.tensor(T[:1]))
    assert seen == []               # a shortlist target: no tail runs


def test_gradcheck(device):
    """Through the input, and through every parameter (the module called with each
    parameter swapped for a gradchecked tensor, tinyffn.func.functional_call)."""
    tinyffn.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 6], div_value=2.0, device=device,
                                      dtype="float64")       # 42 parameters
    x = tinyffn.tensor(X[:4, :4], device=device, requires_grad=True)
    t = tinyffn.tensor(T[:4], device=device)
    names = [name for name, _ in m.named_parameters()]
    params = [p.detach().requires_grad_(True) for p in m.parameters()]

    def loss(x, *ps):
        return tinyffn.func.functional_call(m, dict(zip(names, ps)), (x, t)).loss
    assert tinyffn.gradcheck(loss, [x, *params])


def test_a_language_model_head_learns():
    tinyffn.manual_seed(1)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10], div_value=2.0, dtype="float64")
    x = tinyffn.tensor(np.random.default_rng(1).standard_normal((40, 8)))
    t = tinyffn.tensor(np.random.default_rng(2).integers(0, 20, 40))
    opt = tinyffn.optim.Adam(m.parameters(), lr=0.05)
    first = None
    for _ in range(150):
        opt.zero_grad()
        loss = m(x, t).loss
        first = first if first is not None else loss.item()
        loss.backward()
        opt.step()
    assert loss.item() < 0.5 * first


def test_as_pytorchs():
    torch = pytest.importorskip("torch")
    ours = _model(dtype="float32", head_bias=True)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in ours.state_dict().items():
        theirs.state_dict()[key].copy_(torch.tensor(value.numpy()))
    x = X.astype("float32")
    xa, xb = tinyffn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    a, b = ours(xa, tinyffn.tensor(T)), theirs(xb, torch.tensor(T))
    np.testing.assert_allclose(a.output.detach().numpy(), b.output.detach().numpy(), rtol=1e-5)
    a.loss.backward(), b.loss.backward()
    np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-4, atol=1e-7)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-7,
                                   err_msg=name)
    np.testing.assert_allclose(ours.log_prob(tinyffn.tensor(x)).detach().numpy(),
                               theirs.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-5)
    assert ours.predict(tinyffn.tensor(x)).tolist() == theirs.predict(torch.tensor(x)).tolist()


@pytest.mark.parametrize("call, error, match", [
    ("nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])", ValueError,
     r"cutoffs must be distinct integers in increasing order, each in \[1, n_classes - 1\]"),
    ("nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10])", ValueError, "got \\[3, 10\\]"),
    ("nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])", ValueError, "cutoffs must be"),
    ("nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6])", ValueError,
     r"cluster 1's projection would have in_features // div_value\^2 = 0 units"),
    ("m(x, tinyffn.tensor([0, 10, 1, 1, 1, 1, 1]))", IndexError,
     r"targets must lie in \[0, 10\), got values in \[0, 10\]"),
    ("m(x, tinyffn.tensor([0, 1]))", ValueError, r"must be \(N, 8\) and \(N,\), N the same"),
    ("m(x, tinyffn.tensor([[0]]))", ValueError, r"input \(N, in_features\) takes a target"),
    ("m(x, tinyffn.tensor(T * 1.0))", TypeError, r"target must hold class indices"),
])
def test_errors(call, error, match):
    names = {"nn": nn, "tinyffn": tinyffn, "m": _model(), "x": tinyffn.tensor(X), "T": T}
    with pytest.raises(error, match=match):
        eval(call, {}, names)
