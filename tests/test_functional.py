"""tinyffn.functional: every composed op against a hand-written NumPy reference, gradcheck
in float64, the function scopes the graph drawer relies on, and the error messages."""
import itertools
import math
import warnings

import numpy as np
import pytest

import numpy_reference as ref
import tinyffn
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.autograd import Context, Scope
from tinyffn.backend import dtype_name
from tinyffn.ops import PRIMITIVES

ACTIVATIONS = {
    "relu": (F.relu, ref.relu),
    "sigmoid": (F.sigmoid, ref.sigmoid),
    "tanh": (F.tanh, np.tanh),
    "erf": (F.erf, ref.erf),
    "gelu": (F.gelu, ref.gelu),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), ref.gelu_tanh),
    "swish": (F.swish, ref.swish),                  # beta = 1 by default: SiLU
    "swish_beta_1.7": (lambda x: F.swish(x, beta=1.7), lambda x: ref.swish(x, beta=1.7)),
    "silu": (F.silu, ref.swish),
}


def as_tensor(array, device, requires_grad=False):
    return tinyffn.tensor(array, device=device, requires_grad=requires_grad)


def graph_nodes(y):
    """Every op context in y's graph, found by walking grad_fn.parents."""
    nodes, stack, seen = [], [y.grad_fn], set()
    while stack:
        v = stack.pop()
        if not isinstance(v, Context) or id(v) in seen:
            continue
        seen.add(id(v))
        nodes.append(v)
        stack.extend(v.parents)
    return nodes


# ----------------------------------------------------------------------------- activations
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_matches_numpy(name, device):
    fn, reference = ACTIVATIONS[name]
    x = np.random.default_rng(1).normal(scale=2.0, size=(4, 5))
    y = fn(as_tensor(x, device))
    assert y.shape == (4, 5)
    np.testing.assert_allclose(y.numpy(), reference(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradcheck(name, device):
    fn, _ = ACTIVATIONS[name]
    x = as_tensor(np.random.default_rng(2).normal(size=(3, 4)), device, requires_grad=True)
    assert tinyffn.gradcheck(fn, [x])


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_keeps_float32(name, device):
    fn, _ = ACTIVATIONS[name]
    y = fn(tinyffn.randn(2, 3, device=device))
    assert dtype_name(y.dtype) == "float32"


def test_known_values():
    x = tinyffn.tensor([-1.0, 0.0, 1.0], dtype="float64")
    # GELU(1) = Φ(1) and GELU(-1) = -Φ(-1); SiLU(1) = sigmoid(1)
    np.testing.assert_allclose(F.gelu(x).numpy(), [-0.15865525393145707, 0.0, 0.8413447460685429],
                               rtol=1e-14)
    np.testing.assert_allclose(F.silu(x).numpy(), [-0.2689414213699951, 0.0, 0.7310585786300049],
                               rtol=1e-14)
    np.testing.assert_array_equal(F.relu(x).numpy(), [0.0, 0.0, 1.0])


def test_silu_takes_pytorchs_inplace_second():
    """PyTorch's F.silu(input, inplace=False): F.silu(x, inplace=False) raised TypeError
    here and F.silu(x, True), PyTorch's inplace, silently meant fused=True."""
    x = tinyffn.tensor([-1.0, 0.0, 1.0], dtype="float64")
    want = [-0.2689414213699951, 0.0, 0.7310585786300049]       # x sigmoid(x)
    for y in (F.silu(x, False), F.silu(x, inplace=False), F.silu(x, fused=True)):
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-14)
    with pytest.raises(ValueError, match="silu: inplace=True is not supported"):
        F.silu(x, True)
    with pytest.raises(TypeError):
        F.silu(x, False, True)                  # fused only by keyword


def test_gelu_tanh_approximation_is_close_to_exact():
    x = tinyffn.tensor(np.linspace(-6, 6, 1201))
    gap = np.abs(F.gelu(x, approximate="tanh").numpy() - F.gelu(x).numpy())
    assert gap.max() < 1e-3
    assert gap.max() > 1e-5           # and they are genuinely two different functions


def test_swish_with_a_learnable_beta(device):
    x = as_tensor(np.random.default_rng(3).normal(size=(2, 3)), device, requires_grad=True)
    beta = as_tensor(np.array(0.8), device, requires_grad=True)
    np.testing.assert_allclose(F.swish(x, beta).numpy(), ref.swish(x.numpy(), 0.8), rtol=1e-12)
    assert tinyffn.gradcheck(F.swish, [x, beta])


def test_gelu_rejects_an_unknown_approximation():
    with pytest.raises(ValueError, match=r"gelu: unknown approximate='erf'.*'none'.*'tanh'"):
        F.gelu(tinyffn.randn(3), approximate="erf")


def test_functional_ops_refuse_arrays():
    with pytest.raises(TypeError, match=r"gelu: input must be a tinyffn Tensor, got "
                                        r"numpy\.ndarray; convert arrays \(and torch tensors\)"):
        F.gelu(np.ones(3))


def test_a_torch_tensor_or_class_weight_is_named_as_such():
    """Porting side by side, a torch tensor reaches tinyffn: "got Tensor" contradicted
    itself; and torch's first optional loss argument is a weight, not the reduction."""
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"FFN: the input must be a tinyffn Tensor, got "
                                        r"torch\.Tensor"):
        tinyffn.nn.FFN(3)(torch.randn(2, 3))
    with pytest.raises(TypeError, match=r"Adam: parameter 0 is not a tinyffn tensor \(got "
                                        r"torch\.nn\.parameter\.Parameter\); pass a tinyffn"):
        tinyffn.optim.Adam(torch.nn.Linear(2, 2).parameters())
    logits, targets = tinyffn.randn(4, 3), tinyffn.tensor([0, 1, 2, 0])
    for call in (lambda: tinyffn.nn.CrossEntropyLoss(tinyffn.ones(3)),
                 lambda: F.cross_entropy(logits, targets, tinyffn.ones(3))):
        with pytest.raises(TypeError, match=r"reduction must be one of 'mean', 'sum', 'none', "
                                            r"got a Tensor; class weights .* go by name here, "
                                            r"weight=\.\.\."):
            call()


# ----------------------------------------------------------------------------- scopes
def test_composed_ops_tag_their_ops_with_a_function_scope():
    x = tinyffn.randn(2, 3, requires_grad=True)
    y = F.gelu(x)
    nodes = graph_nodes(y)
    assert nodes and all(node.scope == (Scope("function", "gelu"),) for node in nodes)
    # GELU shows up as its primitives: a small subgraph of mul/add/div/erf nodes
    names = {node.name for node in nodes}
    assert "erf" in names and names <= {"mul", "add", "div", "erf"}
    assert names <= {f.op_name() for f in PRIMITIVES}


