"""The names of tinyffn/torch_names.py: roll, movedim/moveaxis, narrow, unflatten, diff,
cumprod, dot, tensordot, floor, ceil, trunc, round.

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` (those tests run without it, on every device);
signs of zeros compared too (round(-0.4) is -0.0); gradcheck on every device.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
R = [[0.5, -0.5, 1.5, 2.5, -2.5, -0.0, 0.49999999999999994, -0.4],
     [math.inf, -math.inf, math.nan, -0.7, 1e300, 2.675, -3.5, 0.125]]

CASES = [
    "T.roll(x, 1)", "T.roll(x, -3)", "T.roll(x, 1, 0)", "x.roll((1, -1), (0, 1))",
    "T.roll(x, 5, 1)", "T.movedim(x3, 0, -1)", "T.moveaxis(x3, (0, 1), (2, 0))",
    "x3.movedim(-1, 0)", "T.narrow(x, 1, 1, 2)", "x.narrow(0, -1, 1)", "x.narrow(1, 4, 0)",
    "T.unflatten(x, 1, (2, 2))", "x.unflatten(-1, (-1, 1, 2))",
    "T.diff(x)", "T.diff(x, 2)", "T.diff(x, dim=0)", "x.diff(prepend=x[:, :1], append=x)",
    "T.diff(x > 0)", "T.diff(i)", "T.diff(x, 0)",
    "T.cumprod(x, 1)", "x.cumprod(0)", "T.cumprod(i, 1)", "T.cumprod(x3, -2)", "T.cumprod(z, 0)",
    "T.dot(v, v)", "v.dot(v.flip(0))", "T.dot(i[0], i[1])",
    "T.tensordot(x3, x3, ([0, 1], [0, 1]))", "T.tensordot(x, x3, ([0], [0]))",
    "T.tensordot(v, v, 0)", "T.tensordot(x3, x3.flip(0), 3)", "T.tensordot(x3, x.T, 1)",
    "T.tensordot(i, i, ([1], [-1]))", "T.tensordot(x3, x3.permute(1, 0, 2), ([1, 0, -1], [0, 1, 2]))",
    "T.tensordot(x3.permute(1, 0, 2), x3, ([0, 1], [1, 0]))",    # pairs out of order
    "T.floor(r)", "T.ceil(r)", "T.trunc(r)", "T.round(r)", "r.round(decimals=2)",
    "T.round(r, decimals=-1)", "T.floor(i)", "x.floor()", "x.ceil()", "x.trunc()", "x.round()",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {}
    values = dict(x=X, v=[3.0, -4.0, 0.5], r=R, z=[2.0, 0.0, 3.0, 0.0, -1.0],
                  x3=np.arange(24.0).reshape(2, 3, 4).tolist(), q=[0.3, -1.7, 2.2, -0.6])
    for name, v in values.items():
        inputs[name] = module.tensor(v, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["i"] = module.tensor([[0, 4, 2], [4, 1, 3]], **tensor_kwargs)
    y = eval(case, {}, {"T": module, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain


def assert_same(actual, expected, case):
    """dtype, shape and values to 1e-12, NaN equal to NaN, and the sign of every zero."""
    torch_parity.assert_close(actual, expected, case)
    a, e = np.asarray(actual[1], dtype=float), np.asarray(expected[1], dtype=float)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(e), err_msg=case)


GRAD_CASES = [
    ("x.roll((1, -1), (0, 1))", "x"), ("T.roll(x, 3)", "x"), ("T.movedim(x3, 0, -1)", "x3"),
    ("T.narrow(x, 1, 1, 2)", "x"), ("x.unflatten(1, (2, 2))", "x"), ("T.diff(x, 2)", "x"),
    ("x.diff(prepend=x[:, :1], append=x)", "x"), ("T.cumprod(x, 1)", "x"),
    ("T.cumprod(x, 0)", "x"), ("T.cumprod(z, 0)", "z"), ("T.cumprod(z[:3], 0)", "z"),
    ("T.dot(v, v.flip(0))", "v"), ("T.tensordot(x3, x3.flip(0), ([0, 2], [0, 2]))", "x3"),
    ("T.tensordot(v, x[:, :3], ([0], [1]))", "v"), ("T.floor(q)", "q"), ("q.ceil()", "q"), ("T.trunc(r[0])", "r"),
    ("T.round(r[0])", "r"), ("q.round(decimals=1)", "q"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals(), assert_grad=torch_parity.assert_close)  # a zero gradient's sign: either


GRADCHECKED = {
    "roll": (lambda x: tinyffn.roll(x, (1, -1), (0, 1)), X),
    "movedim": (lambda x: x.reshape(2, 2, 2).movedim(0, -1), X),
    "narrow": (lambda x: x.narrow(1, 1, 2), X),
    "unflatten": (lambda x: x.unflatten(1, (2, 2)), X),
    "diff": (lambda x: tinyffn.diff(x, 2, prepend=x), X),
    "cumprod": (lambda x: tinyffn.cumprod(x, 1), X),          # a zero in row 0
    "cumprod-two-zeros": (lambda z: z.cumprod(0), [2.0, 0.0, 3.0, 0.0, -1.0]),
    "dot": (lambda x: tinyffn.dot(x[0], x[1]), X),
    "tensordot": (lambda x: tinyffn.tensordot(x, x.reshape(2, 2, 2), ([0], [0])), X),
    "floor": (tinyffn.floor, [0.3, -1.7, 2.2]), "ceil": (tinyffn.ceil, [0.3, -1.7, 2.2]),
    "trunc": (tinyffn.trunc, [0.3, -1.7, 2.2]), "round": (tinyffn.round, [0.3, -1.7, 2.2]),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    assert tinyffn.gradcheck(fn, [tinyffn.tensor(values, dtype="float64", device=device,
                                                 requires_grad=True)])


def test_rounding_written_out_in_numpy(device):
    """np.floor, np.ceil, np.trunc, np.round (halves to even) on 2000 values around the
    halves and integers, signs of zeros included, float64 and float32."""
    r = np.random.default_rng(0)
    v = np.concatenate([r.integers(-20, 20, 500) / 2, r.standard_normal(1000) * 5,
                        r.integers(-20, 20, 500) / 2 + r.choice([-1e-12, 1e-12], 500)])
    for dtype in ("float64", "float32"):
        a = v.astype(dtype)
        x = tinyffn.tensor(a, device=device)
        for name, want in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
                           ("round", np.round)):
            got = getattr(tinyffn, name)(x).numpy()
            np.testing.assert_array_equal(got, want(a), err_msg=name)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want(a)), err_msg=name)


def test_rounding_gives_a_zero_gradient_not_none(device):
    """As PyTorch: the result requires grad, its gradient is zeros (inf and NaN too)."""
    x = tinyffn.tensor([0.5, -1.5, math.inf, math.nan], device=device, requires_grad=True)
    for fn in (tinyffn.floor, tinyffn.ceil, tinyffn.trunc, tinyffn.round):
        x.grad = None
        y = fn(x)
        assert y.requires_grad
        y.sum().backward()
        assert x.grad.tolist() == [0.0] * 4


def test_cumprod_with_zeros_written_out(device):
    """The gradient of Σ cumprod(z) by hand: dL/dz_k = Σ_{i>=k} Π_{j<=i, j!=k} z_j."""
    z = np.array([2.0, 0.0, 3.0, 0.0, -1.0])
    want = [sum(np.prod(np.delete(z[:i + 1], k)) for i in range(k, 5)) for k in range(5)]
    t = tinyffn.tensor(z, device=device, requires_grad=True)
    t.cumprod(0).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), want)


TENSORDOT_REFUSED = [      # each refused by torch.tensordot too
    ("T.tensordot(x, x, ([0], [1]))", ValueError, "paired axes must have one size"),
    ("T.tensordot(x, x, 3)", ValueError, "dims=3 must be from 0 to"),
    ("T.tensordot(x, x, -1)", ValueError, "dims=-1 must be from 0 to"),
    ("T.tensordot(x, x, ([0, 0], [0, 0]))", ValueError, "paired twice"),
    ("T.tensordot(x, x, ([0], [0, 1]))", ValueError, "one length"),
    ("T.tensordot(x, x, 1.5)", TypeError, "an int or two lists of axes"),
    ("T.tensordot(x, x.float())", TypeError, "one dtype, got float64 and float32 (PyTorch"),
]


def test_torch_refuses_what_tensordot_refuses():
    torch = pytest.importorskip("torch")
    x = torch.tensor(X, dtype=torch.float64)
    for call, _, _ in TENSORDOT_REFUSED:
        with pytest.raises(RuntimeError):
            eval(call, {"T": torch, "x": x})


@pytest.mark.parametrize("call, error, words", [
    ("T.roll(x, (1, 2), 0)", ValueError, "one entry each"),
    ("T.roll(x, 1, 2)", IndexError, "dims=2 is out of range"),
    ("T.movedim(x, (0, 0), (0, 1))", ValueError, "names an axis twice"),
    ("T.narrow(x, 1, 3, 2)", ValueError, "start (3) + length (2)"),
    ("T.unflatten(x, 1, (3, 2))", ValueError, "do not multiply to 4"),
    ("T.diff(x, -1)", ValueError, "n must be an int >= 0"),
    ("T.diff(x, prepend=x[0])", ValueError, "prepend has shape (4,) and input (2, 4)"),
    ("T.diff(x, append=x.sum())", ValueError, "append needs as many axes as input"),
    ("T.dot(x, x)", ValueError, "two 1-D tensors"),
    ("T.dot(x[0], x[0].float())", TypeError, "one dtype"),
    *TENSORDOT_REFUSED,
    ("T.floor(x > 0)", TypeError, "bool"),
    ("T.round(x.long(), decimals=1)", TypeError, "floating-point"),
])
def test_errors_name_the_op_and_say_what_to_do(call, error, words):
    x = tinyffn.tensor(X, dtype="float64")
    with pytest.raises(error, match=None) as info:
        eval(call, {"T": tinyffn, "x": x})
    assert words in str(info.value) and call[2:call.index("(")] in str(info.value)


nan, inf = math.nan, math.inf
EXPECTED = {
    'T.roll(x, 1)': ('float64', [[-0.5, 0.5, -2.0, 3.0], [0.0, -4.0, 1.5, 0.25]]),
    'T.roll(x, -3)': ('float64', [[0.0, -4.0, 1.5, 0.25], [-0.5, 0.5, -2.0, 3.0]]),
    'T.roll(x, 1, 0)': ('float64', [[-4.0, 1.5, 0.25, -0.5], [0.5, -2.0, 3.0, 0.0]]),
    'x.roll((1, -1), (0, 1))': ('float64', [[1.5, 0.25, -0.5, -4.0], [-2.0, 3.0, 0.0, 0.5]]),
    'T.roll(x, 5, 1)': ('float64', [[0.0, 0.5, -2.0, 3.0], [-0.5, -4.0, 1.5, 0.25]]),
    'T.movedim(x3, 0, -1)': ('float64', [[[0.0, 12.0], [1.0, 13.0], [2.0, 14.0], [3.0, 15.0]], [[4.0, 16.0], [5.0, 17.0], [6.0, 18.0], [7.0, 19.0]], [[8.0, 20.0], [9.0, 21.0], [10.0, 22.0], [11.0, 23.0]]]),
    'T.moveaxis(x3, (0, 1), (2, 0))': ('float64', [[[0.0, 12.0], [1.0, 13.0], [2.0, 14.0], [3.0, 15.0]], [[4.0, 16.0], [5.0, 17.0], [6.0, 18.0], [7.0, 19.0]], [[8.0, 20.0], [9.0, 21.0], [10.0, 22.0], [11.0, 23.0]]]),
    'x3.movedim(-1, 0)': ('float64', [[[0.0, 4.0, 8.0], [12.0, 16.0, 20.0]], [[1.0, 5.0, 9.0], [13.0, 17.0, 21.0]], [[2.0, 6.0, 10.0], [14.0, 18.0, 22.0]], [[3.0, 7.0, 11.0], [15.0, 19.0, 23.0]]]),
    'T.narrow(x, 1, 1, 2)': ('float64', [[-2.0, 3.0], [1.5, 0.25]]),
    'x.narrow(0, -1, 1)': ('float64', [[-4.0, 1.5, 0.25, -0.5]]),
    'x.narrow(1, 4, 0)': ('float64', [[], []]),
    'T.unflatten(x, 1, (2, 2))': ('float64', [[[0.5, -2.0], [3.0, 0.0]], [[-4.0, 1.5], [0.25, -0.5]]]),
    'x.unflatten(-1, (-1, 1, 2))': ('float64', [[[[0.5, -2.0]], [[3.0, 0.0]]], [[[-4.0, 1.5]], [[0.25, -0.5]]]]),
    'T.diff(x)': ('float64', [[-2.5, 5.0, -3.0], [5.5, -1.25, -0.75]]),
    'T.diff(x, 2)': ('float64', [[7.5, -8.0], [-6.75, 0.5]]),
    'T.diff(x, dim=0)': ('float64', [[-4.5, 3.5, -2.75, -0.5]]),
    'x.diff(prepend=x[:, :1], append=x)': ('float64', [[0.0, -2.5, 5.0, -3.0, 0.5, -2.5, 5.0, -3.0], [0.0, 5.5, -1.25, -0.75, -3.5, 5.5, -1.25, -0.75]]),
    'T.diff(x > 0)': ('bool', [[True, True, True], [True, False, True]]),
    'T.diff(i)': ('int64', [[4, -2], [-3, 2]]),
    'T.diff(x, 0)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'T.cumprod(x, 1)': ('float64', [[0.5, -1.0, -3.0, -0.0], [-4.0, -6.0, -1.5, 0.75]]),
    'x.cumprod(0)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-2.0, -3.0, 0.75, -0.0]]),
    'T.cumprod(i, 1)': ('int64', [[0, 0, 0], [4, 4, 12]]),
    'T.cumprod(x3, -2)': ('float64', [[[0.0, 1.0, 2.0, 3.0], [0.0, 5.0, 12.0, 21.0], [0.0, 45.0, 120.0, 231.0]], [[12.0, 13.0, 14.0, 15.0], [192.0, 221.0, 252.0, 285.0], [3840.0, 4641.0, 5544.0, 6555.0]]]),
    'T.cumprod(z, 0)': ('float64', [2.0, 0.0, 0.0, 0.0, -0.0]),
    'T.dot(v, v)': ('float64', 25.25),
    'v.dot(v.flip(0))': ('float64', 19.0),
    'T.dot(i[0], i[1])': ('int64', 10),
    'T.tensordot(x3, x3, ([0, 1], [0, 1]))': ('float64', [[880.0, 940.0, 1000.0, 1060.0], [940.0, 1006.0, 1072.0, 1138.0], [1000.0, 1072.0, 1144.0, 1216.0], [1060.0, 1138.0, 1216.0, 1294.0]]),
    'T.tensordot(x, x3, ([0], [0]))': ('float64', [[[-48.0, -51.5, -55.0, -58.5], [-62.0, -65.5, -69.0, -72.5], [-76.0, -79.5, -83.0, -86.5]], [[18.0, 17.5, 17.0, 16.5], [16.0, 15.5, 15.0, 14.5], [14.0, 13.5, 13.0, 12.5]], [[3.0, 6.25, 9.5, 12.75], [16.0, 19.25, 22.5, 25.75], [29.0, 32.25, 35.5, 38.75]], [[-6.0, -6.5, -7.0, -7.5], [-8.0, -8.5, -9.0, -9.5], [-10.0, -10.5, -11.0, -11.5]]]),
    'T.tensordot(v, v, 0)': ('float64', [[9.0, -12.0, 1.5], [-12.0, 16.0, -2.0], [1.5, -2.0, 0.25]]),
    'T.tensordot(x3, x3.flip(0), 3)': ('float64', 2596.0),
    'T.tensordot(x3, x.T, 1)': ('float64', [[[4.0, 0.5], [10.0, -10.5], [16.0, -21.5]], [[22.0, -32.5], [28.0, -43.5], [34.0, -54.5]]]),
    'T.tensordot(i, i, ([1], [-1]))': ('int64', [[20, 10], [10, 26]]),
    'T.tensordot(x3, x3.permute(1, 0, 2), ([1, 0, -1], [0, 1, 2]))': ('float64', 4324.0),
    'T.tensordot(x3.permute(1, 0, 2), x3, ([0, 1], [1, 0]))': ('float64', [[880.0, 940.0, 1000.0, 1060.0], [940.0, 1006.0, 1072.0, 1138.0], [1000.0, 1072.0, 1144.0, 1216.0], [1060.0, 1138.0, 1216.0, 1294.0]]),
    'T.floor(r)': ('float64', [[0.0, -1.0, 1.0, 2.0, -3.0, -0.0, 0.0, -1.0], [inf, -inf, nan, -1.0, 1e+300, 2.0, -4.0, 0.0]]),
    'T.ceil(r)': ('float64', [[1.0, -0.0, 2.0, 3.0, -2.0, -0.0, 1.0, -0.0], [inf, -inf, nan, -0.0, 1e+300, 3.0, -3.0, 1.0]]),
    'T.trunc(r)': ('float64', [[0.0, -0.0, 1.0, 2.0, -2.0, -0.0, 0.0, -0.0], [inf, -inf, nan, -0.0, 1e+300, 2.0, -3.0, 0.0]]),
    'T.round(r)': ('float64', [[0.0, -0.0, 2.0, 2.0, -2.0, -0.0, 0.0, -0.0], [inf, -inf, nan, -1.0, 1e+300, 3.0, -4.0, 0.0]]),
    'r.round(decimals=2)': ('float64', [[0.5, -0.5, 1.5, 2.5, -2.5, -0.0, 0.5, -0.4], [inf, -inf, nan, -0.7, 1e+300, 2.68, -3.5, 0.12]]),
    'T.round(r, decimals=-1)': ('float64', [[0.0, -0.0, 0.0, 0.0, -0.0, -0.0, 0.0, -0.0], [inf, -inf, nan, -0.0, 1e+300, 0.0, -0.0, 0.0]]),
    'T.floor(i)': ('int64', [[0, 4, 2], [4, 1, 3]]),
    'x.floor()': ('float64', [[0.0, -2.0, 3.0, 0.0], [-4.0, 1.0, 0.0, -1.0]]),
    'x.ceil()': ('float64', [[1.0, -2.0, 3.0, 0.0], [-4.0, 2.0, 1.0, -0.0]]),
    'x.trunc()': ('float64', [[0.0, -2.0, 3.0, 0.0], [-4.0, 1.0, 0.0, -0.0]]),
    'x.round()': ('float64', [[0.0, -2.0, 3.0, 0.0], [-4.0, 2.0, 0.0, -0.0]]),
}

EXPECTED_GRADS = {
    'x.roll((1, -1), (0, 1)) dx': ('float64', [[0.8, 0.5, 0.6, 0.7], [0.4, 0.1, 0.2, 0.3]]),
    'T.roll(x, 3) dx': ('float64', [[0.4, 0.5, 0.6, 0.7], [0.8, 0.1, 0.2, 0.3]]),
    'T.movedim(x3, 0, -1) dx3': ('float64', [[[0.1, 0.3, 0.5, 0.7], [0.9, 1.1, 1.3, 1.5], [1.7, 1.9, 2.1, 2.3]], [[0.2, 0.4, 0.6, 0.8], [1.0, 1.2, 1.4, 1.6], [1.8, 2.0, 2.2, 2.4]]]),
    'T.narrow(x, 1, 1, 2) dx': ('float64', [[0.0, 0.1, 0.2, 0.0], [0.0, 0.3, 0.4, 0.0]]),
    'x.unflatten(1, (2, 2)) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]),
    'T.diff(x, 2) dx': ('float64', [[0.1, 0.0, -0.30000000000000004, 0.2], [0.3, -0.19999999999999996, -0.5, 0.4]]),
    'x.diff(prepend=x[:, :1], append=x) dx': ('float64', [[-0.3, -0.19999999999999996, -0.20000000000000012, 0.7000000000000001], [-1.0999999999999999, -0.20000000000000018, -0.19999999999999996, 1.5]]),
    'T.cumprod(x, 1) dx': ('float64', [[-2.0999999999999996, 0.5499999999999999, -0.3, -1.2000000000000002], [1.5124999999999997, -2.6999999999999993, -1.799999999999999, -1.2000000000000002]]),
    'T.cumprod(x, 0) dx': ('float64', [[-1.9, 1.0999999999999999, 0.4749999999999999, 0.0], [0.25, -1.2, 2.0999999999999996, 0.0]]),
    'T.cumprod(z, 0) dz': ('float64', [0.1, 2.1999999999999997, 0.0, 0.0, 0.0]),
    'T.cumprod(z[:3], 0) dz': ('float64', [0.1, 2.1999999999999997, 0.0, 0.0, 0.0]),
    'T.dot(v, v.flip(0)) dv': ('float64', [0.1, -0.8, 0.6000000000000001]),
    'T.tensordot(x3, x3.flip(0), ([0, 2], [0, 2])) dx3': ('float64', [[[32.0, 33.8, 35.6, 37.4], [51.2, 54.199999999999996, 57.2, 60.2], [70.4, 74.60000000000001, 78.8, 83.0]], [[10.399999999999999, 12.2, 14.000000000000002, 15.8], [15.2, 18.2, 21.200000000000003, 24.200000000000003], [20.0, 24.2, 28.4, 32.6]]]),
    'T.tensordot(v, x[:, :3], ([0], [1])) dv': ('float64', [-0.75, 0.10000000000000003, 0.35000000000000003]),
    'T.floor(q) dq': ('float64', [0.0, 0.0, 0.0, 0.0]),
    'q.ceil() dq': ('float64', [0.0, 0.0, 0.0, 0.0]),
    'T.trunc(r[0]) dr': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]),
    'T.round(r[0]) dr': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]),
    'q.round(decimals=1) dq': ('float64', [0.0, 0.0, 0.0, 0.0]),
}


def test_cumprod_refuses_a_triangle_past_its_limit_instead_of_exhausting_memory(monkeypatch):
    import tinyffn.torch_names as names
    monkeypatch.setattr(names, "CUMPROD_LIMIT", 100)
    assert tinyffn.cumprod(tinyffn.ones(10), 0).shape == (10,)          # 10 · 10 = 100
    with pytest.raises(ValueError, match=r"cumprod: along dim 0 of a tensor of shape \(11,\) "
                                         r"this composition needs 121 entries"):
        tinyffn.cumprod(tinyffn.ones(11), 0)
    assert tinyffn.cumprod(tinyffn.ones(3, 5), 1).shape == (3, 5)     # 3 rows · 5 · 5 = 75
    with pytest.raises(ValueError, match=r"needs 108 entries"):
        tinyffn.cumprod(tinyffn.ones(3, 6), 1)                         # 3 rows · 6 · 6


H = [1197.0, 732.5, -4.0859375, 2047.5, 0.9497, -1.175, 65504.0]


@pytest.mark.parametrize("decimals", [2, 1, -1, 5])
def test_float16_round_with_decimals_computes_in_float32(decimals, device):
    """PyTorch scales a float16 in float32 and rounds back once: in float16, 1197 · 100
    was inf (so round(1197, decimals=2) gave inf) and 0.9497 · 10 rounded to 9.5 first.
    Reference: NumPy in float32, then float16 (PyTorch 2.13 gives the same, checked live)."""
    if device == "strict":
        pytest.skip("the strict backend has no float16")
    h = np.array(H, dtype=np.float16).astype(np.float32)
    s = np.float32(10.0 ** abs(decimals))
    want = (np.round(h * s) / s if decimals > 0 else np.round(h / s) * s).astype(np.float16)
    got = tinyffn.tensor(H, dtype="float16", device=device).round(decimals=decimals)
    assert str(got.dtype) == "float16"
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(want))


def test_float16_round_with_decimals_against_torch_live():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal(4000).astype(np.float16) * 300
    for decimals in (3, 2, 1, -1, -2):
        got = tinyffn.tensor(x).round(decimals=decimals).numpy()
        np.testing.assert_array_equal(got, torch.tensor(x).round(decimals=decimals).numpy())


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")    # NumPy's 0 · inf
def test_round_with_decimals_past_a_double_is_nan_as_pytorchs():
    """10^400 overflows a double: PyTorch's scale is inf and every entry NaN (it raised
    Python's OverflowError, naming no op)."""
    for dtype in ("float64", "float32", "float16"):
        for decimals in (400, -400, 309):
            y = tinyffn.round(tinyffn.tensor([1.5, 0.0, -2.0], dtype=dtype), decimals=decimals)
            assert np.isnan(y.numpy()).all() and str(y.dtype) == dtype


