"""The older nn.utils.weight_norm and nn.utils.spectral_norm (forward pre-hooks): the
weight they compute written out in NumPy, gradients by central differences, the
state_dict layout and the errors as PyTorch's, and PyTorch run beside them (where torch is
installed) from the same starting vectors."""
import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import nn


def made(device, layer=None):
    tinyffn.manual_seed(0)
    return (layer or nn.Linear(3, 4)).to(device, "float64")


def weight_normed(module, **kw):
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        return nn.utils.weight_norm(module, **kw)


@pytest.mark.parametrize("dim, g_shape", [(0, (4, 1)), (1, (1, 3)), (None, ()), (-1, ())])
def test_weight_norm_is_g_times_v_over_its_norm(device, dim, g_shape):
    """dim=-1 is PyTorch's None (one norm of the whole tensor), not the last axis."""
    m = made(device)
    w0 = m.weight.numpy().copy()
    weight_normed(m, dim=dim)
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]    # PyTorch's layout
    assert m.weight_g.shape == g_shape
    np.testing.assert_allclose(m.weight.numpy(), w0, rtol=1e-14)       # W unchanged at first
    with tinyffn.no_grad():
        m.weight_g.mul_(2.0)                                           # a longer W, same way
        m.weight_v.add_(0.5)
    x = tinyffn.randn(5, 3, dtype="float64", device=device)
    y = m(x)
    g, v = m.weight_g.numpy(), m.weight_v.numpy()
    whole = dim in (None, -1)
    axes = (0, 1) if whole else tuple(a for a in range(2) if a != dim)
    w = g * v / np.sqrt((v * v).sum(axis=axes, keepdims=not whole))
    np.testing.assert_allclose(m.weight.numpy(), w, rtol=1e-13)
    np.testing.assert_allclose(y.numpy(), x.numpy() @ w.T + m.bias.numpy(), rtol=1e-13)
    y.sum().backward()                                  # gradients reach g and v, not W
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    assert "weight" not in dict(m.named_parameters())


