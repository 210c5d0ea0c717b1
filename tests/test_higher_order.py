"""Gradients of gradients (create_graph=True): every primitive that declares
``twice_differentiable`` passes gradgradcheck on every backend (all but standard_gamma do,
the fused ops too), a primitive or Function that does not refuses by name; second derivatives against closed forms, finite differences and torch."""
import numpy as np
import pytest

import tinyffn
import tinyffn.nn.functional as F
from tinyffn import nn
from tinyffn.graph_xp import GraphBackend, namespace

from test_gradcheck import Square as CorrectSquare
from test_ops import CASES, _tensors

TWICE = [pytest.param(op, case, id=f"{op.op_name()}-{case.label}")
         for op, cases in CASES.items() if op.twice_differentiable for case in cases]
ONCE = [pytest.param(op, cases[0], id=op.op_name())      # the primitives without the flag
        for op, cases in CASES.items() if not op.twice_differentiable]


def f64(values, **kwargs):
    return tinyffn.tensor(values, dtype=tinyffn.float64, **kwargs)


@pytest.mark.parametrize("op, case", TWICE)
def test_second_derivatives_match_finite_differences(op, case, device):
    """d/dx and d/dv of v . df/dx, by a backward through the recorded backward, against
    central differences of the first derivatives."""
    inputs = _tensors(case, device)
    assert tinyffn.gradgradcheck(case.fn, inputs, **(case.tolerance or {}))


def test_the_ffn_ops_are_twice_differentiable():
    names = set(tinyffn.higher_order.twice_differentiable_ops())
    assert {"add", "mul", "div", "matmul", "relu", "erf", "exp", "log", "tanh", "sigmoid",
            "sum", "mean", "max", "reshape", "transpose", "broadcastto", "getitem",
            "index_add", "where", "maximum", "svd", "det", "inv", "solve", "eigh", "qr",
            "cholesky", "solve_triangular", "matrix_exp"} <= names
    assert {"lgamma", "digamma", "polygamma", "i0", "zeta", "remainder"} <= names
    assert {"linear", "gelu", "swish"} <= names         # the fused ops too


def test_second_derivative_of_a_cube_is_6x():
    x = f64([0.5, 1.0, -2.0], requires_grad=True)
    (g,) = tinyffn.grad((x ** 3).sum(), [x], create_graph=True)
    assert g.grad_fn is not None
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    (h,) = tinyffn.grad(g.sum(), [x], create_graph=True)
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy())
    (g3,) = tinyffn.grad(h.sum(), [x])
    np.testing.assert_allclose(g3.numpy(), [6.0, 6.0, 6.0])         # third derivative


def test_zero_d_output_saved_as_a_numpy_scalar_is_the_output():
    """np.exp of a 0-d array returns a NumPy scalar, which apply turns into the output
    array: the saved value must be that array, else d(exp)/dx would be a constant."""
    x = f64(0.5, requires_grad=True)
    (g,) = tinyffn.grad(x.exp(), [x], create_graph=True)
    (h,) = tinyffn.grad(g, [x])
    np.testing.assert_allclose(h.numpy(), np.exp(0.5), rtol=1e-15)


