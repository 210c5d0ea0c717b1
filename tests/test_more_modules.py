"""nn.Unflatten, nn.CosineSimilarity, nn.PairwiseDistance (tinyffn/more_modules.py):
ported notebooks hit AttributeError on them. Each against its function (itself tested
against torch in test_distances.py / test_torch_names.py), formulas written out in
NumPy, torch live where installed (values, gradients, reprs), gradcheck, errors."""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn


def test_unflatten_splits_an_axis_and_flatten_undoes_it(device):
    v = np.arange(24.0).reshape(2, 12)
    x = tinyffn.tensor(v, device=device)
    y = nn.Unflatten(1, (3, 4))(x)
    np.testing.assert_array_equal(y.numpy(), v.reshape(2, 3, 4))
    assert nn.Unflatten(-1, [2, -1])(x).shape == (2, 2, 6)
    np.testing.assert_array_equal(nn.Flatten()(y).numpy(), v)
    seq = nn.Sequential(nn.Linear(4, 6), nn.Unflatten(1, (2, 3))).to(device)
    assert seq(tinyffn.randn(5, 4, device=device)).shape == (5, 2, 3)


def test_cosine_similarity_and_pairwise_distance_written_out(device):
    a = np.array([[1.0, 0.0, 2.0], [3.0, -1.0, 0.5]])
    b = np.array([[2.0, 1.0, 0.0], [-1.0, 4.0, 2.0]])
    x1, x2 = (tinyffn.tensor(v, dtype="float64", device=device) for v in (a, b))
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(nn.CosineSimilarity(dim=1)(x1, x2).numpy(), cos, rtol=1e-15)
    cos0 = (a * b).sum(0) / (np.linalg.norm(a, axis=0) * np.linalg.norm(b, axis=0))
    np.testing.assert_allclose(nn.CosineSimilarity(dim=0)(x1, x2).numpy(), cos0, rtol=1e-15)
    d2 = np.linalg.norm(a - b + 1e-6, axis=1)                        # PyTorch adds eps
    np.testing.assert_allclose(nn.PairwiseDistance()(x1, x2).numpy(), d2, rtol=1e-15)
    d1 = np.abs(a - b + 1e-3).sum(1, keepdims=True)
    np.testing.assert_allclose(nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True)(x1, x2).numpy(),
                               d1, rtol=1e-15)


def test_gradcheck(device):
    x1, x2 = (tinyffn.tensor(np.random.default_rng(i).normal(size=(3, 4)), dtype="float64",
                             device=device, requires_grad=True) for i in (0, 1))
    assert tinyffn.gradcheck(nn.CosineSimilarity(dim=1), [x1, x2])
    assert tinyffn.gradcheck(nn.PairwiseDistance(p=3.0), [x1, x2])
    assert tinyffn.gradcheck(nn.Unflatten(1, (2, 2)), [x1])


def test_against_torch_live():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    pairs = [(nn.CosineSimilarity(dim=1), torch.nn.CosineSimilarity(dim=1)),
             (nn.CosineSimilarity(dim=0, eps=1e-3), torch.nn.CosineSimilarity(dim=0, eps=1e-3)),
             (nn.PairwiseDistance(), torch.nn.PairwiseDistance()),
             (nn.PairwiseDistance(p=1.0, keepdim=True), torch.nn.PairwiseDistance(p=1.0, keepdim=True))]
    for ours, theirs in pairs:
        x1, x2 = tinyffn.tensor(a, requires_grad=True), tinyffn.tensor(b, requires_grad=True)
        t1, t2 = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        y, yt = ours(x1, x2), theirs(t1, t2)
        assert y.shape == tuple(yt.shape)
        np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=1e-14)
        y.sum().backward()
        yt.sum().backward()
        np.testing.assert_allclose(x1.grad.numpy(), t1.grad.numpy(), rtol=1e-12, atol=1e-15)
        assert repr(ours) == repr(theirs)
    assert repr(nn.Unflatten(1, (2, 4))) == repr(torch.nn.Unflatten(1, (2, 4)))
    assert repr(nn.Unflatten(1, [2, 4])) == repr(torch.nn.Unflatten(1, [2, 4]))
    m = torch.nn.PairwiseDistance(p=1.5, eps=0.1, keepdim=True)
    ours = nn.PairwiseDistance(p=1.5, eps=0.1, keepdim=True)
    assert (ours.norm, ours.eps, ours.keepdim) == (m.norm, m.eps, m.keepdim)


def test_reprs_written_out():
    assert repr(nn.Unflatten(1, (2, 4))) == "Unflatten(dim=1, unflattened_size=(2, 4))"
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()"
    assert repr(nn.PairwiseDistance()) == "PairwiseDistance()"


@pytest.mark.parametrize("make, words", [
    (lambda: nn.Unflatten(1, 5), "unflattened_size must be a tuple or list of ints"),
    (lambda: nn.Unflatten(1.0, (2, 3)), "dim must be an int"),
    (lambda: nn.Unflatten(1, (2, 2.5)), "unflattened_size must be a tuple or list of ints"),
])
def test_bad_arguments_are_refused(make, words):
    with pytest.raises(TypeError, match=words):
        make()
