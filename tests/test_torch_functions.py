"""PyTorch's module-level functions: tinyffn.exp(x), tinyffn.sum(x, 1, True), tinyffn.tril,
tinyffn.full, ... (torch_functions.py and creation.py).

Each case below is one call, written once and run twice: with the names of tinyffn and
with those of torch (``sum`` is ``tinyffn.sum`` or ``torch.sum``). References: PyTorch
2.13, live where it is installed, and its values written out in ``EXPECTED`` (computed
once with torch; that test runs without it); NumPy's generator for the random ones;
gradcheck for every differentiable function, called by its module-level name.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import torch_functions
from tinyffn.backend import dtype_name

inf, nan = math.inf, math.nan

X = [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]
Y = [[1.0, -2.0, 2.5], [0.0, 1.5, 1.0]]
P = [[0.5, 2.0, 3.0], [4.0, 1.5, 0.25]]                 # positive: log, sqrt, pow
B = (np.arange(24.0).reshape(2, 3, 4) * 0.5 - 5.0).tolist()      # a batch of matrices
N = [[1, 2, 3], [4, 5, 6]]                                       # int64
Z = [1.0, inf, -inf, nan, 0.0]
W = [1.0, inf, inf, nan, 1e-9]

FUNCTIONS = ["exp", "log", "tanh", "sigmoid", "relu", "erf", "sqrt", "abs", "neg",
             "square", "reciprocal", "rsqrt", "logical_not", "logical_and", "logical_or",
             "logical_xor",
             "maximum", "minimum", "clamp", "clip", "pow", "matmul", "softmax", "log_softmax",
             "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "any", "all",
             "reshape", "transpose", "permute", "flatten", "squeeze", "unsqueeze",
             "masked_fill", "tril", "triu", "norm", "isnan", "isinf", "isfinite", "isclose",
             "allclose", "equal", "where", "nonzero", "full", "full_like", "eye", "linspace",
             "float32", "float64", "int64"]
CASES = [
    # elementwise
    "exp(x)", "log(p)", "tanh(x)", "sigmoid(x)", "relu(x)", "erf(x)", "sqrt(p)", "abs(x)",
    "neg(x)", "neg(n)", "abs(n)", "maximum(x, y)", "minimum(x, y)", "clamp(x, -1.0, 2.0)",
    "clamp(x, min=0.0)", "clamp(x, y)", "clip(x, max=1.0)", "pow(p, 2.5)", "pow(x, 2)",
    "pow(2.0, x)", "matmul(x, transpose(y, 0, 1))", "matmul(y, b)", "softmax(x, 1)",
    "softmax(x, dim=0)", "softmax(x, -1, dtype=float32)", "log_softmax(x, 1)",
    "log_softmax(x, 0, float32)", "square(x)", "square(n)", "reciprocal(x)", "reciprocal(n)",
    "rsqrt(p)", "rsqrt(n)",
    # reductions
    "sum(x)", "sum(x, 1)", "sum(x, 0, True)", "sum(x, dim=(0, 1))", "sum(x, dtype=float32)",
    "sum(x > 0)", "sum(n, 1)", "mean(x)", "mean(x, 1, True)", "mean(b, dim=(0, 2))",
    "mean(n, dtype=float64)", "x.sum(dtype=float32)", "x.sum(1, dtype=float32)",
    "n.sum(dtype=float64)", "n.mean(dtype=float64)", "x.mean(0, True, dtype=float32)",
    "x.sum(dim=0, keepdim=True, dtype=float64)", "x.sum(dtype=int64)", "mean(n, 1, dtype=float64)",
    "b.mean(dim=(0, 2), dtype=float32)", "max(x)", "max(x, 1)", "max(x, 0, True)", "max(b, dim=-1)",
    "min(x)", "min(x, 1)", "min(x, dim=0, keepdim=True)", "max(x, axis=1)",
    "min(x, axis=0, keepdims=True)", "amax(x)", "amax(x, 1)", "amax(b, (0, 2), True)",
    "amin(x, dim=0)", "amin(b, axis=(1, 2))", "argmax(x)", "argmax(x, 1)",
    "argmax(x, 0, True)", "argmin(x)", "argmin(x, dim=1, keepdim=True)", "var(x)",
    "var(x, 1)", "var(x, 0, keepdim=True)", "var(x, dim=1, correction=0)", "std(x)",
    "std(b, (0, 2))", "std(x, 1, correction=0, keepdim=True)", "any(x > 2)", "any(x > 2, 1)",
    "any(x, 0, True)", "all(x > -5)", "all(x > 0, 1)", "all(x, dim=0, keepdim=True)",
    # shapes
    "reshape(x, (3, 2))", "reshape(x, (-1,))", "transpose(x, 0, 1)", "transpose(b, 0, 2)", "transpose(b, -1, 1)",
    "permute(b, (2, 0, 1))", "flatten(b)", "flatten(b, 1)", "flatten(b, 0, 1)",
    "squeeze(unsqueeze(x, 0))", "squeeze(reshape(x, (1, 2, 1, 3)), 2)",
    "squeeze(reshape(x, (1, 2, 1, 3)), (0, 2))", "unsqueeze(x, -1)", "unsqueeze(x, 1)",
    "masked_fill(x, x > 1, -1.0)", "masked_fill(x, y == 0, inf)", "masked_fill(n, n > 4, 0)",
    # triangles
    "tril(x)", "tril(x, 1)", "tril(x, -1)", "tril(x, 5)", "triu(x)", "triu(x, 1)",
    "triu(x, -2)", "triu(x, -5)", "tril(b, 1)", "triu(b, -1)", "tril(x > 0)", "triu(n)",
    # norms
    "norm(x)", "norm(x, 1)", "norm(x, 2, 1)", "norm(x, inf)", "norm(x, -inf, 0)",
    "norm(b, 'fro', (0, 2))", "norm(x, 3, 1, True)", "norm(x, 0.5)", "norm(x, dim=0)",
    "norm(b, 1, dim=-1, keepdim=True)",
    # tests of values
    "isnan(z)", "isinf(z)", "isfinite(z)", "isnan(n)", "isinf(n)", "isfinite(n)",
    "isfinite(x > 0)", "isclose(x, y)", "isclose(x, x + 1e-6)", "isclose(x, x * (1 + 1.2e-5))",
    "isclose(x, x + 1.2e-8, rtol=0.0)", "isclose(x, x + 0.5, rtol=0.0, atol=0.5)",
    "isclose(x, 2 * x, rtol=0.5, atol=0.0)",
    "isclose(x, x + 1e-4, rtol=0.0, atol=1e-3)", "isclose(z, w)", "isclose(z, w, equal_nan=True)",
    "isclose(n, n + 1, rtol=0.2)", "isclose(x > 0, y > 0)", "allclose(x, y)",
    "allclose(x, x * (1 + 1e-6))", "allclose(x, x * (1 + 1e-4))", "allclose(z, z)",
    "allclose(x, x * (1 + 1.2e-5))", "allclose(x, x + 1.2e-8, rtol=0.0)",
    "allclose(z, z, equal_nan=True)", "equal(x, x)", "equal(x, y)", "equal(n, n * 1.0)",
    "equal(z, z)", "equal(x, reshape(x, (3, 2)))", "logical_not(y)", "logical_not(n > 2)",
    "logical_and(x, y)", "logical_or(y, z[:3])", "logical_xor(y > 0, n)", "logical_and(z, w)",
    # where and nonzero
    "where(x > 0, x, y)", "where(y == 0, 1.0, x)", "where(x > 0)", "nonzero(y)",
    "nonzero(n > 2)", "nonzero(y, as_tuple=True)",
    # creation
    "full((2, 3), 0.5)", "full((2,), 7)", "full((2, 2), True)", "full((), -1.5)",
    "full([2], 3, dtype=float64)", "full((2,), -inf)", "full_like(x, 2)", "full_like(n, 7)",
    "full_like(x, 1, dtype=int64)", "eye(3)", "eye(2, 3)", "eye(3, 1, dtype=float64)",
    "linspace(-3, 3, 7)", "linspace(0, 1, 5, dtype=float64)", "linspace(1, -1, 5)",
    "linspace(0, 1, 1)", "linspace(0, 10, 5, dtype=int64)", "linspace(0, 1, 0)",
]


def run(module, case: str, **tensor_kwargs):
    """``case`` evaluated with ``module``'s functions (tinyffn or torch) and inputs."""
    def t(values, dtype):
        return module.tensor(values, dtype=dtype, **tensor_kwargs)
    names = {name: getattr(module, name) for name in FUNCTIONS}
    inputs = dict(x=t(X, module.float64), y=t(Y, module.float64), p=t(P, module.float64),
                  b=t(B, module.float64), n=t(N, module.int64), z=t(Z, module.float64),
                  w=t(W, module.float64), inf=inf)
    return eval(case, {}, {**names, **inputs})     # sum is module.sum, not the builtin


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare


