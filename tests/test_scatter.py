"""Writing at indices (tinyffn/scatter.py): index_add, scatter_add and scatter, their
in-place forms (index_add_, scatter_add_, scatter_), and the primitive under them,
ops.IndexAdd (getitem's adjoint; its forward and gradcheck are in test_ops.py too).

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch; those tests run
without it, on every device); NumPy written out by hand (``np.add.at``); gradcheck on
every device.
"""

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.backend import dtype_name

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [1.0, 2.0, -1.0, 0.75]]   # (3, 4)
S = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]                                # (2, 4)
R = [[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]                                  # (3, 2)

CASES = [
    "T.index_add(x, 0, T.tensor([2, 0]), s)", "x.index_add(0, T.tensor([1, 1]), s)",
    "x.index_add(1, T.tensor([3, 0]), r, alpha=0.5)", "T.index_add(x, -1, T.tensor([2, 2]), r)",
    "x.index_add(0, T.tensor([2, 0], dtype=T.int32), s)", "x.index_add(0, T.tensor(1), s[:1])",
    "T.scatter_add(x, 0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s)",
    "x.scatter_add(1, T.tensor([[1, 1], [0, 3], [3, 3]]), r)",
    "x.scatter_add(0, T.tensor([[1, 0]]), s)", "x.scatter_add(1, T.tensor([[0], [1], [2]]), r)",
    "T.zeros(3, dtype=T.int64).scatter_add(0, T.tensor([0, 0, 2]), T.tensor([1, 2, 3]))",
    "T.scatter(x, 1, T.tensor([[1], [3], [0]]), 5.0)", "x.scatter(1, T.tensor([[1, 2], [0, 3], [3, 0]]), r)",
    "x.scatter(0, T.tensor([[2, 0, 1, 1]]), s)", "x.scatter(0, T.tensor([[2, 0, 1, 1]]), value=-1.0)",
    "T.zeros(3, 5).scatter(1, T.tensor([[0], [2], [4]]), 1.0)",
    "T.zeros(3, 4, dtype=T.int64).scatter(1, T.tensor([[1], [3], [0]]), 7)",
    "T.zeros(2, 3, dtype=T.bool).scatter(1, T.tensor([[2], [0]]), True)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module`` (tinyffn or torch) as ``T``; the input named
    ``requires_grad`` requires a gradient (returned with the result)."""
    inputs = {}
    for name, values in dict(x=X, s=S, r=R).items():
        inputs[name] = module.tensor(values, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    device = tensor_kwargs.get("device")
    tensor = (lambda *a, **k: module.tensor(*a, **k, device=device)) if device else module.tensor
    zeros = (lambda *a, **k: module.zeros(*a, **k, device=device)) if device else module.zeros

    class T:                    # the module, with tensor and zeros on the device asked for
        def __getattr__(self, name):
            return {"tensor": tensor, "zeros": zeros}.get(name) or getattr(module, name)
    y = eval(case, {}, {"T": T(), **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare
assert_same = torch_parity.assert_close    # dtype, shape, values to 1e-12


# dL/d(input) for L = Σ f · (1, 2, 3, ...)/10: a backward that forgets gy shows
GRAD_CASES = [
    ("T.index_add(x, 0, T.tensor([2, 0]), s)", "x"), ("T.index_add(x, 0, T.tensor([2, 0]), s)", "s"),
    ("x.index_add(0, T.tensor([1, 1]), s)", "s"), ("x.index_add(1, T.tensor([3, 0]), r, alpha=0.5)", "r"),
    ("T.scatter_add(x, 0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s)", "s"),
    ("x.scatter_add(0, T.tensor([[1, 0]]), s)", "x"),
    ("x.scatter(1, T.tensor([[1, 2], [0, 3], [3, 0]]), r)", "x"),
    ("x.scatter(1, T.tensor([[1, 2], [0, 3], [3, 0]]), r)", "r"),
    ("x.scatter(0, T.tensor([[2, 0, 1, 1]]), value=-1.0)", "x"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())     # live torch, EXPECTED(_GRADS), their check


# ----------------------------------------------------------------------------- gradcheck
def _i(values, device):
    return tinyffn.tensor(values, device=device)


GRADCHECKED = {
    "index_add": (lambda x, s, d: tinyffn.index_add(x, 0, _i([2, 2], d), s, alpha=1.5), (X, S)),
    "scatter_add": (lambda x, s, d: x.scatter_add(0, _i([[0, 2, 2, 1], [2, 2, 0, 0]], d), s),
                    (X, S)),
    "scatter": (lambda x, r, d: x.scatter(1, _i([[1, 2], [0, 3], [3, 0]], d), r), (X, R)),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    inputs = [tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
              for v in values]
    assert tinyffn.gradcheck(lambda *t: fn(*t, device), inputs)


# ----------------------------------------------------------------------------- by hand
def test_written_out_in_numpy_with_add_at(device):
    """index_add along dim d is np.add.at on the slices; scatter_add is np.add.at at
    (index, the positions along every other axis); a repeated index adds each value."""
    r = np.random.default_rng(0)
    x, v = r.standard_normal((5, 6, 3)), r.standard_normal((5, 8, 3))
    i = r.integers(0, 6, 8)
    want = x.copy()
    np.add.at(want, (slice(None), i), v)
    got = tinyffn.tensor(x, device=device).index_add(1, tinyffn.tensor(i, device=device),
                                                    tinyffn.tensor(v, device=device))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
    j = r.integers(0, 5, (4, 6, 3))
    want = x.copy()
    np.add.at(want, (j, np.arange(6)[:, None], np.arange(3)), v[:4, :6])
    got = tinyffn.tensor(x, device=device).scatter_add(0, tinyffn.tensor(j, device=device),
                                                      tinyffn.tensor(v, device=device))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)


def test_scatter_makes_one_hot_and_a_mixture_of_experts_puts_rows_back(device):
    labels = tinyffn.tensor([2, 0, 3], device=device)
    one_hot = tinyffn.zeros(3, 4, device=device).scatter(1, labels.unsqueeze(1), 1.0)
    assert one_hot.tolist() == np.eye(4)[[2, 0, 3]].tolist()
    h = tinyffn.tensor(np.arange(10.0).reshape(5, 2), device=device, requires_grad=True)
    rows = tinyffn.tensor([4, 1], device=device)              # the tokens an expert took
    out = tinyffn.zeros(5, 2, dtype="float64", device=device).index_add(
        0, rows, h.index_select(0, rows) * 2)
    assert out.tolist() == [[0, 0], [4, 6], [0, 0], [0, 0], [16, 18]]
    out.sum().backward()
    assert h.grad.tolist() == [[0, 0], [2, 2], [0, 0], [0, 0], [2, 2]]


def test_in_place_forms_follow_the_rules_of_x_minus_equals_y(device):
    z = tinyffn.zeros(5, device=device)
    assert z.scatter_add_(0, _i([0, 1, 1, 4], device), tinyffn.tensor(
        [1.0, 2, 3, 4], device=device)) is z
    assert z.tolist() == [1, 5, 0, 0, 4]
    z.index_add_(0, _i([2, 2], device), tinyffn.ones(2, device=device), alpha=3)
    assert z.tolist() == [1, 5, 6, 0, 4]
    z.scatter_(0, _i([0, 4], device), value=-1.0)
    assert z.tolist() == [-1, 5, 6, 0, -1]
    w = tinyffn.zeros(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"scatter_add_: x requires grad.*"
                                           r"x = x\.scatter_add\(\.\.\.\)"):
        w.scatter_add_(0, _i([0], device), tinyffn.ones(1, device=device))
    with tinyffn.no_grad():
        w.index_add_(0, _i([1], device), tinyffn.ones(1, device=device))
    assert w.tolist() == [0, 1, 0] and w.requires_grad


def test_in_place_matches_torch_live():
    torch = pytest.importorskip("torch")
    for module in (tinyffn, torch):
        z = module.zeros(2, 4)
        z.scatter_(1, module.tensor([[1], [3]]), 1.0)
        z.index_add_(0, module.tensor([1, 1]), module.ones(2, 4), alpha=0.5)
        z.scatter_add_(1, module.tensor([[0, 0]]), module.tensor([[2.0, 3.0]]))
        if module is tinyffn:
            ours = z.tolist()
    assert ours == z.tolist()


def test_each_is_drawn_in_a_frame_of_its_name_over_one_index_add():
    x = tinyffn.tensor(X, requires_grad=True)
    i = tinyffn.tensor([[0, 2, 2, 1]])
    for y, name in [(x.index_add(0, tinyffn.tensor([1]), x[:1]), "index_add"),
                    (x.scatter_add(0, i, x), "scatter_add"), (x.scatter(0, i, x), "scatter")]:
        assert [s.name for s in y.grad_fn.scope if s.kind == "function"][0] == name


def test_float16_and_integers_keep_their_dtype():
    h = tinyffn.zeros(3, dtype="float16").index_add(0, tinyffn.tensor([0, 0]),
                                                  tinyffn.ones(2, dtype="float16"))
    assert dtype_name(h.dtype) == "float16" and h.tolist() == [2, 0, 0]
    counts = tinyffn.zeros(4, dtype=tinyffn.int64).scatter_add(
        0, tinyffn.tensor([3, 1, 3]), tinyffn.ones(3, dtype=tinyffn.int64))
    assert dtype_name(counts.dtype) == "int64" and counts.tolist() == [0, 1, 0, 2]


# ----------------------------------------------------------------------------- refusals
def test_scatter_add_counts_with_more_labels_than_classes_and_takes_0d(device):
    """Along dim the index may be longer than input (PyTorch's rule): counting 5 labels
    into 3 classes is np.bincount; dim=-2 is dim 0 of a matrix; a 0-d input is one entry
    along dim 0 (torch.scatter_add(tensor(1.), 0, tensor(0), tensor(2.)) is 3.)."""
    labels = np.array([0, 0, 2, 1, 0])
    counts = tinyffn.zeros(3, device=device).scatter_add(
        0, tinyffn.tensor(labels, device=device), tinyffn.ones(5, device=device))
    assert counts.tolist() == np.bincount(labels, minlength=3).tolist()
    x, i = tinyffn.tensor(X, device=device), tinyffn.tensor([[2, 0, 1, 1]], device=device)
    src = tinyffn.tensor(S, device=device)
    assert x.scatter_add(-2, i, src).tolist() == x.scatter_add(0, i, src).tolist()
    y = tinyffn.tensor(1.0, device=device).scatter_add(0, tinyffn.tensor(0, device=device),
                                                       tinyffn.tensor(2.0, device=device))
    assert y.shape == () and y.item() == 3.0


def test_an_integer_input_keeps_its_dtype_with_a_whole_alpha(device):
    """alpha=2.0 on int64 counts is 2, as PyTorch reads it: the result stays int64 (it came
    out float32, the product source * 2.0), in place too; np.add.at written out."""
    i = tinyffn.tensor([0, 0, 2], device=device)
    s = tinyffn.tensor([1, 2, 3], device=device)
    want = np.zeros(3, dtype=np.int64)
    np.add.at(want, [0, 0, 2], np.array([1, 2, 3]) * -2)
    for alpha in (-2.0, -2):
        x = tinyffn.zeros(3, dtype="int64", device=device)
        y = x.index_add(0, i, s, alpha=alpha)
        assert dtype_name(y.dtype) == "int64" and y.tolist() == want.tolist()
        x.index_add_(0, i, s, alpha=alpha)
        assert dtype_name(x.dtype) == "int64" and x.tolist() == want.tolist()


@pytest.mark.parametrize("call, error, match", [
    ("x.index_add(0, T.tensor([0]), s[:1].double())", TypeError,
     r"index_add: input \(float32\) and source \(float64\) must have the same dtype"),
    ("x.index_add(0, T.tensor([0.0]), s[:1])", TypeError, "index must be a tinyffn Tensor of "
                                                          "int64 .* got float32"),
    ("x.index_add(0, [0], s[:1])", TypeError, "index must be a tinyffn Tensor of int64"),
    ("x.index_add(0, T.tensor([[0]]), s[:1])", ValueError, r"index must have 1 axis"),
    ("x.index_add(0, T.tensor([0, 1]), s[:1])", ValueError,
     r"source must have input's shape with index's length along dim 0, \(2, 4\)"),
    ("x.index_add(0, T.tensor([3]), s[:1])", IndexError,
     r"index 3 is out of range for dim 0 of size 3"),
    ("x.index_add(2, T.tensor([0]), s[:1])", ValueError, r"dim must be an int in \[-2, 1\]"),
    ("x.index_add(0, T.tensor([0]), s[:1], alpha=None)", TypeError, "alpha must be a number"),
    ("x.scatter_add(0, T.tensor([0]), s)", ValueError, r"index must have 2 axis\(es\), as input"),
    ("x.scatter_add(0, T.tensor([[0, 1, 2, 0, 1]]), s)", ValueError,
     r"index of shape \(1, 5\) is longer than input of shape \(3, 4\) along dim 1"),
    ("x.scatter_add(0, T.tensor([[0], [1], [2]]), s)", ValueError,
     r"must be no longer than src of shape \(2, 4\)"),
    ("x.scatter_add(0, T.tensor([[-1]]), s)", IndexError, "index -1 is out of range"),
    ("x.scatter(0, T.tensor([[0, 0], [0, 1]]), s)", ValueError,
     "scatter: index names a place more than once.*scatter_add"),
    ("x.scatter(0, T.tensor([[0]]))", TypeError, "scatter: pass src .* or value, one of them"),
    ("x.scatter(0, T.tensor([[0]]), s, reduce='add')", NotImplementedError,
     "reduce is not supported"),
    ("x.scatter(0, T.tensor([[0]]), 'a')", TypeError, "scatter: src must be a Tensor or a "
                                                      "number, got str"),
    ("x.long().scatter(0, T.tensor([[0]]), 2.5)", TypeError, "masked_fill"),
    ("x.scatter_(0, T.tensor([[0]]), s, value=1.0)", TypeError, "scatter: pass src"),
    ("T.zeros(3, dtype=T.int64).index_add(0, T.tensor([0]), T.tensor([1]), alpha=0.5)",
     TypeError, r"index_add: alpha=0.5 for an input of dtype int64; .* integer alpha"),
    ("T.zeros(3, dtype=T.int64).index_add_(0, T.tensor([0]), T.tensor([1]), alpha=0.5)",
     TypeError, r"index_add: alpha=0.5 for an input of dtype int64; .* integer alpha"),
    ("x.index_add(0, T.tensor([0]), s[:1], alpha=True)", TypeError,
     "alpha must be a number, got True"),
    ("x.scatter_add(0, T.tensor([[0]]), s.double())", TypeError,
     r"scatter_add: input \(float32\) and src \(float64\) must have the same dtype"),
    ("x.scatter(0, T.tensor([[0]]), s.double())", TypeError,
     r"scatter: input \(float32\) and src \(float64\) must have the same dtype"),
    ("x.scatter_add(0, T.tensor([[0]]), s[0])", ValueError,
     r"index of shape \(1, 1\) must be no longer than src of shape \(4,\)"),
    ("x.scatter_add(0, T.tensor([[0]], dtype=T.float64), s)", TypeError,
     "index must be a tinyffn Tensor of int64 .* got float64"),
    ("x.scatter(0, T.tensor([[0]], dtype=T.int16), 1.0)", TypeError, "got int16"),
    ("x.scatter_add(0, T.tensor([[5, 0]]), s)", IndexError,
     "index 5 is out of range for dim 0 of size 3"),
    ("x.scatter_add(1.5, T.tensor([[0]]), s)", ValueError, r"dim must be an int in \[-2, 1\]"),
    ("x.scatter_add(0, T.tensor([[0]], device='strict'), s)", ValueError,
     r"scatter_add: index is on strict and input on cpu; move index with .to\('cpu'\)"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    names = {"T": tinyffn, "x": tinyffn.tensor(X), "s": tinyffn.tensor(S)}
    with pytest.raises(error, match=match):
        eval(call, {}, names)


EXPECTED = {
    'T.index_add(x, 0, T.tensor([2, 0]), s)': ('float64', [[5.5, 4.0, 10.0, 8.0], [-4.0, 1.5, 0.25, -0.5], [2.0, 4.0, 2.0, 4.75]]),
    'x.index_add(0, T.tensor([1, 1]), s)': ('float64', [[0.5, -2.0, 3.0, 0.0], [2.0, 9.5, 10.25, 11.5], [1.0, 2.0, -1.0, 0.75]]),
    'x.index_add(1, T.tensor([3, 0]), r, alpha=0.5)': ('float64', [[10.5, -2.0, 3.0, 5.0], [16.0, 1.5, 0.25, 14.5], [31.0, 2.0, -1.0, 25.75]]),
    'T.index_add(x, -1, T.tensor([2, 2]), r)': ('float64', [[0.5, -2.0, 33.0, 0.0], [-4.0, 1.5, 70.25, -0.5], [1.0, 2.0, 109.0, 0.75]]),
    'x.index_add(0, T.tensor([2, 0], dtype=T.int32), s)': ('float64', [[5.5, 4.0, 10.0, 8.0], [-4.0, 1.5, 0.25, -0.5], [2.0, 4.0, 2.0, 4.75]]),
    'x.index_add(0, T.tensor(1), s[:1])': ('float64', [[0.5, -2.0, 3.0, 0.0], [-3.0, 3.5, 3.25, 3.5], [1.0, 2.0, -1.0, 0.75]]),
    'T.scatter_add(x, 0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s)': ('float64', [[1.5, -2.0, 10.0, 8.0], [-4.0, 1.5, 0.25, 3.5], [6.0, 10.0, 2.0, 0.75]]),
    'x.scatter_add(1, T.tensor([[1, 1], [0, 3], [3, 3]]), r)': ('float64', [[0.5, 28.0, 3.0, 0.0], [26.0, 1.5, 0.25, 39.5], [1.0, 2.0, -1.0, 110.75]]),
    'x.scatter_add(0, T.tensor([[1, 0]]), s)': ('float64', [[0.5, 0.0, 3.0, 0.0], [-3.0, 1.5, 0.25, -0.5], [1.0, 2.0, -1.0, 0.75]]),
    'x.scatter_add(1, T.tensor([[0], [1], [2]]), r)': ('float64', [[10.5, -2.0, 3.0, 0.0], [-4.0, 31.5, 0.25, -0.5], [1.0, 2.0, 49.0, 0.75]]),
    'T.zeros(3, dtype=T.int64).scatter_add(0, T.tensor([0, 0, 2]), T.tensor([1, 2, 3]))': ('int64', [3, 0, 3]),
    'T.scatter(x, 1, T.tensor([[1], [3], [0]]), 5.0)': ('float64', [[0.5, 5.0, 3.0, 0.0], [-4.0, 1.5, 0.25, 5.0], [5.0, 2.0, -1.0, 0.75]]),
    'x.scatter(1, T.tensor([[1, 2], [0, 3], [3, 0]]), r)': ('float64', [[0.5, 10.0, 20.0, 0.0], [30.0, 1.5, 0.25, 40.0], [60.0, 2.0, -1.0, 50.0]]),
    'x.scatter(0, T.tensor([[2, 0, 1, 1]]), s)': ('float64', [[0.5, 2.0, 3.0, 0.0], [-4.0, 1.5, 3.0, 4.0], [1.0, 2.0, -1.0, 0.75]]),
    'x.scatter(0, T.tensor([[2, 0, 1, 1]]), value=-1.0)': ('float64', [[0.5, -1.0, 3.0, 0.0], [-4.0, 1.5, -1.0, -1.0], [-1.0, 2.0, -1.0, 0.75]]),
    'T.zeros(3, 5).scatter(1, T.tensor([[0], [2], [4]]), 1.0)': ('float32', [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]]),
    'T.zeros(3, 4, dtype=T.int64).scatter(1, T.tensor([[1], [3], [0]]), 7)': ('int64', [[0, 7, 0, 0], [0, 0, 0, 7], [7, 0, 0, 0]]),
    'T.zeros(2, 3, dtype=T.bool).scatter(1, T.tensor([[2], [0]]), True)': ('bool', [[False, False, True], [True, False, False]]),
}
EXPECTED_GRADS = {
    'T.index_add(x, 0, T.tensor([2, 0]), s) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]]),
    'T.index_add(x, 0, T.tensor([2, 0]), s) ds': ('float64', [[0.9, 1.0, 1.1, 1.2], [0.1, 0.2, 0.3, 0.4]]),
    'x.index_add(0, T.tensor([1, 1]), s) ds': ('float64', [[0.5, 0.6, 0.7, 0.8], [0.5, 0.6, 0.7, 0.8]]),
    'x.index_add(1, T.tensor([3, 0]), r, alpha=0.5) dr': ('float64', [[0.2, 0.05], [0.4, 0.25], [0.6, 0.45]]),
    'T.scatter_add(x, 0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s) ds': ('float64', [[0.1, 1.0, 1.1, 0.8], [0.9, 1.0, 0.3, 0.4]]),
    'x.scatter_add(0, T.tensor([[1, 0]]), s) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]]),
    'x.scatter(1, T.tensor([[1, 2], [0, 3], [3, 0]]), r) dx': ('float64', [[0.1, 0.0, 0.0, 0.4], [0.0, 0.6, 0.7, 0.0], [0.0, 1.0, 1.1, 0.0]]),
    'x.scatter(1, T.tensor([[1, 2], [0, 3], [3, 0]]), r) dr': ('float64', [[0.2, 0.3], [0.5, 0.8], [1.2, 0.9]]),
    'x.scatter(0, T.tensor([[2, 0, 1, 1]]), value=-1.0) dx': ('float64', [[0.1, 0.0, 0.3, 0.4], [0.5, 0.6, 0.0, 0.0], [0.0, 1.0, 1.1, 1.2]]),
}