@pytest.mark.parametrize("name, call", [
    ("linear", lambda x: F.linear(x, tinyffn.randn(2, 3, requires_grad=True), tinyffn.zeros(2))),
    ("silu", F.silu), ("swish", F.swish), ("gelu", F.gelu)])
def test_composed_functions_are_not_fused_by_default(name, call):
    """fused=False is the default: the graph shows the primitives, in a frame of the name
    (a fused node is one node, outside any frame)."""
    nodes = graph_nodes(call(tinyffn.randn(4, 3, requires_grad=True)))
    assert len(nodes) > 1 and all(node.scope == (Scope("function", name),) for node in nodes)


def test_nested_function_scopes():
    logits = tinyffn.randn(4, 3, requires_grad=True)
    loss = F.cross_entropy(logits, [0, 2, 1, 1])
    scopes = {node.scope for node in graph_nodes(loss)}
    outer = Scope("function", "cross_entropy")
    assert all(s[0] == outer for s in scopes)
    assert (outer, Scope("function", "log_softmax")) in scopes


def test_ops_outside_any_function_have_no_scope():
    x = tinyffn.randn(3, requires_grad=True)
    assert (x * 2).grad_fn.scope == ()
    assert F.relu(x).grad_fn.scope == ()      # a primitive alias adds no scope


# ----------------------------------------------------------------------------- softmax
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_and_log_softmax_match_numpy(axis, device):
    x = np.random.default_rng(4).normal(scale=3.0, size=(3, 5))
    y = F.softmax(as_tensor(x, device), axis=axis).numpy()
    np.testing.assert_allclose(y, ref.softmax(x, axis), rtol=1e-12)
    np.testing.assert_allclose(y.sum(axis=axis), 1.0, rtol=1e-12)
    np.testing.assert_allclose(F.log_softmax(as_tensor(x, device), axis=axis).numpy(),
                               ref.log_softmax(x, axis), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("make", [lambda: F.softmax, lambda: F.log_softmax, lambda: F.softmin,
                                  lambda: nn.Softmax(), lambda: nn.LogSoftmax(),
                                  lambda: nn.Softmin()],
                         ids=["softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax",
                              "Softmin"])
def test_no_dim_on_3d_and_4d_input_warns_where_torch_would_take_another_axis(make):
    """PyTorch's implicit dim (deprecated) is 0 for 3-d and 1 for 4-d inputs; tinyffn's is
    the last axis. Left out there, a ported program would normalize another axis in
    silence: it is warned, naming both, and the result is the last axis's. 2-d inputs,
    where the two agree, and any dim given, are not warned."""
    fn = make()
    name = getattr(fn, "__name__", type(fn).__name__.lower())
    name = {"logsoftmax": "log_softmax"}.get(name, name)
    for shape, theirs in (((2, 3, 4), 0), ((2, 3, 4, 5), 1)):
        x = tinyffn.randn(*shape, dtype="float64")
        with pytest.warns(UserWarning, match=rf"^{name}: no dim given for a {len(shape)}-d "
                                             rf"input; tinyffn takes the last axis, where "
                                             rf"PyTorch's implicit \(deprecated\) choice is "
                                             rf"dim {theirs}; pass dim=-1"):
            y = fn(x)
        explicit = getattr(F, name.lower())(x, dim=-1)
        np.testing.assert_array_equal(y.numpy(), explicit.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(tinyffn.randn(2, 3))
        getattr(F, name.lower())(tinyffn.randn(2, 3, 4), dim=1)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_gradcheck(fn, axis, device):
    x = as_tensor(np.random.default_rng(5).normal(size=(3, 4)), device, requires_grad=True)
    assert tinyffn.gradcheck(lambda t: fn(t, axis=axis), [x])


def test_softmax_is_stable_for_large_logits(device):
    x = as_tensor(np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]]), device)
    y = F.softmax(x).numpy()
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y[0], ref.softmax(np.array([0.0, 1.0, 2.0])), rtol=1e-12)
    np.testing.assert_allclose(y[1], [0.0, 0.0, 1.0], atol=1e-300)
    # log_softmax keeps the log of probabilities that underflow to 0 in softmax
    np.testing.assert_allclose(F.log_softmax(x).numpy()[1], [-2000.0, -1000.0, 0.0], rtol=1e-12)



@pytest.mark.parametrize("shape, axis", [((3, 0), -1), ((0, 3), -1), ((2, 0, 4), 1),
                                         ((0,), 0)])
def test_softmax_over_an_empty_axis_is_empty_as_in_pytorch(shape, axis, device):
    """PyTorch 2.13: softmax of a (3, 0) tensor along its empty axis is (3, 0); tinyffn
    took the maximum of nothing and raised an error naming max."""
    x = tinyffn.zeros(*shape, device=device, requires_grad=True)
    for f in (F.softmax, F.log_softmax):
        y = f(x, axis=axis)
        assert y.shape == shape and y is not x
        y.sum().backward()
        assert x.grad.shape == shape


def test_softmax_of_a_0d_tensor_is_its_one_element_as_in_pytorch(device):
    """torch 2.13: softmax(tensor(2.), 0) is 1 and log_softmax 0, with a zero gradient."""
    for f, want in ((F.softmax, 1.0), (F.log_softmax, 0.0)):
        x = tinyffn.tensor(2.0, device=device, requires_grad=True)
        y = f(x)
        assert y.shape == () and y.item() == want
        y.backward()
        assert x.grad.item() == 0.0


def test_softmax_over_an_axis_of_length_1_is_1_with_no_gradient(device):
    """The shift by the maximum is what keeps exp(1000) finite here too; and log_softmax's
    gradient, 1 - softmax = 0, comes through the log of the sum (torch 2.13 agrees)."""
    for f, want in ((F.softmax, 1.0), (F.log_softmax, 0.0)):
        x = tinyffn.tensor([[1000.0], [-1000.0]], device=device, requires_grad=True)
        y = f(x, dim=-1)
        np.testing.assert_array_equal(y.numpy(), [[want], [want]])
        y.backward(tinyffn.tensor([[2.0], [-3.0]], device=device))
        np.testing.assert_array_equal(x.grad.numpy(), [[0.0], [0.0]])