def assert_same(actual, expected, case):
    assert type(actual) is type(expected), f"{case}: {actual!r} against {expected!r}"
    if isinstance(expected, bool):
        assert actual is expected, case
    elif isinstance(expected[0], tuple):
        for a, e in zip(actual, expected, strict=True):
            assert_same(a, e, case)
    else:
        assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
        a, e = np.asarray(actual[1]), np.asarray(expected[1])
        assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
        rtol = {"float32": 1e-6, "float64": 1e-12}.get(expected[0], 0)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=0, err_msg=case)


torch_parity.tests(globals())          # live torch, EXPECTED, EXPECTED's check


# ----------------------------------------------------------------------------- names
BUILTIN_NAMES = ("abs", "all", "any", "max", "min", "pow", "sum")


def test_the_names_of_builtins_are_reachable_but_left_out_of_import_star():
    namespace = {}
    exec("from tinyffn import *\nfound = sum([1, 2]), max(1, 2), abs(-1), all([]), pow(2, 3)",
         namespace)
    assert namespace["found"] == (3, 2, 1, True, 8)             # Python's, not tinyffn's
    for name in BUILTIN_NAMES:
        assert name not in tinyffn.__all__ and name not in namespace
        assert getattr(tinyffn, name) is getattr(torch_functions, name)


def test_every_other_new_function_is_in_all():
    public = [n for n, f in vars(torch_functions).items() if not n.startswith("_")
              and callable(f) and getattr(f, "__module__", "") == torch_functions.__name__]
    assert len(public) == 54 and set(public) <= set(FUNCTIONS)    # each has its cases
    assert sorted(set(public) - set(BUILTIN_NAMES)) == sorted(set(public) & set(tinyffn.__all__))
    for name in ("full", "full_like", "eye", "linspace", "randint", "randn_like", "rand_like"):
        assert name in tinyffn.__all__


# ----------------------------------------------------------------------------- gradients
R = np.random.default_rng(5)
XR, YR = R.standard_normal((2, 3)), R.standard_normal((2, 3))
BR = R.standard_normal((2, 3, 4))
T = tinyffn
DIFFERENTIABLE = {
    "exp": lambda x, y, b: T.exp(x), "log": lambda x, y, b: T.log(T.abs(x)),
    "tanh": lambda x, y, b: T.tanh(x), "sigmoid": lambda x, y, b: T.sigmoid(x),
    "relu": lambda x, y, b: T.relu(x), "erf": lambda x, y, b: T.erf(x),
    "sqrt": lambda x, y, b: T.sqrt(T.abs(x)), "abs": lambda x, y, b: T.abs(x),
    "neg": lambda x, y, b: T.neg(x), "maximum": lambda x, y, b: T.maximum(x, y),
    "square": lambda x, y, b: T.square(x), "reciprocal": lambda x, y, b: T.reciprocal(x + 3.0),
    "rsqrt": lambda x, y, b: T.rsqrt(T.abs(x) + 0.5),
    "maximum of a number": lambda x, y, b: T.maximum(0.1, x),
    "minimum": lambda x, y, b: T.minimum(x, y),
    "minimum of a number": lambda x, y, b: T.minimum(0.1, x),
    "clamp": lambda x, y, b: T.clamp(x, -0.5, 0.5), "clamp to y": lambda x, y, b: T.clamp(x, y),
    "clip": lambda x, y, b: T.clip(x, max=0.3), "pow": lambda x, y, b: T.pow(T.abs(x), 2.5),
    "pow of a number": lambda x, y, b: T.pow(2.0, x),
    "matmul": lambda x, y, b: T.matmul(x, b), "softmax": lambda x, y, b: T.softmax(b, 1),
    "log_softmax": lambda x, y, b: T.log_softmax(x, -1, dtype=T.float64),
    "sum": lambda x, y, b: T.sum(b, 1, True), "mean": lambda x, y, b: T.mean(b, dim=(0, 2)),
    "sum with dtype": lambda x, y, b: b.sum(1, dtype=T.float64),
    "mean with dtype": lambda x, y, b: T.mean(x, 0, dtype=T.float64),
    "max": lambda x, y, b: T.max(b, 2)[0] * T.max(x), "min": lambda x, y, b: T.min(b, 0)[0],
    "var": lambda x, y, b: T.var(b, 1), "std": lambda x, y, b: T.std(x, correction=0),
    "reshape": lambda x, y, b: T.reshape(b, (4, 6)) * T.reshape(y, (6,)),
    "transpose": lambda x, y, b: T.transpose(b, 0, 2),
    "permute": lambda x, y, b: T.permute(b, (1, 2, 0)),
    "flatten": lambda x, y, b: T.flatten(b, 1), "squeeze": lambda x, y, b: T.squeeze(b[:1]),
    "unsqueeze": lambda x, y, b: T.unsqueeze(x, 1),
    "masked_fill": lambda x, y, b: T.masked_fill(x, y > 0, 2.0) * x,
    "tril": lambda x, y, b: T.tril(b, -1), "triu": lambda x, y, b: T.triu(b, 1),
    "tril method": lambda x, y, b: b.tril(1) * b.triu(),
    "norm": lambda x, y, b: T.norm(b, dim=(0, 2)) * T.norm(x),
    "norm 1": lambda x, y, b: T.norm(b, 1, 1),
    "norm inf": lambda x, y, b: T.norm(b, math.inf, -1) + T.norm(x, -math.inf, 0, True),
    "norm 3": lambda x, y, b: T.norm(b, 3, (1, 2)), "norm 0.5": lambda x, y, b: T.norm(x, 0.5, 0),
    "norm method": lambda x, y, b: x.norm(dim=1, keepdim=True) * y,
    "where": lambda x, y, b: T.where(x > 0, x, y * 2),
    "where's indices":
        lambda x, y, b: x[T.where(y > 0)].sum() * b[T.nonzero(b > 0, as_tuple=True)],
}


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_each_differentiable_function_is_gradchecked(name, device):
    x, y, b = (tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
               for v in (XR, YR, BR))
    assert tinyffn.gradcheck(DIFFERENTIABLE[name], [x, y, b])


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_a_masked_inf_gets_an_exact_zero_not_nan(op, device):
    """A causal mask of scores (-inf where a position may not look): tril keeps the past,
    and the infs it drops pass back 0, as in PyTorch 2.13 (grad [[1, 0, 0], [1, 1, 0],
    [1, 1, 1]]); a 0/1 mask multiplied in would give inf * 0 = NaN forward and back."""
    s = [[1.0, -inf, -inf], [2.0, 3.0, -inf], [4.0, 5.0, 6.0]]
    x = tinyffn.tensor(s if op == "tril" else np.transpose(s), dtype="float64", device=device,
                       requires_grad=True)
    y = getattr(tinyffn, op)(x)
    keep = np.tril(np.ones((3, 3))) if op == "tril" else np.triu(np.ones((3, 3)))
    np.testing.assert_array_equal(y.numpy(), np.where(keep == 1, x.numpy(), 0.0))
    y.backward(tinyffn.tensor(np.full((3, 3), 2.0), device=device))
    np.testing.assert_array_equal(x.grad.numpy(), 2.0 * keep)
    x.grad = None
    gy = np.where(keep == 1, 1.0, inf)                         # an inf arrives where dropped
    getattr(x, op)().backward(tinyffn.tensor(gy, device=device))
    np.testing.assert_array_equal(x.grad.numpy(), keep)


