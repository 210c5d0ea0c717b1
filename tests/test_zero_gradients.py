"""A sweep over functions whose gradient is zero (piecewise constant: round, floor, sign;
a count; an input only whose sign bit is read; a nearest pixel chosen) or that record no
graph at all (integer and bool results: argmax, bucketize, histc, comparisons).

PyTorch's rule, which tinyffn follows: a float result computed from an input that
requires grad is in the graph, and its gradient to that input is an array of zeros, not
None, and not an error; an integer or bool result records no graph. The torch-free check
runs on every device; the live one checks that each case is PyTorch 2.13's behaviour.
"""

import numpy as np
import pytest

import tinyffn

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
W = [[1.5, 2.0, -3.0, 1.0], [-1.0, 1.5, 0.5, -2.5]]
B = [0.0, 1.0]                          # bucket edges

ZERO_GRADIENT = [                       # (call, the input whose gradient is zeros)
    ("T.round(x)", "x"), ("T.round(x, decimals=1)", "x"), ("x.floor()", "x"),
    ("x.ceil()", "x"), ("x.trunc()", "x"), ("T.fix(x)", "x"), ("x.sign()", "x"),
    ("T.sgn(x)", "x"), ("x.clamp(5, 6)", "x"), ("T.where(x > 10, w, x)", "w"),
    ("F.threshold(x, 10.0, 0.0)", "x"), ("F.dropout(x, 1.0)", "x"), ("T.tril(x, -5)", "x"),
    ("T.norm(x, 0)", "x"), ("T.linalg.vector_norm(x, 0, dim=1)", "x"),
    ("T.cdist(x, w, 0)", "w"), ("T.copysign(x, w)", "w"), ("T.nextafter(x, w)", "w"),
    ("F.grid_sample(x[None, None], w.reshape(1, 2, 2, 2) * 0.4, 'nearest', "
     "align_corners=False)", "w"),
]
NO_GRAPH = [                            # integer or bool results
    "x.argmax()", "x.argmin(1)", "x.max(1).indices", "x.sort(1).indices", "x.topk(2).indices",
    "T.bucketize(x, b)", "T.searchsorted(b, x)", "T.histc(x, 4)", "x.count_nonzero()",
    "x.long()", "T.signbit(x)", "x > 0", "T.isclose(x, w)", "T.where(x > 0, 1.0, 0.0)",
    "F.one_hot(x.argmax(1), 4)",
]


def _run(T, F, case, wrt="", **kwargs):
    x, w = (T.tensor(v, dtype=T.float64, **kwargs) for v in (X, W))
    for t, name in ((x, "x"), (w, "w")):
        t.requires_grad_(name == wrt or not wrt)
    y = eval(case, {"T": T, "F": F, "b": T.tensor(B, dtype=T.float64, **kwargs)},
             {"x": x, "w": w})
    return y, {"x": x, "w": w}


@pytest.mark.parametrize("case, wrt", ZERO_GRADIENT)
def test_a_flat_function_gives_a_gradient_of_zeros(case, wrt, device):
    y, inputs = _run(tinyffn, tinyffn.nn.functional, case, wrt, device=device)
    assert y.requires_grad
    gy = np.random.default_rng(0).standard_normal(tuple(y.shape))
    (y * tinyffn.tensor(gy, device=device)).sum().backward()
    g = inputs[wrt].grad
    assert g is not None and g.shape == inputs[wrt].shape and not g.numpy().any()


@pytest.mark.parametrize("case", NO_GRAPH)
def test_an_integer_or_bool_result_records_no_graph(case, device):
    y, _ = _run(tinyffn, tinyffn.nn.functional, case, device=device)
    assert not y.requires_grad


def test_pytorch_gives_the_same_zeros_and_no_graphs():
    torch = pytest.importorskip("torch")
    for case, wrt in ZERO_GRADIENT:
        y, inputs = _run(torch, torch.nn.functional, case, wrt)
        assert y.requires_grad, case
        g, = torch.autograd.grad(y.sum(), inputs[wrt], materialize_grads=True)
        assert not g.any(), case
    for case in NO_GRAPH:
        assert not _run(torch, torch.nn.functional, case)[0].requires_grad, case


@pytest.mark.parametrize("name", ["copysign", "nextafter"])
def test_an_inf_or_nan_other_still_gets_zeros(name, device):
    """Only other's sign bit (or direction) is read: its gradient is 0 and the value is
    NumPy's also at ±inf and NaN (y · (other · 0 + 1) would be NaN there; PyTorch 2.13
    gives these values and gradients)."""
    x = tinyffn.tensor([1.0, -2.0, 3.0], dtype="float64", device=device, requires_grad=True)
    w = tinyffn.tensor([np.inf, -np.inf, np.nan], dtype="float64", device=device,
                       requires_grad=True)
    y = getattr(tinyffn, name)(x, w)
    want = getattr(np, name)(np.array([1.0, -2.0, 3.0]), np.array([np.inf, -np.inf, np.nan]))
    np.testing.assert_array_equal(y.numpy(), want)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0] and w.grad.tolist() == [0.0, 0.0, 0.0]