def test_weight_norm_gradients_are_the_central_differences():
    m = made("cpu")
    weight_normed(m)
    x = tinyffn.randn(5, 3, dtype="float64")
    gy = np.random.default_rng(1).standard_normal((5, 4))

    def loss(g, v):
        w = g * v / np.sqrt((v * v).sum(axis=1, keepdims=True))
        return ((x.numpy() @ w.T) * gy).sum()

    (m(x) * tinyffn.tensor(gy)).sum().backward()
    g, v = m.weight_g.numpy().copy(), m.weight_v.numpy().copy()
    for which, grad in (("g", m.weight_g.grad), ("v", m.weight_v.grad)):
        p = g if which == "g" else v
        numeric = np.zeros_like(p)
        for i in np.ndindex(p.shape):
            e = np.zeros_like(p)
            e[i] = 1e-6
            args = (g + e, v) if which == "g" else (g, v + e)
            back = (g - e, v) if which == "g" else (g, v - e)
            numeric[i] = (loss(*args) - loss(*back)) / 2e-6
        np.testing.assert_allclose(grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_remove_weight_norm_leaves_a_parameter_holding_w():
    m = made("cpu")
    weight_normed(m)
    with tinyffn.no_grad():
        m.weight_g.mul_(3.0)
    m(tinyffn.randn(1, 3, dtype="float64"))
    w = m.weight.numpy().copy()
    assert nn.utils.remove_weight_norm(m) is m
    assert isinstance(m.weight, nn.Parameter) and list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_array_equal(m.weight.numpy(), w)
    assert not hasattr(m, "weight_g") and not m._forward_pre_hooks
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
        nn.utils.remove_weight_norm(m)


def test_two_hooks_on_one_parameter_and_a_missing_one_are_refused():
    m = made("cpu")
    weight_normed(m)
    with pytest.raises(RuntimeError, match="two weight_norm hooks.*'weight'"):
        weight_normed(m)
    with pytest.raises(ValueError, match="Linear.kernel is missing.*weight, bias"):
        nn.utils.spectral_norm(made("cpu"), name="kernel")
    s = nn.utils.spectral_norm(made("cpu"))
    with pytest.raises(RuntimeError, match="two spectral_norm hooks"):
        nn.utils.spectral_norm(s)
    with pytest.raises(ValueError, match="positive int.*n_power_iterations=0"):
        nn.utils.spectral_norm(made("cpu"), n_power_iterations=0)
    with pytest.raises(ValueError, match="spectral_norm of 'bias' not found"):
        nn.utils.remove_spectral_norm(s, "bias")


def _power_step(w, u, v):
    """One step, v first, as the hook takes it."""
    v = w.T @ u
    v = v / max(np.linalg.norm(v), 1e-12)
    u = w @ v
    return u / max(np.linalg.norm(u), 1e-12), v


def test_spectral_norm_follows_power_iteration_written_out(device):
    m = made(device)
    w = m.weight.numpy().copy()
    orig = m.weight
    nn.utils.spectral_norm(m)
    assert m.weight_orig is orig                        # the optimizer's Parameter, renamed
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    np.testing.assert_array_equal(m.weight.numpy(), w)  # W itself until the first forward
    u, v = m.weight_u.numpy().copy(), m.weight_v.numpy().copy()
    np.testing.assert_allclose([np.linalg.norm(u), np.linalg.norm(v)], [1, 1], rtol=1e-14)
    x = tinyffn.randn(2, 3, dtype="float64", device=device)
    for _ in range(3):                                  # training: one step per forward
        y = m(x)
        u, v = _power_step(w, u, v)
        sigma = u @ w @ v
        np.testing.assert_allclose(m.weight_u.numpy(), u, rtol=1e-12)
        np.testing.assert_allclose(m.weight_v.numpy(), v, rtol=1e-12)
        np.testing.assert_allclose(y.numpy(), x.numpy() @ (w / sigma).T + m.bias.numpy(),
                                   rtol=1e-12)
    m.eval()                                            # eval: the buffers stay as they are
    m(x)
    np.testing.assert_allclose(m.weight_u.numpy(), u, rtol=1e-12)
    for _ in range(50):
        u, v = _power_step(w, u, v)
    assert u @ w @ v == pytest.approx(np.linalg.svd(w, compute_uv=False)[0], rel=1e-10)


def test_spectral_norm_gradient_holds_u_and_v_fixed():
    m = made("cpu")
    nn.utils.spectral_norm(m)
    m.eval()
    x = tinyffn.randn(5, 3, dtype="float64")
    gy = np.random.default_rng(2).standard_normal((5, 4))
    u, v = m.weight_u.numpy(), m.weight_v.numpy()
    (m(x) * tinyffn.tensor(gy)).sum().backward()
    w = m.weight_orig.numpy()

    def loss(w):
        return ((x.numpy() @ (w / (u @ w @ v)).T) * gy).sum()

    numeric = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = 1e-6
        numeric[i] = (loss(w + e) - loss(w - e)) / 2e-6
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_spectral_norm_takes_n_power_iterations_and_remove_keeps_the_last_weight(device):
    """Three steps per forward; remove_spectral_norm takes none (W / σ of the last forward,
    not of one more step: far from convergence the two differ)."""
    m = made(device)
    w = m.weight.numpy().copy()
    nn.utils.spectral_norm(m, n_power_iterations=3)
    u, v = m.weight_u.numpy().copy(), m.weight_v.numpy().copy()
    m(tinyffn.randn(1, 3, dtype="float64", device=device))
    for _ in range(3):
        u, v = _power_step(w, u, v)
    np.testing.assert_allclose(m.weight_u.numpy(), u, rtol=1e-12)
    np.testing.assert_allclose(m.weight.numpy(), w / (u @ w @ v), rtol=1e-12)
    last = m.weight.numpy().copy()
    nn.utils.remove_spectral_norm(m)
    np.testing.assert_allclose(m.weight.numpy(), last, rtol=1e-14)


def test_spectral_norm_backward_of_an_earlier_forward_uses_its_own_u_and_v(device):
    """σ is taken from copies of u and v: the next forward's step, written into the
    buffers in place, must not change the gradient of an output computed before it."""
    m = made(device)
    nn.utils.spectral_norm(m)
    w = m.weight_orig.numpy().copy()
    x = tinyffn.randn(2, 3, dtype="float64", device=device)
    y = m(x)
    u, v = m.weight_u.numpy().copy(), m.weight_v.numpy().copy()
    m(x)                                                # one more step in the buffers
    y.sum().backward()
    sigma, G = u @ w @ v, np.ones((4, 2)) @ x.numpy()   # G = dL/d(W/σ), (4, 3)
    # d/dW of L(W / σ), σ = uᵀ W v with u, v fixed: G / σ − (Σ G ⊙ W) / σ² · u vᵀ
    expected = G / sigma - (G * w).sum() / sigma**2 * np.outer(u, v)
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), expected, rtol=1e-12)


def test_spectral_norm_of_a_transposed_convolution_reads_axis_1_and_remove_keeps_w():
    m = made("cpu", nn.ConvTranspose1d(3, 5, 2))        # weight (3, 5, 2): 5 outputs on axis 1
    nn.utils.spectral_norm(m)
    assert m.weight_u.shape == (5,) and m.weight_v.shape == (6,)
    for _ in range(30):
        m(tinyffn.randn(1, 3, 4, dtype="float64"))
    w = m.weight.numpy().copy()
    matrix = np.moveaxis(w, 1, 0).reshape(5, -1)
    assert np.linalg.svd(matrix, compute_uv=False)[0] == pytest.approx(1.0, rel=1e-8)
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(m.weight.numpy(), w, rtol=1e-12)


def test_both_match_pytorch_from_the_same_start():
    torch = pytest.importorskip("torch")
    tinyffn.manual_seed(0)
    x = np.random.default_rng(3).standard_normal((2, 3))
    for kind in ("weight_norm", "spectral_norm"):
        ref = torch.nn.Linear(3, 4).double()
        ours = nn.Linear(3, 4).to(dtype="float64")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            getattr(torch.nn.utils, kind)(ref)
            getattr(nn.utils, kind)(ours)
        ours.load_state_dict({k: tinyffn.tensor(v.detach().numpy())
                              for k, v in ref.state_dict().items()})
        assert list(ours.state_dict()) == list(ref.state_dict())
        for _ in range(2):
            want = ref(torch.tensor(x))
            got = ours(tinyffn.tensor(x))
            np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)
        want.sum().backward()
        got.sum().backward()
        for name, p in ref.named_parameters():
            np.testing.assert_allclose(getattr(ours, name).grad.numpy(), p.grad.numpy(),
                                       rtol=1e-10, err_msg=f"{kind} {name}")
        for name, b in ref.named_buffers():
            np.testing.assert_allclose(getattr(ours, name).numpy(), b.numpy(), rtol=1e-12)
