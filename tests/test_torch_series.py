"""gradient (tinyffn/torch_calculus.py), logspace, vander, combinations and histogram
(tinyffn/torch_series.py): names ported scripts hit AttributeError on.

References: NumPy (np.gradient, np.logspace, np.vander, np.histogram),
itertools.combinations, gradcheck, and torch live where installed (values and gradients).
"""
import itertools

import numpy as np
import pytest

import tinyffn
from tinyffn.backend import dtype_name

rng = np.random.default_rng(0)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_is_numpys(edge_order, device):
    a = rng.normal(size=(4, 5))
    coords = np.cumsum(rng.uniform(0.5, 2.0, size=5))
    f = tinyffn.tensor(a, dtype="float64", device=device)
    x = tinyffn.tensor(coords, dtype="float64", device=device)
    for got, want in (
            (tinyffn.gradient(f, edge_order=edge_order), np.gradient(a, edge_order=edge_order)),
            (tinyffn.gradient(f, spacing=[0.5, 3.0], edge_order=edge_order),
             np.gradient(a, 0.5, 3.0, edge_order=edge_order)),
            (tinyffn.gradient(f, spacing=[x], dim=1, edge_order=edge_order),
             [np.gradient(a, coords, axis=1, edge_order=edge_order)]),
            (tinyffn.gradient(f, spacing=2.0, dim=-2, edge_order=edge_order),
             [np.gradient(a, 2.0, axis=0, edge_order=edge_order)])):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-12)
    ints = tinyffn.gradient(tinyffn.tensor([1, 2, 4], device=device))[0]   # torch: float32
    assert ints.tolist() == [1.0, 1.5, 2.0] and dtype_name(ints.dtype) == "float32"
    assert tinyffn.gradient(tinyffn.tensor(3.0, device=device)) == ()      # torch's 0-d answer


def test_gradient_gradcheck():
    f = tinyffn.tensor(rng.normal(size=(3, 4)), dtype="float64", requires_grad=True)
    x = tinyffn.tensor(np.cumsum(rng.uniform(0.5, 2.0, size=4)), dtype="float64",
                       requires_grad=True)
    assert tinyffn.gradcheck(
        lambda f, x: tinyffn.gradient(f, spacing=[x], dim=1, edge_order=2)[0], (f, x))
    assert tinyffn.gradcheck(
        lambda f: tinyffn.cat(tinyffn.gradient(f, spacing=[0.7, 1.3]), 0), (f,))


@pytest.mark.parametrize("call, error, message", [
    (lambda d: tinyffn.gradient(tinyffn.ones(4, device=d), edge_order=3), ValueError,
     "edge_order must be 1 or 2"),
    (lambda d: tinyffn.gradient(tinyffn.ones(2, device=d), edge_order=2), ValueError,
     "needs at least 3"),
    (lambda d: tinyffn.gradient(tinyffn.ones(4, device=d), spacing=[1.0, 2.0]), ValueError,
     "spacing has 2 entries"),
    (lambda d: tinyffn.gradient(tinyffn.ones(4, device=d), spacing=[tinyffn.ones(3, device=d)]),
     ValueError, "one per sample"),
    (lambda d: tinyffn.gradient(tinyffn.ones(4, device=d), spacing=tinyffn.ones(4, device=d)),
     TypeError, "in a list"),
    (lambda d: tinyffn.vander(tinyffn.ones(2, 2, device=d)), ValueError, "vander: x must be 1-D"),
    (lambda d: tinyffn.vander(tinyffn.ones(2, device=d), N=-1), ValueError, "N must be"),
    (lambda d: tinyffn.combinations(tinyffn.ones(2, 2, device=d)), ValueError, "1-D"),
    (lambda d: tinyffn.combinations(tinyffn.ones(3, device=d), r=-1), ValueError, "r must be"),
    (lambda d: tinyffn.histogram(tinyffn.ones(3, dtype="int64", device=d)), TypeError,
     "floating-point"),
    (lambda d: tinyffn.histogram(tinyffn.ones(3, device=d), 3, range=(2.0, 1.0)), ValueError,
     "range's max"),
    (lambda d: tinyffn.histogram(tinyffn.ones(3, device=d), tinyffn.tensor([1.0, 0.0], device=d)),
     ValueError, "increasing"),
    (lambda d: tinyffn.histogram(tinyffn.ones(3, device=d), 2, weight=tinyffn.ones(2, device=d)),
     ValueError, "one weight per entry"),
    (lambda d: tinyffn.logspace(0, 1, -1), ValueError, "steps must be"),
])
def test_what_pytorch_refuses_is_refused_by_name(call, error, message, device):
    with pytest.raises(error, match=message):
        call(device)