def test_tril_and_triu_keep_the_dtype_and_frame_the_where():
    n = tinyffn.tensor([[1, 2], [3, 4]], dtype="uint8")
    assert dtype_name(tinyffn.triu(n).dtype) == "uint8"
    assert tinyffn.tril(tinyffn.ones(2, 2) > 0).tolist() == [[True, False], [True, True]]
    x = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.tril()
    assert y.grad_fn.name == "where" and y.grad_fn.scope[-1].name == "tril"


# ----------------------------------------------------------------------------- norms
# PyTorch 2.13: x = [0, 1, -2] (and all zeros): x.norm(p).backward() gives x.grad below; at
# a 0 entry, and at an all-zero x, the gradient is 0 for every p (no NaN from the root).
NORM_GRADS = {"fro": [0.0, 0.4472135954999579, -0.8944271909999159], 1: [0.0, 1.0, -1.0],
              math.inf: [0.0, 0.0, -1.0], 3: [0.0, 0.2311204247835449, -0.9244816991341795],
              0.5: [0.0, 2.414213562373095, -1.7071067811865472],
              1.5: [0.0, 0.6392340078652324, -0.9040134034531215]}


@pytest.mark.parametrize("p", NORM_GRADS)
def test_norm_passes_back_zero_at_zero_as_pytorch(p, device):
    x = tinyffn.tensor([0.0, 1.0, -2.0], dtype="float64", device=device, requires_grad=True)
    x.norm(p).backward()
    np.testing.assert_allclose(x.grad.numpy(), NORM_GRADS[p], rtol=1e-14, atol=0)
    z = tinyffn.zeros(3, dtype="float64", device=device, requires_grad=True)
    y = tinyffn.norm(z, p)
    y.backward()
    assert y.item() == 0.0 and z.grad.tolist() == [0.0, 0.0, 0.0]


def test_norm_gradients_at_zero_are_pytorchs_live():
    torch = pytest.importorskip("torch")
    for p, expected in NORM_GRADS.items():
        x = torch.tensor([0.0, 1.0, -2.0], dtype=torch.float64, requires_grad=True)
        x.norm(p).backward()
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-14, atol=0)


def test_norm_ties_share_and_float16_sums_in_float32():
    x = tinyffn.tensor([3.0, -3.0, 1.0], requires_grad=True)
    x.norm(math.inf).backward()
    assert x.grad.tolist() == [0.5, -0.5, 0.0]          # PyTorch 2.13's
    h = tinyffn.tensor([300.0, 400.0], dtype="float16")  # 300² overflows float16
    assert h.norm().item() == 500.0 and dtype_name(h.norm().dtype) == "float16"
    y = tinyffn.tensor([[1.0, 2.0]], requires_grad=True).norm(dim=1)
    assert y.grad_fn.scope[-1].name == "norm"


@pytest.mark.parametrize("p", ["fro", 1, math.inf, 3])
def test_norm_over_dim_empty_is_over_every_entry_as_pytorch(p, device):
    """dim=() (or []) reduces every axis in PyTorch, as sum(dim=()) does here; norm read
    it as NumPy's axis=() and returned |x| entry by entry, in x's shape."""
    x = tinyffn.tensor([[3.0, -4.0], [1.0, 2.0]], dtype="float64", device=device)
    everything = {"fro": math.sqrt(30.0), 1: 10.0, math.inf: 4.0, 3: 100.0 ** (1 / 3)}[p]
    for dim in ((), []):
        assert tinyffn.norm(x, p, dim).shape == ()
        np.testing.assert_allclose(x.norm(p, dim=dim).item(), everything, rtol=1e-14)
        assert x.norm(p, dim, keepdim=True).shape == (1, 1)      # PyTorch 2.13's shapes


@pytest.mark.parametrize("p, values, norm, grad", [
    # torch.linalg.vector_norm(x, p) and its gradient, PyTorch 2.13, float64
    (-1, [1.0, -2.0, 4.0], 0.5714285714285714,
     [0.32653061224489793, -0.08163265306122448, 0.02040816326530612]),
    (-0.5, [1.0, -2.0, 4.0], 0.20528315312338202,
     [0.09301006859895612, -0.03288402511247392, 0.011626258574869515]),
    (-3, [1.0, -2.0, 4.0], 0.9570891023785492,
     [0.8390918157839337, -0.052443238486495854, 0.003277702405405991]),
    (-1, [1.0, 0.0, 4.0], 0.0, [0.0, 0.0, 0.0]),        # |0|^p infinite: the norm is 0
])
def test_a_negative_p_is_pytorchs_norm(p, values, norm, grad, device):
    for f in (lambda x: tinyffn.linalg.vector_norm(x, p), lambda x: x.norm(p),
              lambda x: tinyffn.dist(x, tinyffn.zeros_like(x), p)):
        x = tinyffn.tensor(values, dtype="float64", device=device, requires_grad=True)
        y = f(x)
        y.backward()
        assert y.item() == pytest.approx(norm, rel=1e-14)
        np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-13)
    x = tinyffn.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype="float64", device=device,
                       requires_grad=True)
    assert tinyffn.gradcheck(lambda x: x.norm(p, dim=1), (x,))


@pytest.mark.parametrize("keepdim", [False, True])
def test_a_negative_p_over_one_axis_keeps_its_shape(keepdim, device):
    """A slice holding a 0 has norm 0, the others (Σ |x|^p)^(1/p): NumPy by hand, in the
    shape of sum(dim, keepdim) (the mask of zero slices once kept its axis, broadcasting
    (2,) against (2, 1) to (2, 2))."""
    x = np.array([[1.0, -2.0, 4.0], [3.0, 0.0, -1.0]])
    t = tinyffn.tensor(x, device=device)
    for dim in (0, 1):
        with np.errstate(divide="ignore"):
            want = np.where((x == 0).any(dim, keepdims=keepdim), 0.0,
                            (np.abs(x) ** -1.0).sum(dim, keepdims=keepdim) ** -1.0)
        for y in (t.norm(-1, dim, keepdim), tinyffn.linalg.vector_norm(t, -1, dim, keepdim)):
            assert y.shape == want.shape
            np.testing.assert_allclose(y.numpy(), want, rtol=1e-14)


def test_norm_refuses_what_it_cannot_differentiate_or_compute():
    x = tinyffn.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="norm: the tensor has dtype int64; a norm needs a "
                                        "floating-point tensor, as in PyTorch"):
        tinyffn.tensor([3, 4]).norm()
    with pytest.raises(ValueError, match="'nuc' needs singular values"):
        x.reshape(1, 2).norm("nuc")
    for p in (float("nan"), "max", True):
        with pytest.raises(ValueError, match="p must be 'fro' or a number"):
            x.norm(p)
    with pytest.raises(TypeError, match="keepdim must be True or False"):
        x.norm(2, 0, 1)


# ----------------------------------------------------------------------------- from_numpy, cuda
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32", "int16",
                                   "int8", "uint8", "bool"])
