"""F.group_norm, F.instance_norm, F.local_response_norm and their modules
(tinyffn/more_norms.py): the defining formulas in NumPy loops on every device (running
statistics included), gradcheck on every device, the functions and modules beside torch
live (values, gradients, buffers over training steps and eval, unbatched input, reprs and
state_dict keys), and the errors, each input also refused by torch.
"""
import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn

rng = np.random.default_rng(21)


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    """torch's CPU norms wake its thread pool on every call: 25 ms a call on a busy 2-core
    machine, 8 us on one thread. One thread while this file runs, then as it was."""
    try:
        import torch
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _t(device, *arrays, requires_grad=False):
    return [None if a is None else tinyffn.tensor(a, dtype="float64", device=device,
                                                  requires_grad=requires_grad)
            for a in arrays]


def _np_group_norm(x, G, w, b, eps):
    """Group by group in a loop: channels g·C/G to (g+1)·C/G of each example."""
    y, (N, C), k = np.empty_like(x), x.shape[:2], x.shape[1] // G
    for n in range(N):
        for g in range(G):
            v = x[n, g * k:(g + 1) * k]
            y[n, g * k:(g + 1) * k] = (v - v.mean()) / np.sqrt(v.var() + eps)
    shape = (1, C) + (1,) * (x.ndim - 2)
    return y * w.reshape(shape) + b.reshape(shape)


def _np_instance_norm(x, rm, rv, w, b, use_input_stats, momentum, eps):
    """Instance by instance; the running statistics move by the batch's mean of the
    instances' mean and unbiased variance."""
    y, (N, C) = np.empty_like(x), x.shape[:2]
    rm, rv = rm.copy(), rv.copy()
    means, variances = np.empty((N, C)), np.empty((N, C))
    for n in range(N):
        for c in range(C):
            v = x[n, c]
            mean, var = (v.mean(), v.var()) if use_input_stats else (rm[c], rv[c])
            y[n, c] = (v - mean) / np.sqrt(var + eps) * w[c] + b[c]
            means[n, c], variances[n, c] = v.mean(), v.var(ddof=1)
    if use_input_stats:
        rm = (1 - momentum) * rm + momentum * means.mean(0)
        rv = (1 - momentum) * rv + momentum * variances.mean(0)
    return y, rm, rv


