"""sort, argsort, topk, gather and take_along_dim (tinyffn/sorting.py).

References: PyTorch 2.13, live where it is installed, and its values written out in
``EXPECTED`` (computed once with torch; that test runs without it, on every device);
NumPy's ``sort``, ``argsort(kind="stable")`` and ``take_along_axis`` on random data;
gradcheck for every function whose values are differentiable. Where PyTorch leaves an
order unspecified (ties without ``stable=True``, ``topk``'s ties, ``sorted=False``), the
cases use data without ties or ``stable=True``, and tinyffn's own order is tested on its
own (written out).
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.backend import dtype_name
from tinyffn.sorting import SortResult, TopkResult

inf, nan = math.inf, math.nan

X = [[0.5, -2.0, 3.0, 1.5], [-4.0, 1.5, 0.25, 2.0], [1.0, 0.0, -1.0, 5.0]]  # no ties in a row
B = (np.arange(24.0).reshape(2, 3, 4) * 0.5 - 5.0)[:, ::-1].tolist()        # or a column
TIES = [1.0, 3.0, 3.0, 2.0, 3.0, 0.0, 2.0]
# NaN (one with its sign bit set: CuPy's radix sort would put it first), -0.0 and 0.0, infs
Z = [3.0, nan, -1.0, 0.0, -0.0, 2.0, -nan, -inf, inf]
N = [[3, 1, 2, 1], [0, 5, 5, -2]]                           # int64, with ties
BOOLS = [True, False, True, False]

FUNCTIONS = ["sort", "argsort", "topk", "gather", "take_along_dim", "int32", "int64"]
CASES = [
    # sort and argsort: dims, descending, 0-d, empty, integers, bools
    "sort(x)", "sort(x, 0)", "sort(x, 1, True)", "sort(x, dim=-2, descending=True)",
    "sort(b, 1)", "sort(b, -3, True)", "sort(t, stable=True)",
    "sort(t, descending=True, stable=True)", "sort(z, stable=True)",
    "sort(z, descending=True, stable=True)", "sort(n, stable=True)",
    "sort(n, dim=1, descending=True, stable=True)", "sort(bo, stable=True)",
    "sort(bo, descending=True, stable=True)", "sort(u, descending=True)", "sort(s)",
    "sort(s, 0)", "sort(e)", "sort(e0, 0)", "argsort(x)", "argsort(x, 0, True)",
    "argsort(t, stable=True)", "argsort(t, descending=True, stable=True)",
    "argsort(z, stable=True)", "argsort(bo, stable=True)", "argsort(s)", "argsort(e)",
    "x.sort(1, True)", "x.argsort(dim=0)", "t.sort(stable=True, descending=True)",
    # topk: largest, smallest, k = 0 and k = size, NaN, 0-d, empty, integers, dims
    "topk(x, 2)", "topk(x, 2, 0)", "topk(x, 3, largest=False)", "topk(x, 0)", "topk(x, 4)",
    "topk(x, 1, -2, False)", "topk(b, 2, 1)", "topk(z, 3)", "topk(z, 4, largest=False)",
    "topk(n[:, :3], 2)", "topk(u, 2)", "topk(s, 1)", "topk(s, 0)", "topk(e0, 2)",
    "topk(e, 0)", "x.topk(2, dim=0, largest=False)",
    # gather: index shorter than input along the other dims, repeats, int32, 0-d
    "gather(x, 0, i0)", "gather(x, 1, i1)", "gather(x, 1, ir)", "gather(x, -1, i32)",
    "gather(b, 2, ib)", "gather(s, 0, iz)", "gather(s, 0, iv)", "gather(v, 0, iw)",
    "gather(x, 1, i1[:, :0])", "x.gather(1, i1)", "gather(n, 1, i1[:2])",
    # take_along_dim: broadcasting, negative indices, dim=None
    "take_along_dim(x, argsort(x, 1), 1)", "take_along_dim(x, ineg, 1)",
    "take_along_dim(x, irow, 1)", "take_along_dim(x[:1], i1, 1)",
    "take_along_dim(x, iflat)", "take_along_dim(s, iz)", "x.take_along_dim(i1, dim=-1)",
]


def run(module, case: str, **tensor_kwargs):
    """``case`` evaluated with ``module``'s functions (tinyffn or torch) and inputs."""
    def t(values, dtype):
        return module.tensor(values, dtype=dtype, **tensor_kwargs)
    f64, i64 = module.float64, module.int64
    names = {name: getattr(module, name) for name in FUNCTIONS}
    inputs = dict(
        x=t(X, f64), b=t(B, f64), t=t(TIES, f64), z=t(Z, f64), n=t(N, i64),
        bo=t(BOOLS, module.bool), u=t([3, 1, 200, 2], module.uint8), s=t(2.5, f64),
        v=t([1.5, -1.0, 4.0], f64), e=module.zeros((2, 0), dtype=f64, **tensor_kwargs),
        e0=module.zeros((0, 3), dtype=f64, **tensor_kwargs),
        i0=t([[0, 2, 1, 0]], i64), i1=t([[3, 3], [0, 1], [2, 0]], i64),
        ir=t([[1, 1, 1], [0, 3, 0]], i64), i32=t([[2, 0, 2], [3, 3, 1]], module.int32),
        ib=t([[[3, 0], [1, 1]], [[0, 2], [2, 3]]], i64), iz=t(0, i64), iw=t(2, i64),
        iv=t([0, 0], i64), ineg=t([[-1], [0], [-4]], i64), irow=t([[0, -1]], i64),
        iflat=t([[5, 0], [11, 3]], i64))
    return eval(case, {}, {**names, **inputs})


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare


