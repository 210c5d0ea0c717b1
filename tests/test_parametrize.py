"""nn.utils.parametrize and nn.utils.parametrizations (tinyffn/parametrize.py,
tinyffn/parametrizations.py).

References: the constraints themselves (a symmetric matrix is its transpose; weight norm's
rows have norm g; spectral norm's largest singular value is 1, from NumPy's SVD);
gradcheck through a parametrization on every device; PyTorch 2.13 live where installed
(repr, state_dict keys, forward and gradients of weight_norm and spectral_norm from the
same parameters and power-iteration vectors); the errors.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn
from tinyffn.nn.utils import parametrize
from tinyffn.nn.utils.parametrizations import spectral_norm, weight_norm


class Symmetric(nn.Module):
    """X -> its upper triangle mirrored: a symmetric matrix (PyTorch's tutorial example)."""

    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)

    def right_inverse(self, a):
        return a.triu()


def _linear(n_in=3, n_out=4, device="cpu"):
    tinyffn.manual_seed(0)
    return nn.Linear(n_in, n_out, dtype="float64", device=device)


def test_a_parametrized_weight_is_computed_on_each_read_and_learned_through(device):
    m = _linear(4, 4, device)
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    w = m.weight.numpy()
    np.testing.assert_array_equal(w, w.T)
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    opt = tinyffn.optim.SGD(m.parameters(), lr=0.1)
    x = tinyffn.tensor(np.eye(4), device=device)
    m(x).sum().backward()
    opt.step()
    w = m.weight.numpy()                       # still symmetric after a step
    np.testing.assert_array_equal(w, w.T)
    m.weight = tinyffn.tensor(np.ones((4, 4)), device=device)   # through right_inverse
    np.testing.assert_array_equal(m.weight.numpy(), np.ones((4, 4)))
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]


def test_gradcheck(device):
    """Through a module's parametrized weight (to its original) and through weight norm's
    formula (to g and v)."""
    m = _linear(3, 3, device)
    parametrize.register_parametrization(m, "weight", Symmetric())
    x = tinyffn.tensor(np.arange(6.0).reshape(2, 3), device=device)
    theta = m.parametrizations.weight.original
    assert tinyffn.gradcheck(lambda t: tinyffn.func.functional_call(
        m, {"parametrizations.weight.original": t}, (x,)), [theta.detach().requires_grad_()])
    g = tinyffn.tensor(np.ones((2, 1)), device=device, requires_grad=True)
    v = tinyffn.tensor(np.arange(1.0, 7.0).reshape(2, 3), device=device, requires_grad=True)
    from tinyffn.parametrizations import _WeightNorm
    assert tinyffn.gradcheck(lambda g, v: _WeightNorm(0)(g, v), [g, v])


def test_weight_norm_splits_length_and_direction():
    m = _linear()
    w0 = m.weight.numpy().copy()
    weight_norm(m)
    g = m.parametrizations.weight.original0.numpy()
    np.testing.assert_allclose(g[:, 0], np.linalg.norm(w0, axis=1), rtol=1e-14)
    np.testing.assert_allclose(m.weight.numpy(), w0, rtol=1e-14)      # starts where W was
    with tinyffn.no_grad():
        m.parametrizations.weight.original0.data = m.parametrizations.weight.original0 * 2
    np.testing.assert_allclose(np.linalg.norm(m.weight.numpy(), axis=1), 2 * g[:, 0])
    whole = weight_norm(_linear(), dim=None)
    assert whole.parametrizations.weight.original0.shape == ()


def test_spectral_norm_makes_the_largest_singular_value_one():
    tinyffn.manual_seed(0)
    for module in (nn.Linear(6, 5, dtype="float64"), nn.Conv2d(2, 3, 3, dtype="float64")):
        spectral_norm(module)
        x = tinyffn.randn(1, 2, 5, 5, dtype="float64") if isinstance(module, nn.Conv2d) \
            else tinyffn.randn(2, 6, dtype="float64")
        for _ in range(30):                    # power iteration, one step per forward
            module(x)
        w = module.weight.detach().numpy().reshape(module.weight.shape[0], -1)
        assert abs(np.linalg.svd(w, compute_uv=False)[0] - 1) < 1e-10
        module.eval()
        before = module.parametrizations.weight[0]._u.numpy().copy()
        module(x)                              # eval: u and v stay
        np.testing.assert_array_equal(module.parametrizations.weight[0]._u.numpy(), before)