def test_softmax_gradient_does_not_depend_on_the_shift():
    x = np.random.default_rng(6).normal(size=(2, 4))
    gy = np.random.default_rng(7).normal(size=(2, 4))
    grads = []
    for shift in (0.0, 500.0):
        t = tinyffn.tensor(x + shift, requires_grad=True)
        F.softmax(t).backward(tinyffn.tensor(gy))
        grads.append(t.grad.numpy())
    s = ref.softmax(x)
    expected = s * (gy - (gy * s).sum(axis=-1, keepdims=True))   # y (gy - sum_j gy_j y_j)
    np.testing.assert_allclose(grads[0], expected, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(grads[1], expected, rtol=1e-10, atol=1e-14)


def test_softmax_shift_is_a_constant_of_the_graph():
    """The max subtracted for stability is detached: no max node, nothing for backward to
    send through it (its gradient would be zero anyway, at the cost of a pass)."""
    x = tinyffn.randn(2, 3, requires_grad=True)
    for f in (F.softmax, F.log_softmax):
        names = {node.name for node in graph_nodes(f(x))}
        assert "exp" in names and "max" not in names


def test_softmax_rejects_a_bad_axis():
    with pytest.raises(ValueError, match=r"softmax: axis 2 is out of range .* shape \(3, 4\)"):
        F.softmax(tinyffn.randn(3, 4), axis=2)
    with pytest.raises(ValueError, match=r"log_softmax: axis True is out of range"):
        F.log_softmax(tinyffn.randn(3, 4), axis=True)        # not axis 1


# ----------------------------------------------------------------------------- linear
@pytest.mark.parametrize("x_shape", [(3,), (5, 3), (2, 5, 3)])
def test_linear_matches_numpy(x_shape, device):
    rng = np.random.default_rng(8)
    x, w, b = rng.normal(size=x_shape), rng.normal(size=(4, 3)), rng.normal(size=(4,))
    y = F.linear(as_tensor(x, device), as_tensor(w, device), as_tensor(b, device))
    assert y.shape == x_shape[:-1] + (4,)
    np.testing.assert_allclose(y.numpy(), ref.linear(x, w, b), rtol=1e-12)
    y = F.linear(as_tensor(x, device), as_tensor(w, device))
    np.testing.assert_allclose(y.numpy(), ref.linear(x, w), rtol=1e-12)


def test_linear_gradcheck(device):
    rng = np.random.default_rng(9)
    x = as_tensor(rng.normal(size=(2, 3, 3)), device, requires_grad=True)
    w = as_tensor(rng.normal(size=(2, 3)), device, requires_grad=True)
    b = as_tensor(rng.normal(size=(2,)), device, requires_grad=True)
    assert tinyffn.gradcheck(F.linear, [x, w, b])
    assert tinyffn.gradcheck(lambda x, w: F.linear(x, w), [x, w])


def test_linear_errors_name_the_shapes():
    x, w = tinyffn.randn(2, 5), tinyffn.randn(4, 3)
    with pytest.raises(ValueError, match=r"linear: input of shape \(2, 5\) does not fit weight of "
                                         r"shape \(4, 3\).*in_features=3"):
        F.linear(x, w)
    with pytest.raises(ValueError, match=r"linear: bias must have shape \(out_features,\) = "
                                         r"\(4,\)"):
        F.linear(tinyffn.randn(2, 3), w, tinyffn.randn(3))
    with pytest.raises(ValueError, match=r"linear: weight must be a matrix"):
        F.linear(tinyffn.randn(2, 3), tinyffn.randn(3))


def test_linear_refuses_a_0d_input_and_a_bias_that_would_broadcast():
    """A 0-d input has no last axis (reading shape[-1] raised an IndexError); a (4, 1) bias
    would broadcast y (2, 4) to (2, 4, 4). Both are refused, naming the shapes that fit."""
    w = tinyffn.randn(4, 3)
    with pytest.raises(ValueError, match=r"linear: input of shape \(\) does not fit weight of "
                                         r"shape \(4, 3\).*pass an input of shape \(\.\.\., 3\)"):
        F.linear(tinyffn.tensor(1.0), w)
    with pytest.raises(ValueError, match=r"bias must have shape \(out_features,\) = \(4,\) .*"
                                         r"got \(4, 1\)"):
        F.linear(tinyffn.randn(2, 3), w, tinyffn.randn(4, 1))


@pytest.mark.parametrize("fused", [False, True])
def test_linear_refuses_integer_input_and_allows_mixed_floats(fused):
    """Token ids fed to a layer: NumPy would silently compute int64 @ float32 in float64."""
    w = tinyffn.randn(4, 3)
    with pytest.raises(TypeError, match=r"linear: input has dtype int64, but a layer computes "
                                        r"in floating point \(weight: float32\).*x\.to\("
                                        r"dtype='float32'\).*embeddings"):
        F.linear(tinyffn.tensor([[1, 2, 3]]), w, fused=fused)
    with pytest.raises(TypeError, match="linear: input has dtype int64"):
        nn.FFN(3)(tinyffn.tensor([[1, 2, 3]]))
    y = F.linear(tinyffn.randn(2, 3, dtype="float64"), w, fused=fused)   # promoted, as NumPy
    assert dtype_name(y.dtype) == "float64"


# ----------------------------------------------------------------------------- losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_numpy(reduction, device):
    rng = np.random.default_rng(10)
    x, target = rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    squared = (x - target) ** 2
    expected = {"mean": squared.mean(), "sum": squared.sum(), "none": squared}[reduction]
    loss = F.mse_loss(as_tensor(x, device), as_tensor(target, device), reduction=reduction)
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)
    # a plain array works as the target too
    loss = F.mse_loss(as_tensor(x, device), target, reduction=reduction)
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)


def test_mse_loss_gradcheck(device):
    rng = np.random.default_rng(11)
    x = as_tensor(rng.normal(size=(3, 2)), device, requires_grad=True)
    target = as_tensor(rng.normal(size=(3, 2)), device, requires_grad=True)
    assert tinyffn.gradcheck(F.mse_loss, [x, target])
    assert tinyffn.gradcheck(lambda x, t: F.mse_loss(x, t, reduction="sum"), [x, target])


def test_mse_loss_errors():
    with pytest.raises(ValueError, match=r"mse_loss: input has shape \(4, 1\) but target has "
                                         r"shape \(4,\)"):
        F.mse_loss(tinyffn.randn(4, 1), tinyffn.randn(4))
    with pytest.raises(ValueError, match=r"mse_loss: unknown reduction='avg'"):
        F.mse_loss(tinyffn.randn(4), tinyffn.randn(4), reduction="avg")