@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh", "swish"])
def test_ffn_hessian_vector_product_matches_finite_differences(activation):
    tinyffn.manual_seed(1)
    ffn = nn.FFN(4, activation=activation).double()
    x, target = tinyffn.randn(5, 4, dtype=tinyffn.float64), tinyffn.randn(5, 4, dtype=tinyffn.float64)
    params = list(ffn.parameters())
    v = [tinyffn.randn(*p.shape, dtype=tinyffn.float64) for p in params]

    def gradient():
        return tinyffn.grad(F.mse_loss(ffn(x), target), params, create_graph=True)

    g = gradient()
    hv = tinyffn.grad(sum((gi * vi).sum() for gi, vi in zip(g, v)), params)
    eps, moved = 1e-6, []
    for sign in (1, -1):
        with tinyffn.no_grad():
            for p, vi in zip(params, v):
                p.data = p.data + sign * eps * vi.data
        moved.append([gi.numpy() for gi in gradient()])
        with tinyffn.no_grad():
            for p, vi in zip(params, v):
                p.data = p.data - sign * eps * vi.data
    for h, plus, minus in zip(hv, *moved):
        np.testing.assert_allclose(h.numpy(), (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_relu_ffn_hessian_in_w2_has_the_closed_form():
    """With the ReLU pattern fixed the output is linear in W2: for the mean of n squares,
    H V = (2 / n) V h^T h exactly, h the hidden activations."""
    tinyffn.manual_seed(2)
    ffn = nn.FFN(4).double()
    x, target = tinyffn.randn(6, 4, dtype=tinyffn.float64), tinyffn.randn(6, 4, dtype=tinyffn.float64)
    (g,) = tinyffn.grad(F.mse_loss(ffn(x), target), [ffn.w2.weight], create_graph=True)
    V = tinyffn.randn(4, 16, dtype=tinyffn.float64)
    (hv,) = tinyffn.grad((g * V).sum(), [ffn.w2.weight])
    h = np.maximum(x.numpy() @ ffn.w1.weight.numpy().T + ffn.w1.bias.numpy(), 0)
    np.testing.assert_allclose(hv.numpy(), 2 / 24 * V.numpy() @ (h.T @ h), rtol=1e-12, atol=1e-14)


def test_cross_entropy_hessian_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    w, x = rng.standard_normal((5, 4)), rng.standard_normal((3, 4))
    targets = np.array([0, 2, 4])
    W = f64(w, requires_grad=True)
    (g,) = tinyffn.grad(F.cross_entropy(f64(x) @ W.T, tinyffn.tensor(targets)), [W],
                        create_graph=True)
    (h,) = tinyffn.grad((g * g).sum(), [W])
    Wt = torch.tensor(w, requires_grad=True)
    (gt,) = torch.autograd.grad(torch.nn.functional.cross_entropy(
        torch.tensor(x) @ Wt.T, torch.tensor(targets)), [Wt], create_graph=True)
    (ht,) = torch.autograd.grad((gt * gt).sum(), [Wt])
    np.testing.assert_allclose(g.numpy(), gt.detach().numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h.numpy(), ht.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("activation", ["relu", "gelu", "swiglu"])
def test_ffn_gradient_penalty_matches_torch(activation):
    """A gradient penalty, |d loss / d x|^2, backpropagated into every weight, as torch."""
    torch = pytest.importorskip("torch")
    tinyffn.manual_seed(4)
    ffn = (nn.GatedFFN(4) if activation == "swiglu" else nn.FFN(4, activation=activation)).double()
    x_np = np.random.default_rng(5).standard_normal((3, 4))
    x = f64(x_np, requires_grad=True)
    (gx,) = tinyffn.grad(ffn(x).pow(2).sum(), [x], create_graph=True)
    (gx * gx).sum().backward()

    weights = {name: torch.tensor(p.numpy(), requires_grad=True)
               for name, p in ffn.named_parameters()}
    xt = torch.tensor(x_np, requires_grad=True)

    def linear(name, z):
        bias = weights.get(f"{name}.bias")
        return z @ weights[f"{name}.weight"].T + (0 if bias is None else bias)

    if activation == "swiglu":              # GatedFFN: w2(silu(w1 x) * w3 x)
        hidden = torch.nn.functional.silu(linear("w1", xt)) * linear("w3", xt)
    else:
        act = {"relu": torch.relu, "gelu": torch.nn.functional.gelu}[activation]
        hidden = act(linear("w1", xt))
    yt = linear("w2", hidden)
    (gxt,) = torch.autograd.grad(yt.pow(2).sum(), [xt], create_graph=True)
    (gxt * gxt).sum().backward()
    np.testing.assert_allclose(gx.numpy(), gxt.detach().numpy(), rtol=1e-12, atol=1e-14)
    for name, p in ffn.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), weights[name].grad.numpy(),
                                   rtol=1e-10, atol=1e-13, err_msg=name)


def test_backward_with_create_graph_records_grad_and_keeps_the_graph():
    x = f64([1.0, 2.0], requires_grad=True)
    y = (x * x * x).sum()
    y.backward(create_graph=True)
    assert x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])
    y.backward(create_graph=True)            # retain_graph defaulted to True: walks again
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 24.0])
    (h,) = tinyffn.grad(x.grad.sum(), [x])   # d/dx of 2 * 3 x^2
    np.testing.assert_allclose(h.numpy(), [12.0, 24.0])