def test_logspace_is_numpys(device):
    got = tinyffn.logspace(-3, 1, 9, dtype="float64", device=device)
    np.testing.assert_allclose(got.numpy(), np.logspace(-3, 1, 9), rtol=1e-15)
    got = tinyffn.logspace(0, 4, 5, base=2, device=device)
    assert got.tolist() == [1.0, 2.0, 4.0, 8.0, 16.0] and dtype_name(got.dtype) == "float32"
    assert tinyffn.logspace(0, 2, 3, dtype="int64", device=device).tolist() == [1, 10, 100]
    assert tinyffn.logspace(0, 1, 0, device=device).shape == (0,)


def test_vander_is_numpys_with_finite_gradients_at_zero(device):
    a = np.array([0.0, 1.5, -2.0, 3.0])
    x = tinyffn.tensor(a, dtype="float64", device=device)
    np.testing.assert_allclose(tinyffn.vander(x).numpy(), np.vander(a), rtol=1e-15)
    np.testing.assert_allclose(tinyffn.vander(x, N=3, increasing=True).numpy(),
                               np.vander(a, 3, increasing=True), rtol=1e-15)
    i = tinyffn.vander(tinyffn.tensor([1, 2, 3], dtype="int32", device=device))
    assert i.tolist() == np.vander([1, 2, 3]).tolist() and dtype_name(i.dtype) == "int64"
    assert tinyffn.vander(x, N=0).shape == (4, 0)
    w = tinyffn.tensor(a, dtype="float64", requires_grad=True)
    tinyffn.vander(w, N=4).sum().backward()         # d/dx (x³ + x² + x + 1) = 3x² + 2x + 1
    np.testing.assert_allclose(w.grad.numpy(), 3 * a ** 2 + 2 * a + 1, rtol=1e-14)
    assert tinyffn.gradcheck(lambda w: tinyffn.vander(w, N=4), (w,))


def test_combinations_are_itertools(device):
    a = [3.0, 1.0, 4.0, 1.5]
    x = tinyffn.tensor(a, dtype="float64", device=device)
    for r, repl in ((2, False), (3, False), (2, True), (5, False)):
        pick = itertools.combinations_with_replacement if repl else itertools.combinations
        want = [list(c) for c in pick(a, r)]
        got = tinyffn.combinations(x, r, with_replacement=repl)
        assert got.tolist() == want and got.shape == (len(want), r)
    assert tinyffn.combinations(x, 0).shape == (0,)
    w = tinyffn.tensor(a, dtype="float64", requires_grad=True)
    (tinyffn.combinations(w) * tinyffn.tensor([[1.0, 10.0]], dtype="float64")).sum().backward()
    # entry k is first in 3 − k pairs, second in k: grad_k = (3 − k) · 1 + k · 10
    assert w.grad.tolist() == [3.0, 12.0, 21.0, 30.0]


