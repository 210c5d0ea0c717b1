"""The fused activations equal the composed ones, value for value and gradient for gradient."""
import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn

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