def test_grad_output_with_a_graph_is_differentiated_too():
    """d/dv of v . J: the Jacobian itself, the double-backward trick for J u."""
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    v = f64([1.0, 1.0, 1.0], requires_grad=True)
    y = x.exp() * x.sum()
    (vjp,) = tinyffn.grad(y, [x], v, create_graph=True)
    u = f64([0.5, -1.0, 2.0])
    (ju,) = tinyffn.grad(vjp, [v], u)                      # J u, by reverse mode twice
    jacobian = np.diag(np.exp(x.numpy()) * 6.0) + np.exp(x.numpy())[:, None]
    np.testing.assert_allclose(ju.numpy(), jacobian @ u.numpy(), rtol=1e-14)


def test_hooks_under_create_graph_are_recorded():
    """The hook's product is in the graph, and the hook runs again in the second backward
    (a gradient with respect to h is computed there too): torch 2.13 gives [6, 72] too."""
    x = f64([1.0, 2.0], requires_grad=True)
    h = x * x
    h.register_hook(lambda g: g * h)
    (g,) = tinyffn.grad(h.sum(), [x], create_graph=True)   # 2 x * x^2 = 2 x^3
    np.testing.assert_allclose(g.numpy(), [2.0, 16.0])
    (gg,) = tinyffn.grad(g.sum(), [x])          # d(2 x^3)/dx = 6 x^2, times h = x^2 at h
    np.testing.assert_allclose(gg.numpy(), [6.0, 72.0])


@pytest.mark.parametrize("op, case", ONCE)
def test_primitives_without_the_flag_refuse_create_graph(op, case, device):
    """As docs/custom_ops.md promises: no silently wrong second derivative, a refusal."""
    inputs = _tensors(case, device)
    with pytest.raises(RuntimeError, match=f"backward of {op.op_name()} .*cannot be recorded"):
        tinyffn.grad(case.fn(*inputs).sum(), [t for t in inputs if t.requires_grad],
                     create_graph=True)


def test_user_functions_refuse_until_declared():
    """A Function of one's own refuses create_graph by name until it declares
    twice_differentiable."""
    x = f64([0.3, -0.7], requires_grad=True)

    class Square(CorrectSquare):            # its own class: the flag set below stays here
        pass

    with pytest.raises(RuntimeError, match="backward of square .*twice_differentiable = True"):
        tinyffn.grad(Square.apply(x).sum(), [x], create_graph=True)
    Square.twice_differentiable = True
    assert tinyffn.gradgradcheck(Square.apply, [x])
    (g,) = tinyffn.grad(Square.apply(x).sum(), [x], create_graph=True)
    np.testing.assert_allclose(tinyffn.grad(g.sum(), [x])[0].numpy(), [2.0, 2.0])


def test_numpy_in_a_recorded_backward_is_named_with_the_fix():
    """A twice_differentiable backward that calls a NumPy ufunc gets tensors under
    create_graph, which NumPy refuses: the error names the op and says to use ctx.xp, not
    NumPy's bare 'operand does not support ufuncs' (docs/custom_ops.md)."""
    class NumpyTanh(tinyffn.Function):
        twice_differentiable = True             # a false promise: backward calls np.tanh

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return ctx.xp.tanh(x)

        @staticmethod
        def backward(ctx, gy):
            (x,) = ctx.saved_tensors
            return gy * (1 - np.tanh(x) ** 2)

    x = f64([0.5, -1.0], requires_grad=True)
    (g,) = tinyffn.grad(NumpyTanh.apply(x).sum(), [x])        # first order: arrays, fine
    np.testing.assert_allclose(g.numpy(), 1 - np.tanh([0.5, -1.0]) ** 2)
    with pytest.raises(TypeError, match=r"backward of numpytanh \(NumpyTanh\) called a "
                                        r"NumPy function on a tensor.*ctx\.xp"):
        tinyffn.grad(NumpyTanh.apply(x).sum(), [x], create_graph=True)