def test_as_pytorchs():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((5, 3))
    for make, make_t in ((weight_norm, torch.nn.utils.parametrizations.weight_norm),
                         (spectral_norm, torch.nn.utils.parametrizations.spectral_norm)):
        ours = make(_linear())
        theirs = torch.nn.Linear(3, 4, dtype=torch.float64)
        theirs.weight.data = torch.tensor(_linear().weight.numpy())
        theirs.bias.data = torch.tensor(ours.bias.numpy())
        theirs = make_t(theirs)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
        for train in (False, True):            # eval: no power step; train: one, the same
            ours.train(train), theirs.train(train)
            ya, yb = ours(tinyffn.tensor(x)), theirs(torch.tensor(x))
            np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12)
            ya.sum().backward(), yb.sum().backward()
            for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
                np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10,
                                           atol=1e-13, err_msg=name)
                p.grad, q.grad = None, None


def test_errors():
    m = _linear()
    with pytest.raises(ValueError, match="Linear has no parameter or buffer 'weights'"):
        parametrize.register_parametrization(m, "weights", Symmetric())
    with pytest.raises(ValueError, match=r"gives \(4, 4\).* where weight is \(4, 3\).* "
                                         r"unsafe=True"):
        parametrize.register_parametrization(m, "weight", _ToSquare())
    with pytest.raises(TypeError, match="must be tinyffn nn.Modules"):
        parametrize.register_parametrization(m, "weight", lambda w: w)
    with pytest.raises(ValueError, match="has no parametrization on 'weight'"):
        parametrize.remove_parametrizations(m, "weight")
    with pytest.raises(ValueError, match="n_power_iterations must be a positive int"):
        spectral_norm(_linear(), n_power_iterations=0)


class _ToSquare(nn.Module):
    def forward(self, w):
        return w[:, :1].expand(4, 4)


# ----------------------------------------------------------------------------- mutation audit
# Each test below failed on a mutant of parametrize.py / parametrizations.py that every test
# above let through (with torch absent, as in CI): chained parametrizations, buffers, removal
# with the original, the checks, and spectral norm's power iteration by hand.
class _Scale(nn.Module):
    def forward(self, x):
        return 2 * x

    def right_inverse(self, w):
        return w / 2


class _Shift(nn.Module):
    def forward(self, x):
        return x + 1

    def right_inverse(self, w):
        return w - 1


class _NoInverse(nn.Module):
    def forward(self, x):
        return x + 0


def test_chained_parametrizations_apply_in_order_and_invert_last_first(device):
    """Scale then Shift: W = 2θ + 1; assigning W' gives θ = (W' - 1) / 2 (Shift's inverse
    first), not W'/2 - 1. Removing with leave_parametrized=False keeps θ, else W."""
    m = _linear(3, 2, device)
    parametrize.register_parametrization(m, "weight", _Scale())
    parametrize.register_parametrization(m, "weight", _Shift())
    theta = m.parametrizations.weight.original
    np.testing.assert_array_equal(m.weight.numpy(), 2 * theta.numpy() + 1)
    m.weight = tinyffn.tensor(np.full((2, 3), 5.0), device=device)
    assert m.parametrizations.weight.original is theta                # the same parameter
    np.testing.assert_array_equal(theta.numpy(), np.full((2, 3), 2.0))
    np.testing.assert_array_equal(m.weight.numpy(), np.full((2, 3), 5.0))
    kept = parametrize.remove_parametrizations(_parametrized_copy(device), "weight",
                                               leave_parametrized=False)
    np.testing.assert_array_equal(kept.weight.numpy(), np.full((2, 3), 2.0))
    left = parametrize.remove_parametrizations(_parametrized_copy(device), "weight")
    np.testing.assert_array_equal(left.weight.numpy(), np.full((2, 3), 5.0))


def _parametrized_copy(device):
    m = _linear(3, 2, device)
    parametrize.register_parametrization(m, "weight", _Scale())
    parametrize.register_parametrization(m, "weight", _Shift())
    m.weight = tinyffn.tensor(np.full((2, 3), 5.0), device=device)      # θ = 2
    return m


def test_a_parametrized_buffer_stays_a_buffer():
    m = nn.BatchNorm1d(3, dtype="float64")
    parametrize.register_parametrization(m, "running_var", _Shift())
    assert "parametrizations.running_var.original" in dict(m.named_buffers())
    assert "parametrizations.running_var.original" not in dict(m.named_parameters())
    np.testing.assert_array_equal(m.parametrizations.running_var.original.numpy(), np.zeros(3))
    np.testing.assert_array_equal(m.running_var.numpy(), np.ones(3))    # θ = 1 - 1, W = θ + 1
    parametrize.remove_parametrizations(m, "running_var")      # a buffer again, as PyTorch's
    np.testing.assert_array_equal(m.state_dict()["running_var"].numpy(), np.ones(3))