def test_mse_loss_reads_a_list_target_in_the_inputs_dtype():
    """A list of Python floats is float64 data; read in the input's float32 it keeps the
    loss float32 (as a float32 target would), not promoted to float64."""
    x = tinyffn.tensor([0.5, 1.0, 4.0])
    loss = F.mse_loss(x, [0.0, 1.0, 2.0])
    assert dtype_name(loss.dtype) == "float32"
    assert loss.item() == pytest.approx((0.25 + 0.0 + 4.0) / 3, rel=1e-6)


def test_mse_loss_counts_a_bool_target_as_0_and_1(device):
    """torch 2.13: mse_loss([1., 2.], [True, False]) is 2.0 (float32), gradient [0, 2];
    the bool mask must not meet the refusal of input - mask."""
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    loss = F.mse_loss(x, tinyffn.tensor([True, False], device=device))
    loss.backward()
    assert loss.item() == 2.0 and dtype_name(loss.dtype) == "float32"
    assert x.grad.tolist() == [0.0, 2.0]
    assert nn.MSELoss()(x, tinyffn.tensor([True, False], device=device)).item() == 2.0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_matches_numpy(reduction, device):
    logits = np.random.default_rng(12).normal(scale=2.0, size=(5, 4))
    targets = [0, 3, 3, 1, 2]
    rows = ref.cross_entropy_rows(logits, targets)
    expected = {"mean": rows.mean(), "sum": rows.sum(), "none": rows}[reduction]
    for t in (targets, np.array(targets), tinyffn.tensor(targets, device=device)):
        loss = F.cross_entropy(as_tensor(logits, device), t, reduction=reduction)
        np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)


def test_cross_entropy_over_leading_axes(device):
    logits = np.random.default_rng(13).normal(size=(2, 3, 4))        # (B, T, C)
    targets = np.array([[0, 1, 2], [3, 3, 0]])                        # (B, T)
    rows = ref.cross_entropy_rows(logits.reshape(6, 4), targets.reshape(6))
    loss = F.cross_entropy(as_tensor(logits, device), targets, reduction="none")
    assert loss.shape == (2, 3)
    np.testing.assert_allclose(loss.numpy(), rows.reshape(2, 3), rtol=1e-12)
    np.testing.assert_allclose(F.cross_entropy(as_tensor(logits, device), targets).numpy(),
                               rows.mean(), rtol=1e-12)


def test_cross_entropy_gradient_is_softmax_minus_onehot(device):
    logits = np.random.default_rng(14).normal(size=(4, 3))
    targets = np.array([2, 0, 0, 1])
    x = as_tensor(logits, device, requires_grad=True)
    F.cross_entropy(x, targets).backward()
    onehot = np.eye(3)[targets]
    np.testing.assert_allclose(x.grad.numpy(), (ref.softmax(logits) - onehot) / 4, rtol=1e-10,
                               atol=1e-15)


def test_cross_entropy_gradcheck(device):
    x = as_tensor(np.random.default_rng(15).normal(size=(3, 4)), device, requires_grad=True)
    assert tinyffn.gradcheck(lambda t: F.cross_entropy(t, [1, 1, 3]), [x])


def test_nll_loss_is_cross_entropy_split_at_log_softmax(device):
    """nll_loss(log_softmax(z)) == cross_entropy(z), values and gradients (gradchecked),
    over leading axes; its errors name nll_loss and its input."""
    z = np.random.default_rng(16).normal(size=(2, 3, 4))
    targets = [[0, 3, 1], [2, 2, 0]]
    for reduction in ("mean", "sum", "none"):
        a = as_tensor(z, device, requires_grad=True)
        b = as_tensor(z, device, requires_grad=True)
        split = F.nll_loss(F.log_softmax(a, dim=-1), targets, reduction=reduction)
        whole = F.cross_entropy(b, targets, reduction=reduction)
        np.testing.assert_allclose(split.numpy(), whole.numpy(), rtol=1e-12)
        split.sum().backward()
        whole.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-15)
    x = as_tensor(z, device, requires_grad=True)
    assert tinyffn.gradcheck(lambda t: F.nll_loss(t, targets, "sum"), [x])   # the pick alone
    with pytest.raises(ValueError, match=r"nll_loss: log_probs of shape \(2, 3, 4\) need "
                                         r"targets of shape \(2, 3\)"):
        F.nll_loss(x, [0, 1])
    with pytest.raises(ValueError, match=r"nll_loss: targets must lie in \[0, 4\)"):
        F.nll_loss(x, [[0, 4, 1], [0, 0, 0]])
    with pytest.raises(TypeError, match=r"nll_loss: targets must be integer.*write "
                                        r"-\(p \* log_probs\)\.sum"):
        F.nll_loss(x, np.zeros((2, 3)))
    with pytest.raises(TypeError, match="nll_loss: log_probs must be floating point"):
        F.nll_loss(tinyffn.tensor([[-1, -2]], device=device), [1])


def test_nll_loss_picks_its_input_as_it_is():
    """Not normalised first: on inputs that are not log-probabilities it differs from
    cross_entropy (on log-probabilities log_softmax changes nothing, so tests there
    cannot tell the two apart). -x[0, 1] = -2, as torch.nn.functional.nll_loss."""
    assert F.nll_loss(tinyffn.tensor([[1.0, 2.0]]), [1]).item() == -2.0
    assert F.nll_loss(tinyffn.tensor([[1.0, 2.0], [3.0, 5.0]]), [1, 0], "sum").item() == -5.0


def test_cross_entropy_is_stable_for_large_logits():
    logits = tinyffn.tensor([[1e4, 0.0, -1e4], [0.0, 1e4, 1e4]], dtype="float64")
    loss = F.cross_entropy(logits, [2, 1], reduction="none").numpy()
    np.testing.assert_allclose(loss, [2e4, math.log(2)], rtol=1e-12)


def test_cross_entropy_of_one_row_and_of_no_rows():
    """Logits (C,) with a 0-d target are one row, as in torch; (0, C) logits with no
    targets give an empty "none" loss, a zero "sum" and a zero gradient."""
    logits = np.array([1.0, 2.0, 3.0])
    loss = F.cross_entropy(tinyffn.tensor(logits), 2)
    assert loss.shape == ()
    np.testing.assert_allclose(loss.item(), ref.cross_entropy_rows([logits], [2])[0],
                               rtol=1e-6)
    assert F.nll_loss(tinyffn.tensor([-1.0, -2.0]), 1).item() == 2.0
    x = tinyffn.zeros(0, 3, requires_grad=True)
    no_targets = np.zeros(0, dtype=np.int64)
    assert F.cross_entropy(x, no_targets, reduction="none").shape == (0,)
    total = F.cross_entropy(x, no_targets, reduction="sum")
    assert total.item() == 0.0
    total.backward()
    assert x.grad.shape == (0, 3)