def test_an_array_two_inputs_share_is_refused():
    x = f64([1.0, 2.0], requires_grad=True)
    y = (x * x.detach()).sum()                  # x and a detached x: one array, two tensors
    with pytest.raises(RuntimeError, match="two of its inputs share"):
        tinyffn.grad(y, [x], create_graph=True)
    (g,) = tinyffn.grad((x * x).sum(), [x], create_graph=True)   # one tensor twice: fine
    np.testing.assert_allclose(tinyffn.grad(g.sum(), [x])[0].numpy(), [2.0, 2.0])


def test_the_namespace_and_backend_refuse_what_they_cannot_record():
    backend = tinyffn.randn(2).backend
    with pytest.raises(AttributeError, match=r"xp.fft, which tinyffn.graph_xp does not record"):
        namespace(backend).fft
    with pytest.raises(AttributeError, match=r"backend.index_add, which computes on raw arrays"):
        GraphBackend(backend).index_add
    assert GraphBackend(backend).float_dtypes == backend.float_dtypes


def test_gradgradcheck_catches_a_backward_that_is_wrong_the_second_time():
    """A backward right to first order that reads x through a constant (x.data) has no
    second derivative in x: gradgradcheck must fail it, gradcheck not."""
    class Cube(tinyffn.Function):
        twice_differentiable = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x * 1.0)      # a copy: a constant to create_graph
            return x * x * x

        @staticmethod
        def backward(ctx, gy):
            (x,) = ctx.saved_tensors
            return 3 * x * x * gy

    x = f64([0.5, 1.5], requires_grad=True)
    assert tinyffn.gradcheck(Cube.apply, [x])
    with pytest.raises(tinyffn.GradcheckError):
        tinyffn.gradgradcheck(Cube.apply, [x])
    assert tinyffn.autograd.gradgradcheck is tinyffn.gradgradcheck


def _hessian_vector_products(fn, arrays, module, seed=0):
    """H v for L = <W, fn(*inputs)>, by a backward through the recorded gradient, in
    tinyffn (module None) or torch (module torch), with the same W and v."""
    rng = np.random.default_rng(seed)
    if module is None:
        inputs = [f64(a, requires_grad=True) for a in arrays]
        as_tensor, grad = f64, tinyffn.grad
    else:
        inputs = [module.tensor(a, requires_grad=True) for a in arrays]
        as_tensor = module.tensor

        def grad(y, xs, **kwargs):
            return module.autograd.grad(y, xs, **kwargs)
    y = fn(*inputs)
    W = as_tensor(rng.standard_normal(tuple(y.shape)))
    v = [as_tensor(rng.standard_normal(a.shape)) for a in arrays]
    g = grad((y * W).sum(), inputs, create_graph=True)
    hv = grad(sum((gi * vi).sum() for gi, vi in zip(g, v)), inputs)
    return [h.detach().numpy() if module is not None else h.numpy() for h in hv]


