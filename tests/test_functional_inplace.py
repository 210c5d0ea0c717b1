"""F.relu_, F.elu_, F.leaky_relu_, F.hardtanh_, F.threshold_, F.selu_, F.celu_, F.rrelu_
(tinyffn/functional_inplace.py): each stores its function's values into x, on every
device, equal to torch's in-place form; x stays the same object with its dtype; the rules
of x -= y hold (refused where a gradient is needed, naming the out-of-place form, and on
a view of a live tensor; allowed under no_grad, where a saved graph keeps the old values).
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn.backend import dtype_name

X = [-2.0, -0.5, 0.0, 0.25, 1.5, 3.0]
CALLS = [("relu_", ()), ("elu_", (0.5,)), ("leaky_relu_", (0.2,)), ("hardtanh_", (-0.4, 2.0)),
         ("threshold_", (0.1, -9.0)), ("selu_", ()), ("celu_", (2.0,)),
         ("rrelu_", (0.1, 0.3)),
         # the defaults (alpha, negative_slope, min_val/max_val, lower/upper): torch's
         ("elu_", ()), ("leaky_relu_", ()), ("hardtanh_", ()), ("celu_", ()), ("rrelu_", ())]


@pytest.mark.parametrize("name, args", CALLS)
def test_each_stores_its_function_into_x(name, args, device):
    x = tinyffn.tensor(X, dtype="float64", device=device)
    want = getattr(F, name[:-1])(x, *args).numpy()
    data = x.data
    assert getattr(F, name)(x, *args) is x
    assert x.data is not data and dtype_name(x.dtype) == "float64"   # a new array
    np.testing.assert_array_equal(x.numpy(), want)


@pytest.mark.parametrize("name, args", CALLS)
def test_each_equals_torchs_in_place_form(name, args):
    torch = pytest.importorskip("torch")
    x, tx = tinyffn.tensor(X), torch.tensor(X)
    getattr(F, name)(x, *args)
    getattr(torch.nn.functional, name)(tx, *args)
    np.testing.assert_allclose(x.numpy(), tx.numpy(), rtol=1e-6, atol=1e-7)


def test_rrelu_in_training_draws_from_the_default_generator():
    tinyffn.manual_seed(3)
    x = tinyffn.tensor(X)
    F.rrelu_(x, 0.1, 0.3, training=True)
    tinyffn.manual_seed(3)
    np.testing.assert_array_equal(x.numpy(), F.rrelu(tinyffn.tensor(X), 0.1, 0.3, True).numpy())
    slopes = x.numpy()[:2] / np.array(X[:2])
    assert ((slopes >= 0.1) & (slopes < 0.3)).all()


def test_a_tensor_that_requires_grad_is_refused_naming_the_out_of_place_form():
    w = tinyffn.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^elu_: x requires grad, and tinyffn does not "
                                           r"record in-place ops; .* or write "
                                           r"x = F\.elu\(x, \.\.\.\) for a new tensor"):
        F.elu_(w, 0.5)
    h = w * 2
    with pytest.raises(RuntimeError, match=r"^relu_: x requires grad.*x = F\.relu\(x\) for"):
        F.relu_(h)
    assert w.tolist() == X


def test_under_no_grad_x_changes_and_a_saved_graph_keeps_the_old_values():
    w = tinyffn.tensor(X, requires_grad=True)
    y = (w * w).sum()                       # saves w's array for backward
    with tinyffn.no_grad():
        F.relu_(w)
    assert w.tolist() == [max(v, 0.0) for v in X] and w.requires_grad
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), 2 * np.array(X))


def test_a_view_of_a_live_tensor_is_refused():
    base = tinyffn.tensor([X, X])
    with pytest.raises(RuntimeError, match=r"^hardtanh_: x was made from another tensor by"):
        F.hardtanh_(base[0])
    assert base[0].tolist() == X


def test_errors():
    with pytest.raises(TypeError, match=r"selu_: input must be a tinyffn Tensor, got list"):
        F.selu_(X)
    x = tinyffn.tensor([1, -2])
    with pytest.raises(TypeError, match=r"^elu: input has dtype int64"):
        F.elu_(x)                           # PyTorch refuses an integer x too
    assert F.relu_(x) is x and x.tolist() == [1, 0]