@pytest.mark.parametrize("dtype, values, want", [
    ("int32", [3, 1, 2], [3, 3, 6]), ("int8", [100, 2], [100, -56]),     # int8 wraps, as torch
    ("uint8", [200, 2], [200, 144]), ("int16", [300, 300], [300, 24464]),
    ("float32", [3, 1, 2], [3.0, 3.0, 6.0]),
])
def test_cumprod_dtype_is_the_dtype_of_the_result(dtype, values, want):
    """As torch.cumprod(x, 0, dtype=...): the input is cast and the result keeps the dtype
    (it came back int64 for every integer dtype asked). Wrapped values written out:
    100 · 2 = 200 = -56 mod 256; 300 · 300 = 90000 = 24464 mod 65536."""
    for x in (tinyffn.tensor(values), tinyffn.tensor(values, dtype="float64")):
        y = tinyffn.cumprod(x, 0, dtype=dtype)
        assert str(y.dtype) == dtype and y.tolist() == want
    y = tinyffn.tensor(values[0]).cumprod(0, dtype=dtype)                  # 0-d
    assert str(y.dtype) == dtype and y.item() == values[0]


def test_diff_with_n_0_ignores_prepend_and_append_as_pytorchs():
    """torch.diff(x, 0, prepend=p, append=a) is x: nothing is differenced, nothing joined
    (it came back as cat([p, x, a]))."""
    x = tinyffn.tensor(X)
    y = tinyffn.diff(x, 0, prepend=x, append=x[:, :1])
    assert y.shape == (2, 4) and y.tolist() == X