_rng = np.random.default_rng(7)
_A, _T, _B = _rng.standard_normal((3, 3)), _rng.standard_normal((4, 3)), _rng.standard_normal((3, 2))
_LINALG = [   # (id, fn(linalg namespace, eye) -> fn of tensors, inputs); |U| etc.: sign-free
    ("svdvals", lambda L, I: L.svdvals, [_T]),
    ("svd-abs-U", lambda L, I: lambda a: L.svd(a, full_matrices=False).U.abs(), [_T]),
    ("det", lambda L, I: L.det, [_A]),
    ("det-at-identity", lambda L, I: L.det, [np.eye(3)]),
    ("det-singular", lambda L, I: L.det, [np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0],
                                                     [0.3, -0.7, 2.0]])]),
    ("slogdet", lambda L, I: lambda a: L.slogdet(a).logabsdet, [_A]),
    ("inv", lambda L, I: L.inv, [_A + 3 * np.eye(3)]),
    ("solve", lambda L, I: L.solve, [_A + 3 * np.eye(3), _B]),
    ("eigvalsh", lambda L, I: lambda a: L.eigvalsh(a + a.mT), [_A]),
    ("eigh-abs-V", lambda L, I: lambda a: L.eigh(a + a.mT).eigenvectors.abs(), [_A]),
    ("qr-abs-Q", lambda L, I: lambda a: L.qr(a).Q.abs(), [_T]),
    ("cholesky", lambda L, I: lambda a: L.cholesky(a @ a.mT + 3 * I), [_A]),
    ("solve_triangular", lambda L, I: lambda a, b: L.solve_triangular(a, b, upper=False),
     [_A + 3 * np.eye(3), _B]),
    ("matrix_exp", lambda L, I: L.matrix_exp, [0.5 * _A]),
]


@pytest.mark.parametrize("make, arrays", [pytest.param(m, a, id=i) for i, m, a in _LINALG])
def test_linalg_hessian_vector_products_match_torch(make, arrays):
    """Second derivatives of the decompositions against torch.linalg's, which are twice
    differentiable; det at I (equal singular values) and at a singular A included."""
    torch = pytest.importorskip("torch")
    ours = _hessian_vector_products(make(tinyffn.linalg, f64(np.eye(3))), arrays, None)
    theirs = _hessian_vector_products(make(torch.linalg, torch.eye(3, dtype=torch.float64)),
                                      arrays, torch)
    for h, ht in zip(ours, theirs):
        np.testing.assert_allclose(h, ht, rtol=1e-9, atol=1e-12)


def test_lgamma_differentiates_along_its_family_to_any_order():
    """lgamma' = digamma, '' = polygamma(1), ''' = polygamma(2): each a recorded op, so a
    third backward works; against SciPy (torch's trigamma is off by 1e-9 here)."""
    special = pytest.importorskip("scipy.special")
    values = np.array([0.7, 1.5, 2.25, 4.0])
    x = f64(values, requires_grad=True)
    (g,) = tinyffn.grad(x.lgamma().sum(), [x], create_graph=True)
    (h,) = tinyffn.grad(g.sum(), [x], create_graph=True)
    (h3,) = tinyffn.grad(h.sum(), [x])
    np.testing.assert_allclose(g.numpy(), special.psi(values), rtol=1e-14)
    np.testing.assert_allclose(h.numpy(), special.polygamma(1, values), rtol=1e-14)
    np.testing.assert_allclose(h3.numpy(), special.polygamma(2, values), rtol=1e-14)


def test_trigamma_and_tetragamma_are_exact_where_torch_cancels_badly(device):
    """Closed forms: ψ₁(1) = π²/6, ψ₁(1/2) = π²/2, ψ₂(1) = -2ζ(3), as second and third
    derivatives of lgamma. And fuzzer seed 1003959: the second derivative of
    digamma(|lgamma(|x| + 0.5)| + 0.5) at x = 0.3011 is ψ₂(b) ψ(a)² + ψ₁(b) ψ₁(a), two
    terms of 7.3 that cancel to 0.0126: torch's float64 trigamma, 4e-10 off, gives
    4.8e-7 off there; mpmath's value (50 digits) to 1e-12 here."""
    x = tinyffn.tensor([1.0, 0.5], dtype=tinyffn.float64, device=device, requires_grad=True)
    (g,) = tinyffn.grad(x.lgamma().sum(), [x], create_graph=True)
    (h,) = tinyffn.grad(g.sum(), [x], create_graph=True)
    (h3,) = tinyffn.grad(h[0], [x])
    zeta3 = 1.2020569031595942854
    np.testing.assert_allclose(h.numpy(), [np.pi ** 2 / 6, np.pi ** 2 / 2], rtol=1e-14)
    np.testing.assert_allclose(h3.numpy(), [-2 * zeta3, 0.0], rtol=1e-14)
    x = tinyffn.tensor(0.3011, dtype=tinyffn.float64, device=device, requires_grad=True)
    y = ((x.abs() + 0.5).lgamma().abs() + 0.5).digamma()
    (g,) = tinyffn.grad(y, [x], create_graph=True)
    (h,) = tinyffn.grad(g, [x])
    assert abs(float(h.numpy()) - (-0.012646573608279807073)) < 1e-12 * 0.0127


