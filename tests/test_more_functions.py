"""logsumexp, sin, cos, sign, prod, cumsum, flip, unbind, index_select, mm, bmm, outer,
is_floating_point, unique and bincount (tinyffn/more_functions.py), as functions and as
Tensor methods (unique and bincount: at the end, written out by hand and against torch).

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values written out in
``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch; those tests run without it,
on every device); gradcheck for every differentiable function.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.backend import dtype_name

inf, nan = math.inf, math.nan

X = [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]
Z = [[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, -2.0, 4.0]]      # no zero, one zero, two zeros
B = (np.arange(24.0).reshape(2, 3, 4) * 0.25 - 2.0).tolist()
INF = [[-inf, -inf], [1.0, inf], [inf, inf], [-inf, 0.0]]
S = [nan, -0.0, 0.0, -2.0, 3.0, inf, -inf]
N = [[1, 2, 3], [4, 5, 6]]

FUNCTIONS = ["logsumexp", "sin", "cos", "sign", "prod", "cumsum", "flip", "unbind",
             "index_select", "mm", "bmm", "outer", "is_floating_point", "float32", "int32"]
CASES = [
    "logsumexp(x, 1)", "logsumexp(x, 0, True)", "logsumexp(x, (0, 1))", "logsumexp(b, -1)",
    "logsumexp(inf_, 1)", "logsumexp(n, 1)", "logsumexp(e, 1)", "logsumexp(s0, 0)",
    "x.logsumexp(dim=1, keepdim=True)",
    "sin(x)", "cos(x)", "sin(n)", "x.sin()", "x.cos()",
    "sign(s)", "sign(x)", "sign(n - 3)", "sign(x > 0)", "x.sign()",
    "prod(z)", "prod(z, 1)", "prod(z, 0, True)", "prod(n)", "prod(n, 1)", "prod(x > 0, 1)",
    "prod(e, 1)", "prod(s0)", "prod(x, dtype=float32)", "z.prod(1, keepdim=True)",
    "cumsum(x, 1)", "cumsum(b, 0)", "cumsum(n, 1)", "cumsum(x > 0, 1)", "cumsum(n.int(), 0)",
    "cumsum(s0, 0)", "cumsum(s0.int(), 0)", "x.cumsum(-1)", "x.cumsum(0, dtype=float32)",
    "flip(x, (0, 1))", "flip(b, [2])", "flip(b, (0, -1))", "flip(n, (1,))", "flip(s0, (0,))",
    "x.flip(0)", "x.flip(0, 1)", "x.flip((1,))",
    "unbind(x)", "unbind(x, 1)", "unbind(b, -1)", "x.unbind(dim=1)",
    "index_select(x, 1, i)", "index_select(x, 0, i[1:2])", "index_select(b, 2, i)",
    "index_select(n, 1, i.int())", "index_select(x, 1, i[:0])", "index_select(s0, 0, i0)",
    "x.index_select(1, i)",
    "mm(x, y)", "x.mm(y)", "bmm(b, b.mT)", "b.bmm(b.mT)", "outer(v, w)", "v.outer(w)",
    "outer(v.int(), w)",
    "is_floating_point(x)", "is_floating_point(n)", "n.is_floating_point()",
]


def run(module, case: str, **tensor_kwargs):
    """``case`` evaluated with ``module``'s functions (tinyffn or torch) and inputs."""
    def t(values, dtype):
        return module.tensor(values, dtype=dtype, **tensor_kwargs)
    f64, i64 = module.float64, module.int64
    names = {name: getattr(module, name) for name in FUNCTIONS}
    inputs = dict(
        x=t(X, f64), z=t(Z, f64), b=t(B, f64), inf_=t(INF, f64), s=t(S, f64), n=t(N, i64),
        e=module.zeros((2, 0), dtype=f64, **tensor_kwargs), s0=t(2.5, f64),
        y=t([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]], f64), v=t([1.0, -2.0, 0.5], f64),
        w=t([2.0, 3.0], f64), i=t([2, 0, 2], i64), i0=t([0], i64))
    return eval(case, {}, {**names, **inputs})


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare


def assert_same(actual, expected, case, rtol=1e-12, zero_signs=True):
    """Equal dtypes and shapes, values to ``rtol``; NaN equals NaN, -0.0 differs from 0.0
    (unless not ``zero_signs``: the gradients, where PyTorch's prod reaches a zero by
    another product, so with another sign)."""
    if isinstance(expected, bool):
        assert actual is expected, case
        return
    assert type(actual) is type(expected), f"{case}: {actual!r} against {expected!r}"
    if isinstance(expected[0], tuple):
        assert len(actual) == len(expected), case
        for a, e in zip(actual, expected):
            assert_same(a, e, case, rtol, zero_signs)
        return
    assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
    a, e = np.asarray(actual[1]), np.asarray(expected[1])
    assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
    if a.dtype.kind == "f":
        # float32: NumPy's sin and PyTorch's may differ in the last place
        rtol = max(rtol, 4 * np.finfo(expected[0]).eps)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=0, err_msg=case)
        if zero_signs:
            np.testing.assert_array_equal(np.signbit(a) & ~np.isnan(a),
                                          np.signbit(e) & ~np.isnan(e), err_msg=f"{case}: -0.0")
    else:
        np.testing.assert_array_equal(a, e, err_msg=case)


# ----------------------------------------------------------------------------- gradients
# dL/dx of L = Σ (f(x) · weights), for x = the named float64 input; the weights are fixed
# numbers, so a backward that forgets gy, or mixes its entries up, shows.
GRAD_CASES = [
    ("logsumexp(x, 1)", "x"), ("logsumexp(x, (0, 1))", "x"), ("logsumexp(b, 1, True)", "b"),
    ("logsumexp(inf_, 1)", "inf_"), ("sin(x)", "x"), ("cos(x)", "x"), ("sign(x)", "x"),
    ("prod(z, 1)", "z"), ("prod(z)", "z"), ("prod(x)", "x"), ("prod(z, 0, True)", "z"),
    ("cumsum(x, 1)", "x"), ("cumsum(b, 0)", "b"), ("flip(b, (0, 2))", "b"),
    ("unbind(x, 1)[2]", "x"), ("index_select(x, 1, i)", "x"), ("mm(x, y)", "x"),
    ("mm(x, y)", "y"), ("bmm(b, b.mT)", "b"), ("outer(v, w)", "v"), ("outer(v, w)", "w"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    """dL/d(wrt) as plain() gives it, L = Σ f · (1, 2, 3, ...)/10 over f's entries."""
    inputs = {}

    def t(values, dtype):
        return module.tensor(values, dtype=dtype, **tensor_kwargs)
    names = {name: getattr(module, name) for name in FUNCTIONS}
    for name, values in dict(x=X, z=Z, b=B, inf_=INF, y=[[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]],
                             v=[1.0, -2.0, 0.5], w=[2.0, 3.0]).items():
        inputs[name] = t(values, module.float64)
        if name == wrt:
            inputs[name].requires_grad_(True)
    inputs["i"] = t([2, 0, 2], module.int64)
    y = eval(case, {}, {**names, **inputs})
    return torch_parity.weighted_grad(module, y, inputs[wrt], **tensor_kwargs)


def assert_same_grad(actual, expected, case):
    """tinyffn's gradients against PyTorch's, signs of zeros aside (see assert_same)."""
    assert_same(actual, expected, case, zero_signs=False)


torch_parity.tests(     # live torch, EXPECTED(_GRADS), their check
    globals(), assert_grad=assert_same_grad,
    marks=[pytest.mark.filterwarnings("ignore::RuntimeWarning")])  # inf rows: log 0, inf - inf


GRADCHECKED = {
    "logsumexp": lambda x: tinyffn.logsumexp(x, 1),
    "logsumexp-all": lambda x: tinyffn.logsumexp(x, (0, 1), keepdim=True),
    "sin": tinyffn.sin, "cos": tinyffn.cos,
    "prod": lambda x: tinyffn.prod(x, 1), "prod-all": tinyffn.prod,
    "cumsum": lambda x: tinyffn.cumsum(x, 0),
    "flip": lambda x: tinyffn.flip(x, (0, 1)),
    "unbind": lambda x: tinyffn.unbind(x, 1),
    "index_select": lambda x: tinyffn.index_select(
        x, 1, tinyffn.tensor([2, 0, 2], device=x.device)),
    "mm": lambda x: tinyffn.mm(x, x.T), "bmm": lambda x: tinyffn.bmm(x[None], x.T[None]),
    "outer": lambda x: tinyffn.outer(x[0], x[1]),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    x = tinyffn.tensor(X, dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(GRADCHECKED[name], [x])


def test_prod_gradcheck_with_one_zero_in_a_row(device):
    """Finite differences see the product of the others at the zero: the exact case."""
    x = tinyffn.tensor([[2.0, 0.0, 3.0], [1.0, -2.0, 4.0]], dtype="float64", device=device,
                       requires_grad=True)
    assert tinyffn.gradcheck(lambda x: x.prod(1), [x])


def test_sign_passes_back_zeros_whatever_arrives(device):
    x = tinyffn.tensor([1.0, -2.0, 0.0], dtype="float64", device=device, requires_grad=True)
    y = x.sign()
    assert y.requires_grad                      # in the graph, as PyTorch's
    y.backward(tinyffn.tensor([nan, inf, 1.0], dtype="float64", device=device))
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


# ----------------------------------------------------------------------------- views, errors
def test_flip_is_a_new_tensor_and_unbind_gives_views():
    x = tinyffn.tensor(X)
    y = x.flip(0)
    y.zero_()                                   # a copy in PyTorch: its own to change
    assert x.tolist() == X
    with pytest.raises(RuntimeError, match="shares that tensor's memory"):
        x.unbind()[0].zero_()


@pytest.mark.parametrize("call, error, match", [
    ("tinyffn.logsumexp(x, None)", TypeError, "dim is required"),
    ("tinyffn.logsumexp(x, 2)", ValueError, "axis 2 is out of range"),
    ("x.prod((0, 1))", TypeError, "dim must be an int or None"),
    ("x.cumsum(2)", ValueError, "axis 2 is out of range"),
    ("tinyffn.flip(x, (1, 1))", ValueError, "name the same axis twice"),
    ("tinyffn.flip(x, 'a')", TypeError, "dims must be a tuple of ints"),
    ("tinyffn.unbind(tinyffn.tensor(1.0))", ValueError, "a 0-d tensor has no dim"),
    ("x.index_select(1, tinyffn.tensor([3]))", IndexError, "index 3 is out of range"),
    ("tinyffn.tensor(5.0).index_select(0, tinyffn.tensor([0, 0]))", ValueError,
     "index_select: a 0-d input takes one index"),
    ("x.index_select(1, tinyffn.tensor([-1]))", IndexError, "negative indices are refused"),
    ("x.index_select(1, tinyffn.tensor([[1]]))", ValueError, "index must be 1-D"),
    ("x.index_select(1, tinyffn.tensor([1.0]))", TypeError, "must have dtype int64 or int32"),
    ("x.index_select(1, [1])", TypeError, "must be a tinyffn Tensor of integers"),
    ("tinyffn.mm(x, x[0])", ValueError, "mat2 must be a matrix"),
    ("tinyffn.mm(x, x)", ValueError, r"input's columns \(3\) must equal mat2's rows \(2\)"),
    ("tinyffn.bmm(x, x)", ValueError, "input must be a batch of matrices"),
    ("tinyffn.bmm(x[None], x[None])", ValueError, "do not fit"),
    ("tinyffn.bmm(tinyffn.stack([x, x]), x.T[None])", ValueError,       # torch refuses too:
     r"shapes \(2, 2, 3\) and \(1, 3, 2\) do not fit.*the same batch size"),  # no broadcast
    ("tinyffn.outer(x, x[0])", ValueError, "input must be a vector"),
    ("tinyffn.sin([1.0])", TypeError, "input must be a tinyffn Tensor"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    x = tinyffn.tensor(X)
    with pytest.raises(error, match=match):
        eval(call, {"tinyffn": tinyffn, "x": x})


def test_prod_and_cumsum_count_flops_as_one_per_element():
    x = tinyffn.randn(4, 5, dtype="float64", requires_grad=True)
    with tinyffn.FlopCounter() as counter:
        (x.prod(1).sum() + x.cumsum(0).sum() + x.sin().sum()).backward()
    assert counter.forward["prod"] == counter.forward["cumsum"] == counter.forward["sin"] == 20
    assert counter.backward["prod"] == counter.backward["cumsum"] == 20


EXPECTED = {
    'logsumexp(x, 1)': ('float64', [3.08509724636431, 1.7551006933343483]),
    'logsumexp(x, 0, True)': ('float64', [[0.5110477448485937, 1.5297504182726207, 3.0619675890031988]]),
    'logsumexp(x, (0, 1))': ('float64', 3.3197567719328456),
    'logsumexp(b, -1)': ('float64', [[-0.19998359594104986, 0.8000164040589501, 1.8000164040589501], [2.80001640405895, 3.80001640405895, 4.80001640405895]]),
    'logsumexp(inf_, 1)': ('float64', [-inf, inf, inf, 0.0]),
    'logsumexp(n, 1)': ('float32', [3.4076058864593506, 6.40760612487793]),
    'logsumexp(e, 1)': ('float64', [-inf, -inf]),
    'logsumexp(s0, 0)': ('float64', 2.5),
    'x.logsumexp(dim=1, keepdim=True)': ('float64', [[3.08509724636431], [1.7551006933343483]]),
    'sin(x)': ('float64', [[0.479425538604203, -0.9092974268256817, 0.1411200080598672], [0.7568024953079282, 0.9974949866040544, 0.24740395925452294]]),
    'cos(x)': ('float64', [[0.8775825618903728, -0.4161468365471424, -0.9899924966004454], [-0.6536436208636119, 0.0707372016677029, 0.9689124217106447]]),
    'sin(n)': ('float32', [[0.8414709568023682, 0.9092974066734314, 0.14112000167369843], [-0.756802499294281, -0.9589242935180664, -0.279415488243103]]),
    'x.sin()': ('float64', [[0.479425538604203, -0.9092974268256817, 0.1411200080598672], [0.7568024953079282, 0.9974949866040544, 0.24740395925452294]]),
    'x.cos()': ('float64', [[0.8775825618903728, -0.4161468365471424, -0.9899924966004454], [-0.6536436208636119, 0.0707372016677029, 0.9689124217106447]]),
    'sign(s)': ('float64', [0.0, 0.0, 0.0, -1.0, 1.0, 1.0, -1.0]),
    'sign(x)': ('float64', [[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]]),
    'sign(n - 3)': ('int64', [[-1, -1, 0], [1, 1, 1]]),
    'sign(x > 0)': ('bool', [[True, False, True], [False, True, True]]),
    'x.sign()': ('float64', [[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]]),
    'prod(z)': ('float64', -0.0),
    'prod(z, 1)': ('float64', [0.0, 0.0, -8.0]),
    'prod(z, 0, True)': ('float64', [[0.0, -0.0, 60.0]]),
    'prod(n)': ('int64', 720),
    'prod(n, 1)': ('int64', [6, 120]),
    'prod(x > 0, 1)': ('int64', [0, 0]),
    'prod(e, 1)': ('float64', [1.0, 1.0]),
    'prod(s0)': ('float64', 2.5),
    'prod(x, dtype=float32)': ('float32', 4.5),
    'z.prod(1, keepdim=True)': ('float64', [[0.0], [0.0], [-8.0]]),
    'cumsum(x, 1)': ('float64', [[0.5, -1.5, 1.5], [-4.0, -2.5, -2.25]]),
    'cumsum(b, 0)': ('float64', [[[-2.0, -1.75, -1.5, -1.25], [-1.0, -0.75, -0.5, -0.25], [0.0, 0.25, 0.5, 0.75]], [[-1.0, -0.5, 0.0, 0.5], [1.0, 1.5, 2.0, 2.5], [3.0, 3.5, 4.0, 4.5]]]),
    'cumsum(n, 1)': ('int64', [[1, 3, 6], [4, 9, 15]]),
    'cumsum(x > 0, 1)': ('int64', [[1, 1, 2], [0, 1, 2]]),
    'cumsum(n.int(), 0)': ('int64', [[1, 2, 3], [5, 7, 9]]),
    'cumsum(s0, 0)': ('float64', 2.5),
    'cumsum(s0.int(), 0)': ('int64', 2),
    'x.cumsum(-1)': ('float64', [[0.5, -1.5, 1.5], [-4.0, -2.5, -2.25]]),
    'x.cumsum(0, dtype=float32)': ('float32', [[0.5, -2.0, 3.0], [-3.5, -0.5, 3.25]]),
    'flip(x, (0, 1))': ('float64', [[0.25, 1.5, -4.0], [3.0, -2.0, 0.5]]),
    'flip(b, [2])': ('float64', [[[-1.25, -1.5, -1.75, -2.0], [-0.25, -0.5, -0.75, -1.0], [0.75, 0.5, 0.25, 0.0]], [[1.75, 1.5, 1.25, 1.0], [2.75, 2.5, 2.25, 2.0], [3.75, 3.5, 3.25, 3.0]]]),
    'flip(b, (0, -1))': ('float64', [[[1.75, 1.5, 1.25, 1.0], [2.75, 2.5, 2.25, 2.0], [3.75, 3.5, 3.25, 3.0]], [[-1.25, -1.5, -1.75, -2.0], [-0.25, -0.5, -0.75, -1.0], [0.75, 0.5, 0.25, 0.0]]]),
    'flip(n, (1,))': ('int64', [[3, 2, 1], [6, 5, 4]]),
    'flip(s0, (0,))': ('float64', 2.5),
    'x.flip(0)': ('float64', [[-4.0, 1.5, 0.25], [0.5, -2.0, 3.0]]),
    'x.flip(0, 1)': ('float64', [[0.25, 1.5, -4.0], [3.0, -2.0, 0.5]]),
    'x.flip((1,))': ('float64', [[3.0, -2.0, 0.5], [0.25, 1.5, -4.0]]),
    'unbind(x)': (('float64', [0.5, -2.0, 3.0]), ('float64', [-4.0, 1.5, 0.25])),
    'unbind(x, 1)': (('float64', [0.5, -4.0]), ('float64', [-2.0, 1.5]), ('float64', [3.0, 0.25])),
    'unbind(b, -1)': (('float64', [[-2.0, -1.0, 0.0], [1.0, 2.0, 3.0]]), ('float64', [[-1.75, -0.75, 0.25], [1.25, 2.25, 3.25]]), ('float64', [[-1.5, -0.5, 0.5], [1.5, 2.5, 3.5]]), ('float64', [[-1.25, -0.25, 0.75], [1.75, 2.75, 3.75]])),
    'x.unbind(dim=1)': (('float64', [0.5, -4.0]), ('float64', [-2.0, 1.5]), ('float64', [3.0, 0.25])),
    'index_select(x, 1, i)': ('float64', [[3.0, 0.5, 3.0], [0.25, -4.0, 0.25]]),
    'index_select(x, 0, i[1:2])': ('float64', [[0.5, -2.0, 3.0]]),
    'index_select(b, 2, i)': ('float64', [[[-1.5, -2.0, -1.5], [-0.5, -1.0, -0.5], [0.5, 0.0, 0.5]], [[1.5, 1.0, 1.5], [2.5, 2.0, 2.5], [3.5, 3.0, 3.5]]]),
    'index_select(n, 1, i.int())': ('int64', [[3, 1, 3], [6, 4, 6]]),
    'index_select(x, 1, i[:0])': ('float64', [[], []]),
    'index_select(s0, 0, i0)': ('float64', 2.5),
    'x.index_select(1, i)': ('float64', [[3.0, 0.5, 3.0], [0.25, -4.0, 0.25]]),
    'mm(x, y)': ('float64', [[8.5, 3.75], [-2.5, -9.4375]]),
    'x.mm(y)': ('float64', [[8.5, 3.75], [-2.5, -9.4375]]),
    'bmm(b, b.mT)': ('float64', [[[10.875, 4.375, -2.125], [4.375, 1.875, -0.625], [-2.125, -0.625, 0.875]], [[7.875, 13.375, 18.875], [13.375, 22.875, 32.375], [18.875, 32.375, 45.875]]]),
    'b.bmm(b.mT)': ('float64', [[[10.875, 4.375, -2.125], [4.375, 1.875, -0.625], [-2.125, -0.625, 0.875]], [[7.875, 13.375, 18.875], [13.375, 22.875, 32.375], [18.875, 32.375, 45.875]]]),
    'outer(v, w)': ('float64', [[2.0, 3.0], [-4.0, -6.0], [1.0, 1.5]]),
    'v.outer(w)': ('float64', [[2.0, 3.0], [-4.0, -6.0], [1.0, 1.5]]),
    'outer(v.int(), w)': ('float64', [[2.0, 3.0], [-4.0, -6.0], [0.0, 0.0]]),
    'is_floating_point(x)': True,
    'is_floating_point(n)': False,
    'n.is_floating_point()': False,
}
EXPECTED_GRADS = {
    'logsumexp(x, 1) dx': ('float64', [[0.007538874796299668, 0.0006188285272800039, 0.09184229667642034], [0.0006333175481460067, 0.15496769459268486, 0.04439898785916915]]),
    'logsumexp(x, (0, 1)) dx': ('float64', [[0.005962044231045891, 0.0004893943925010257, 0.07263256783816356], [6.623232872353632e-05, 0.016206516493721127, 0.0046432447158448915]]),
    'logsumexp(b, 1, True) db': ('float64', [[[0.009003057317038043, 0.018006114634076087, 0.02700917195111413, 0.036012229268152174], [0.024472847105479766, 0.04894569421095953, 0.0734185413164393, 0.09789138842191906], [0.06652409557748218, 0.13304819115496438, 0.19957228673244656, 0.26609638230992877]], [[0.04501528658519022, 0.05401834390222826, 0.0630214012192663, 0.07202445853630435], [0.12236423552739879, 0.14683708263287854, 0.1713099297383583, 0.19578277684383807], [0.33262047788741084, 0.399144573464893, 0.46566866904237514, 0.5321927646198573]]]),
    'logsumexp(inf_, 1) dinf_': ('float64', [[nan, nan], [0.0, nan], [nan, nan], [0.0, 0.4]]),
    'sin(x) dx': ('float64', [[0.08775825618903728, -0.08322936730942848, -0.2969977489801336], [-0.26145744834544477, 0.03536860083385145, 0.5813474530263868]]),
    'cos(x) dx': ('float64', [[-0.0479425538604203, 0.18185948536513635, -0.042336002417960164], [-0.3027209981231713, -0.4987474933020272, -0.14844237555271375]]),
    'sign(x) dx': ('float64', [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'prod(z, 1) dz': ('float64', [[0.0, 0.6000000000000001, 0.0], [0.0, 0.0, 0.0], [-2.4, 1.2, -0.6]]),
    'prod(z) dz': ('float64', [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'prod(x) dx': ('float64', [[0.9, -0.225, 0.15000000000000002], [-0.1125, 0.30000000000000004, 1.8]]),
    'prod(z, 0, True) dz': ('float64', [[0.0, -0.0, 6.0], [0.2, -0.0, 3.5999999999999996], [0.0, 0.0, 4.5]]),
    'cumsum(x, 1) dx': ('float64', [[0.6, 0.5, 0.3], [1.5, 1.1, 0.6]]),
    'cumsum(b, 0) db': ('float64', [[[1.4000000000000001, 1.5999999999999999, 1.8, 2.0], [2.2, 2.4, 2.5999999999999996, 2.8], [3.0, 3.2, 3.4, 3.5999999999999996]], [[1.3, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]]]),
    'flip(b, (0, 2)) db': ('float64', [[[1.6, 1.5, 1.4, 1.3], [2.0, 1.9, 1.8, 1.7], [2.4, 2.3, 2.2, 2.1]], [[0.4, 0.3, 0.2, 0.1], [0.8, 0.7, 0.6, 0.5], [1.2, 1.1, 1.0, 0.9]]]),
    'unbind(x, 1)[2] dx': ('float64', [[0.0, 0.0, 0.1], [0.0, 0.0, 0.2]]),
    'index_select(x, 1, i) dx': ('float64', [[0.2, 0.0, 0.4], [0.5, 0.0, 1.0]]),
    'mm(x, y) dx': ('float64', [[0.5, -0.15000000000000002, 0.35000000000000003], [1.1, -0.25, 0.9999999999999999]]),
    'mm(x, y) dy': ('float64', [[-1.15, -1.5], [0.24999999999999994, 0.20000000000000007], [0.37500000000000006, 0.7000000000000001]]),
    'bmm(b, b.mT) db': ('float64', [[[-1.0, -0.5500000000000002, -0.10000000000000006, 0.3499999999999999], [-2.2, -1.4500000000000002, -0.7000000000000001, 0.050000000000000044], [-3.4000000000000004, -2.3499999999999996, -1.2999999999999998, -0.2499999999999999]], [[15.2, 17.0, 18.8, 20.6], [17.6, 19.700000000000003, 21.8, 23.9], [20.0, 22.400000000000002, 24.799999999999997, 27.2]]]),
    'outer(v, w) dv': ('float64', [0.8, 1.8000000000000003, 2.8]),
    'outer(v, w) dw': ('float64', [-0.25, -0.3000000000000001]),
}


# ----------------------------------------------------------------------------- counting
LABELS = [3, 1, 3, 0, 1, 3]


def test_unique_lists_the_values_with_where_each_entry_is_and_how_often(device):
    """Written out by hand: the distinct labels ascending, each entry's position among
    them (in the input's shape) and the counts; as functions and methods, on every device."""
    y = tinyffn.tensor([LABELS[:3], LABELS[3:]], device=device)
    values, inverse, counts = tinyffn.unique(y, return_inverse=True, return_counts=True)
    assert values.tolist() == [0, 1, 3] and values.device == device
    assert inverse.tolist() == [[2, 1, 2], [0, 1, 2]] and counts.tolist() == [1, 2, 3]
    assert y.unique().tolist() == [0, 1, 3]
    assert [t.tolist() for t in y.unique(return_counts=True)] == [[0, 1, 3], [1, 2, 3]]
    x = tinyffn.tensor([2.5, -1.0, 2.5], device=device, requires_grad=True)
    u = x.unique()
    assert u.tolist() == [-1.0, 2.5] and u.dtype == x.dtype and not u.requires_grad


def test_bincount_counts_each_value_from_zero(device):
    y = tinyffn.tensor(LABELS, device=device)
    assert tinyffn.bincount(y).tolist() == [1, 2, 0, 3]
    assert y.bincount(minlength=6).tolist() == [1, 2, 0, 3, 0, 0]
    w = tinyffn.tensor([0.5, 1.0, 2.0, 4.0, 8.0, 16.0], device=device)
    weighted = y.bincount(w)
    assert weighted.tolist() == [4.0, 9.0, 0.0, 18.5] and dtype_name(weighted.dtype) == "float32"
    assert tinyffn.bincount(tinyffn.tensor([], dtype="int64", device=device)).tolist() == []


def test_unique_and_bincount_give_what_pytorch_gives():
    torch = pytest.importorskip("torch")
    for data in ([LABELS[:3], LABELS[3:]], [2.5, -1.0, 2.5, 0.0]):
        ours = tinyffn.unique(tinyffn.tensor(data), return_inverse=True, return_counts=True)
        theirs = torch.unique(torch.tensor(data), return_inverse=True, return_counts=True)
        assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
        assert [str(t.dtype) for t in ours] == [str(t.dtype).removeprefix("torch.")
                                                for t in theirs]
    for weights in (None, [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]):
        for dtype in ("float32", "float64", "float16"):
            ours = tinyffn.bincount(tinyffn.tensor(LABELS), None if weights is None else
                                    tinyffn.tensor(weights, dtype=dtype), minlength=5)
            theirs = torch.bincount(torch.tensor(LABELS), None if weights is None else
                                    torch.tensor(weights, dtype=getattr(torch, dtype)), 5)
            assert ours.tolist() == theirs.tolist()
            assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch.")


@pytest.mark.parametrize("call, error, match", [
    (lambda: tinyffn.bincount(tinyffn.tensor([1, -2])), ValueError,
     r"bincount: takes a 1-D tensor of non-negative integers \(PyTorch's rule\), got int64 "
     r"of shape \(2,\) holding -2"),
    (lambda: tinyffn.bincount(tinyffn.tensor([[1]])), ValueError, r"got int64 of shape \(1, 1\)"),
    (lambda: tinyffn.bincount(tinyffn.tensor([1.0])), ValueError, r"got float32 of shape"),
    (lambda: tinyffn.bincount(tinyffn.tensor([1, 2]), tinyffn.ones(3)), ValueError,
     r"bincount: weights must be one per entry, shape \(2,\)"),
    (lambda: tinyffn.bincount(tinyffn.tensor([1]), minlength=-1), ValueError, r"minlength"),
    (lambda: tinyffn.unique(tinyffn.tensor([[1, 2]]), dim=0), NotImplementedError,
     r"unique: dim=0 \(distinct slices\) is not supported"),
    (lambda: tinyffn.unique([1, 2]), TypeError, r"unique: input must be a tinyffn Tensor"),
])
def test_counting_refuses_what_it_cannot_count(call, error, match):
    with pytest.raises(error, match=match):
        call()