def assert_same(actual, expected, case):
    """Equal dtypes, shapes and values; NaN equals NaN, and -0.0 differs from 0.0."""
    assert type(actual) is type(expected), f"{case}: {actual!r} against {expected!r}"
    if isinstance(expected[0], tuple):
        for a, e in zip(actual, expected, strict=True):
            assert_same(a, e, case)
        return
    assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
    a, e = np.asarray(actual[1]), np.asarray(expected[1])
    assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
    np.testing.assert_array_equal(a, e, err_msg=case)
    if a.dtype.kind == "f":                 # a NaN's sign is lost in EXPECTED's literals
        np.testing.assert_array_equal(np.signbit(a) & ~np.isnan(a),
                                      np.signbit(e) & ~np.isnan(e), err_msg=f"{case}: -0.0")


torch_parity.tests(globals())          # live torch, EXPECTED, EXPECTED's check


# ----------------------------------------------------------------------------- NumPy
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort_and_topk_match_numpy(device, dim, descending):
    data = np.random.default_rng(1).standard_normal((4, 5, 6))      # no ties
    x = tinyffn.tensor(data, device=device)
    order = np.argsort(-data if descending else data, axis=dim)
    values, indices = x.sort(dim, descending)
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(data, order, dim))
    np.testing.assert_array_equal(x.argsort(dim, descending).numpy(), order)
    k = 3
    top = tinyffn.topk(x, k, dim, largest=descending)
    first_k = np.take(order, range(k), axis=dim)
    np.testing.assert_array_equal(top.indices.numpy(), first_k)
    np.testing.assert_array_equal(top.values.numpy(), np.take_along_axis(data, first_k, dim))
    assert dtype_name(indices.dtype) == "int64" and indices.device == device


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float32"])
def test_ties_keep_their_order_as_numpys_stable_sort(device, dtype):
    """Integers with many ties: ascending is NumPy's stable argsort; descending keeps the
    ties in their order too (NumPy's stable argsort of the negated values)."""
    data = np.random.default_rng(2).integers(0, 4, size=(3, 40)).astype(dtype)
    x = tinyffn.tensor(data, device=device)
    as_int = data.astype(np.int64)
    for descending, key in ((False, as_int), (True, -as_int)):
        order = np.argsort(key, axis=1, kind="stable")
        for stable in (False, True):        # tinyffn sorts stably either way
            values, indices = x.sort(1, descending, stable=stable)
            np.testing.assert_array_equal(indices.numpy(), order)
            np.testing.assert_array_equal(values.numpy(), np.take_along_axis(data, order, 1))
            assert dtype_name(values.dtype) == dtype