def test_layer_norm_with_a_bias_and_no_weight_has_its_second_derivatives(device):
    """layer_norm(x, bias=b), no weight: b's gradient is gy itself, so d(gb)/d(gy) = I,
    and the second-order gradient of a program through it matches finite differences.
    torch 2.13's double backward drops that term (d(gb)/d(gy) is None there; its
    gradgradcheck fails): fuzzer seed 3007024, logaddexp(b, gelu(layer_norm(x, bias=b)))
    second order, torch 0.15 off the finite differences, tinyffn on them."""
    rng = np.random.default_rng(0)
    x = tinyffn.tensor(rng.normal(size=(2, 3)), device=device, requires_grad=True)
    b = tinyffn.tensor(rng.normal(size=3), device=device, requires_grad=True)
    assert tinyffn.gradgradcheck(lambda x, b: F.layer_norm(x, (3,), bias=b), [x, b])
    gy = tinyffn.tensor(rng.normal(size=(2, 3)), device=device, requires_grad=True)
    (gb,) = tinyffn.grad(F.layer_norm(x, (3,), bias=b), [b], gy, create_graph=True)
    (ggy,) = tinyffn.grad((gb * tinyffn.tensor([1.0, 2.0, 3.0], device=device)).sum(), [gy])
    np.testing.assert_array_equal(ggy.numpy(), [[1.0, 2.0, 3.0]] * 2)
    assert tinyffn.gradgradcheck(
        lambda b: tinyffn.logaddexp(b, F.gelu(F.layer_norm(x.detach(), (3,), bias=b))), [b])


def test_bessel_second_derivatives_match_torch():
    torch = pytest.importorskip("torch")
    for name in ("i0", "i1", "i0e", "i1e"):
        far = [750.0] if name.endswith("e") else []      # the scaled ones' asymptotic branch
        values = np.array([-2.5, -0.4, 0.3, 1.7] + far)
        x = f64(values, requires_grad=True)
        (g,) = tinyffn.grad(getattr(tinyffn.special, name)(x).sum(), [x], create_graph=True)
        (h,) = tinyffn.grad(g.sum(), [x])
        xt = torch.tensor(values, requires_grad=True)
        (gt,) = torch.autograd.grad(getattr(torch.special, name)(xt).sum(), [xt],
                                    create_graph=True)
        (ht,) = torch.autograd.grad(gt.sum(), [xt])
        np.testing.assert_allclose(h.numpy(), ht.numpy(), rtol=1e-9, atol=0, err_msg=name)


def test_zeta_second_derivative_in_q_and_refusal_in_x():
    special = pytest.importorskip("scipy.special")
    s, values = 2.5, np.array([0.6, 1.3, 3.0])
    q = f64(values, requires_grad=True)
    (g,) = tinyffn.grad(tinyffn.special.zeta(f64([s] * 3), q).sum(), [q], create_graph=True)
    (h,) = tinyffn.grad(g.sum(), [q])
    np.testing.assert_allclose(h.numpy(), s * (s + 1) * special.zeta(s + 2, values), rtol=1e-13)
    x = f64([s] * 3, requires_grad=True)
    with pytest.raises(NotImplementedError, match="zeta: the derivative with respect to x"):
        tinyffn.grad(tinyffn.special.zeta(x, f64(values)).sum(), [x], create_graph=True)


