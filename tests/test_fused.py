"""The fused activations equal the composed ones, value for value and gradient for gradient."""
import numpy as np
import pytest

import numpy_reference as ref
import tinyffn
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.backend import dtype_name

ACTIVATIONS = [
    ("gelu", lambda x, fused: F.gelu(x, fused=fused)),
    ("gelu_tanh", lambda x, fused: F.gelu(x, approximate="tanh", fused=fused)),
    ("swish", lambda x, fused: F.swish(x, beta=1.3, fused=fused)),
    ("silu", lambda x, fused: F.silu(x, fused=fused)),
]


@pytest.mark.parametrize("name, act", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_fused_equals_composed(name, act, device):
    values = np.linspace(-6, 6, 49).reshape(7, 7)
    grads = []
    for fused in (False, True):
        x = tinyffn.tensor(values, dtype="float64", device=device, requires_grad=True)
        y = act(x, fused)
        y.backward(tinyffn.tensor(values[::-1], dtype="float64", device=device))
        grads.append((y.numpy(), x.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "swish"])
def test_fused_ffn_matches_and_draws_one_activation_node(activation):
    tinyffn.manual_seed(1)
    composed = nn.FFN(4, activation=activation, dtype="float64")
    fused = nn.FFN(4, activation=activation, dtype="float64", fused=True)
    fused.load_state_dict(composed.state_dict())
    x = tinyffn.randn(3, 4, dtype="float64", requires_grad=True)
    np.testing.assert_allclose(fused(x).numpy(), composed(x).numpy(), rtol=1e-12)
    assert tinyffn.gradcheck(lambda x: fused(x), [x])
    ops = [v.name for v in tinyffn.autograd.topological_order(fused(x))
           if isinstance(v, tinyffn.autograd.Context)]
    assert ops == ["linear", activation.split("_")[0], "linear"]
    assert "erf" not in ops and "sigmoid" not in ops


def test_fused_swish_refuses_a_learned_beta():
    with pytest.raises(TypeError, match="fused=True takes a constant beta"):
        F.swish(tinyffn.randn(3), beta=tinyffn.tensor(1.0, requires_grad=True), fused=True)


def test_fused_gated_ffn_matches():
    tinyffn.manual_seed(2)
    composed = nn.GatedFFN(8, activation="swish", dtype="float64")
    fused = nn.GatedFFN(8, activation="swish", dtype="float64", fused=True)
    fused.load_state_dict(composed.state_dict())
    x = tinyffn.randn(2, 5, 8, dtype="float64")
    np.testing.assert_allclose(fused(x).numpy(), composed(x).numpy(), rtol=1e-12)
    assert "fused=True" in repr(fused)


@pytest.mark.parametrize("make, text, op", [
    (lambda: nn.Linear(2, 2, fused=True),
     "Linear(in_features=2, out_features=2, bias=True, fused=True)", "linear"),
    (lambda: nn.GELU(fused=True), "GELU(approximate='none', fused=True)", "gelu"),
    (lambda: nn.Swish(fused=True), "Swish(beta=1.0, fused=True)", "swish"),
    (lambda: nn.SiLU(fused=True), "SiLU(fused=True)", "swish"),
], ids=["Linear", "GELU", "Swish", "SiLU"])
def test_each_fused_module_says_so_and_records_one_node(make, text, op):
    module = make()
    assert repr(module) == text
    y = module(tinyffn.randn(3, 2, requires_grad=True))
    ops = [v.name for v in tinyffn.autograd.topological_order(y)
           if isinstance(v, tinyffn.autograd.Context)]
    assert ops == [op]


@pytest.mark.parametrize("bias", [True, False])
def test_fused_linear_equals_composed(bias, device):
    tinyffn.manual_seed(3)
    layers = [nn.Linear(4, 6, bias=bias, dtype="float64", device=device, fused=f)
              for f in (False, True)]
    layers[1].load_state_dict(layers[0].state_dict())
    x = tinyffn.randn(2, 3, 4, dtype="float64", device=device)
    gy = tinyffn.randn(2, 3, 6, dtype="float64", device=device)
    results = []
    for layer in layers:
        xi = x.detach().requires_grad_()
        y = layer(xi)
        y.backward(gy)
        results.append([y.numpy(), xi.grad.numpy()] + [p.grad.numpy() for p in layer.parameters()])
    for composed, fused in zip(*results):
        np.testing.assert_allclose(fused, composed, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bias_grad, weight_grad", [(True, False), (False, True)])
def test_fused_linear_bias_gradient_follows_the_bias_alone(bias_grad, weight_grad):
    """dL/db = sum of gy over positions whenever b needs it, whatever w needs: a frozen
    weight with a trained bias (and the other way round). Reference: NumPy."""
    rng = np.random.default_rng(5)
    x, w, b, gy = (rng.standard_normal(s) for s in [(4, 3), (5, 3), (5,), (4, 5)])
    tw = tinyffn.tensor(w, requires_grad=weight_grad)
    tb = tinyffn.tensor(b, requires_grad=bias_grad)
    F.linear(tinyffn.tensor(x), tw, tb, fused=True).backward(tinyffn.tensor(gy))
    if bias_grad:
        np.testing.assert_allclose(tb.grad.numpy(), gy.sum(axis=0), rtol=1e-12)
    if weight_grad:
        np.testing.assert_allclose(tw.grad.numpy(), gy.T @ x, rtol=1e-12)


@pytest.mark.parametrize("fused", [False, True])
def test_linear_with_a_wider_bias_gives_the_wider_dtype(fused, device):
    """A float64 bias on a float32 product widens y to float64, fused or composed (the fused
    add cannot be in place there); each gradient keeps its input's dtype. Reference: NumPy.
    x and w hold small integers, so the float32 product is exact on any device (a GPU's
    float32 product of arbitrary values may differ from NumPy's in the last bit), and the
    bias must then be added in float64: rounding it to float32 would be ~1e-8 off."""
    rng = np.random.default_rng(6)
    x, w = rng.integers(-4, 5, (2, 3)).astype(float), rng.integers(-4, 5, (4, 3)).astype(float)
    b = rng.standard_normal(4)
    tw = tinyffn.tensor(w, dtype="float32", device=device, requires_grad=True)
    tb = tinyffn.tensor(b, dtype="float64", device=device, requires_grad=True)
    y = F.linear(tinyffn.tensor(x, dtype="float32", device=device), tw, tb, fused=fused)
    assert dtype_name(y.dtype) == "float64"
    np.testing.assert_allclose(y.numpy(), x @ w.T + b, rtol=1e-15)
    y.sum().backward()
    assert (dtype_name(tw.grad.dtype), dtype_name(tb.grad.dtype)) == ("float32", "float64")
    np.testing.assert_allclose(tb.grad.numpy(), [2.0] * 4)


def test_fused_linear_shape_error():
    with pytest.raises(ValueError, match=r"linear: input of shape \(2, 3\) does not fit weight"):
        F.linear(tinyffn.randn(2, 3), tinyffn.randn(4, 5), fused=True)


@pytest.mark.parametrize("dtype, lowest", [("float32", -80.0), ("float64", -700.0)])
def test_fused_swish_keeps_relative_precision_for_negative_x(dtype, lowest, device):
    """x sigmoid(x) ~ x exp(x) for x << 0; the tanh form of sigmoid cancelled it to 0."""
    from scipy import special
    values = np.linspace(lowest, 30.0, 401).astype(dtype)
    y = F.silu(tinyffn.tensor(values, device=device), fused=True).numpy()
    x64 = values.astype(np.float64)
    np.testing.assert_allclose(y, x64 * special.expit(x64), rtol=4 * np.finfo(dtype).eps, atol=0)


HALF_VALUES = [-65504.0, -1e4, -1000.0, -300.0, -257.0, -256.0, -10.0, -3.0, -1.0, -0.25, 0.0,
               0.25, 1.0, 3.0, 10.0, 256.0, 257.0, 300.0, 1000.0, 1e4, 65504.0]


@pytest.mark.parametrize("ours, theirs", [
    pytest.param(lambda x: F.gelu(x, fused=True), lambda t, x: t.nn.functional.gelu(x),
                 id="gelu"),
    pytest.param(lambda x: F.gelu(x, approximate="tanh", fused=True),
                 lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), id="gelu_tanh"),
    pytest.param(lambda x: F.silu(x, fused=True), lambda t, x: t.nn.functional.silu(x),
                 id="silu"),
    pytest.param(lambda x: F.swish(x, beta=1.7, fused=True),
                 lambda t, x: x * t.sigmoid(1.7 * x), id="swish"),
])
def test_fused_float16_matches_torch_float32(ours, theirs):
    """float16 in, float16 out, values and gradients those of PyTorch's float32 rounded to
    float16, out to |x| = 65504: no inf * 0 = NaN where x² overflows float16 (|x| > 256)."""
    torch = pytest.importorskip("torch")
    values = np.array(HALF_VALUES, dtype=np.float16)
    x = tinyffn.tensor(values, requires_grad=True)
    y = ours(x)
    y.backward(tinyffn.ones(*values.shape, dtype="float16"))
    assert y.dtype == np.float16 and x.grad.dtype == np.float16
    xt = torch.tensor(values.astype(np.float32), requires_grad=True)
    yt = theirs(torch, xt)
    yt.backward(torch.ones_like(yt))
    expected_y = yt.detach().numpy().astype(np.float16)
    expected_gx = xt.grad.numpy().astype(np.float16)
    np.testing.assert_allclose(y.numpy().astype(np.float32), expected_y, rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(x.grad.numpy().astype(np.float32), expected_gx, rtol=2e-3,
                               atol=1e-4)


def test_fused_gelu_tanh_in_float16_stays_finite_where_x_squared_overflows():
    """The check above needs torch; this one compares with NumPy in float64: float16 in
    and out, but computed in float32, so (1 + 3·0.044715 x²)(1 - t²) is never inf · 0."""
    values = np.array(HALF_VALUES, dtype=np.float16)
    x = tinyffn.tensor(values, requires_grad=True)
    y = F.gelu(x, approximate="tanh", fused=True)
    y.backward(tinyffn.ones(*values.shape, dtype="float16"))
    assert y.dtype == np.float16 and x.grad.dtype == np.float16
    x64 = values.astype(np.float64)
    np.testing.assert_allclose(y.numpy().astype(np.float64), ref.gelu_tanh(x64), rtol=2e-3,
                               atol=1e-4)
    t = np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64 ** 3))
    slope = ((1 + t) / 2
             + x64 * (1 - t * t) * np.sqrt(2 / np.pi) * (1 + 3 * 0.044715 * x64 ** 2) / 2)
    np.testing.assert_allclose(x.grad.numpy().astype(np.float64), slope, rtol=2e-3, atol=1e-4)