def test_from_numpy_keeps_the_dtype_and_copies(dtype):
    a = np.arange(3).astype(dtype)
    t = tinyffn.from_numpy(a)
    assert dtype_name(t.dtype) == dtype and t.device == "cpu" and t.tolist() == a.tolist()
    assert not t.requires_grad and t.is_leaf
    a[1] = 0                                    # a copy: PyTorch's would change with the array
    assert t.tolist()[1] == np.arange(3).astype(dtype)[1]


def test_from_numpy_gives_pytorchs_dtypes():
    torch = pytest.importorskip("torch")
    for dtype in ("float64", "float32", "float16", "int32", "uint8", "bool"):
        a = np.zeros(2, dtype=dtype)
        assert str(torch.from_numpy(a).dtype) == "torch." + dtype_name(tinyffn.from_numpy(a).dtype)


def test_from_numpy_refuses_what_is_not_an_array_of_numbers():
    with pytest.raises(TypeError, match=r"from_numpy: expected a NumPy array, got list; for "
                                        r"other data use tinyffn.tensor\(...\)"):
        tinyffn.from_numpy([1.0, 2.0])              # torch: "expected np.ndarray (got list)"
    for a in (np.zeros(2, dtype=np.complex64), np.zeros(2, dtype=np.longdouble),
              np.array(["a"])):
        with pytest.raises(TypeError, match="from_numpy: tinyffn computes with bool, integer "
                                            "and float16/32/64 arrays"):
            tinyffn.from_numpy(a)


def test_tinyffn_cuda_is_available_is_cuda_available():
    assert tinyffn.cuda.is_available() is tinyffn.cuda_available()
    assert not hasattr(tinyffn.cuda, "device_count")     # on purpose: see tinyffn/cuda.py


# ----------------------------------------------------------------------------- numbers, dtypes
def test_a_number_may_stand_on_either_side_of_a_binary_function(device):
    x = tinyffn.tensor([-1.0, 0.5, 2.0], device=device)
    assert tinyffn.maximum(0.0, x).tolist() == tinyffn.maximum(x, 0.0).tolist() == [0, 0.5, 2]
    assert tinyffn.minimum(1.0, x).tolist() == [-1.0, 0.5, 1.0]
    assert tinyffn.pow(x, 2).tolist() == [1.0, 0.25, 4.0]
    np.testing.assert_allclose(tinyffn.pow(2, x).numpy(), [0.5, 2 ** 0.5, 4.0], rtol=1e-6)
    assert tinyffn.isclose(1.0, tinyffn.tensor([1.0, 1.0 + 1e-6, 1.1], device=device)).tolist() \
        == [True, True, False]                                  # torch: other must be a Tensor


def test_numpys_names_work_as_in_the_methods():
    x = tinyffn.tensor(X)
    assert tinyffn.sum(x, axis=1, keepdims=True).tolist() == [[1.5], [-2.25]]
    assert tinyffn.amax(x, axis=0).tolist() == [0.5, 1.5, 3.0]         # the values alone
    assert tinyffn.max(x, axis=0).indices.tolist() == [0, 1, 0]        # axis is dim, as torch
    assert tinyffn.argmin(x, axis=1).tolist() == [1, 0]
    assert tinyffn.any(x > 2, axis=0, keepdims=True).tolist() == [[False, False, True]]
    with pytest.raises(TypeError, match="sum: pass axis or dim"):
        tinyffn.sum(x, 1, axis=1)


def test_isclose_and_equal_bring_two_dtypes_together_as_the_operators_do():
    """PyTorch's isclose refuses float32 next to float64; here they meet in float64,
    where float32's 0.1 is 0.10000000149: close, but not equal (torch.equal: False)."""
    a, b = tinyffn.tensor([0.1]), tinyffn.tensor([0.1], dtype="float64")
    assert tinyffn.isclose(a, b).tolist() == [True] and tinyffn.allclose(a, b) is True
    assert tinyffn.equal(a, b) is False
    assert tinyffn.equal(tinyffn.tensor([1, 2], dtype="uint8"), tinyffn.tensor([1, 2])) is True
    u, v = tinyffn.tensor([1, 200], dtype="uint8"), tinyffn.tensor([2, 100], dtype="uint8")
    assert tinyffn.isclose(u, v, rtol=0.5).tolist() == [True, False]  # 1 - 2 is -1, not 255


def test_isclose_with_equal_nan_takes_nan_as_close_to_nan_only():
    """torch 2.13, equal_nan=True: isclose([nan, 1, nan, nan], [1, nan, nan, 2]) is
    [False, False, True, False]: a NaN is close to a NaN, never to a number."""
    a = tinyffn.tensor([math.nan, 1.0, math.nan, math.nan])
    b = tinyffn.tensor([1.0, math.nan, math.nan, 2.0])
    assert tinyffn.isclose(a, b, equal_nan=True).tolist() == [False, False, True, False]
    assert tinyffn.allclose(a[2:3], b[2:3], equal_nan=True) is True
    assert tinyffn.allclose(a[:1], b[:1], equal_nan=True) is False


def test_full_takes_its_dtype_from_the_value_as_pytorch_reads_it():
    """torch 2.13: bool, int64, float32, and float32 for NumPy's float64, int64 for int32,
    float32 for NumPy's bool_."""
    found = [dtype_name(tinyffn.full((1,), v).dtype) for v in
             (True, 3, 0.5, np.float64(0.5), np.int32(3), np.bool_(True))]
    assert found == ["bool", "int64", "float32", "float32", "int64", "float32"]
    assert tinyffn.full((2,), True, dtype="float64").tolist() == [1.0, 1.0]
    assert tinyffn.full((2,), 2, dtype="bool").tolist() == [True, True]        # as torch


@pytest.mark.parametrize("dtype, value", [("uint8", 0), ("uint8", 255), ("int8", -128),
                                          ("int8", 127), ("float32", -3.4028234663852886e38),
                                          ("float32", 3.4028234663852886e38)])
def test_full_and_randint_take_the_ends_of_the_dtypes_range(dtype, value):
    """torch 2.13 fills these (torch.full((1,), 255, dtype=torch.uint8) is [255]); only a
    value past an end is refused. randint's low and high - 1 may be the ends too."""
    assert tinyffn.full((1,), value, dtype=dtype).tolist() == [value]
    if dtype != "float32":
        drawn = tinyffn.randint(value, value + 1, (2,), dtype=dtype)
        assert drawn.tolist() == [value, value] and dtype_name(drawn.dtype) == dtype


def test_eye_takes_zero_rows_or_columns():
    """torch 2.13: torch.eye(0) is (0, 0), torch.eye(2, 0) is (2, 0), torch.eye(0, 3) (0, 3)."""
    assert [tinyffn.eye(*nm).shape for nm in [(0,), (2, 0), (0, 3)]] == [(0, 0), (2, 0), (0, 3)]