def _np_lrn(x, size, alpha, beta, k):
    y, C = np.empty_like(x), x.shape[1]
    for c in range(C):
        lo, hi = max(0, c - size // 2), min(C, c + (size - 1) // 2 + 1)
        y[:, c] = x[:, c] / (k + alpha / size * (x[:, lo:hi] ** 2).sum(axis=1)) ** beta
    return y


# ----------------------------------------------------------------------------- functions
@pytest.mark.parametrize("shape, G", [((2, 6, 5), 3), ((2, 4, 3, 2), 1), ((3, 4), 4)])
def test_group_norm_is_the_defining_formula(shape, G, device):
    x = rng.standard_normal(shape) * 3 + 1
    w, b = rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    y = F.group_norm(*_t(device, x), G, *_t(device, w, b), eps=1e-3)
    np.testing.assert_allclose(y.numpy(), _np_group_norm(x, G, w, b, 1e-3), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_is_the_defining_formula(use_input_stats, device):
    x = rng.standard_normal((3, 2, 4, 2)) * 2 + 1
    rm, rv, w, b = rng.standard_normal(2), rng.uniform(0.5, 2, 2), rng.standard_normal(2), \
        rng.standard_normal(2)
    want, want_rm, want_rv = _np_instance_norm(x, rm, rv, w, b, use_input_stats, 0.3, 1e-4)
    xt, rmt, rvt, wt, bt = _t(device, x, rm, rv, w, b)
    y = F.instance_norm(xt, rmt, rvt, wt, bt, use_input_stats, momentum=0.3, eps=1e-4)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rmt.numpy(), want_rm, rtol=1e-12, atol=1e-15)   # in place
    np.testing.assert_allclose(rvt.numpy(), want_rv, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("size", [1, 2, 5])
def test_local_response_norm_is_the_defining_formula(size, device):
    x = rng.standard_normal((2, 4, 3, 2))
    y = F.local_response_norm(*_t(device, x), size, alpha=0.5, beta=0.6, k=2.0)
    np.testing.assert_allclose(y.numpy(), _np_lrn(x, size, 0.5, 0.6, 2.0), rtol=1e-12)


GRADCHECKED = {
    "group_norm": lambda x, w, b: F.group_norm(x, 2, w, b),
    "instance_norm": lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
    "instance_norm eval": lambda x, w, b: F.instance_norm(
        x, *_t(x.device, [0.1, -0.3, 0.2, 0.0], [0.5, 1.0, 2.0, 0.7]), w, b,
        use_input_stats=False),
    "local_response_norm": lambda x, w, b: F.local_response_norm(x * w.reshape(1, 4, 1), 3,
                                                                 alpha=0.3, k=0.5),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    x, w, b = _t(device, rng.standard_normal((2, 4, 2)), rng.standard_normal(4),
                 rng.standard_normal(4), requires_grad=True)
    assert tinyffn.gradcheck(GRADCHECKED[name], [x, w, b])


CALLS = [   # (function, positional arguments after the input, keyword arguments)
    ("group_norm", (2,), dict(weight="w", bias="b", eps=1e-3)),
    ("group_norm", (1,), {}),
    ("instance_norm", (), dict(running_mean="rm", running_var="rv", weight="w", bias="b",
                               momentum=0.2)),
    ("instance_norm", (), dict(running_mean="rm", running_var="rv", use_input_stats=False)),
    ("local_response_norm", (3,), dict(alpha=0.2, beta=0.5, k=1.5)),
    ("local_response_norm", (2,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", CALLS)
def test_functions_match_torch(name, args, kwargs):
    """Output, input/weight/bias gradients (of Σ y · random weights) and running
    statistics equal torch's in float64."""
    torch = pytest.importorskip("torch")
    x, gy = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 4, 5))
    named = dict(w=rng.standard_normal(4), b=rng.standard_normal(4),
                 rm=rng.standard_normal(4), rv=rng.uniform(0.5, 2, 4))
    ours = {k: _t("cpu", v, requires_grad=k in "wb")[0] for k, v in named.items()}
    theirs = {k: torch.tensor(v, requires_grad=k in "wb") for k, v in named.items()}
    xt, xtt = _t("cpu", x, requires_grad=True)[0], torch.tensor(x, requires_grad=True)
    y = getattr(F, name)(xt, *args, **{k: ours.get(v, v) for k, v in kwargs.items()})
    ty = getattr(torch.nn.functional, name)(xtt, *args,
                                            **{k: theirs.get(v, v) for k, v in kwargs.items()})
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-13)
    (y * tinyffn.tensor(gy)).sum().backward()
    (ty * torch.tensor(gy)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), xtt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for k in ("w", "b") if "weight" in kwargs else ():
        np.testing.assert_allclose(ours[k].grad.numpy(), theirs[k].grad.numpy(), rtol=1e-10,
                                   atol=1e-12)
    for k in ("rm", "rv"):
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-13, atol=1e-15)


def test_float16_is_normalized_in_float32():
    x = tinyffn.tensor(rng.standard_normal((2, 4, 3)) * 100, dtype="float16")
    for f in (lambda v: F.group_norm(v, 2), lambda v: F.instance_norm(v),
              lambda v: F.local_response_norm(v, 3)):
        y = f(x)
        assert y.dtype == x.dtype
        np.testing.assert_array_equal(y.numpy(), f(x.to(dtype="float32")).to(
            dtype="float16").numpy())


# ----------------------------------------------------------------------------- modules
MODULE_CASES = [("GroupNorm", (2, 4), (3, 4, 5), {}),
                ("GroupNorm", (4, 4), (3, 4, 2, 2), dict(affine=False)),
                ("GroupNorm", (1, 4), (3, 4), dict(bias=False, eps=1e-3)),
                ("InstanceNorm1d", (4,), (3, 4, 5), {}),
                ("InstanceNorm1d", (4,), (4, 5), dict(affine=True, track_running_stats=True)),
                ("InstanceNorm1d", (4,), (3, 4, 5), dict(track_running_stats=True,
                                                         momentum=None)),
                ("InstanceNorm2d", (4,), (3, 4, 2, 3), dict(affine=True, momentum=0.5,
                                                            track_running_stats=True)),
                ("InstanceNorm2d", (4,), (4, 2, 3), dict(affine=True, bias=False)),
                ("LocalResponseNorm", (3,), (3, 4, 5), dict(alpha=0.3, k=0.5))]


@pytest.mark.parametrize("cls, args, shape, kw", MODULE_CASES)
def test_modules_match_torch_live(cls, args, shape, kw):
    """State copied from torch (random weight and bias), three training steps, then eval:
    outputs, gradients, buffers; repr and state_dict keys."""
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, cls)(*args, **kw).double()
    ours = getattr(nn, cls)(*args, **kw, **({} if cls == "LocalResponseNorm" else
                                            dict(dtype="float64")))
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    with torch.no_grad():
        for p in theirs.parameters():
            p.copy_(torch.randn_like(p))
    ours.load_state_dict({k: tinyffn.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    for step in range(4):
        if step == 3:
            ours.eval(), theirs.eval()
        x = rng.standard_normal(shape) * 2 + 0.5
        xt, xtt = _t("cpu", x, requires_grad=True)[0], torch.tensor(x, requires_grad=True)
        y, ty = ours(xt), theirs(xtt)
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-11, atol=1e-12)
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        np.testing.assert_allclose(xt.grad.numpy(), xtt.grad.numpy(), rtol=1e-9, atol=1e-11)
    for (name, p), tp in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-9, err_msg=name)
    for (name, b), tb in zip(ours.named_buffers(), theirs.buffers()):
        np.testing.assert_allclose(b.numpy(), tb.numpy(), rtol=1e-12, err_msg=name)


def test_instance_norm_warns_on_unused_num_features_as_torch():
    """affine=False: num_features is not used, so another channel count only warns (the
    function itself does not)."""
    m, x = nn.InstanceNorm1d(3), tinyffn.randn(2, 4, 5)
    with pytest.warns(UserWarning, match=r"InstanceNorm1d: input's size at dim=1 does not "
                                         r"match num_features \(3\)"):
        y = m(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(y.numpy(), F.instance_norm(x).numpy())


def test_group_norm_module_runs_on_every_device(device):
    m = nn.GroupNorm(2, 4, device=device, dtype="float64")
    x = _t(device, rng.standard_normal((2, 4, 3)), requires_grad=True)[0]
    m(x).sum().backward()
    assert m.weight.grad.device == x.device and m.weight.grad.shape == (4,)


# ----------------------------------------------------------------------------- errors
x4 = np.zeros((2, 4, 3))
ERRORS = [  # (a call on F or torch's F, with its tensor maker; error; message)
    (lambda f, T: f.group_norm(T(np.zeros(4)), 1), ValueError,
     r"group_norm: input of shape \(4,\) has 1 axes; it takes \(N, C, \.\.\.\)"),
    (lambda f, T: f.group_norm(T(x4), 3), ValueError,
     r"group_norm: the input's 4 channels \(axis 1 of \(2, 4, 3\)\) do not split into "
     r"num_groups=3"),
    (lambda f, T: f.group_norm(T(np.zeros((1, 2))), 2), ValueError,
     r"group_norm: Expected more than 1 value per channel when training, got input size "
     r"\(1, 2\)"),
    (lambda f, T: f.group_norm(T(x4), 2, T(np.ones(3))), ValueError,
     r"group_norm: weight must have shape \(C,\) = \(4,\).* got \(3,\)"),
    (lambda f, T: f.instance_norm(T(np.zeros((3, 2)))), ValueError,
     r"instance_norm: Expected more than 1 spatial element when training, got input size "
     r"\(3, 2\)"),
    (lambda f, T: f.instance_norm(T(x4), use_input_stats=False), ValueError,
     r"instance_norm: use_input_stats=False normalizes with running_mean and running_var, "
     r"but they are None"),
    (lambda f, T: f.instance_norm(T(x4), T(np.zeros(3)), T(np.ones(3))), ValueError,
     r"instance_norm: running_mean must have shape \(C,\) = \(4,\)"),
    (lambda f, T: f.local_response_norm(T(np.zeros((2, 3))), 2), ValueError,
     r"local_response_norm: input of shape \(2, 3\) has 2 axes; it takes \(N, C, L, \.\.\.\)"),
    (lambda f, T: f.local_response_norm(T(x4), 0), ValueError,
     r"local_response_norm: size must be a positive int"),
    (lambda f, T: f.group_norm(T(x4), 0), ValueError,
     r"group_norm: num_groups must be a positive int, got 0"),
    (lambda f, T: f.instance_norm(T(x4), use_input_stats="yes"), TypeError,
     r"instance_norm: use_input_stats must be True or False, got 'yes'"),
    (lambda f, T: f.instance_norm(T(x4), momentum=None), TypeError,
     r"instance_norm: momentum must be a finite number .* got None"),
    (lambda f, T: f.group_norm(T(x4), 2, np.ones(4)), TypeError,
     r"group_norm: weight must be a tinyffn Tensor or None, got numpy.ndarray"),
]


def _torch_module(torch):
    class Modules:      # the module-level constructors under tinyffn's names
        group_norm = staticmethod(torch.nn.functional.group_norm)
        instance_norm = staticmethod(torch.nn.functional.instance_norm)
        local_response_norm = staticmethod(torch.nn.functional.local_response_norm)
    return Modules


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_name_the_op_and_the_shapes(call, error, message):
    with pytest.raises(error, match=message):
        call(F, lambda a: tinyffn.tensor(a, dtype="float64"))
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception):              # torch refuses the same input
        call(_torch_module(torch), torch.tensor)


MODULE_ERRORS = [   # (call on tinyffn.nn or torch.nn and their zeros, does torch refuse it)
    (lambda m, z: m.GroupNorm(2, 3), ValueError,
     r"GroupNorm: num_channels \(3\) must be divisible by num_groups \(2\)", True),
    (lambda m, z: m.InstanceNorm1d(3)(z(2, 3, 4, 5)), ValueError,
     r"InstanceNorm1d: expected 2-D \(C, L\) or 3-D \(N, C, L\) input, got 4-D", True),
    (lambda m, z: m.InstanceNorm2d(3, affine=True)(z(2, 4, 5, 5)), ValueError,
     r"InstanceNorm2d\(3\): input of shape \(2, 4, 5, 5\) has 4 channels on axis 1, "
     r"expected 3", True),
    (lambda m, z: m.LocalResponseNorm(0), ValueError, r"LocalResponseNorm: size must be",
     False),                            # torch makes it, and fails at the first call
    (lambda m, z: m.GroupNorm(2, 4, eps=0), ValueError,      # torch: nan for a constant input
     r"GroupNorm: eps must be a finite number > 0, got 0", False),
    (lambda m, z: m.GroupNorm(2, 4, eps=float("inf")), ValueError,
     r"GroupNorm: eps must be a finite number > 0, got inf", False),
]


@pytest.mark.parametrize("call, error, message, torch_refuses", MODULE_ERRORS)
def test_module_errors(call, error, message, torch_refuses):
    with pytest.raises(error, match=message):
        call(nn, tinyffn.zeros)
    torch = pytest.importorskip("torch")
    if torch_refuses:
        with pytest.raises(Exception):
            call(torch.nn, torch.zeros)


@pytest.mark.parametrize("eps", [0, -1e-5, float("inf")])
def test_functions_refuse_an_eps_that_is_not_finite_and_positive(eps):
    """Not torch's behaviour (it returns nan for a constant input at eps=0): a choice."""
    x = tinyffn.zeros(2, 4, 3, dtype="float64")
    with pytest.raises(ValueError, match=r"group_norm: eps must be a finite number > 0"):
        F.group_norm(x, 2, eps=eps)


def test_group_norm_reset_parameters_restores_weight_1_and_bias_0():
    m = nn.GroupNorm(2, 4, dtype="float64")
    with tinyffn.no_grad():
        m.weight.fill_(3.0)
        m.bias.fill_(2.0)
    m.reset_parameters()
    np.testing.assert_array_equal(m.weight.numpy(), np.ones(4))
    np.testing.assert_array_equal(m.bias.numpy(), np.zeros(4))


def test_an_integer_input_is_refused_and_torch_refuses_it_too():
    with pytest.raises(TypeError, match=r"group_norm: input has dtype int64; normalization "
                                        r"computes in floating point: cast it"):
        F.group_norm(tinyffn.tensor(np.zeros((2, 4, 3), "int64")), 2)
    torch = pytest.importorskip("torch")
    with pytest.raises((RuntimeError, NotImplementedError)):
        torch.nn.functional.group_norm(torch.zeros(2, 4, 3, dtype=torch.int64), 2)