def test_removing_gives_back_the_original_parameter_object(device):
    """As PyTorch's (set_ on θ): an optimizer made before the removal still steps the weight."""
    for leave in (True, False):
        m = _linear(4, 4, device)
        parametrize.register_parametrization(m, "weight", Symmetric())
        theta, w = m.parametrizations.weight.original, m.weight.numpy()
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
        assert m.weight is theta and dict(m.named_parameters())["weight"] is theta
        np.testing.assert_array_equal(m.weight.numpy(), w if leave else np.triu(w))


def test_the_shape_and_dtype_checks_and_assigning_without_an_inverse():
    m = _linear(3, 4)
    parametrize.register_parametrization(m, "weight", _Scale())
    with pytest.raises(ValueError, match=r"gives \(4, 4\).* where weight is \(4, 3\)"):
        parametrize.register_parametrization(m, "weight", _ToSquare())   # on top of one
    assert len(m.parametrizations.weight) == 1 and m.weight.shape == (4, 3)   # not kept
    with pytest.raises(ValueError, match=r"float32, where weight is \(4, 3\), float64"):
        parametrize.register_parametrization(_linear(), "weight", _ToFloat32())
    parametrize.register_parametrization(m, "weight", _NoInverse())
    with pytest.raises(RuntimeError, match="_NoInverse has no right_inverse"):
        m.weight = tinyffn.zeros(4, 3, dtype="float64")


class _ToFloat32(nn.Module):
    def forward(self, w):
        return w.float()


def test_spectral_norm_power_iteration_by_hand():
    """PyTorch's recipe in NumPy: u, v drawn (randn, normalized) when made, then 15 power
    steps (and one in the forward that registering runs); each training forward one more
    (n_power_iterations=1 by default), none in eval; σ = uᵀ W v with u, v constants, and
    the gradient flows through W in σ too (gradcheck in eval, where u, v stay)."""
    def normalize(a):
        return a / max(np.linalg.norm(a), 1e-12)

    tinyffn.manual_seed(3)
    m = nn.Linear(4, 3, dtype="float64")
    spectral_norm(m)
    tinyffn.manual_seed(3)
    w = nn.Linear(4, 3, dtype="float64").weight.numpy()             # the same draws, then
    u, v = tinyffn.randn(3, dtype="float64").numpy(), tinyffn.randn(4, dtype="float64").numpy()
    u, v = normalize(u), normalize(v)
    for _ in range(15 + 1):             # and one more: registering evaluates W once, as torch
        u = normalize(w @ v)
        v = normalize(w.T @ u)
    sn = m.parametrizations.weight[0]
    np.testing.assert_allclose(sn._u.numpy(), u, rtol=1e-12)
    np.testing.assert_allclose(sn._v.numpy(), v, rtol=1e-12)
    y = m.weight.numpy()                                              # training: one step
    u = normalize(w @ v)
    v = normalize(w.T @ u)
    np.testing.assert_allclose(sn._v.numpy(), v, rtol=1e-12)
    np.testing.assert_allclose(y, w / (u @ w @ v), rtol=1e-12)
    m.eval()
    x = tinyffn.tensor(np.arange(8.0).reshape(2, 4) / 8)
    theta = m.parametrizations.weight.original.detach().requires_grad_()
    assert tinyffn.gradcheck(lambda t: tinyffn.func.functional_call(
        m, {"parametrizations.weight.original": t}, (x,)), [theta])


def test_spectral_norm_of_a_transposed_conv_and_of_a_vector():
    """ConvTranspose's weight (in, out, k) is read as the matrix (out, in·k) (dim=1 by
    default, as torch): that one's largest singular value becomes 1, not (in, out·k)'s; a
    1-D weight is divided by its norm."""
    tinyffn.manual_seed(0)
    conv = spectral_norm(nn.ConvTranspose1d(2, 3, 2, dtype="float64"))
    for _ in range(30):
        w = conv.weight.detach().numpy()                              # (2, 3, 2)
    out_first = np.moveaxis(w, 1, 0).reshape(3, -1)
    assert abs(np.linalg.svd(out_first, compute_uv=False)[0] - 1) < 1e-10
    assert abs(np.linalg.svd(w.reshape(2, -1), compute_uv=False)[0] - 1) > 1e-3
    bn = nn.BatchNorm1d(4, dtype="float64")
    with tinyffn.no_grad():
        bn.weight.data = tinyffn.tensor([3.0, 0.0, 4.0, 0.0]).data
    np.testing.assert_allclose(spectral_norm(bn).weight.numpy(), [0.6, 0.0, 0.8, 0.0])