def test_cross_entropy_errors():
    logits = tinyffn.randn(3, 4)
    with pytest.raises(ValueError, match=r"cross_entropy: targets must lie in \[0, 4\).*from 0 "
                                         r"to 4"):
        F.cross_entropy(logits, [0, 4, 1])
    with pytest.raises(ValueError, match=r"targets must lie in \[0, 4\).*from -1 to 1"):
        F.cross_entropy(logits, [0, -1, 1])
    with pytest.raises(ValueError, match=r"cross_entropy: logits of shape \(3, 4\) need targets "
                                         r"of shape \(3,\).*got \(2,\)"):
        F.cross_entropy(logits, [0, 1])
    with pytest.raises(ValueError, match=r"cross_entropy: floating-point targets are class "
                                         r"probabilities, .* of shape \(3, 4\); got \(3,\); "
                                         r"for class indices pass integers: targets.long\(\)"):
        F.cross_entropy(logits, [0.0, 1.0, 2.0])        # float indices: read as probabilities
    with pytest.raises(TypeError, match=r"nll_loss: targets must be integer class indices"):
        F.nll_loss(logits, [0.0, 1.0, 2.0])             # as PyTorch's: no probabilities here


@pytest.mark.parametrize("shape_x, shape_w", [((2, 0), (3, 0)), ((0, 3), (2, 3)),
                                              ((4, 3), (0, 3))])
def test_fused_linear_handles_empty_axes_as_the_composed_form(shape_x, shape_w):
    """reshape(gy, (-1, out)) is ambiguous when a size is 0: the backward once crashed."""
    grads = []
    for fused in (False, True):
        x = tinyffn.ones(*shape_x, requires_grad=True)
        w = tinyffn.ones(*shape_w, requires_grad=True)
        b = tinyffn.ones(shape_w[0], requires_grad=True)
        F.linear(x, w, b, fused=fused).sum().backward()
        grads.append([t.grad.numpy() for t in (x, w, b)])
    for composed, fused in zip(*grads):
        np.testing.assert_array_equal(fused, composed)


def test_fused_linear_widens_to_a_float64_bias_as_the_composed_form():
    x, w = tinyffn.randn(3, 3), tinyffn.randn(2, 3)
    b = tinyffn.tensor([0.1, 1e-9], dtype="float64")       # 1e-9 is lost in float32 + 1
    composed = F.linear(x, w, b)
    fused = F.linear(x, w, b, fused=True)
    assert dtype_name(fused.dtype) == dtype_name(composed.dtype) == "float64"
    np.testing.assert_array_equal(fused.numpy(), composed.numpy())


def test_softmax_takes_pytorchs_dim_keyword():
    x = tinyffn.randn(3, 4)
    for f in (F.softmax, F.log_softmax):
        np.testing.assert_array_equal(f(x, dim=0).numpy(), f(x, axis=0).numpy())
        np.testing.assert_array_equal(f(x, dim=-1).numpy(), f(x).numpy())
        with pytest.raises(TypeError, match="pass axis or dim .*, not both"):
            f(x, axis=0, dim=1)


def test_cross_entropy_with_pytorch_layout_logits_says_where_the_classes_go():
    logits = tinyffn.randn(2, 5, 3)                 # (N, C, d) as PyTorch lays them out
    with pytest.raises(ValueError, match=r"PyTorch takes them on axis 1: for \(N, C, \.\.\.\) "
                                         r"logits pass logits.permute\(0, 2, 1\)"):
        F.cross_entropy(logits, [[0, 1, 2], [3, 4, 0]])
    loss = F.cross_entropy(logits.permute(0, 2, 1), [[0, 1, 2], [3, 4, 0]])
    assert loss.shape == ()


def test_square_logits_that_fit_both_class_layouts_are_refused_with_both_forms():
    """(2, 4, 4) logits with (2, 4) targets: torch 2.13 reads the classes on axis 1 and
    gives 1.5796207, tinyffn's last-axis reading 1.5248142; nothing would tell which.
    The two 2-d forms the message gives reproduce each (values from torch)."""
    rng = np.random.default_rng(0)
    a, t = rng.standard_normal((2, 4, 4)).astype("float32"), [[0, 1, 2, 3], [3, 2, 1, 0]]
    logits, targets = tinyffn.tensor(a), tinyffn.tensor(t)
    for loss, name, x in [(F.cross_entropy, "logits", logits),
                          (F.nll_loss, "log_probs", F.log_softmax(logits, dim=-1))]:
        with pytest.raises(ValueError, match=(
                rf"{loss.__name__}: {name} of shape \(2, 4, 4\) and targets of shape \(2, 4\) "
                r"fit two layouts: .* for PyTorch's, " + name + r"\.permute\(0, 2, 1\)"
                r"\.reshape\(-1, 4\), for tinyffn's, " + name + r"\.reshape\(-1, 4\); "
                r"and targets\.reshape\(-1\)")):
            loss(x, targets)
    pytorchs = F.cross_entropy(logits.permute(0, 2, 1).reshape(-1, 4), targets.reshape(-1))
    tinyffns = F.cross_entropy(logits.reshape(-1, 4), targets.reshape(-1))
    np.testing.assert_allclose([pytorchs.item(), tinyffns.item()], [1.5796207, 1.5248142],
                               rtol=1e-6)
    assert F.cross_entropy(tinyffn.tensor(a[:, :3]), [[0, 1, 2]] * 2).shape == ()   # not square


def test_losses_check_their_reduction_and_hint_at_the_class_axis_only_when_it_fits():
    """An unknown reduction is refused before any work (it would silently mean "none"),
    and a class weight in its place is named, without torch too. The permute hint shows
    only when the targets are the shape PyTorch's (N, C, ...) layout would want."""
    logits, targets = tinyffn.randn(4, 3), [0, 1, 2, 0]
    for loss in (F.cross_entropy, F.nll_loss, F.mse_loss):
        with pytest.raises(ValueError, match=rf"{loss.__name__}: unknown reduction='avg'; use "
                                             r"one of 'mean', 'sum', 'none'"):
            loss(logits, targets if loss is not F.mse_loss else logits, reduction="avg")
        with pytest.raises(TypeError, match=r"reduction must be one of .*got a Tensor; class "
                                            r"weights"):
            loss(logits, targets if loss is not F.mse_loss else logits, tinyffn.ones(3))
    with pytest.raises(ValueError, match=r"need targets of shape \(2, 5\) \(one class index "
                                         r"per row\), got \(4,\)$"):
        F.cross_entropy(tinyffn.randn(2, 5, 3), [0, 1, 2, 0])