def test_graph_linalg_and_special_compute_raw_on_raw_and_refuse_other_names():
    x = tinyffn.randn(3, 3, dtype=tinyffn.float64)
    backend, raw = x.backend, x.numpy()
    ns, gb = namespace(backend), GraphBackend(backend)
    np.testing.assert_allclose(ns.linalg.inv(backend.xp.asarray(raw)), np.linalg.inv(raw))
    assert not isinstance(gb.special("digamma")(backend.xp.asarray(raw)), tinyffn.Tensor)
    y = gb.special("polygamma")(backend.xp.asarray(2.0, dtype=backend.xp.float64), x)
    assert y.grad_fn is None and isinstance(y, tinyffn.Tensor)     # x needs no grad
    with pytest.raises(AttributeError, match=r"xp.linalg.lstsq, which tinyffn.graph_xp"):
        ns.linalg.lstsq
    with pytest.raises(AttributeError, match=r"backend.special\('gammainc'\)"):
        gb.special("gammainc")


def test_remainder_gradient_in_w_has_floor_as_a_constant():
    """gw = -gy floor(x / w): its derivative in w is 0 (floor is a staircase), in gy
    -floor(x / w); the recorded gradient keeps both."""
    x, w = f64([5.5, -3.25, 7.0]), f64([2.0, 1.5, -2.5], requires_grad=True)
    v = f64([1.0, 2.0, -1.0], requires_grad=True)
    (gw,) = tinyffn.grad(x % w, [w], v, create_graph=True)
    np.testing.assert_array_equal(gw.numpy(), -v.numpy() * np.floor(x.numpy() / w.numpy()))
    hw, hv = tinyffn.grad(gw.sum(), [w, v], allow_unused=True, materialize_grads=True)
    np.testing.assert_array_equal(hw.numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(hv.numpy(), -np.floor(x.numpy() / w.numpy()))


# ------------------------------------------------- several outputs, batched cotangents, anomaly
def test_grad_of_several_outputs_adds_their_gradients_as_torch():
    torch = pytest.importorskip("torch")
    w_np = np.array([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])
    x, W = f64([1.0, 2.0, 3.0], requires_grad=True), f64(w_np, requires_grad=True)
    v = f64([0.3, -0.7], requires_grad=True)
    gx, gW = tinyffn.grad([(W @ x).tanh(), (x * x).sum()], [x, W], [v, None], create_graph=True)
    (gv,) = tinyffn.grad((gx * gx).sum(), [v])             # through the recorded cotangent
    xt = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    Wt = torch.tensor(w_np, requires_grad=True)
    vt = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
    gxt, gWt = torch.autograd.grad([(Wt @ xt).tanh(), (xt * xt).sum()], [xt, Wt], [vt, None],
                                   create_graph=True)
    (gvt,) = torch.autograd.grad((gxt * gxt).sum(), [vt])
    for a, b in ((gx, gxt), (gW, gWt), (gv, gvt)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-14, atol=1e-15)


def test_several_outputs_written_out_and_refused_when_they_do_not_match():
    x = f64([1.0, 2.0], requires_grad=True)
    (g,) = tinyffn.grad([x * x, x.sum()], [x], [f64([1.0, 0.5]), None])
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0])      # 2x * (1, 0.5) + 1
    tinyffn.autograd.backward([x * x, x.sum()], [f64([1.0, 0.5]), None])
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    with pytest.raises(TypeError, match="grad: 2 outputs but 1 grad_outputs"):
        tinyffn.grad([x * x, x.sum()], [x], [f64([1.0, 0.5])])
    with pytest.raises(RuntimeError, match="grad: output 1 does not require grad"):
        tinyffn.grad([x.sum(), f64(1.0)], [x])
    with pytest.raises(RuntimeError, match=r"backward: dL/d\(output\) is implied only"):
        tinyffn.autograd.backward([x * x, x.sum()])