def test_topk_takes_the_earlier_of_tied_entries_and_returns_them_sorted(device):
    """PyTorch leaves both open (its topk of these picks indices 2 and 4 for the 3s);
    tinyffn's answer is sort's first k, written out here."""
    t = tinyffn.tensor(TIES, device=device)
    assert t.topk(2).indices.tolist() == [1, 2]
    assert t.topk(4, largest=False).indices.tolist() == [5, 0, 3, 6]
    v = tinyffn.tensor([1.0, 9.0, 3.0, 7.0, 5.0, 8.0, 2.0], device=device)
    for sorted_ in (True, False):
        top = v.topk(4, sorted=sorted_)
        assert top.values.tolist() == [9.0, 8.0, 7.0, 5.0] and top.indices.tolist() == [1, 5, 3, 4]


def test_empty_dims_keep_their_shape_and_k_may_be_zero(device):
    e = tinyffn.zeros(0, 3, device=device)
    assert e.sort(0).values.shape == e.argsort(1).shape == (0, 3)
    assert e.topk(2).values.shape == e.topk(2).indices.shape == (0, 2)
    assert e.topk(0, 0).values.shape == (0, 3)
    x = tinyffn.tensor(X, device=device)
    assert x.topk(0).values.shape == x.topk(0).indices.shape == (3, 0)
    assert x.gather(1, tinyffn.zeros(3, 0, dtype="int64", device=device)).shape == (3, 0)


def test_take_along_dim_counts_negative_indices_from_the_end_also_flattened(device):
    """PyTorch 2.13 takes them with a dim (as NumPy), and refuses them with dim=None
    ("index -1 is out of bounds"); tinyffn takes them in both."""
    x = tinyffn.tensor(X, device=device)
    assert x.take_along_dim(tinyffn.tensor([-1, -12], device=device)).tolist() == [5.0, 0.5]
    assert x.take_along_dim(tinyffn.tensor([[-1]], device=device), 1).tolist() == \
        [[1.5], [2.0], [5.0]]


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather_and_take_along_dim_match_numpys_take_along_axis(device, dim):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((3, 4, 5))
    index = rng.integers(0, data.shape[dim], size=(3, 4, 5))
    index = np.take(index, range(2), axis=dim)               # 2 long along dim
    x, i = tinyffn.tensor(data, device=device), tinyffn.tensor(index, device=device)
    expected = np.take_along_axis(data, index, dim)
    np.testing.assert_array_equal(x.gather(dim, i).numpy(), expected)
    np.testing.assert_array_equal(tinyffn.take_along_dim(x, i, dim).numpy(), expected)
    np.testing.assert_array_equal(x.take_along_dim(i - data.shape[dim], dim).numpy(), expected)
    np.testing.assert_array_equal(x.take_along_dim(i).numpy(),
                                  np.take_along_axis(data.ravel(), index.ravel(), 0))


# ----------------------------------------------------------------------------- gradients
R = np.random.default_rng(4)
DATA, OTHER = R.standard_normal((3, 4)), R.standard_normal((2, 3, 4))
INDEX = [[0, 0, 2, 1], [3, 3, 3, 0]]                         # repeats: gradients add up
DIFFERENTIABLE = {
    "sort": lambda x, b: tinyffn.sort(x, 1)[0] * tinyffn.sort(b, 0, True).values[:, :1],
    "sort of a row": lambda x, b: x[0].sort(descending=True).values,
    "topk": lambda x, b: tinyffn.topk(b, 2, 2).values * tinyffn.topk(x, 1, 0, False)[0][0, :2],
    "topk of all": lambda x, b: x.topk(4).values,
    "gather": lambda x, b: tinyffn.gather(x, 1, tinyffn.tensor(INDEX, device=x.device)),
    "gather along 0": lambda x, b: b.gather(0, tinyffn.zeros((3, 2, 2), dtype="int64",
                                                             device=x.device)),
    "take_along_dim": lambda x, b: tinyffn.take_along_dim(
        b, tinyffn.tensor([[[-1, 0, 1]]], device=x.device), 2),
    "take_along_dim flat": lambda x, b: x.take_along_dim(
        tinyffn.tensor([11, 0, 0, -1], device=x.device)),
}


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_each_differentiable_value_is_gradchecked(name, device):
    x, b = (tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
            for v in (DATA, OTHER))
    assert tinyffn.gradcheck(DIFFERENTIABLE[name], [x, b])