def test_creation_puts_tensors_on_the_device_asked_for(device):
    x = tinyffn.tensor([[1.0, 2.0]], dtype="float64", device=device)
    made = [tinyffn.full((2,), 0.5, device=device), tinyffn.full_like(x, 3),
            tinyffn.eye(2, device=device), tinyffn.linspace(0, 1, 3, device=device),
            tinyffn.randint(5, (2,), device=device), tinyffn.randn_like(x),
            tinyffn.rand_like(x, dtype="float32")]
    assert [t.device for t in made] == [device] * len(made)
    assert [dtype_name(t.dtype) for t in made] == ["float32", "float64", "float32", "float32",
                                                   "int64", "float64", "float32"]
    assert tinyffn.full_like(x, 1, device="cpu").device == "cpu"
    leaf = tinyffn.full((2,), 0.5, requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf
    assert tinyffn.eye(2, requires_grad=True, dtype="float64").requires_grad


# ----------------------------------------------------------------------------- random
@pytest.mark.parametrize("call, low, high", [
    (lambda d: tinyffn.randint(10, (2, 3), device=d), 0, 10),
    (lambda d: tinyffn.randint(-4, 7, (2, 3), device=d), -4, 7),
    (lambda d: tinyffn.randint(10, size=(2, 3), device=d), 0, 10),
    (lambda d: tinyffn.randint(high=3, size=[2, 3], device=d), 0, 3),
    (lambda d: tinyffn.randint(low=2, high=5, size=(2, 3), device=d), 2, 5),
])
def test_randint_takes_both_overloads_and_draws_from_the_seeded_generator(call, low, high,
                                                                          device):
    """The same stream as randn: after the integers, randn gives the generator's next
    normals (NumPy's Generator, the independent reference)."""
    tinyffn.manual_seed(7)
    t, after = call(device), tinyffn.randn(2)
    rng = np.random.default_rng(7)
    np.testing.assert_array_equal(t.numpy(), rng.integers(low, high, size=(2, 3)))
    np.testing.assert_array_equal(after.numpy(), rng.standard_normal(2).astype("float32"))
    assert dtype_name(t.dtype) == "int64" and t.device == device
    assert dtype_name(tinyffn.randint(3, (2,), dtype="float64").dtype) == "float64"


def test_randn_like_and_rand_like_draw_from_the_seeded_generator(device):
    x = tinyffn.tensor(np.zeros((2, 3)), device=device)         # float64
    tinyffn.manual_seed(3)
    a, b = tinyffn.randn_like(x), tinyffn.rand_like(x, dtype="float32", requires_grad=True)
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(a.numpy(), rng.standard_normal((2, 3)))
    np.testing.assert_array_equal(b.numpy(), rng.random((2, 3)).astype("float32"))
    assert dtype_name(a.dtype) == "float64" and b.requires_grad and a.device == device


# ----------------------------------------------------------------------------- errors
x2 = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0]])
ERRORS = [
    (lambda: tinyffn.exp([1.0]), TypeError, r"exp: input must be a tinyffn Tensor, got list; "
                                            r"wrap it with tinyffn\.tensor\(\.\.\.\)"),
    (lambda: tinyffn.sum(np.ones(2)), TypeError, r"sum: input must be a tinyffn Tensor, got "
                                                 r"numpy\.ndarray; wrap it"),
    (lambda: tinyffn.tril(2.0), TypeError, r"tril: input must be a tinyffn Tensor, got float"),
    (lambda: tinyffn.maximum(1.0, 2.0), TypeError,
     r"maximum: input must be a tinyffn Tensor, or a number next to a Tensor other, got "
     r"float and float; wrap one with tinyffn\.tensor"),
    (lambda: tinyffn.matmul([1.0], x2), TypeError, r"matmul: input must be .* got list and "
                                                   r"Tensor"),
    (lambda: tinyffn.pow(x2, x2), TypeError, r"pow: the exponent must be a number"),
    (lambda: tinyffn.max(x2, x2, True), TypeError, r"max: with a tensor in place of dim, "
                                                   r"x\.max\(other\) is the elementwise maximum"),
    (lambda: tinyffn.tril(tinyffn.ones(3)), ValueError,
     r"tril: needs a matrix or a batch of them \(2 axes or more\), got shape \(3,\)"),
    (lambda: tinyffn.triu(x2, 1.5), TypeError, r"triu: diagonal must be an int, got 1\.5"),
    (lambda: tinyffn.full(3, 0.5), TypeError,
     r"full: size must be a tuple or list of ints, such as \(2, 3\), got 3"),
    (lambda: tinyffn.full((2,), 1.5, dtype="int64"), TypeError,
     r"full: fill_value 1\.5 is not a whole number, and the dtype is int64 \(PyTorch "
     r"truncates it in silence\); pass a whole number, or a float dtype"),
    (lambda: tinyffn.full((2,), nan, dtype="int32"), TypeError, r"fill_value nan is not a whole"),
    (lambda: tinyffn.full((2,), 300, dtype="uint8"), ValueError,
     r"full: fill_value 300 does not fit in uint8 \(0 to 255\); pass a wider dtype"),
    (lambda: tinyffn.full((2,), 1e6, dtype="float16"), ValueError,
     r"fill_value 1000000\.0 does not fit in float16"),
    (lambda: tinyffn.full((2,), "a"), TypeError,
     r"full: fill_value must be a number \(a bool, an int or a float\), got str$"),
    (lambda: tinyffn.full((2,), tinyffn.tensor(1.0)), TypeError,
     r"got Tensor; for a one-element tensor pass t\.item\(\)"),
    (lambda: tinyffn.full_like(tinyffn.tensor([1, 2]), 1.5), TypeError,
     r"full_like: fill_value 1\.5 is not a whole number, and the dtype is int64"),
    (lambda: tinyffn.full_like([1, 2], 0), TypeError,
     r"full_like: needs a tinyffn Tensor, got list; wrap it with tinyffn\.tensor\(\.\.\.\)"),
    (lambda: tinyffn.eye(-1), ValueError, r"eye: n must be an integer >= 0 \(a number of rows "
                                          r"or columns\), got -1"),
    (lambda: tinyffn.eye(2, 2.0), TypeError, r"eye: m must be an integer >= 0"),
    (lambda: tinyffn.linspace(0, 1, -1), ValueError,
     r"linspace: steps must be an integer >= 0 \(the number of values\), got -1"),
    (lambda: tinyffn.linspace(0, 1, 2.0), ValueError, r"linspace: steps must be an integer"),
    (lambda: tinyffn.linspace(0, inf, 3), TypeError, r"linspace: end must be a finite number, "
                                                     r"got inf"),
    (lambda: tinyffn.randint(5, 5, (3,)), ValueError,
     r"randint: low must be below high \(values are drawn from \[low, high\)\), got low=5, "
     r"high=5"),
    (lambda: tinyffn.randint(0.5, 10, (2,)), TypeError,
     r"randint: low and high must be integers, got 0\.5 and 10"),
    (lambda: tinyffn.randint(10, 3), TypeError, r"randint: size must be a tuple or list of "
                                                r"ints, such as \(2, 3\), got 3"),
    # low and high without a size: the missing size is named, as torch 2.13 names it ("argument
    # 'size' ... must be tuple of ints"), not a range low=0, high=0 that was never written
    (lambda: tinyffn.randint(0, 3), TypeError, r"randint: size must be a tuple or list of "
                                               r"ints, such as \(2, 3\), got 3"),
    (lambda: tinyffn.randint(0, 300, (2,), dtype="uint8"), ValueError,
     r"randint: high - 1 = 299 does not fit in uint8 \(0 to 255\)"),
    (lambda: tinyffn.randint(-1, 3, (2,), dtype="uint8"), ValueError,
     r"randint: low -1 does not fit in uint8"),
    (lambda: tinyffn.randn_like(tinyffn.tensor([1, 2])), TypeError,
     r"randn_like: samples need a floating dtype \(float16, float32 or float64\), got int64"),
    (lambda: tinyffn.isclose(x2, x2, rtol=-1), ValueError,
     r"isclose: rtol must be a number >= 0, got -1"),
    (lambda: tinyffn.allclose(x2, x2, atol=None), ValueError, r"isclose: atol must be a number"),
    (lambda: tinyffn.equal(x2, 1.0), TypeError,
     r"equal: other must be a tinyffn Tensor, got float; wrap it with tinyffn\.tensor"),
    (lambda: tinyffn.equal([1.0], x2), TypeError, r"equal: input must be a tinyffn Tensor"),
    (lambda: tinyffn.isclose(x2, tinyffn.tensor([1.0], device="strict")), tinyffn.DeviceError,
     r"isclose"),
    (lambda: x2.mean(dtype=tinyffn.int64), TypeError,
     r"mean: dtype=int64 is not a floating-point dtype; a mean needs one \(PyTorch refuses "
     r"this too\): pass dtype=tinyffn\.float32 or float64"),
    (lambda: tinyffn.mean(tinyffn.tensor([1, 2]), dtype="int32"), TypeError,
     r"mean: dtype=int32 is not a floating-point"),
]


