"""``x // y``, ``x % y`` and ``fmod`` (tinyffn/more_functions.py, the primitives
``FloorDivide``, ``Remainder`` and ``Fmod``), and ``log1p``, as PyTorch's.

Each case is one call, written once and run with the names of tinyffn and of torch
(tests/torch_parity.py): PyTorch 2.13 live where it is installed, and its values written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` for every device. The inputs hold the edges:
signs on both sides, -0.0, inf and a float divisor 0; integer and bool operands, and a
number on either side, check the dtypes.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity

inf, nan = math.inf, math.nan

X = [5.0, -5.0, 5.0, -5.0, 0.5, -0.0, 0.0, 3.0, -3.0, inf, 7.5, -6.0, 5.3]
W = [3.0, 3.0, -3.0, -3.0, 0.0, 3.0, -3.0, inf, inf, 3.0, 2.5, 3.0, 0.1]
N = [5, -5, 7, -7, 0]
M = [3, 3, -2, -2, 4]

FUNCTIONS = ["floor_divide", "remainder", "fmod", "log1p"]
CASES = [
    "x // w", "x % w", "fmod(x, w)", "floor_divide(x, w)", "remainder(x, w)",
    "x.floor_divide(w)", "x.remainder(w)", "x.fmod(w)",
    "f // g", "f % g", "fmod(f, g)",                                  # float32: rounding
    "n // m", "n % m", "fmod(n, m)", "n // 2.5", "n % 2.5", "7 // m", "7 % m", "7.5 % m",
    "x % 2", "2.0 % w[:9]", "x // 2", "remainder(5.0, w)", "n.int() % m", "b % 2", "b // 2",
    "fmod(b, 2)", "b % 2.5", "x.reshape(13, 1)[:3] % w[:4]",
    "log1p(x[:8])", "log1p(t)", "log1p(n.abs())", "x.log1p()",
]


def run(module, case: str, **tensor_kwargs):
    """``case`` evaluated with ``module``'s functions (tinyffn or torch) and inputs."""
    def t(values, dtype):
        return module.tensor(values, dtype=dtype, **tensor_kwargs)
    names = {name: getattr(module, name) for name in FUNCTIONS}
    f64, f32, i64 = module.float64, module.float32, module.int64
    inputs = dict(x=t(X, f64), w=t(W, f64), f=t(X, f32), g=t(W, f32), n=t(N, i64),
                  m=t(M, i64), b=t([True, False], module.bool),
                  t=t([1e-20, -1e-10, 0.5, -0.5, 1e3], f64))
    return eval(case, {}, {**names, **inputs})


plain = torch_parity.plain


def assert_same(actual, expected, case):
    """Equal dtypes and shapes; integers exactly, floats to the last bit but one
    (float16 two) with NaN equal to NaN and -0.0 told from 0.0."""
    assert type(actual) is type(expected), f"{case}: {actual!r} against {expected!r}"
    assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
    a, e = np.asarray(actual[1]), np.asarray(expected[1])
    assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
    if a.dtype.kind != "f":
        np.testing.assert_array_equal(a, e, err_msg=case)
        return
    np.testing.assert_allclose(a, e, rtol=2 * np.finfo(expected[0]).eps, atol=0, err_msg=case)
    np.testing.assert_array_equal(np.signbit(a) & ~np.isnan(a), np.signbit(e) & ~np.isnan(e),
                                  err_msg=f"{case}: -0.0")