def test_foreign_types_are_named_with_their_module():
    """A torch module, a torch learning rate, a torch exponent: each error says whose."""
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"item 0 is not a tinyffn Module \(got "
                                        r"torch\.nn\.modules\.activation\.ReLU\)"):
        tinyffn.nn.Sequential(torch.nn.ReLU())
    with pytest.raises(TypeError, match=r"lr must be a number, got torch\.Tensor"):
        tinyffn.optim.SGD([tinyffn.nn.Parameter(tinyffn.ones(2))], lr=torch.tensor(0.1))
    with pytest.raises(TypeError, match=r"exponent must be a number .*, got torch\.Tensor"):
        tinyffn.ones(2) ** torch.tensor(2.0)
    with pytest.raises(TypeError, match=r"relu: input must be a tinyffn Tensor, got list;"):
        F.relu([1.0])


# ----------------------------------------------------------------------------- ignore_index, label smoothing
CE_LOGITS = [[1.0, 2.0, 0.5, -1.0], [0.0, -0.5, 3.0, 1.0], [2.0, 2.0, -2.0, 0.0]]


def smoothed_rows(logits, targets, eps):
    """(1 - ε) (-log p[t]) + ε mean_c(-log p[c]), row by row, from the textbook rows."""
    logits = np.asarray(logits, dtype=np.float64)
    nll = ref.cross_entropy_rows(logits, targets)
    return (1 - eps) * nll + eps * -ref.log_softmax(logits).mean(axis=-1)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_ignore_index_and_label_smoothing_as_pytorch(reduction, device):
    """PyTorch 2.13's values for these logits, written out, and a NumPy reference: ignored
    rows count for nothing and "mean" divides by the rows left."""
    expected = {   # torch.nn.functional.cross_entropy(logits, [1, -100, 3], label_smoothing=0.2)
        "mean": 1.7186732016961126, "sum": 3.437346403392225,
        "none": [0.7701818980858561, 0.0, 2.6671645053063693]}[reduction]
    logits = tinyffn.tensor(CE_LOGITS, dtype="float64", device=device)
    y = F.cross_entropy(logits, [1, -100, 3], reduction, label_smoothing=0.2)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    rows = smoothed_rows(CE_LOGITS, [1, 0, 3], 0.2) * [1, 0, 1]
    reference = {"mean": rows.sum() / 2, "sum": rows.sum(), "none": rows}[reduction]
    np.testing.assert_allclose(y.numpy(), reference, rtol=1e-12)
    plain = F.cross_entropy(logits, [1, 2, 3], reduction, label_smoothing=0.1)
    np.testing.assert_allclose(plain.numpy(), {    # label_smoothing=0.1 alone, torch's values
        "mean": 1.252451200655273, "sum": 3.757353601965819,
        "none": [0.6326818980858561, 0.40750719857359397, 2.717164505306369]}[reduction],
        rtol=1e-12)


def test_ignored_rows_get_no_gradient_and_the_rest_pytorchs(device):
    logits = tinyffn.tensor(CE_LOGITS, dtype="float64", device=device, requires_grad=True)
    F.cross_entropy(logits, [1, -100, 3], label_smoothing=0.2).backward()
    np.testing.assert_allclose(logits.grad.numpy(), [   # PyTorch 2.13
        [0.08710390902410059, -0.12026998120056141, 0.042994457896752776, -0.009828385720291885],
        [0.0, 0.0, 0.0, 0.0],
        [0.20716390124476217, 0.20716390124476217, -0.020747769821801196, -0.3935800326677232]],
        rtol=1e-10, atol=1e-15)
    z = tinyffn.randn(2, 3, 5, dtype="float64", device=device, requires_grad=True)
    targets = tinyffn.tensor([[0, 7, 4], [7, 2, 1]], device=device)
    for reduction in ("mean", "sum", "none"):
        assert tinyffn.gradcheck(lambda z: F.cross_entropy(z, targets, reduction, ignore_index=7,
                                                           label_smoothing=0.3), [z])
        assert tinyffn.gradcheck(lambda z: F.nll_loss(F.log_softmax(z, -1), targets, reduction,
                                                      ignore_index=7), [z])


@pytest.mark.parametrize("bad", [-math.inf, math.nan])
def test_an_ignored_rows_infinite_or_nan_logits_change_nothing(bad, device):
    """An ignored row counted 0 * loss: a class masked with -inf in a padding row (or a
    nan there) made the loss and every gradient nan. PyTorch leaves ignored rows out
    whatever they hold: the loss, and the kept rows' gradients, are those with a finite
    row in its place (PyTorch 2.13's values in the test above)."""
    masked = [CE_LOGITS[0], [bad, 0.0, bad, 1.0], CE_LOGITS[2]]
    for smoothing in (0.0, 0.2):
        for reduction in ("mean", "none"):
            expected = F.cross_entropy(tinyffn.tensor(CE_LOGITS, dtype="float64"), [1, -100, 3],
                                       reduction, label_smoothing=smoothing).numpy()
            logits = tinyffn.tensor(masked, dtype="float64", device=device)
            y = F.cross_entropy(logits, [1, -100, 3], reduction, label_smoothing=smoothing)
            np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    logits = tinyffn.tensor(masked, dtype="float64", device=device, requires_grad=True)
    F.cross_entropy(logits, [1, -100, 3], label_smoothing=0.2).backward()
    grad = logits.grad.numpy()
    np.testing.assert_allclose(grad[[0, 2]], [   # PyTorch 2.13, as for the finite rows
        [0.08710390902410059, -0.12026998120056141, 0.042994457896752776, -0.009828385720291885],
        [0.20716390124476217, 0.20716390124476217, -0.020747769821801196, -0.3935800326677232]],
        rtol=1e-10)
    if not math.isnan(bad):     # log_softmax's backward at a nan row is nan, in PyTorch too
        np.testing.assert_array_equal(grad[1], 0.0)
    logp = tinyffn.tensor(masked, dtype="float64", device=device)  # nll_loss picks from rows
    y = F.nll_loss(logp, [1, -100, 3], "none")
    np.testing.assert_array_equal(y.numpy(), [-0.0 - masked[0][1], 0.0, -masked[2][3]])