# PyTorch 2.13: (x.topk(2).values * [1, 10]).sum().backward(), and gather's with INDEX
TOPK_GRAD = [[1.0, 0.0, 10.0], [0.0, 1.0, 10.0]]
GATHER_GRAD = [[2.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 3.0]]


def test_the_gradient_lands_on_the_entries_chosen_and_adds_up_where_one_repeats(device):
    x = tinyffn.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], device=device, requires_grad=True)
    (x.topk(2).values * tinyffn.tensor([1.0, 10.0], device=device)).sum().backward()
    assert x.grad.tolist() == TOPK_GRAD
    w = tinyffn.zeros(2, 4, device=device, requires_grad=True)
    w.gather(1, tinyffn.tensor(INDEX, device=device)).sum().backward()
    assert w.grad.tolist() == GATHER_GRAD


def test_the_gradients_are_pytorchs_live():
    torch = pytest.importorskip("torch")
    x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
    (x.topk(2).values * torch.tensor([1.0, 10.0])).sum().backward()
    w = torch.zeros(2, 4, requires_grad=True)
    w.gather(1, torch.tensor(INDEX)).sum().backward()
    assert x.grad.tolist() == TOPK_GRAD and w.grad.tolist() == GATHER_GRAD
    gy = np.random.default_rng(6).standard_normal((3, 2))
    theirs, ours = torch.tensor(DATA, requires_grad=True), tinyffn.tensor(DATA, requires_grad=True)
    (theirs.sort(1, True).values[:, 1:3] * torch.tensor(gy)).sum().backward()
    (ours.sort(1, True).values[:, 1:3] * tinyffn.tensor(gy)).sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


# ----------------------------------------------------------------------------- the graph
def test_values_are_one_getitem_in_a_frame_and_indices_no_graph():
    x = tinyffn.tensor(X, requires_grad=True)
    for op, result in (("sort", x.sort()), ("topk", x.topk(2))):
        assert result.values.grad_fn.name == "getitem"
        assert result.values.grad_fn.scope[-1].name == op
        assert result.indices.grad_fn is None and not result.indices.requires_grad
    y = x.gather(1, tinyffn.tensor([[0]] * 3))
    assert y.grad_fn.name == "getitem" and y.grad_fn.scope[-1].name == "gather"
    assert x.argsort().grad_fn is None and dtype_name(x.argsort().dtype) == "int64"


def test_results_unpack_and_print_as_their_kind():
    x = tinyffn.tensor([[3.0, 1.0, 2.0]])
    values, indices = x.sort()
    assert isinstance(x.sort(), SortResult) and isinstance(x.topk(1), TopkResult)
    assert values.tolist() == [[1.0, 2.0, 3.0]] and indices.tolist() == [[1, 2, 0]]
    assert repr(x.topk(1)) == "TopkResult(values=tensor([[3.]]), indices=tensor([[0]]))"
    assert x.gather(1, x.topk(2).indices).tolist() == [[3.0, 2.0]]
    with pytest.raises(TypeError, match=r"mul: an operand is the pair \(values, indices\) "
                                        r"from x\.sort\(\); use its \.values"):
        x * x.sort()
    with pytest.raises(TypeError, match=r"exp: input must be a tinyffn Tensor, got "
                                        r"TopkResult; it is the pair \(values, indices\) "
                                        r"from x\.topk\(k\): pass its \.values"):
        tinyffn.exp(x.topk(1))