# dL/d(wrt) of L = Σ f · (1, 2, ...)/10; floor_divide has none in PyTorch (it refuses),
# see test_floor_divide_passes_back_zeros below; nor has remainder(5.0, w) for w there
GRAD_CASES = [
    ("x % w", "x"), ("x % w", "w"), ("fmod(x, w)", "x"), ("fmod(x, w)", "w"),
    ("x.reshape(13, 1)[:3] % w[:4]", "w"), ("log1p(t)", "t"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    def t(values):
        return module.tensor(values, dtype=module.float64, **tensor_kwargs)
    inputs = dict(x=t(X), w=t(W), t=t([1e-20, -1e-10, 0.5, -0.5, 1e3]))
    inputs[wrt].requires_grad_(True)
    names = {name: getattr(module, name) for name in FUNCTIONS}
    y = eval(case, {}, {**names, **inputs})
    return torch_parity.weighted_grad(module, y, inputs[wrt], **tensor_kwargs)


torch_parity.tests(
    globals(), marks=[pytest.mark.filterwarnings("ignore::RuntimeWarning")])  # x % 0.0: nan


def test_float16_stays_float16_and_meets_float64_as_in_pytorch():
    """On the CPU: the strict backend has no float16."""
    torch = pytest.importorskip("torch")
    for case in ["h % 0.3", "h // 0.3", "fmod(h, -0.4)", "h % h.double()", "log1p(h)"]:
        got, want = (eval(case, {}, {"h": m.tensor([1.5, -0.7], dtype=m.float16),
                                     **{f: getattr(m, f) for f in FUNCTIONS}})
                     for m in (tinyffn, torch))
        assert_same(plain(got), plain(want), case)


@pytest.mark.parametrize("op", ["remainder", "fmod", "floor_divide"])
def test_gradcheck(op, device):
    """Both inputs, away from the jumps (x / w is never an integer here)."""
    x = tinyffn.tensor([[5.3, -4.1, 0.7], [-0.2, 9.9, -7.4]], dtype="float64", device=device,
                       requires_grad=True)
    w = tinyffn.tensor([3.0, -1.7, 0.45], dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(getattr(tinyffn, op), [x, w])


@pytest.mark.parametrize("op", ["remainder", "fmod", "floor_divide"])
def test_gradcheck_where_both_inputs_broadcast(op, device):
    """x (3, 1) against w (4,): each gradient is summed back to its input's shape."""
    x = tinyffn.tensor([[5.3], [-4.1], [0.7]], dtype="float64", device=device,
                       requires_grad=True)
    w = tinyffn.tensor([3.0, -1.7, 0.45, 2.2], dtype="float64", device=device,
                       requires_grad=True)
    assert tinyffn.gradcheck(getattr(tinyffn, op), [x, w])


def test_floor_divide_passes_back_zeros(device):
    """PyTorch refuses ("derivative for aten::floor_divide is not implemented"); floor's
    derivative, 0, is what it gives for torch.floor(x / w), the same function. Zeros also
    where a NaN or inf arrives, as sign's."""
    x = tinyffn.tensor([5.5, -2.0], dtype="float64", device=device, requires_grad=True)
    w = tinyffn.tensor(2.0, dtype="float64", device=device, requires_grad=True)
    y = x // w
    assert y.requires_grad and y.tolist() == [2.0, -1.0]
    y.backward(tinyffn.tensor([nan, inf], dtype="float64", device=device))
    assert x.grad.tolist() == [0.0, 0.0] and w.grad.item() == 0.0


@pytest.mark.parametrize("call", ["n // z", "n % z", "tinyffn.fmod(n, z)", "7 % z",
                                  "n.remainder(0)", "tinyffn.floor_divide(n, 0)", "n % 0",
                                  "n // False", "tinyffn.fmod(n, 0)", "n.remainder_(0)",
                                  "(n > 0) % 0", "n % np.int64(0)"])
def test_integer_division_by_zero_raises_as_in_pytorch(call, device):
    """PyTorch raises "ZeroDivisionError" (NumPy would answer 0 in silence). A divisor
    given as a number is seen on the host (test_host_reads.py): a 0 is refused all the
    same."""
    names = dict(n=tinyffn.tensor([5, -5], device=device),
                 z=tinyffn.tensor([2, 0], device=device), tinyffn=tinyffn, np=np)
    with pytest.raises(ZeroDivisionError, match=r"^(floor_divide|remainder|fmod): integer "
                                                r"division by zero .*x\.float\(\)"):
        eval(call, names)


def test_float_division_by_zero_gives_inf_and_nan(device):
    x = tinyffn.tensor([1.0, -1.0, 0.0], device=device)
    with np.errstate(all="ignore"):
        assert (x // 0.0).tolist()[:2] == [inf, -inf] and math.isnan((x // 0.0).tolist()[2])
        assert all(math.isnan(v) for v in (x % 0.0).tolist())


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_fmod_at_the_dtype_minimum(dtype, device):
    """|x| of the dtype's minimum overflows (abs(int8(-128)) is -128), so fmod must not go
    through it: fmod(-128, 3) is -2 and fmod(7, -128) is 7. Checked against Python's
    exact integers, truncated division; PyTorch 2.13 gives the same."""
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    values = [lo, lo + 1, -7, -5, -1, 1, 3, 5, 7, hi]
    x = [a for a in values for _ in values]
    w = [b for _ in values for b in values]
    got = tinyffn.fmod(tinyffn.tensor(np.array(x, dtype), device=device),
                       tinyffn.tensor(np.array(w, dtype), device=device))

    def c_fmod(a, b):                    # the sign of a, |result| = |a| mod |b|
        return (abs(a) % abs(b)) * (-1 if a < 0 else 1)
    assert got.tolist() == [c_fmod(a, b) for a, b in zip(x, w)]
    assert tinyffn.fmod(tinyffn.tensor(np.array([lo], dtype), device=device), 3).item() \
        == -(abs(lo) % 3)


@pytest.mark.parametrize("call", ["b % b", "b // b", "tinyffn.fmod(b, b)"])
def test_two_bools_are_refused_as_in_pytorch(call, device):
    names = dict(b=tinyffn.tensor([True, False], device=device), tinyffn=tinyffn)
    with pytest.raises(TypeError, match=r"two bool operands are not supported.*mask\.long"):
        eval(call, names)


@pytest.mark.parametrize("op", ["%", "//"])
def test_shapes_that_do_not_broadcast_name_the_op_and_shapes(op, device):
    names = dict(x=tinyffn.ones(2, 3, device=device), w=tinyffn.ones(4, device=device))
    name = "remainder" if op == "%" else "floor_divide"
    with pytest.raises(ValueError, match=rf"{name}: shapes \(2, 3\) and \(4,\) cannot be "
                                         "broadcast"):
        eval(f"x {op} w", names)


def test_functions_want_a_tensor():
    with pytest.raises(TypeError, match="fmod: input must be a tinyffn Tensor"):
        tinyffn.fmod([5.0], 3.0)
    with pytest.raises(TypeError, match="floor_divide: input must be a tinyffn Tensor"):
        tinyffn.floor_divide(5.0, 3.0)


def test_in_place_operators_keep_the_tensor():
    x = tinyffn.tensor([5.0, -7.0])
    same = x
    x //= 2
    x %= 1.5
    assert x is same and x.tolist() == [0.5, 0.5]       # [2, -4] % 1.5
    w = tinyffn.tensor([5.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"x = x // y"):
        w //= 2


EXPECTED = {
    'x // w': ('float64', [1.0, -2.0, -2.0, 1.0, inf, -0.0, -0.0, 0.0, -1.0, nan, 3.0, -2.0, 52.0]),
    'x % w': ('float64', [2.0, 1.0, -1.0, -2.0, nan, -0.0, 0.0, 3.0, inf, nan, 0.0, -0.0, 0.09999999999999953]),
    'fmod(x, w)': ('float64', [2.0, -2.0, 2.0, -2.0, nan, -0.0, 0.0, 3.0, -3.0, nan, 0.0, -0.0, 0.09999999999999953]),
    'floor_divide(x, w)': ('float64', [1.0, -2.0, -2.0, 1.0, inf, -0.0, -0.0, 0.0, -1.0, nan, 3.0, -2.0, 52.0]),
    'remainder(x, w)': ('float64', [2.0, 1.0, -1.0, -2.0, nan, -0.0, 0.0, 3.0, inf, nan, 0.0, -0.0, 0.09999999999999953]),
    'x.floor_divide(w)': ('float64', [1.0, -2.0, -2.0, 1.0, inf, -0.0, -0.0, 0.0, -1.0, nan, 3.0, -2.0, 52.0]),
    'x.remainder(w)': ('float64', [2.0, 1.0, -1.0, -2.0, nan, -0.0, 0.0, 3.0, inf, nan, 0.0, -0.0, 0.09999999999999953]),
    'x.fmod(w)': ('float64', [2.0, -2.0, 2.0, -2.0, nan, -0.0, 0.0, 3.0, -3.0, nan, 0.0, -0.0, 0.09999999999999953]),
    'f // g': ('float32', [1.0, -2.0, -2.0, 1.0, inf, -0.0, -0.0, 0.0, -1.0, nan, 3.0, -2.0, 53.0]),
    'f % g': ('float32', [2.0, 1.0, -1.0, -2.0, nan, -0.0, 0.0, 3.0, inf, nan, 0.0, -0.0, 1.1175870895385742e-07]),
    'fmod(f, g)': ('float32', [2.0, -2.0, 2.0, -2.0, nan, -0.0, 0.0, 3.0, -3.0, nan, 0.0, -0.0, 1.1175870895385742e-07]),
    'n // m': ('int64', [1, -2, -4, 3, 0]),
    'n % m': ('int64', [2, 1, -1, -1, 0]),
    'fmod(n, m)': ('int64', [2, -2, 1, -1, 0]),
    'n // 2.5': ('float32', [2.0, -2.0, 2.0, -3.0, 0.0]),
    'n % 2.5': ('float32', [0.0, -0.0, 2.0, 0.5, 0.0]),
    '7 // m': ('int64', [2, 2, -4, -4, 1]),
    '7 % m': ('int64', [1, 1, -1, -1, 3]),
    '7.5 % m': ('float32', [1.5, 1.5, -0.5, -0.5, 3.5]),
    'x % 2': ('float64', [1.0, 1.0, 1.0, 1.0, 0.5, -0.0, 0.0, 1.0, 1.0, nan, 1.5, -0.0, 1.2999999999999998]),
    '2.0 % w[:9]': ('float64', [2.0, 2.0, -1.0, -1.0, nan, 2.0, -1.0, 2.0, 2.0]),
    'x // 2': ('float64', [2.0, -3.0, 2.0, -3.0, 0.0, -0.0, 0.0, 1.0, -2.0, nan, 3.0, -3.0, 2.0]),
    'remainder(5.0, w)': ('float64', [2.0, 2.0, -1.0, -1.0, nan, 2.0, -1.0, 5.0, 5.0, 2.0, 0.0, 2.0, 0.09999999999999973]),
    'n.int() % m': ('int64', [2, 1, -1, -1, 0]),
    'b % 2': ('int64', [1, 0]),
    'b // 2': ('int64', [0, 0]),
    'fmod(b, 2)': ('int64', [1, 0]),
    'b % 2.5': ('float32', [1.0, 0.0]),
    'x.reshape(13, 1)[:3] % w[:4]': ('float64', [[2.0, 2.0, -1.0, -1.0], [1.0, 1.0, -2.0, -2.0], [2.0, 2.0, -1.0, -1.0]]),
    'log1p(x[:8])': ('float64', [1.791759469228055, nan, 1.791759469228055, nan, 0.4054651081081644, -0.0, 0.0, 1.3862943611198906]),
    'log1p(t)': ('float64', [1e-20, -1.00000000005e-10, 0.4054651081081644, -0.6931471805599453, 6.90875477931522]),
    'log1p(n.abs())': ('float32', [1.7917594909667969, 1.7917594909667969, 2.079441547393799, 2.079441547393799, 0.0]),
    'x.log1p()': ('float64', [1.791759469228055, nan, 1.791759469228055, nan, 0.4054651081081644, -0.0, 0.0, 1.3862943611198906, nan, inf, 2.1400661634962708, nan, 1.840549633397487]),
}
EXPECTED_GRADS = {
    'x % w dx': ('float64', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3]),
    'x % w dw': ('float64', [-0.1, 0.4, 0.6, -0.4, -inf, 0.0, 0.0, -0.0, 0.9, nan, -3.3000000000000003, 2.4, -67.60000000000001]),
    'fmod(x, w) dx': ('float64', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3]),
    'fmod(x, w) dw': ('float64', [-0.1, 0.2, 0.3, -0.4, -inf, 0.0, 0.0, -0.0, 0.0, -inf, -3.3000000000000003, 2.4, -67.60000000000001]),
    'x.reshape(13, 1)[:3] % w[:4] dw': ('float64', [0.0, 0.0, 2.1, 2.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'log1p(t) dt': ('float64', [0.1, 0.20000000002, 0.19999999999999998, 0.8, 0.0004995004995004995]),
}


def test_float_division_is_exact_where_the_array_library_rounds(monkeypatch):
    """CuPy computes a float remainder as x - floor(x / w) * w and floor_divide as
    floor(x / w): 1.0 // 0.1 is then 10 and 1.0 % 0.1 is 0, where NumPy and PyTorch say 9
    and 0.09999999999999995 (0.1 is a little over 1/10). tinyffn builds both on the
    backend's exact fmod. The strict backend stands in for CuPy, its two functions made
    CuPy's."""
    xp = pytest.importorskip("array_api_strict")
    monkeypatch.setattr(xp, "floor_divide", lambda x, w: xp.floor(x / w))
    monkeypatch.setattr(xp, "remainder", lambda x, w: x - xp.floor(x / w) * w)
    x = tinyffn.tensor([1.0, -5.0, 5.0, 1e17], dtype="float64", device="strict")
    w = tinyffn.tensor([0.1, inf, 3.0, 3.0], dtype="float64", device="strict")
    want = np.array([1.0, -5.0, 5.0, 1e17]), np.array([0.1, inf, 3.0, 3.0])
    assert (x // w).tolist() == np.floor_divide(*want).tolist() == [9.0, -1.0, 1.0, 33333333333333332.0]
    assert (x % w).tolist() == np.remainder(*want).tolist() == [0.09999999999999995, inf, 2.0, 1.0]
    assert tinyffn.fmod(x, w).tolist() == np.fmod(*want).tolist()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")        # float16: overflow to inf
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_floor_divide_and_remainder_of_many_floats_match_numpy(dtype, device):
    """x // w and x % w for 4,000 random pairs against NumPy's floor_divide and remainder
    (Python's // and % for float64). (x - fmod(x, w)) / w lands a hair below the integer
    it stands for in about one pair in twenty (136.64634705 // 1.45695774 is 93, the
    quotient 92.99999999999999), which the floor must not take down a step; float16
    computes in float32 and rounds once, as NumPy does (all in float16, -16.98 // 0.00205
    would be -8280 against NumPy's -8288)."""
    if dtype == "float16" and device == "strict":
        pytest.skip("the strict backend has no float16")
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(4000) * 100).astype(dtype)
    w = rng.standard_normal(4000).astype(dtype)
    w[w == 0] = 1
    want_div, want_mod = np.floor_divide(x, w), np.remainder(x, w)   # float16: inf past 65504
    tx, tw = (tinyffn.tensor(v, device=device) for v in (x, w))
    got_div, got_mod = (tx // tw).numpy(), (tx % tw).numpy()
    assert got_div.dtype == got_mod.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got_div, want_div)
    np.testing.assert_array_equal(got_mod, want_mod)
    if dtype == "float64":
        assert got_div[:200].tolist() == [a // b for a, b in zip(x[:200].tolist(), w[:200].tolist())]
        assert got_mod[:200].tolist() == [a % b for a, b in zip(x[:200].tolist(), w[:200].tolist())]


def test_remainder_saves_floor_only_when_the_divisor_needs_its_gradient():
    """x % 2.5 needs dy/dx = 1 alone: keeping floor(x / w), an array of x's size, for a
    gradient nobody asked for held memory until backward; x % w keeps it for gw."""
    x = tinyffn.tensor([5.5, -1.25, 7.0], dtype="float64", requires_grad=True)
    assert (x % 2.5).grad_fn._saved == ()
    w = tinyffn.tensor(2.5, dtype="float64", requires_grad=True)
    (x % w).sum().backward()
    assert w.grad.item() == -(np.floor(5.5 / 2.5) + np.floor(-1.25 / 2.5) + np.floor(7 / 2.5))
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