def test_fused_activations_count_the_flops_of_their_composed_form():
    x = tinyffn.randn(10, 3)
    cases = [(lambda fused: F.gelu(x, fused=fused), 5),
             (lambda fused: F.gelu(x, approximate="tanh", fused=fused), 8),
             (lambda fused: F.silu(x, fused=fused), 2),
             (lambda fused: F.swish(x, beta=1.0, fused=fused), 2),
             (lambda fused: F.swish(x, beta=1.5, fused=fused), 3)]
    for f, per_element in cases:
        counts = []
        for fused in (False, True):
            with tinyffn.FlopCounter() as counter:
                f(fused)
            counts.append(counter.total)
        assert counts == [per_element * 30] * 2


# ----------------------------------------------------------------- second derivatives
TORCH_ACTIVATIONS = {"gelu": lambda t, z: t.nn.functional.gelu(z),
                     "gelu_tanh": lambda t, z: t.nn.functional.gelu(z, approximate="tanh"),
                     "swish": lambda t, z: t.nn.functional.silu(z)}


@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "swish"])
def test_fused_ffn_hessian_vector_product_in_w1_equals_composed_and_torch(activation):
    """H V for the FFN's loss in W1 (a backward through the recorded gradient), fused or
    composed: the same numbers, and torch's (torch.autograd.grad with create_graph). The
    recorded gradient itself equals the ordinary backward's."""
    tinyffn.manual_seed(7)
    composed = nn.FFN(4, activation=activation, dtype="float64")
    fused = nn.FFN(4, activation=activation, dtype="float64", fused=True)
    fused.load_state_dict(composed.state_dict())
    x, target = (tinyffn.randn(5, 4, dtype="float64") for _ in range(2))
    V = tinyffn.randn(16, 4, dtype="float64")                     # a direction in W1's space
    results = []
    for ffn in (composed, fused):
        W1 = ffn.w1.weight
        (g,) = tinyffn.grad(F.mse_loss(ffn(x), target), [W1], create_graph=True)
        (hv,) = tinyffn.grad((g * V).sum(), [W1])
        (plain,) = tinyffn.grad(F.mse_loss(ffn(x), target), [W1])
        np.testing.assert_allclose(g.numpy(), plain.numpy(), rtol=1e-13, atol=1e-16)
        results.append((g.numpy(), hv.numpy()))
    (g_c, hv_c), (g_f, hv_f) = results
    np.testing.assert_allclose(g_f, g_c, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hv_f, hv_c, rtol=1e-11, atol=1e-14)
    assert np.abs(hv_f).max() > 1e-3                              # not a zero by accident

    torch = pytest.importorskip("torch")
    w = {name: torch.tensor(p.numpy(), requires_grad=name == "w1.weight")
         for name, p in composed.named_parameters()}
    xt, tt = torch.tensor(x.numpy()), torch.tensor(target.numpy())
    hidden = TORCH_ACTIVATIONS[activation](torch, xt @ w["w1.weight"].T + w["w1.bias"])
    loss = torch.nn.functional.mse_loss(hidden @ w["w2.weight"].T + w["w2.bias"], tt)
    (gt,) = torch.autograd.grad(loss, [w["w1.weight"]], create_graph=True)
    (hvt,) = torch.autograd.grad((gt * torch.tensor(V.numpy())).sum(), [w["w1.weight"]])
    np.testing.assert_allclose(g_f, gt.detach().numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hv_f, hvt.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("fused_fn, reference", [
    # exact GELU: y''' = φ(x) (x³ − 4x), written out
    (lambda x: F.gelu(x, fused=True),
     lambda x: np.exp(-x * x / 2) / np.sqrt(2 * np.pi) * (x ** 3 - 4 * x)),
    # the tanh form and Swish: the composed form's third derivative
    (lambda x: F.gelu(x, approximate="tanh", fused=True),
     lambda x: _third_derivative(lambda t: F.gelu(t, approximate="tanh"), x)),
    (lambda x: F.swish(x, beta=1.7, fused=True),
     lambda x: _third_derivative(lambda t: F.swish(t, beta=1.7), x)),
], ids=["gelu", "gelu_tanh", "swish"])
def test_fused_activations_have_third_derivatives(fused_fn, reference):
    """The recorded backward is made of recorded ops (erf, exp, tanh, sigmoid, mul, ...),
    each differentiable again, so the third derivative runs too."""
    values = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(_third_derivative(fused_fn, values), reference(values),
                               rtol=1e-10, atol=1e-12)


def _third_derivative(fn, values):
    x = tinyffn.tensor(values, dtype="float64", requires_grad=True)
    (g,) = tinyffn.grad(fn(x).sum(), [x], create_graph=True)
    (h,) = tinyffn.grad(g.sum(), [x], create_graph=True)
    return tinyffn.grad(h.sum(), [x])[0].numpy()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_fused_gelu_second_derivative_in_float16_reaches_x(approximate):
    """float16 runs in float32 (a cast of x): the input saved is x itself, so the recorded
    gradient depends on x through that cast, and its derivative is GELU''(x) = φ(x)(2 − x²)
    (exact form), not an error or 0 for a copy the graph does not know. Reference: the
    composed form in float64."""
    values = np.array([-2.0, -0.5, 0.0, 0.75, 1.5], dtype=np.float16)
    x = tinyffn.tensor(values, requires_grad=True)
    (g,) = tinyffn.grad(F.gelu(x, approximate=approximate, fused=True).sum(), [x],
                        create_graph=True)
    assert g.dtype == np.float16
    (h,) = tinyffn.grad(g.sum(), [x])
    x64 = tinyffn.tensor(values.astype(np.float64), requires_grad=True)
    (g64,) = tinyffn.grad(F.gelu(x64, approximate=approximate).sum(), [x64], create_graph=True)
    (h64,) = tinyffn.grad(g64.sum(), [x64])
    assert h.dtype == np.float16
    np.testing.assert_allclose(h.numpy().astype(np.float64), h64.numpy(), rtol=2e-3, atol=2e-3)