# ----------------------------------------------------------------------------- errors
x2 = tinyffn.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
i2 = tinyffn.tensor([[0, 1]])
ERRORS = [
    (lambda: tinyffn.sort([3, 1]), TypeError,
     r"sort: input must be a tinyffn Tensor, got list; wrap it with tinyffn\.tensor"),
    (lambda: x2.sort(2), ValueError, r"sort: dim 2 is out of range for a tensor with 2 "
                                     r"dimensions; use an integer in \[-2, 1\]"),
    (lambda: tinyffn.tensor(5.0).sort(-2), ValueError, r"sort: dim -2 .* \[-1, 0\]"),
    (lambda: x2.argsort(1.0), TypeError, r"argsort: dim must be an int, got 1\.0"),
    (lambda: x2.sort(descending=1), TypeError, r"sort: descending must be True or False, "
                                               r"got 1"),
    (lambda: x2.argsort(stable=None), TypeError, r"argsort: stable must be True or False"),
    (lambda: x2.topk(4), ValueError, r"topk: k=4 is out of range for dim -1 of size 3 "
                                     r"\(input of shape \(2, 3\)\); k must lie in \[0, 3\]"),
    (lambda: x2.topk(-1, 0), ValueError, r"topk: k=-1 is out of range for dim 0 of size 2"),
    (lambda: tinyffn.tensor(5.0).topk(2), ValueError, r"topk: k=2 .* size 1 .* \[0, 1\]"),
    (lambda: x2.topk(1.5), TypeError, r"topk: k must be an int, got 1\.5$"),
    (lambda: x2.topk(tinyffn.tensor(2)), TypeError, r"k must be an int, got tensor\(2\); "
                                                    r"for a one-element tensor write int\(k\)"),
    (lambda: x2.topk(True), TypeError, r"topk: k must be an int, got True"),
    (lambda: x2.topk(2, 3), ValueError, r"topk: dim 3 is out of range"),
    (lambda: x2.topk(2, largest="yes"), TypeError, r"topk: largest must be True or False"),
    (lambda: x2.topk(1, sorted=None), TypeError, r"topk: sorted must be True or False"),
    (lambda: (x2 > 2).topk(1), TypeError,
     r"topk: a bool tensor has no k largest \(PyTorch refuses it too\); write "
     r"x\.long\(\)\.topk\(k\), or x\.sort\(descending=True\)"),
    (lambda: x2.topk(1, descending=True), TypeError, r"unexpected keyword argument "
                                                     r"'descending'"),
    (lambda: x2.gather(1, [[0, 1]]), TypeError,
     r"gather: index must be a tinyffn Tensor of integers, got list; wrap it with "
     r"tinyffn\.tensor\(\.\.\.\), as PyTorch wants a tensor too"),
    (lambda: x2.gather(1, np.array([[0, 1]])), TypeError, r"got numpy\.ndarray"),
    (lambda: x2.gather(1, x2.topk(1)), TypeError,
     r"gather: index must be .*, got TopkResult; it is the pair \(values, indices\) from "
     r"x\.topk\(k\): pass its \.indices"),
    (lambda: x2.gather(1, i2.float()), TypeError,
     r"gather: index must have dtype int64 or int32, as in PyTorch, got float32; write "
     r"index\.long\(\)"),
    (lambda: x2.gather(1, i2.to(dtype="uint8")), TypeError, r"int64 or int32, as in PyTorch, got uint8"),
    (lambda: x2.gather(1, i2 > 0), TypeError, r"got bool; write index\.long\(\)"),
    (lambda: x2.gather(1, tinyffn.tensor([0, 1])), ValueError,
     r"gather: index has shape \(2,\) and input shape \(2, 3\); index needs as many axes as "
     r"input, as in PyTorch \(index\.unsqueeze\(d\) adds one of length 1\)"),
    (lambda: x2.gather(1, tinyffn.tensor([[0], [1], [2]])), ValueError,
     r"gather: index of shape \(3, 1\) is longer than input of shape \(2, 3\) along dim 0; "
     r"except along dim 1, index may be as long as input or shorter"),
    (lambda: x2.gather(1, tinyffn.tensor([[0, 3]])), IndexError,
     r"gather: index 3 is out of range for dim 1 of size 3 \(input of shape \(2, 3\)\); "
     r"the indices must lie in \[0, 3\)$"),
    (lambda: x2.gather(-1, tinyffn.tensor([[-1, 0]])), IndexError,
     r"gather: index -1 is out of range for dim 1 of size 3 .* \[0, 3\); negative indices "
     r"are refused, as in PyTorch"),
    (lambda: x2.gather(0, tinyffn.tensor([[2, -9]])), IndexError, r"gather: index 2 is out"),
    (lambda: tinyffn.zeros(2, 0).gather(1, tinyffn.tensor([[0], [0]])), IndexError,   # no
     r"gather: index 0 is out of range for dim 1 of size 0 .* \[0, 0\)$"),    # 'negative'
    (lambda: x2.gather(2, i2), ValueError, r"gather: dim 2 is out of range"),
    (lambda: x2.gather(1, tinyffn.tensor([[0]], device="strict")), tinyffn.DeviceError,
     r"gather: index is on strict and input on cpu; move index with \.to\('cpu'\)"),
    (lambda: tinyffn.gather([1.0], 0, i2), TypeError, r"gather: input must be a tinyffn"),
    (lambda: x2.take_along_dim(i2.int(), 1), TypeError,
     r"take_along_dim: indices must have dtype int64, as in PyTorch, got int32; write "
     r"indices\.long\(\)"),
    (lambda: x2.take_along_dim(tinyffn.tensor([[0, 1, 2]] * 3), 1), ValueError,
     r"take_along_dim: indices of shape \(3, 3\) do not fit input of shape \(2, 3\) along "
     r"dim 1: they need as many axes, and along the others the same length or 1"),
    (lambda: x2.take_along_dim(tinyffn.tensor([0]), 1), ValueError, r"do not fit"),
    (lambda: x2.take_along_dim(tinyffn.tensor([[-4]]), 1), IndexError,
     r"take_along_dim: index -4 is out of range for dim 1 of size 3 \(input of shape "
     r"\(2, 3\)\); the indices must lie in \[-3, 3\)"),
    (lambda: x2.take_along_dim(tinyffn.tensor([6])), IndexError,
     r"take_along_dim: index 6 is out of range for the flattened input of size 6"),
    (lambda: tinyffn.tensor(1.0).take_along_dim(tinyffn.tensor(0), 0), ValueError,
     r"take_along_dim: a 0-d input has no dim 0; pass dim=None"),
    (lambda: x2.take_along_dim(i2, -3), ValueError, r"take_along_dim: dim -3 is out of range"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_mistakes_get_an_error_that_says_what_to_do(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ----------------------------------------------------------------------------- EXPECTED
EXPECTED = {
    'sort(x)':
        (('float64', [[-2.0, 0.5, 1.5, 3.0], [-4.0, 0.25, 1.5, 2.0], [-1.0, 0.0, 1.0, 5.0]]),
         ('int64', [[1, 0, 3, 2], [0, 2, 1, 3], [2, 1, 0, 3]])),
    'sort(x, 0)':
        (('float64', [[-4.0, -2.0, -1.0, 1.5], [0.5, 0.0, 0.25, 2.0], [1.0, 1.5, 3.0, 5.0]]),
         ('int64', [[1, 0, 2, 0], [0, 2, 1, 1], [2, 1, 0, 2]])),
    'sort(x, 1, True)':
        (('float64', [[3.0, 1.5, 0.5, -2.0], [2.0, 1.5, 0.25, -4.0], [5.0, 1.0, 0.0, -1.0]]),
         ('int64', [[2, 3, 0, 1], [3, 1, 2, 0], [3, 0, 1, 2]])),
    'sort(x, dim=-2, descending=True)':
        (('float64', [[1.0, 1.5, 3.0, 5.0], [0.5, 0.0, 0.25, 2.0], [-4.0, -2.0, -1.0, 1.5]]),
         ('int64', [[2, 1, 0, 2], [0, 2, 1, 1], [1, 0, 2, 0]])),
    'sort(b, 1)':
        (('float64',
          [[[-5.0, -4.5, -4.0, -3.5], [-3.0, -2.5, -2.0, -1.5], [-1.0, -0.5, 0.0, 0.5]],
           [[1.0, 1.5, 2.0, 2.5], [3.0, 3.5, 4.0, 4.5], [5.0, 5.5, 6.0, 6.5]]]),
         ('int64',
          [[[2, 2, 2, 2], [1, 1, 1, 1], [0, 0, 0, 0]],
           [[2, 2, 2, 2], [1, 1, 1, 1], [0, 0, 0, 0]]])),
    'sort(b, -3, True)':
        (('float64',
          [[[5.0, 5.5, 6.0, 6.5], [3.0, 3.5, 4.0, 4.5], [1.0, 1.5, 2.0, 2.5]],
           [[-1.0, -0.5, 0.0, 0.5], [-3.0, -2.5, -2.0, -1.5], [-5.0, -4.5, -4.0, -3.5]]]),
         ('int64',
          [[[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]],
           [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]])),
    'sort(t, stable=True)':
        (('float64', [0.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0]), ('int64', [5, 0, 3, 6, 1, 2, 4])),
    'sort(t, descending=True, stable=True)':
        (('float64', [3.0, 3.0, 3.0, 2.0, 2.0, 1.0, 0.0]), ('int64', [1, 2, 4, 3, 6, 0, 5])),
    'sort(z, stable=True)':
        (('float64', [-inf, -1.0, 0.0, -0.0, 2.0, 3.0, inf, nan, nan]),
         ('int64', [7, 2, 3, 4, 5, 0, 8, 1, 6])),
    'sort(z, descending=True, stable=True)':
        (('float64', [nan, nan, inf, 3.0, 2.0, 0.0, -0.0, -1.0, -inf]),
         ('int64', [1, 6, 8, 0, 5, 3, 4, 2, 7])),
    'sort(n, stable=True)':
        (('int64', [[1, 1, 2, 3], [-2, 0, 5, 5]]), ('int64', [[1, 3, 2, 0], [3, 0, 1, 2]])),
    'sort(n, dim=1, descending=True, stable=True)':
        (('int64', [[3, 2, 1, 1], [5, 5, 0, -2]]), ('int64', [[0, 2, 1, 3], [1, 2, 0, 3]])),
    'sort(bo, stable=True)':
        (('bool', [False, False, True, True]), ('int64', [1, 3, 0, 2])),
    'sort(bo, descending=True, stable=True)':
        (('bool', [True, True, False, False]), ('int64', [0, 2, 1, 3])),
    'sort(u, descending=True)':
        (('uint8', [200, 3, 2, 1]), ('int64', [2, 0, 3, 1])),
    'sort(s)':
        (('float64', 2.5), ('int64', 0)),
    'sort(s, 0)':
        (('float64', 2.5), ('int64', 0)),
    'sort(e)':
        (('float64', [[], []]), ('int64', [[], []])),
    'sort(e0, 0)':
        (('float64', []), ('int64', [])),
    'argsort(x)':
        ('int64', [[1, 0, 3, 2], [0, 2, 1, 3], [2, 1, 0, 3]]),
    'argsort(x, 0, True)':
        ('int64', [[2, 1, 0, 2], [0, 2, 1, 1], [1, 0, 2, 0]]),
    'argsort(t, stable=True)':
        ('int64', [5, 0, 3, 6, 1, 2, 4]),
    'argsort(t, descending=True, stable=True)':
        ('int64', [1, 2, 4, 3, 6, 0, 5]),
    'argsort(z, stable=True)':
        ('int64', [7, 2, 3, 4, 5, 0, 8, 1, 6]),
    'argsort(bo, stable=True)':
        ('int64', [1, 3, 0, 2]),
    'argsort(s)':
        ('int64', 0),
    'argsort(e)':
        ('int64', [[], []]),
    'x.sort(1, True)':
        (('float64', [[3.0, 1.5, 0.5, -2.0], [2.0, 1.5, 0.25, -4.0], [5.0, 1.0, 0.0, -1.0]]),
         ('int64', [[2, 3, 0, 1], [3, 1, 2, 0], [3, 0, 1, 2]])),
    'x.argsort(dim=0)':
        ('int64', [[1, 0, 2, 0], [0, 2, 1, 1], [2, 1, 0, 2]]),
    't.sort(stable=True, descending=True)':
        (('float64', [3.0, 3.0, 3.0, 2.0, 2.0, 1.0, 0.0]), ('int64', [1, 2, 4, 3, 6, 0, 5])),
    'topk(x, 2)':
        (('float64', [[3.0, 1.5], [2.0, 1.5], [5.0, 1.0]]), ('int64', [[2, 3], [3, 1], [3, 0]])),
    'topk(x, 2, 0)':
        (('float64', [[1.0, 1.5, 3.0, 5.0], [0.5, 0.0, 0.25, 2.0]]),
         ('int64', [[2, 1, 0, 2], [0, 2, 1, 1]])),
    'topk(x, 3, largest=False)':
        (('float64', [[-2.0, 0.5, 1.5], [-4.0, 0.25, 1.5], [-1.0, 0.0, 1.0]]),
         ('int64', [[1, 0, 3], [0, 2, 1], [2, 1, 0]])),
    'topk(x, 0)':
        (('float64', [[], [], []]), ('int64', [[], [], []])),
    'topk(x, 4)':
        (('float64', [[3.0, 1.5, 0.5, -2.0], [2.0, 1.5, 0.25, -4.0], [5.0, 1.0, 0.0, -1.0]]),
         ('int64', [[2, 3, 0, 1], [3, 1, 2, 0], [3, 0, 1, 2]])),
    'topk(x, 1, -2, False)':
        (('float64', [[-4.0, -2.0, -1.0, 1.5]]), ('int64', [[1, 0, 2, 0]])),
    'topk(b, 2, 1)':
        (('float64',
          [[[-1.0, -0.5, 0.0, 0.5], [-3.0, -2.5, -2.0, -1.5]],
           [[5.0, 5.5, 6.0, 6.5], [3.0, 3.5, 4.0, 4.5]]]),
         ('int64', [[[0, 0, 0, 0], [1, 1, 1, 1]], [[0, 0, 0, 0], [1, 1, 1, 1]]])),
    'topk(z, 3)':
        (('float64', [nan, nan, inf]), ('int64', [1, 6, 8])),
    'topk(z, 4, largest=False)':
        (('float64', [-inf, -1.0, 0.0, -0.0]), ('int64', [7, 2, 3, 4])),
    'topk(n[:, :3], 2)':
        (('int64', [[3, 2], [5, 5]]), ('int64', [[0, 2], [1, 2]])),
    'topk(u, 2)':
        (('uint8', [200, 3]), ('int64', [2, 0])),
    'topk(s, 1)':
        (('float64', 2.5), ('int64', 0)),
    'topk(s, 0)':
        (('float64', 2.5), ('int64', 0)),
    'topk(e0, 2)':
        (('float64', []), ('int64', [])),
    'topk(e, 0)':
        (('float64', [[], []]), ('int64', [[], []])),
    'x.topk(2, dim=0, largest=False)':
        (('float64', [[-4.0, -2.0, -1.0, 1.5], [0.5, 0.0, 0.25, 2.0]]),
         ('int64', [[1, 0, 2, 0], [0, 2, 1, 1]])),
    'gather(x, 0, i0)':
        ('float64', [[0.5, 0.0, 0.25, 1.5]]),
    'gather(x, 1, i1)':
        ('float64', [[1.5, 1.5], [-4.0, 1.5], [-1.0, 1.0]]),
    'gather(x, 1, ir)':
        ('float64', [[-2.0, -2.0, -2.0], [-4.0, 2.0, -4.0]]),
    'gather(x, -1, i32)':
        ('float64', [[3.0, 0.5, 3.0], [2.0, 2.0, 1.5]]),
    'gather(b, 2, ib)':
        ('float64', [[[0.5, -1.0], [-2.5, -2.5]], [[5.0, 6.0], [4.0, 4.5]]]),
    'gather(s, 0, iz)':
        ('float64', 2.5),
    'gather(s, 0, iv)':
        ('float64', [2.5, 2.5]),
    'gather(v, 0, iw)':
        ('float64', 4.0),
    'gather(x, 1, i1[:, :0])':
        ('float64', [[], [], []]),
    'x.gather(1, i1)':
        ('float64', [[1.5, 1.5], [-4.0, 1.5], [-1.0, 1.0]]),
    'gather(n, 1, i1[:2])':
        ('int64', [[1, 1], [0, 5]]),
    'take_along_dim(x, argsort(x, 1), 1)':
        ('float64', [[-2.0, 0.5, 1.5, 3.0], [-4.0, 0.25, 1.5, 2.0], [-1.0, 0.0, 1.0, 5.0]]),
    'take_along_dim(x, ineg, 1)':
        ('float64', [[1.5], [-4.0], [1.0]]),
    'take_along_dim(x, irow, 1)':
        ('float64', [[0.5, 1.5], [-4.0, 2.0], [1.0, 5.0]]),
    'take_along_dim(x[:1], i1, 1)':
        ('float64', [[1.5, 1.5], [0.5, -2.0], [3.0, 0.5]]),
    'take_along_dim(x, iflat)':
        ('float64', [1.5, 0.5, 5.0, 1.5]),
    'take_along_dim(s, iz)':
        ('float64', [2.5]),
    'x.take_along_dim(i1, dim=-1)':
        ('float64', [[1.5, 1.5], [-4.0, 1.5], [-1.0, 1.0]]),
}