def test_sum_and_mean_with_dtype_pass_the_gradient_back_in_the_inputs_dtype(device):
    """2048 + 1 + 1 is 2048 in float16 steps (its spacing there is 2), 2050 in float64;
    torch 2.13 gives tensor(2050., dtype=torch.float64) and a float16 gradient of ones."""
    if device == "strict":
        pytest.skip("array_api_strict has no float16")
    h = tinyffn.tensor([2048.0, 1.0, 1.0], dtype="float16", device=device, requires_grad=True)
    y = h.sum(dtype=tinyffn.float64)
    assert y.dtype == tinyffn.float64 and y.item() == 2050.0
    assert y.grad_fn.parents[0].name == "cast"              # recorded: the cast, then the sum
    y.backward()
    assert h.grad.dtype == tinyffn.float16 and h.grad.tolist() == [1.0, 1.0, 1.0]
    assert h.mean(dtype=tinyffn.float32).item() == np.float32(2050) / np.float32(3)


def test_sum_with_an_integer_or_bool_dtype_gives_that_dtype(device):
    """The Sum primitive adds integers up in int64, as x.sum() does; with dtype= the result
    is that dtype, as torch 2.13's (written out; live below): 306 in int8 wraps to 50,
    a bool sum is 'any nonzero', a float cast to int32 first truncates (-2, not -0.75)."""
    n = tinyffn.tensor([[100, 100, 100], [1, 2, 3]], device=device)
    x = tinyffn.tensor(X, dtype="float64", device=device)
    u = tinyffn.tensor([200, 100], dtype="uint8", device=device)
    cases = [(lambda m, n, x, u: n.sum(dtype=m.int8), "int8", 50),
             (lambda m, n, x, u: n.sum(1, dtype=m.int8), "int8", [44, 6]),
             (lambda m, n, x, u: u.sum(dtype=m.uint8), "uint8", 44),
             (lambda m, n, x, u: (x > 0).sum(dtype=m.bool), "bool", True),
             (lambda m, n, x, u: (x > 5).sum(0, dtype=m.bool), "bool", [False] * 3),
             (lambda m, n, x, u: x.sum(dtype=m.int32), "int32", -2),
             (lambda m, n, x, u: m.sum(n, 0, True, dtype=m.int16), "int16", [[101, 102, 103]])]
    for call, dtype, value in cases:
        y = call(tinyffn, n, x, u)
        assert (dtype_name(y.dtype), y.tolist()) == (dtype, value)
    torch = pytest.importorskip("torch")
    tn, tx = torch.tensor([[100, 100, 100], [1, 2, 3]]), torch.tensor(X, dtype=torch.float64)
    tu = torch.tensor([200, 100], dtype=torch.uint8)
    for call, dtype, value in cases:
        y = call(torch, tn, tx, tu)
        assert (str(y.dtype), y.tolist()) == ("torch." + dtype, value)


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_mistakes_get_an_error_that_says_what_to_do(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ----------------------------------------------------------------------------- EXPECTED
EXPECTED = {
    'max(x, axis=1)':
        (('float64', [3.0, 1.5]), ('int64', [2, 1])),
    'min(x, axis=0, keepdims=True)':
        (('float64', [[-4.0, -2.0, 0.25]]), ('int64', [[1, 0, 1]])),
    'amax(x)':
        ('float64', 3.0),
    'amax(x, 1)':
        ('float64', [3.0, 1.5]),
    'amax(b, (0, 2), True)':
        ('float64', [[[2.5], [4.5], [6.5]]]),
    'amin(x, dim=0)':
        ('float64', [-4.0, -2.0, 0.25]),
    'amin(b, axis=(1, 2))':
        ('float64', [-5.0, 1.0]),
    'exp(x)':
        ('float64', [[1.6487212707001282, 0.1353352832366127, 20.085536923187668],
         [0.01831563888873418, 4.4816890703380645, 1.2840254166877414]]),
    'log(p)':
        ('float64', [[-0.6931471805599453, 0.6931471805599453, 1.0986122886681098],
         [1.3862943611198906, 0.4054651081081644, -1.3862943611198906]]),
    'tanh(x)':
        ('float64', [[0.46211715726000974, -0.9640275800758169, 0.9950547536867305],
         [-0.999329299739067, 0.9051482536448664, 0.24491866240370913]]),
    'sigmoid(x)':
        ('float64', [[0.6224593312018546, 0.11920292202211755, 0.9525741268224334],
         [0.01798620996209156, 0.8175744761936437, 0.5621765008857981]]),
    'relu(x)': ('float64', [[0.5, 0.0, 3.0], [0.0, 1.5, 0.25]]),
    'erf(x)':
        ('float64', [[0.5204998778130465, -0.9953222650189527, 0.9999779095030014],
         [-0.9999999845827421, 0.9661051464753108, 0.27632639016823696]]),
    'sqrt(p)':
        ('float64', [[0.7071067811865476, 1.4142135623730951, 1.7320508075688772], [2.0,
         1.224744871391589, 0.5]]),
    'abs(x)': ('float64', [[0.5, 2.0, 3.0], [4.0, 1.5, 0.25]]),
    'neg(x)': ('float64', [[-0.5, 2.0, -3.0], [4.0, -1.5, -0.25]]),
    'neg(n)': ('int64', [[-1, -2, -3], [-4, -5, -6]]),
    'abs(n)': ('int64', [[1, 2, 3], [4, 5, 6]]),
    'maximum(x, y)': ('float64', [[1.0, -2.0, 3.0], [0.0, 1.5, 1.0]]),
    'minimum(x, y)': ('float64', [[0.5, -2.0, 2.5], [-4.0, 1.5, 0.25]]),
    'clamp(x, -1.0, 2.0)': ('float64', [[0.5, -1.0, 2.0], [-1.0, 1.5, 0.25]]),
    'clamp(x, min=0.0)': ('float64', [[0.5, 0.0, 3.0], [0.0, 1.5, 0.25]]),
    'clamp(x, y)': ('float64', [[1.0, -2.0, 3.0], [0.0, 1.5, 1.0]]),
    'clip(x, max=1.0)': ('float64', [[0.5, -2.0, 1.0], [-4.0, 1.0, 0.25]]),
    'pow(p, 2.5)':
        ('float64', [[0.1767766952966369, 5.656854249492381, 15.588457268119896], [32.0,
         2.7556759606310752, 0.03125]]),
    'pow(x, 2)': ('float64', [[0.25, 4.0, 9.0], [16.0, 2.25, 0.0625]]),
    'pow(2.0, x)':
        ('float64', [[1.4142135623730951, 0.25, 8.0], [0.0625, 2.8284271247461903,
         1.189207115002721]]),
    'matmul(x, transpose(y, 0, 1))': ('float64', [[12.0, 0.0], [-6.375, 2.5]]),
    'matmul(y, b)':
        ('float64', [[[-1.5, -0.75, 0.0, 0.75], [-5.5, -4.25, -3.0, -1.75]], [[7.5, 8.25,
         9.0, 9.75], [9.5, 10.75, 12.0, 13.25]]]),
    'softmax(x, 1)':
        ('float64', [[0.07538874796299667, 0.006188285272800034, 0.9184229667642032],
         [0.003166587740730034, 0.7748384729634242, 0.22199493929584574]]),
    'softmax(x, dim=0)':
        ('float64', [[0.9890130573694068, 0.029312230751356316, 0.9399133498259924],
         [0.01098694263059318, 0.9706877692486436, 0.06008665017400762]]),
    'softmax(x, -1, dtype=float32)':
        ('float32', [[0.07538874447345734, 0.006188285071402788, 0.9184229373931885],
         [0.0031665880233049393, 0.7748385071754456, 0.22199495136737823]]),
    'log_softmax(x, 1)':
        ('float64', [[-2.58509724636431, -5.0850972463643105, -0.08509724636431015],
         [-5.755100693334349, -0.2551006933343483, -1.5051006933343483]]),
    'log_softmax(x, 0, float32)':
        ('float32', [[-0.011047743260860443, -3.529750347137451, -0.06196761503815651],
         [-4.511047840118408, -0.029750416055321693, -2.811967611312866]]),
    'sum(x)': ('float64', -0.75),
    'sum(x, 1)': ('float64', [1.5, -2.25]),
    'sum(x, 0, True)': ('float64', [[-3.5, -0.5, 3.25]]),
    'sum(x, dim=(0, 1))': ('float64', -0.75),
    'sum(x, dtype=float32)': ('float32', -0.75),
    'sum(x > 0)': ('int64', 4),
    'sum(n, 1)': ('int64', [6, 15]),
    'mean(x)': ('float64', -0.125),
    'mean(x, 1, True)': ('float64', [[0.5], [-0.75]]),
    'mean(b, dim=(0, 2))': ('float64', [-1.25, 0.75, 2.75]),
    'mean(n, dtype=float64)': ('float64', 3.5),
    'x.sum(dtype=float32)': ('float32', -0.75),
    'x.sum(1, dtype=float32)': ('float32', [1.5, -2.25]),
    'n.sum(dtype=float64)': ('float64', 21.0),
    'n.mean(dtype=float64)': ('float64', 3.5),
    'x.mean(0, True, dtype=float32)': ('float32', [[-1.75, -0.25, 1.625]]),
    'x.sum(dim=0, keepdim=True, dtype=float64)': ('float64', [[-3.5, -0.5, 3.25]]),
    'x.sum(dtype=int64)': ('int64', -2),
    'mean(n, 1, dtype=float64)': ('float64', [2.0, 5.0]),
    'b.mean(dim=(0, 2), dtype=float32)': ('float32', [-1.25, 0.75, 2.75]),
    'max(x)': ('float64', 3.0),
    'max(x, 1)': (('float64', [3.0, 1.5]), ('int64', [2, 1])),
    'max(x, 0, True)': (('float64', [[0.5, 1.5, 3.0]]), ('int64', [[0, 1, 0]])),
    'max(b, dim=-1)':
        (('float64', [[-3.5, -1.5, 0.5], [2.5, 4.5, 6.5]]), ('int64', [[3, 3, 3], [3, 3,
         3]])),
    'min(x)': ('float64', -4.0),
    'min(x, 1)': (('float64', [-2.0, -4.0]), ('int64', [1, 0])),
    'min(x, dim=0, keepdim=True)': (('float64', [[-4.0, -2.0, 0.25]]), ('int64', [[1, 0, 1]])),
    'argmax(x)': ('int64', 2),
    'argmax(x, 1)': ('int64', [2, 1]),
    'argmax(x, 0, True)': ('int64', [[0, 1, 0]]),
    'argmin(x)': ('int64', 3),
    'argmin(x, dim=1, keepdim=True)': ('int64', [[1], [0]]),
    'var(x)': ('float64', 6.29375),
    'var(x, 1)': ('float64', [6.25, 8.3125]),
    'var(x, 0, keepdim=True)': ('float64', [[10.125, 6.125, 3.78125]]),
    'var(x, dim=1, correction=0)': ('float64', [4.166666666666667, 5.541666666666667]),
    'std(x)': ('float64', 2.50873474086042),
    'std(b, (0, 2))': ('float64', [3.2623392133340676, 3.2623392133340676, 3.2623392133340676]),
    'std(x, 1, correction=0, keepdim=True)':
        ('float64', [[2.041241452319315], [2.3540744819709225]]),
    'any(x > 2)': ('bool', True),
    'any(x > 2, 1)': ('bool', [True, False]),
    'any(x, 0, True)': ('bool', [[True, True, True]]),
    'all(x > -5)': ('bool', True),
    'all(x > 0, 1)': ('bool', [False, False]),
    'all(x, dim=0, keepdim=True)': ('bool', [[True, True, True]]),
    'reshape(x, (3, 2))': ('float64', [[0.5, -2.0], [3.0, -4.0], [1.5, 0.25]]),
    'reshape(x, (-1,))': ('float64', [0.5, -2.0, 3.0, -4.0, 1.5, 0.25]),
    'transpose(x, 0, 1)': ('float64', [[0.5, -4.0], [-2.0, 1.5], [3.0, 0.25]]),
    'transpose(b, 0, 2)':
        ('float64', [[[-5.0, 1.0], [-3.0, 3.0], [-1.0, 5.0]], [[-4.5, 1.5], [-2.5, 3.5],
         [-0.5, 5.5]], [[-4.0, 2.0], [-2.0, 4.0], [0.0, 6.0]], [[-3.5, 2.5], [-1.5, 4.5],
         [0.5, 6.5]]]),
    'transpose(b, -1, 1)':
        ('float64', [[[-5.0, -3.0, -1.0], [-4.5, -2.5, -0.5], [-4.0, -2.0, 0.0], [-3.5,
         -1.5, 0.5]], [[1.0, 3.0, 5.0], [1.5, 3.5, 5.5], [2.0, 4.0, 6.0], [2.5, 4.5,
         6.5]]]),
    'permute(b, (2, 0, 1))':
        ('float64', [[[-5.0, -3.0, -1.0], [1.0, 3.0, 5.0]], [[-4.5, -2.5, -0.5], [1.5, 3.5,
         5.5]], [[-4.0, -2.0, 0.0], [2.0, 4.0, 6.0]], [[-3.5, -1.5, 0.5], [2.5, 4.5,
         6.5]]]),
    'flatten(b)':
        ('float64', [-5.0, -4.5, -4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5,
         1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5]),
    'flatten(b, 1)':
        ('float64', [[-5.0, -4.5, -4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0,
         0.5], [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5]]),
    'flatten(b, 0, 1)':
        ('float64', [[-5.0, -4.5, -4.0, -3.5], [-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0,
         0.5], [1.0, 1.5, 2.0, 2.5], [3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5]]),
    'squeeze(unsqueeze(x, 0))': ('float64', [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'squeeze(reshape(x, (1, 2, 1, 3)), 2)': ('float64', [[[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]]),
    'squeeze(reshape(x, (1, 2, 1, 3)), (0, 2))':
        ('float64', [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'unsqueeze(x, -1)': ('float64', [[[0.5], [-2.0], [3.0]], [[-4.0], [1.5], [0.25]]]),
    'unsqueeze(x, 1)': ('float64', [[[0.5, -2.0, 3.0]], [[-4.0, 1.5, 0.25]]]),
    'masked_fill(x, x > 1, -1.0)': ('float64', [[0.5, -2.0, -1.0], [-4.0, -1.0, 0.25]]),
    'masked_fill(x, y == 0, inf)': ('float64', [[0.5, -2.0, 3.0], [inf, 1.5, 0.25]]),
    'masked_fill(n, n > 4, 0)': ('int64', [[1, 2, 3], [4, 0, 0]]),
    'tril(x)': ('float64', [[0.5, 0.0, 0.0], [-4.0, 1.5, 0.0]]),
    'tril(x, 1)': ('float64', [[0.5, -2.0, 0.0], [-4.0, 1.5, 0.25]]),
    'tril(x, -1)': ('float64', [[0.0, 0.0, 0.0], [-4.0, 0.0, 0.0]]),
    'tril(x, 5)': ('float64', [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'triu(x)': ('float64', [[0.5, -2.0, 3.0], [0.0, 1.5, 0.25]]),
    'triu(x, 1)': ('float64', [[0.0, -2.0, 3.0], [0.0, 0.0, 0.25]]),
    'triu(x, -2)': ('float64', [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'triu(x, -5)': ('float64', [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'tril(b, 1)':
        ('float64', [[[-5.0, -4.5, 0.0, 0.0], [-3.0, -2.5, -2.0, 0.0], [-1.0, -0.5, 0.0,
         0.5]], [[1.0, 1.5, 0.0, 0.0], [3.0, 3.5, 4.0, 0.0], [5.0, 5.5, 6.0, 6.5]]]),
    'triu(b, -1)':
        ('float64', [[[-5.0, -4.5, -4.0, -3.5], [-3.0, -2.5, -2.0, -1.5], [0.0, -0.5, 0.0,
         0.5]], [[1.0, 1.5, 2.0, 2.5], [3.0, 3.5, 4.0, 4.5], [0.0, 5.5, 6.0, 6.5]]]),
    'tril(x > 0)': ('bool', [[True, False, False], [False, True, False]]),
    'triu(n)': ('int64', [[1, 2, 3], [0, 5, 6]]),
    'norm(x)': ('float64', 5.618051263561058),
    'norm(x, 1)': ('float64', 11.25),
    'norm(x, 2, 1)': ('float64', [3.640054944640259, 4.2793106921559225]),
    'norm(x, inf)': ('float64', 4.0),
    'norm(x, -inf, 0)': ('float64', [0.5, 1.5, 0.25]),
    "norm(b, 'fro', (0, 2))": ('float64', [9.327379053088816, 8.888194417315589,
                                           11.61895003862225]),
    'norm(x, 3, 1, True)': ('float64', [[3.274955810059687], [4.069426055053331]]),
    'norm(x, 0.5)': ('float64', 57.42784245077601),
    'norm(x, dim=0)': ('float64', [4.031128874149275, 2.5, 3.010398644698074]),
    'norm(b, 1, dim=-1, keepdim=True)': ('float64', [[[17.0], [9.0], [2.0]],
                                                     [[7.0], [15.0], [23.0]]]),
    'isnan(z)': ('bool', [False, False, False, True, False]),
    'isinf(z)': ('bool', [False, True, True, False, False]),
    'isfinite(z)': ('bool', [True, False, False, False, True]),
    'isnan(n)': ('bool', [[False, False, False], [False, False, False]]),
    'isinf(n)': ('bool', [[False, False, False], [False, False, False]]),
    'isfinite(n)': ('bool', [[True, True, True], [True, True, True]]),
    'isfinite(x > 0)': ('bool', [[True, True, True], [True, True, True]]),
    'isclose(x, y)': ('bool', [[False, True, False], [False, True, False]]),
    'isclose(x, x + 1e-6)': ('bool', [[True, True, True], [True, True, True]]),
    'isclose(x, x * (1 + 1.2e-5))': ('bool', [[False, False, False], [False, False, False]]),
    'isclose(x, x + 1.2e-8, rtol=0.0)': ('bool', [[False, False, False], [False, False, False]]),
    'isclose(x, x + 0.5, rtol=0.0, atol=0.5)': ('bool', [[True, True, True], [True, True, True]]),
    'isclose(x, 2 * x, rtol=0.5, atol=0.0)': ('bool', [[True, True, True], [True, True, True]]),
    'isclose(x, x + 1e-4, rtol=0.0, atol=1e-3)':
        ('bool', [[True, True, True], [True, True, True]]),
    'isclose(z, w)': ('bool', [True, True, False, False, True]),
    'isclose(z, w, equal_nan=True)': ('bool', [True, True, False, True, True]),
    'isclose(n, n + 1, rtol=0.2)': ('bool', [[False, False, False], [True, True, True]]),
    'isclose(x > 0, y > 0)': ('bool', [[True, True, True], [True, True, True]]),
    'allclose(x, y)': False,
    'allclose(x, x * (1 + 1e-6))': True,
    'allclose(x, x * (1 + 1e-4))': False,
    'allclose(x, x * (1 + 1.2e-5))': False,
    'allclose(x, x + 1.2e-8, rtol=0.0)': False,
    'allclose(z, z)': False,
    'allclose(z, z, equal_nan=True)': True,
    'equal(x, x)': True,
    'equal(x, y)': False,
    'equal(n, n * 1.0)': True,
    'equal(z, z)': False,
    'equal(x, reshape(x, (3, 2)))': False,
    'full((2, 3), 0.5)': ('float32', [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]),
    'full((2,), 7)': ('int64', [7, 7]),
    'full((2, 2), True)': ('bool', [[True, True], [True, True]]),
    'full((), -1.5)': ('float32', -1.5),
    'full([2], 3, dtype=float64)': ('float64', [3.0, 3.0]),
    'full((2,), -inf)': ('float32', [-inf, -inf]),
    'full_like(x, 2)': ('float64', [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]),
    'full_like(n, 7)': ('int64', [[7, 7, 7], [7, 7, 7]]),
    'full_like(x, 1, dtype=int64)': ('int64', [[1, 1, 1], [1, 1, 1]]),
    'eye(3)': ('float32', [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    'eye(2, 3)': ('float32', [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
    'eye(3, 1, dtype=float64)': ('float64', [[1.0], [0.0], [0.0]]),
    'linspace(-3, 3, 7)': ('float32', [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]),
    'linspace(0, 1, 5, dtype=float64)': ('float64', [0.0, 0.25, 0.5, 0.75, 1.0]),
    'linspace(1, -1, 5)': ('float32', [1.0, 0.5, 0.0, -0.5, -1.0]),
    'linspace(0, 1, 1)': ('float32', [0.0]),
    'linspace(0, 10, 5, dtype=int64)': ('int64', [0, 2, 5, 7, 10]),
    'linspace(0, 1, 0)': ('float32', []),
    'square(x)':
        ('float64', [[0.25, 4.0, 9.0], [16.0, 2.25, 0.0625]]),
    'square(n)':
        ('int64', [[1, 4, 9], [16, 25, 36]]),
    'reciprocal(x)':
        ('float64', [[2.0, -0.5, 0.3333333333333333], [-0.25, 0.6666666666666666, 4.0]]),
    'reciprocal(n)':
        ('float32', [[1.0, 0.5, 0.3333333432674408], [0.25, 0.20000000298023224, 0.1666666716337204]]),
    'rsqrt(p)':
        ('float64', [[1.414213562373095, 0.7071067811865475, 0.5773502691896258], [0.5, 0.8164965809277261, 2.0]]),
    'rsqrt(n)':
        ('float32', [[1.0, 0.7071067690849304, 0.5773502588272095], [0.5, 0.4472135901451111, 0.40824827551841736]]),
    'logical_not(y)':
        ('bool', [[False, False, False], [True, False, False]]),
    'logical_not(n > 2)':
        ('bool', [[True, True, False], [False, False, False]]),
    'logical_and(x, y)':
        ('bool', [[True, True, True], [False, True, True]]),
    'logical_or(y, z[:3])':
        ('bool', [[True, True, True], [True, True, True]]),
    'logical_xor(y > 0, n)':
        ('bool', [[False, True, False], [True, False, False]]),
    'logical_and(z, w)':
        ('bool', [True, True, True, True, False]),
    'where(x > 0, x, y)':
        ('float64', [[0.5, -2.0, 3.0], [0.0, 1.5, 0.25]]),
    'where(y == 0, 1.0, x)':
        ('float64', [[0.5, -2.0, 3.0], [1.0, 1.5, 0.25]]),
    'where(x > 0)':
        (('int64', [0, 0, 1, 1]), ('int64', [0, 2, 1, 2])),
    'nonzero(y)':
        ('int64', [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2]]),
    'nonzero(n > 2)':
        ('int64', [[0, 2], [1, 0], [1, 1], [1, 2]]),
    'nonzero(y, as_tuple=True)':
        (('int64', [0, 0, 0, 1, 1]), ('int64', [0, 1, 2, 1, 2])),
}