def test_histogram_is_numpys(device):
    a = rng.normal(size=50)
    x = tinyffn.tensor(a, dtype="float64", device=device)
    wt = rng.uniform(size=50)
    for kwargs, np_kwargs in (({}, {}), ({"range": (-1.0, 1.0)}, {"range": (-1.0, 1.0)}),
                              ({"weight": tinyffn.tensor(wt, device=device), "density": True},
                               {"weights": wt, "density": True})):
        hist, edges = tinyffn.histogram(x, 7, **kwargs)
        want_hist, want_edges = np.histogram(a, 7, **np_kwargs)
        np.testing.assert_allclose(hist.numpy(), want_hist, rtol=1e-13)
        np.testing.assert_allclose(edges.numpy(), want_edges, rtol=1e-13)
    cut = np.array([-3.0, -0.5, 0.0, 0.2, 3.0])
    r = tinyffn.histogram(x, tinyffn.tensor(cut, device=device))
    np.testing.assert_array_equal(r.hist.numpy(), np.histogram(a, cut)[0])
    small = tinyffn.histogram(tinyffn.tensor([1.0, 2.0, 1.0], device=device), 4, range=(0, 3))
    assert small.hist.tolist() == [0.0, 2.0, 1.0, 0.0]          # torch 2.13's, written out
    assert small.bin_edges.tolist() == [0.0, 0.75, 1.5, 2.25, 3.0]
    assert dtype_name(small.hist.dtype) == "float32"
    same = tinyffn.histogram(tinyffn.tensor([3.0, 3.0], device=device), 2)
    assert same.hist.tolist() == [0.0, 2.0] and same.bin_edges.tolist() == [2.5, 3.0, 3.5]


def test_live_against_torch():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(4, 5))
    coords = np.cumsum(rng.uniform(0.5, 2.0, size=5))
    weights = rng.normal(size=(4, 5))
    for kwargs in ({}, {"edge_order": 2, "spacing": [0.5, 2.0]}, {"dim": 1, "spacing": "x"},
                   {"dim": 1, "spacing": "x", "edge_order": 2}):
        f, tf = tinyffn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        x, tx = tinyffn.tensor(coords, requires_grad=True), torch.tensor(coords, requires_grad=True)
        ours = tinyffn.gradient(f, **{**kwargs, "spacing": [x]} if kwargs.get("spacing") == "x"
                                else kwargs)
        theirs = torch.gradient(tf, **{**kwargs, "spacing": [tx]} if kwargs.get("spacing") == "x"
                                else kwargs)
        for o, t in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-12)
        sum(o * tinyffn.tensor(weights) for o in ours).sum().backward()
        sum(t * torch.tensor(weights) for t in theirs).sum().backward()
        np.testing.assert_allclose(f.grad.numpy(), tf.grad.numpy(), rtol=1e-12, atol=1e-14)
        if tx.grad is not None:
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-11)
    v = rng.normal(size=4)
    np.testing.assert_allclose(tinyffn.vander(tinyffn.tensor(v), N=5).numpy(),
                               torch.vander(torch.tensor(v), N=5).numpy(), rtol=1e-14)
    # (torch 2.13's vander has no working backward: "modified by an inplace operation";
    # ours is checked against d/dx x^k above)
    for fn, args in (("combinations", {"r": 3}),
                     ("combinations", {"with_replacement": True})):
        x, tx = tinyffn.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        ours, theirs = getattr(tinyffn, fn)(x, **args), getattr(torch, fn)(tx, **args)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-14)
        g = rng.normal(size=tuple(theirs.shape))
        (ours * tinyffn.tensor(g)).sum().backward()
        (theirs * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-13)
    h = rng.normal(size=40).astype(np.float32)
    for bins, kw in ((6, {}), (5, {"range": (-1.0, 2.0), "density": True}),
                     (torch.tensor([-2.0, 0.0, 0.5, 2.0]), {})):
        ours = tinyffn.histogram(tinyffn.tensor(h), tinyffn.tensor(bins.numpy()) if
                                 isinstance(bins, torch.Tensor) else bins, **kw)
        theirs = torch.histogram(torch.tensor(h), bins, **kw)
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-6)
        np.testing.assert_allclose(ours.bin_edges.numpy(), theirs.bin_edges.numpy(), rtol=1e-6)
    np.testing.assert_allclose(tinyffn.logspace(-2, 3, 7, base=3.0, dtype="float64").numpy(),
                               torch.logspace(-2, 3, 7, base=3.0, dtype=torch.float64).numpy(),
                               rtol=1e-14)