def test_nll_loss_ignore_index_and_the_loss_modules(device):
    logp = tinyffn.tensor(ref.log_softmax(np.array(CE_LOGITS)), dtype="float64", device=device)
    y = F.nll_loss(logp, [1, 2, 2], ignore_index=2)
    np.testing.assert_allclose(y.item(), 0.49518189808585605, rtol=1e-12)     # PyTorch 2.13
    loss_fn = nn.CrossEntropyLoss(reduction="sum", ignore_index=2, label_smoothing=0.25)
    logits = tinyffn.tensor(CE_LOGITS, dtype="float64", device=device)
    np.testing.assert_allclose(
        loss_fn(logits, [1, 2, 2]).item(),
        F.cross_entropy(logits, [1, 2, 2], "sum", ignore_index=2, label_smoothing=0.25).item())
    np.testing.assert_allclose(nn.NLLLoss(ignore_index=2)(logp, [1, 2, 2]).item(), y.item())


def test_the_plain_loss_draws_no_mask():
    """Without ignored rows or smoothing the graph is the textbook one, as before."""
    logits = tinyffn.randn(3, 4, requires_grad=True)
    dot = tinyffn.to_dot(F.cross_entropy(logits, [0, 1, 2]))
    assert "kept rows" not in dot and "mean" in dot
    assert "kept rows" in tinyffn.to_dot(F.cross_entropy(logits, [0, -100, 2]))


def test_ignore_index_and_label_smoothing_errors():
    logits = tinyffn.randn(3, 4)
    with pytest.raises(ValueError, match=r"cross_entropy: every target is ignore_index \(-100\), "
                                         r"so the mean over no rows is undefined .*reduction='sum'"):
        F.cross_entropy(logits, [-100, -100, -100])
    assert F.cross_entropy(logits, [-100, -100, -100], "sum").item() == 0.0
    with pytest.raises(ValueError, match=r"targets must lie in \[0, 4\) .* or equal "
                                         r"ignore_index \(-100\); got values from -1 to 2"):
        F.cross_entropy(logits, [0, -1, 2])
    with pytest.raises(ValueError, match=r"or equal ignore_index \(5\)"):
        F.nll_loss(logits, [0, 6, 5], ignore_index=5)
    for bad in (-0.1, 1.5, "0.1", True):
        with pytest.raises(ValueError, match="cross_entropy: label_smoothing must be a number "
                                             r"in \[0, 1\]"):
            F.cross_entropy(logits, [0, 1, 2], label_smoothing=bad)
        with pytest.raises(ValueError, match="CrossEntropyLoss: label_smoothing must be"):
            nn.CrossEntropyLoss(label_smoothing=bad)
    for bad in (1.0, None, "-100"):
        with pytest.raises(TypeError, match="nll_loss: ignore_index must be an int"):
            F.nll_loss(logits, [0, 1, 2], ignore_index=bad)
        with pytest.raises(TypeError, match="NLLLoss: ignore_index must be an int"):
            nn.NLLLoss(ignore_index=bad)


def test_narrow_or_numpy_integer_targets_and_ignore_index_work_on_every_backend(device):
    """uint8 targets met the default ignore_index -100 as a raw array comparison (the
    strict backend: "Python int scalars must be within the bounds of the dtype"), and a
    NumPy int ignore_index is no operand there. Targets are made int64, as PyTorch's."""
    logits = tinyffn.tensor(CE_LOGITS, dtype="float64", device=device)
    expected = ref.cross_entropy_rows(np.array(CE_LOGITS), [1, 0, 3]).mean()
    for targets in (np.array([1, 0, 3], np.uint8), np.array([1, 0, 3], np.int8)):
        np.testing.assert_allclose(F.cross_entropy(logits, targets).item(), expected, rtol=1e-12)
    kept = ref.cross_entropy_rows(np.array(CE_LOGITS), [1, 0, 3])[[0, 2]].mean()
    y = F.cross_entropy(logits, np.array([1, 0, 3], np.uint8), ignore_index=np.int64(0))
    np.testing.assert_allclose(y.item(), kept, rtol=1e-12)


def test_a_float16_mean_over_ignored_rows_counts_past_float16s_range():
    """The count of kept rows was the float16 sum of a 0/1 weight: past 65504 rows it was
    inf ("cannot convert float infinity to integer"), and past 2048 inexact. Every row's
    loss is log 2 for zero logits."""
    n = 70_000
    logits = tinyffn.zeros(n, 2, dtype="float16", requires_grad=True)
    targets = np.zeros(n, dtype=np.int64)
    targets[:5] = -100
    y = F.cross_entropy(logits, targets)
    assert dtype_name(y.dtype) == "float16"
    np.testing.assert_allclose(y.item(), math.log(2), rtol=1e-3)
    y.backward()
    assert np.isfinite(logits.grad.numpy()).all()


def test_ignored_and_smoothed_losses_keep_the_row_shape_for_none(device):
    """reduction="none" of (..., C) logits is one loss per row in the shape (...) with the
    options as without them (the masked, smoothed losses are computed flat, (N,))."""
    logits = np.array(CE_LOGITS + [[0.5, -1.0, 1.5, 2.0], [1.0, 0.0, 0.0, -3.0],
                                   [0.0, 0.0, 1.0, 1.0]])
    targets = np.array([[1, -100, 3], [2, 0, -100]])
    flat = targets.ravel()
    z = tinyffn.tensor(logits.reshape(2, 3, 4), dtype="float64", device=device)
    for smoothing in (0.0, 0.2):
        y = F.cross_entropy(z, targets, "none", label_smoothing=smoothing)
        assert y.shape == (2, 3)
        rows = smoothed_rows(logits, np.where(flat < 0, 0, flat), smoothing) * (flat != -100)
        np.testing.assert_allclose(y.numpy(), rows.reshape(2, 3), rtol=1e-12)
    y = F.nll_loss(F.log_softmax(z, -1), targets, "none")
    assert y.shape == (2, 3)
    np.testing.assert_allclose(y.numpy(), F.cross_entropy(z, targets, "none").numpy(),
                               rtol=1e-12)


def test_label_smoothing_of_one_is_the_uniform_target(device):
    """ε = 1 (PyTorch takes ε in [0, 1]) leaves no weight on the target class: each row's
    loss is mean_c -log p[c], whatever its target."""
    logits = tinyffn.tensor(CE_LOGITS, dtype="float64", device=device)
    uniform = -ref.log_softmax(np.array(CE_LOGITS)).mean(axis=-1)
    for targets in ([1, 2, 3], [0, 0, 0]):
        y = F.cross_entropy(logits, targets, "none", label_smoothing=1.0)
        np.testing.assert_allclose(y.numpy(), uniform, rtol=1e-12)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=1)
    np.testing.assert_allclose(loss_fn(logits, [1, 2, 3]).item(), uniform.mean(), rtol=1e-12)