@pytest.mark.parametrize("dim, sizes, shape", [
    (1, (-1, 2), (2, 0, 2, 3)), (-1, (-1, 3), (2, 0, 1, 3)), (0, (2, -1), (2, 1, 0, 3)),
])
def test_unflatten_infers_minus_one_in_an_empty_tensor(dim, sizes, shape):
    """Shapes as torch.unflatten gives them for a (2, 0, 3) tensor; reshape cannot infer a
    -1 among 0 entries, so unflatten raised reshape's error there."""
    assert tinyffn.zeros(2, 0, 3).unflatten(dim, sizes).shape == shape


def test_movedim_of_a_0d_tensor_as_pytorchs():
    """torch.movedim(tensor(2.), 0, -1) is tensor(2.); it raised a bare 'list assignment
    index out of range'."""
    x = tinyffn.tensor(2.0)
    for source, destination in ((0, -1), (-1, 0), ((0,), (0,))):
        y = tinyffn.movedim(x, source, destination)
        assert y.shape == () and y.item() == 2.0


def test_dot_keeps_a_narrow_integer_dtype_and_unflatten_keeps_the_order_of_sizes():
    """torch.dot of two int32 tensors is int32 (the sum alone would widen to int64);
    unflatten(-1, (1, 4)) is (2, 3, 1, 4), not (2, 3, 4, 1); two -1s are refused by name."""
    i = tinyffn.tensor([[1, 2, 3], [4, -5, 6]], dtype="int32")
    y = tinyffn.dot(i[0], i[1])
    assert str(y.dtype) == "int32" and y.item() == 4 - 10 + 18
    x3 = tinyffn.arange(24.0).reshape(2, 3, 4)
    assert x3.unflatten(-1, (1, 4)).shape == (2, 3, 1, 4)
    assert x3.unflatten(1, (3, 1)).shape == (2, 3, 1, 4)
    with pytest.raises(ValueError, match=r"unflatten: sizes \(-1, -1\).*one size may be -1"):
        x3.unflatten(-1, (-1, -1))