def test_is_grads_batched_gives_the_jacobian_rows_as_torch():
    torch = pytest.importorskip("torch")
    w_np = np.array([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])
    x, W = f64([1.0, 2.0, 3.0], requires_grad=True), f64(w_np)
    (J,) = tinyffn.grad((W @ x).tanh(), [x], tinyffn.eye(2, dtype=tinyffn.float64),
                        is_grads_batched=True, create_graph=True)
    (h,) = tinyffn.grad(J.sum(), [x])                      # the stacked rows are recorded
    xt = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (Jt,) = torch.autograd.grad((torch.tensor(w_np) @ xt).tanh(), [xt],
                                torch.eye(2, dtype=torch.float64), is_grads_batched=True,
                                create_graph=True)
    (ht,) = torch.autograd.grad(Jt.sum(), [xt])
    assert J.shape == (2, 3)
    np.testing.assert_allclose(J.numpy(), Jt.detach().numpy(), rtol=1e-12)  # 1 - tanh^2 rounded
    np.testing.assert_allclose(h.numpy(), ht.numpy(), rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match="is_grads_batched=True needs grad_outputs"):
        tinyffn.grad((W @ x).sum(), [x], is_grads_batched=True)


def test_set_detect_anomaly_switches_and_restores():
    x = f64([0.0], requires_grad=True)
    with np.errstate(divide="ignore"):          # log(0) = -inf on purpose: no RuntimeWarning
        tinyffn.autograd.set_detect_anomaly(True)
        try:
            with pytest.raises(tinyffn.AnomalyError):
                x.log()
        finally:
            tinyffn.autograd.set_detect_anomaly(False)
        assert x.log().tolist() == [-np.inf]                # off again: -inf, no error
        with tinyffn.autograd.set_detect_anomaly(True):
            with pytest.raises(tinyffn.AnomalyError):
                x.log()
        assert x.log().tolist() == [-np.inf]
    with pytest.raises(ValueError, match="check_nan=False is not supported"):
        tinyffn.autograd.set_detect_anomaly(True, check_nan=False)


def test_materialized_zeros_require_grad_under_create_graph_as_torch():
    x, unused = f64([1.0, 2.0], requires_grad=True), f64([3.0], requires_grad=True)
    _, z = tinyffn.grad((x * x).sum(), [x, unused], materialize_grads=True, create_graph=True)
    assert z.requires_grad and z.tolist() == [0.0]
    _, z = tinyffn.grad((x * x).sum(), [x, unused], materialize_grads=True)
    assert not z.requires_grad


def test_the_second_derivative_through_a_0d_getitem_on_every_backend(device):
    """x[...] of a 0-d x, differentiated twice: getitem's recorded backward adds gy into a
    0-d array of zeros, which promotion read as a number with ``.item()``, a method
    array_api_strict's arrays lack (AttributeError on the strict backend; a host sync on
    CuPy). Found by running tests/torch_fuzz.py's programs on the strict backend."""
    x = tinyffn.tensor(1.5, dtype="float64", device=device, requires_grad=True)
    (g,) = tinyffn.autograd.grad(x[...] ** 3, x, create_graph=True)
    g.backward()
    assert g.item() == pytest.approx(3 * 1.5 ** 2, rel=1e-12)         # 3x²
    assert x.grad.item() == pytest.approx(6 * 1.5, rel=1e-12)          # 6x


@pytest.mark.parametrize("again", ["grad", "backward"])
def test_differentiating_a_gradient_made_without_create_graph_says_to_pass_it(again):
    """A student's first try at a second derivative forgets create_graph=True on the first
    call; the gradient then holds no graph, and the error must name that fix, not only
    'requires_grad=True' (the leaf has it)."""
    x = tinyffn.tensor([0.5, 1.0], dtype=tinyffn.float64, requires_grad=True)
    (g,) = tinyffn.grad((x ** 3).sum(), [x])                  # no create_graph
    assert g.grad_fn is None and not g.requires_grad
    with pytest.raises(RuntimeError, match=r"pass create_graph=True to the call that made it"):
        if again == "grad":
            tinyffn.grad(g.sum(), [x])
        else:
            g.sum().backward()
    (g,) = tinyffn.grad((x ** 3).sum(), [x], create_graph=True)   # the fix, as named
    (h,) = tinyffn.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy())          # d²/dx² x³ = 6x