def test_ignore_index_takes_numpy_integers_but_not_bools():
    """An ignore_index read from an array (np.int64) is an int like any other; True is not
    one (it would leave out class 1 in silence)."""
    logp = tinyffn.tensor(ref.log_softmax(np.array(CE_LOGITS)), dtype="float64")
    for ignore_index in (np.int64(2), np.int32(2)):
        np.testing.assert_allclose(F.nll_loss(logp, [1, 2, 2], ignore_index=ignore_index).item(),
                                   0.49518189808585605, rtol=1e-12)      # PyTorch 2.13
        np.testing.assert_allclose(nn.NLLLoss(ignore_index=ignore_index)(logp, [1, 2, 2]).item(),
                                   0.49518189808585605, rtol=1e-12)
    with pytest.raises(TypeError, match="cross_entropy: ignore_index must be an int"):
        F.cross_entropy(logp, [1, 1, 2], ignore_index=True)
    with pytest.raises(TypeError, match="CrossEntropyLoss: ignore_index must be an int"):
        nn.CrossEntropyLoss(ignore_index=True)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_float16_softmax_is_computed_in_float32_and_rounded_once(name):
    """In float16 the exps and their sum lose digits (softmax up to 5 ulp off, log_softmax
    thousands of ulp near 0); PyTorch computes in float32. Against float64 truth: within
    one float16 ulp, returned in float16, and the gradient in float16 too."""
    rng = np.random.default_rng(0)
    for scale, shape in itertools.product([0.01, 1.0, 5.0, 20.0], [(4, 7), (3, 1000)]):
        x16 = (rng.normal(size=shape) * scale).astype(np.float16)
        x = tinyffn.tensor(x16, requires_grad=True)
        y = getattr(F, name)(x, dim=-1)
        assert y.dtype == x.dtype
        z = x16.astype(np.float64) - x16.max(-1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(-1, keepdims=True))
        truth = log_p if name == "log_softmax" else np.exp(log_p)
        ulp = np.spacing(np.abs(truth).astype(np.float16)).astype(np.float64)
        assert (np.abs(y.numpy().astype(np.float64) - truth) / ulp).max() <= 1.0
        y.backward(tinyffn.ones_like(y))              # (a float16 sum of y may overflow)
        assert x.grad.dtype == x.dtype


def _softplus64(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


_HALF_X = np.concatenate([np.linspace(-12, 12, 2001), [-60000.0, -300.0, 300.0, 60000.0]])
_HALF_ACTIVATIONS = {   # name: (tinyffn's call on a float16 x, its value in float64)
    "gelu": (F.gelu, ref.gelu),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), ref.gelu_tanh),
    "nn.GELU": (nn.GELU(), ref.gelu),
    "silu": (F.silu, ref.swish),
    "nn.SiLU": (nn.SiLU(), ref.swish),
    "swish": (lambda x: F.swish(x, beta=1.7), lambda x: ref.swish(x, 1.7)),
    "softplus": (F.softplus, _softplus64),
    "leaky_relu": (F.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x)),
    "glu": (lambda x: F.glu(x[:2000].reshape(-1, 2)),
            lambda x: x[:2000:2] * ref.sigmoid(x[1:2000:2])),
    "lerp": (lambda x: tinyffn.lerp(x, x * 0 + 1, 0.3), lambda x: x + 0.3 * (1 - x)),
}


@pytest.mark.parametrize("name", _HALF_ACTIVATIONS)
def test_float16_activations_are_computed_in_float32_and_rounded_once(name):
    """PyTorch computes float16 activations in float32 and rounds once. Computed in float16,
    GELU's 1 + erf(x/√2) cancelled (GELU(-3) 8% off, 0 from x = -5.5), softplus's exp(x)
    was inf from x = 11.1 on (so softplus(12) was inf), lerp lost 6 bits where it cancels.
    Against float64 truth: within one float16 ulp, or (GELU's left tail, below 2e-5) the
    error of float32's own 1 + erf, about 2^-24 |x|, which PyTorch's float32 shares."""
    ours, truth = _HALF_ACTIVATIONS[name]
    x16 = _HALF_X.astype(np.float16)
    y = ours(tinyffn.tensor(x16))
    assert y.dtype == np.float16
    x64 = x16.astype(np.float64)
    with np.errstate(over="ignore"):                # exp(60000) in the reference: inf
        want = truth(x64)
    got = y.numpy().reshape(want.shape).astype(np.float64)
    assert np.isfinite(got).all()
    ulp = np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)
    cancelled = 2.0 ** -22 * np.abs(x64[:want.size].reshape(want.shape))
    assert (np.abs(got - want) <= np.maximum(ulp, cancelled)).all(), name


def test_float16_activations_give_pytorchs_values_written_out():
    """PyTorch 2.13's float16 values where the float16 arithmetic went wrong."""
    x = tinyffn.tensor([-3.0, -5.0, 12.0, 15.0], dtype="float16")
    assert F.gelu(x)[0].item() == -0.00405120849609375          # float16 arithmetic: -0.0044
    assert F.softplus(x).tolist() == [0.048583984375, 0.0067138671875, 12.0, 15.0]  # was inf
    assert F.silu(x).tolist() == [-0.142333984375, -0.033477783203125, 12.0, 15.0]


@pytest.mark.parametrize("name", [n for n in _HALF_ACTIVATIONS if not n.startswith("nn.")])
def test_float16_activations_match_torch_live(name):
    torch = pytest.importorskip("torch")
    theirs = {"gelu": lambda x: torch.nn.functional.gelu(x),
              "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
              "silu": torch.nn.functional.silu,
              "swish": lambda x: (x.float() * torch.sigmoid(1.7 * x.float())).half(),
              "softplus": torch.nn.functional.softplus,
              "leaky_relu": torch.nn.functional.leaky_relu,
              "glu": lambda x: torch.nn.functional.glu(x[:2000].reshape(-1, 2)),
              "lerp": lambda x: torch.lerp(x, x * 0 + 1, 0.3)}[name]
    x16 = _HALF_X.astype(np.float16)
    got = _HALF_ACTIVATIONS[name][0](tinyffn.tensor(x16)).numpy().astype(np.float64)
    want = theirs(torch.tensor(x16)).numpy().astype(np.float64).reshape(got.shape)
    ulp = np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)
    cancelled = 2.0 ** -22 * np.abs(x16.astype(np.float64))[:got.size].reshape(got.shape)
    assert (np.abs(got - want) <= np.maximum(ulp, cancelled)).all(), name  # (as above)
