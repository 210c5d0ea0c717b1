"""tinyffn.func.functional_call (tinyffn/func.py) against torch.func.functional_call.

The case is the one it exists for: MAML, an inner SGD step with create_graph=True, the
outer loss computed by the module run with the updated weights and backpropagated through
the step into the module's parameters. References: torch live where it is installed, and
its numbers written out (torch 2.13) for runs without it.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn
from tinyffn.func import functional_call

# torch 2.13, the MAML step of _maml below: outer loss, then each parameter's gradient
TORCH_OUTER = 1.8895706942703945
TORCH_GRADS = {
    "0.weight": [0.09791176162214188, 0.3528996636316032, 0.20310173563733885,
                 0.7794001809703894, -0.04788241657829076, -0.5638941617670664],
    "0.bias": [0.7054641470081455, 0.14756893663587797, -1.0734676752647363],
    "2.weight": [1.8449629346414946, 1.090299183552843, -0.7029992367348687],
    "2.bias": [2.1880213444147625],
}


def _maml(lib, call, create_graph=True):
    """One second-order MAML step, written once for tinyffn and torch (``lib``, its
    functional_call ``call``): returns the outer loss and {name: gradient as a list}."""
    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Tanh(), lib.nn.Linear(3, 1))
    m = m.double() if lib is not tinyffn else m.to(tinyffn.float64)
    with lib.no_grad():
        for i, (_, p) in enumerate(m.named_parameters()):
            p.copy_(lib.tensor(np.sin(np.arange(p.numel()) + i).reshape(tuple(p.shape))))
    xs = lib.tensor(np.cos(np.arange(8.0)).reshape(4, 2))
    ys = xs[:, :1] * xs[:, 1:]
    xq = lib.tensor(np.cos(np.arange(8.0) + 0.5).reshape(4, 2))
    yq = xq.sum(1, keepdim=True)
    params = dict(m.named_parameters())
    loss = lib.nn.functional.mse_loss(call(m, params, (xs,)), ys)
    grads = lib.autograd.grad(loss, list(params.values()), create_graph=create_graph)
    fast = {n: p - 0.5 * g for (n, p), g in zip(params.items(), grads)}
    outer = lib.nn.functional.mse_loss(call(m, fast, xq), yq)     # one argument, no tuple
    outer.backward()
    return outer.item(), {n: p.grad.flatten().tolist() for n, p in m.named_parameters()}


def test_maml_step_matches_torch_written_out():
    outer, grads = _maml(tinyffn, functional_call)
    assert outer == pytest.approx(TORCH_OUTER, abs=1e-12)
    for name, g in TORCH_GRADS.items():
        np.testing.assert_allclose(grads[name], g, rtol=0, atol=1e-12, err_msg=name)


def test_maml_step_matches_torch_live():
    torch = pytest.importorskip("torch")
    import torch.func
    outer, grads = _maml(tinyffn, functional_call)
    t_outer, t_grads = _maml(torch, torch.func.functional_call)
    assert outer == pytest.approx(t_outer, abs=1e-12)
    for name in t_grads:
        np.testing.assert_allclose(grads[name], t_grads[name], rtol=0, atol=1e-12, err_msg=name)


def test_the_second_order_term_is_there():
    """Without create_graph the meta-gradient is first-order MAML's, a different number:
    the check that the swapped-in tensors keep their graph back to the parameters."""
    _, second = _maml(tinyffn, functional_call)
    _, first = _maml(tinyffn, functional_call, create_graph=False)
    assert np.abs(np.subtract(second["0.weight"], first["0.weight"])).max() > 1e-3


def test_module_is_left_as_it_was_even_when_the_call_raises():
    m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    w, b = m[0].weight, m[0].bias
    y = functional_call(m, {"0.weight": tinyffn.zeros(2, 2)}, tinyffn.ones(1, 2))
    np.testing.assert_array_equal(y.numpy(), np.maximum(b.detach().numpy(), 0)[None])
    assert m[0].weight is w and m[0].bias is b
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias"]
    assert w.name == "0.weight"                    # no renaming by the swap
    with pytest.raises(ValueError):
        functional_call(m, {"0.weight": tinyffn.zeros(3, 3)}, tinyffn.ones(1, 2))
    assert m[0].weight is w


def test_tied_weights_follow_and_buffers_can_be_given():
    s = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Linear(2, 2, bias=False))
    s[1].weight = s[0].weight
    eye = tinyffn.eye(2)
    x = tinyffn.tensor([[1.0, -2.0]])
    np.testing.assert_array_equal(functional_call(s, {"0.weight": eye}, x).numpy(), x.numpy())
    assert not np.array_equal(functional_call(s, {"0.weight": eye}, x, tie_weights=False).numpy(),
                              x.numpy())
    bn = nn.BatchNorm1d(2).eval()
    y = functional_call(bn, {"running_mean": tinyffn.tensor([1.0, -2.0])}, x)
    np.testing.assert_allclose(y.numpy(), [[0.0, 0.0]], atol=1e-12)
    np.testing.assert_array_equal(bn.running_mean.numpy(), [0.0, 0.0])


def test_bad_names_are_refused_by_name():
    m = nn.Linear(2, 1)
    x = tinyffn.ones(1, 2)
    with pytest.raises(KeyError, match=r"no parameter or buffer named 'wieght'.*weight, bias"):
        functional_call(m, {"wieght": tinyffn.ones(1, 2)}, x)
    with pytest.raises(ValueError, match="'weight' appears in more than one dict"):
        functional_call(m, ({"weight": tinyffn.ones(1, 2)}, {"weight": tinyffn.ones(1, 2)}), x)
    with pytest.raises(RuntimeError, match="strict=True, but no tensor was given for 'bias'"):
        functional_call(m, {"weight": tinyffn.ones(1, 2)}, x, strict=True)
    with pytest.raises(TypeError, match="'weight' must be a tinyffn Tensor, got numpy.ndarray"):
        functional_call(m, {"weight": np.ones((1, 2))}, x)
    y = functional_call(m, ({"weight": tinyffn.ones(1, 2)}, {"bias": tinyffn.zeros(1)}), (x,), {})
    assert y.item() == 2.0
