"""tinyffn.einsum (contraction.py): a table of equations against NumPy's einsum (or, where
NumPy refuses what PyTorch accepts, a hand-written NumPy line), gradcheck in float64 for
each, values and gradients against PyTorch 2.13 where it is installed and, for a few cases,
its values written out as literals (computed once with torch), the dtypes, the graph an
equation becomes, and every error message."""
import re

import numpy as np
import pytest

import tinyffn
from tinyffn.autograd import Context, topological_order
from tinyffn.backend import DeviceError, dtype_name

# (equation, operand shapes, NumPy reference or None for np.einsum(equation, ...))
CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)], None),                  # a matrix product
    ("ij,jk", [(2, 3), (3, 4)], None),                      # implicit output: i, k
    ("td,fd->tf", [(4, 3), (5, 3)], None),                  # x @ w.T
    ("btd,fd->btf", [(2, 4, 3), (5, 3)], None),             # the FFN's first matmul
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)], None),    # attention's scores
    ("bik,bkj->bij", [(2, 3, 4), (2, 4, 5)], None),         # batch dimensions
    ("ii->i", [(3, 3)], None),                              # the diagonal
    ("ii->", [(3, 3)], None),                               # the trace
    ("ii", [(3, 3)], None),                                 # the trace, implicit
    ("iij->ij", [(3, 3, 2)], None),                         # a diagonal beside a kept index
    ("iji->j", [(3, 2, 3)], None),                          # repeats apart
    ("iii->i", [(3, 3, 3)], None),                          # three times
    ("iijj->ji", [(2, 2, 3, 3)], None),                     # two diagonals
    ("ii,ij->j", [(3, 3), (3, 2)], None),                   # a diagonal, then a product
    ("ij,k->i", [(2, 3), (4,)], None),                      # indices summed in one operand only
    ("i,j->ij", [(2,), (3,)], None),                        # the outer product
    ("ij->ji", [(2, 3)], None),                             # one operand: a transpose
    ("ij->", [(2, 3)], None),                               # one operand: a sum
    ("ij->ij", [(2, 3)], None),                             # one operand: nothing to do
    ("ba", [(2, 3)], None),                                 # implicit output is alphabetical
    ("ab,bA", [(2, 3), (3, 4)], None),                      # capitals come first
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], None),       # three operands, left to right
    ("ij,ij,ij->", [(2, 3), (2, 3), (2, 3)], None),
    ("bij,bjk,bkl->bli", [(2, 3, 4), (2, 4, 5), (2, 5, 6)], None),
    ("i,i->", [(3,), (3,)], None),                          # the dot product
    ("ij,j->i", [(2, 3), (3,)], None),                      # matrix @ vector
    ("i,ij->j", [(2,), (2, 3)], None),                      # vector @ matrix
    ("bi,bi->b", [(4, 3), (4, 3)], None),                   # a batch of dot products
    ("ij,ij->ij", [(2, 3), (2, 3)], None),                  # nothing summed: elementwise
    ("abc,cda->bd", [(2, 3, 4), (4, 5, 2)], None),          # two indices contracted at once
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)], None),
    ("fd,btd->btf", [(5, 3), (2, 4, 3)], None),             # free indices on the right
    (" i j , j k -> i k ", [(2, 3), (3, 4)], None),         # spaces
    ("->", [()], None),                                     # 0-d operands
    ("i,->i", [(3,), ()], None),
    ("ij,jk->ik", [(2, 0), (0, 4)], None),                  # an empty contraction: zeros
    ("...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 2)], None),  # '...' broadcasts
    ("...ij,...jk", [(5, 1, 2, 3), (4, 3, 2)], None),       # implicit: '...' first
    ("...i->i...", [(2, 3, 4)], None),
    ("a...,b...->ab...", [(2, 3), (4, 1, 1)], None),
    ("ij,jk->ik", [(2, 1), (3, 4)], None),                  # a size-1 index broadcasts
    ("ij,kj->ik", [(2, 3), (4, 1)], None),
    ("i,i->", [(1,), (3,)], None),
    ("i,i,j->ij", [(1,), (3,), (1,)], None),
    ("ii,i->i", [(3, 3), (1,)], None),
    # PyTorch sums the dimensions of a '...' that the output lacks; NumPy refuses these
    ("...ij->ij", [(4, 2, 3)], lambda x: x.sum(0)),
    ("i...->i", [(2, 3, 4)], lambda x: x.sum((1, 2))),
    ("...i,...i->i", [(5, 3), (3,)], lambda x, w: (x * w).sum(0)),
]
IDS = [f"{eq.strip()}:{'x'.join(map(str, shapes))}".replace(" ", "") for eq, shapes, _ in CASES]


def operands(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape) for shape in shapes]


def op_names(y):
    """The ops of y's graph, inputs first, as ``name`` or ``name attrs``."""
    return [v.name for v in topological_order(y, every_input=True) if isinstance(v, Context)]


# ----------------------------------------------------------------------------- values
@pytest.mark.parametrize("equation, shapes, reference", CASES, ids=IDS)
def test_values_match_numpy(equation, shapes, reference, device):
    arrays = operands(shapes)
    y = tinyffn.einsum(equation, *[tinyffn.tensor(a, device=device) for a in arrays])
    expected = (reference or (lambda *a: np.einsum(equation, *a)))(*arrays)
    assert y.shape == np.shape(expected) and dtype_name(y.dtype) == "float64"
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("equation, shapes, reference", CASES, ids=IDS)
def test_gradcheck(equation, shapes, reference, device):
    xs = [tinyffn.tensor(a, device=device, requires_grad=True) for a in operands(shapes, 1)]
    assert tinyffn.gradcheck(lambda *xs: tinyffn.einsum(equation, *xs), xs)


@pytest.mark.parametrize("equation, shapes, reference", CASES, ids=IDS)
def test_values_and_gradients_match_torch(equation, shapes, reference):
    torch = pytest.importorskip("torch")
    arrays = operands(shapes, 2)
    xs = [tinyffn.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, t = tinyffn.einsum(equation, *xs), torch.einsum(equation, *ts)
    assert y.shape == tuple(t.shape)
    np.testing.assert_allclose(y.numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(3).normal(size=y.shape)
    y.backward(tinyffn.tensor(g))
    t.backward(torch.tensor(g))
    for x, tx in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


# PyTorch 2.13's values and gradients, y.backward(g), written out once.
LITERAL = [
    ("ij,jk->ik", [[[1., 2., 3.], [4., 5., 6.]], [[1., 0.], [0., 1.], [1., -1.]]],
     [[1., 2.], [3., 4.]],
     [[4., -1.], [10., -1.]],
     [[[1., 2., -1.], [3., 4., -1.]], [[13., 18.], [17., 24.], [21., 30.]]]),
    ("ii,ij->j", [[[2., -1., 0.5], [3., 4., -2.], [1., 0., 5.]], [[1., 2.], [-1., 0.5], [0., 3.]]],
     [1., -2.],
     [-2., 21.],
     [[[-3., 0., 0.], [0., -2., 0.], [0., 0., -6.]], [[2., -4.], [4., -8.], [5., -10.]]]),
    ("...ij,kj->ik", [[[[1., 2.]], [[3., -4.]]], [[0.5, -1.], [2., 1.], [1., 1.]]],
     [[1., 2., 3.]],
     [[4., 6., 2.]],
     [[[[7.5, 4.]], [[7.5, 4.]]], [[4., -2.], [8., -4.], [12., -6.]]]),
]


@pytest.mark.parametrize("equation, values, g, y_expected, grads", LITERAL,
                         ids=[case[0] for case in LITERAL])
def test_literal_torch_values(equation, values, g, y_expected, grads, device):
    xs = [tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True) for v in values]
    y = tinyffn.einsum(equation, *xs)
    y.backward(tinyffn.tensor(g, dtype="float64", device=device))
    np.testing.assert_allclose(y.numpy(), y_expected, rtol=1e-12)
    for x, expected in zip(xs, grads):
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_operands_as_one_list_or_tuple(device):
    a, b = (tinyffn.tensor(v, device=device) for v in operands([(2, 3), (3, 4)]))
    expected = (a @ b).numpy()
    for y in (tinyffn.einsum("ij,jk->ik", [a, b]), tinyffn.einsum("ij,jk->ik", (a, b))):
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)


def test_ffn_written_with_einsum_is_the_module(device):
    ffn = tinyffn.nn.FFN(4, 8).to(device)
    x = tinyffn.randn(2, 3, 4, device=device)
    h = (tinyffn.einsum("btd,fd->btf", x, ffn.w1.weight) + ffn.w1.bias).relu()
    y = tinyffn.einsum("btf,df->btd", h, ffn.w2.weight) + ffn.w2.bias
    np.testing.assert_allclose(y.numpy(), ffn(x).numpy(), rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------------------- dtypes
# (equation, operand dtypes, result dtype); PyTorch gives the same where it computes them
# (live check below): a sum within one operand makes integers and bool int64, a matmul
# keeps int32. It refuses mixed dtypes in a sum of products, which tinyffn promotes as its
# matmul does.
DTYPES = [
    ("ij,jk->ik", ["float32", "float32"], "float32", True),
    ("ij,jk->ik", ["float16", "float16"], "float16", True),
    ("ij,jk->ik", ["int32", "int32"], "int32", True),
    ("ij->j", ["int32"], "int64", True),
    ("ij,k->i", ["int32", "int32"], "int64", True),
    ("ii->i", ["int32"], "int32", True),
    ("ij,ij->ij", ["bool", "bool"], "bool", True),
    ("ij->ji", ["bool"], "bool", True),
    ("ij->j", ["bool"], "int64", True),
    ("ij,ij->ij", ["float32", "bool"], "float32", True),
    ("ij,ij->ij", ["float32", "float64"], "float64", True),
    ("ij,jk->ik", ["float32", "float64"], "float64", False),       # PyTorch refuses
    ("ij,jk->ik", ["int64", "float32"], "float32", False),
    ("ij,jk->ik", ["float16", "float32"], "float32", False),
    ("ij,jk->ik", ["bool", "float32"], "float32", False),
]


def typed_operands(equation, dtypes, device=None):
    shapes = {"ij": (3, 3), "jk": (3, 3), "ii": (3, 3), "k": (3,)}
    terms = equation.split("->")[0].split(",")
    values = [np.arange(9).reshape(shapes[t]) % 3 if len(t) == 2 else np.arange(3) for t in terms]
    return [tinyffn.tensor(v, dtype=d, device=device or "cpu") for v, d in zip(values, dtypes)]


@pytest.mark.parametrize("equation, dtypes, expected, torch_agrees", DTYPES)
def test_result_dtypes(equation, dtypes, expected, torch_agrees, device):
    if device == "strict" and "float16" in dtypes:
        pytest.skip("the array API standard has no float16")
    if device == "strict" and dtypes == ["bool", "bool"]:
        pytest.skip("tinyffn's mul of two bool tensors fails on the strict backend, whose "
                    "__mul__ takes numbers only (the mul primitive's, not einsum's)")
    y = tinyffn.einsum(equation, *typed_operands(equation, dtypes, device))
    assert dtype_name(y.dtype) == expected


@pytest.mark.parametrize("equation, dtypes, expected, torch_agrees", DTYPES)
def test_result_dtypes_match_torch(equation, dtypes, expected, torch_agrees):
    torch = pytest.importorskip("torch")
    ts = [torch.from_numpy(x.numpy()) for x in typed_operands(equation, dtypes)]
    if torch_agrees:
        assert str(torch.einsum(equation, *ts).dtype) == f"torch.{expected}"
    else:
        with pytest.raises(RuntimeError, match="expected scalar type|not implemented for 'Bool'"):
            torch.einsum(equation, *ts)


@pytest.mark.parametrize("equation, shapes, reference", CASES, ids=IDS)
def test_float32_stays_float32(equation, shapes, reference):
    """No float64 creeps in: every node of the graph, and every gradient, is float32."""
    xs = [tinyffn.tensor(a, dtype="float32", requires_grad=True) for a in operands(shapes)]
    y = tinyffn.einsum(equation, *xs)
    nodes = [v for v in topological_order(y) if isinstance(v, Context)]
    assert nodes and {dtype_name(v.out_dtype) for v in nodes} == {"float32"}
    y.sum().backward()
    assert {dtype_name(x.grad.dtype) for x in xs} == {"float32"}


def test_bool_products_summed_are_refused(device):
    a = tinyffn.tensor([[True, False], [True, True]], device=device)
    with pytest.raises(TypeError, match=r"einsum: summing products of two bool tensors over "
                                        r"subscript 'j' is refused.*x.to\(dtype='int64'\)"):
        tinyffn.einsum("ij,jk->ik", a, a)
    counted = tinyffn.einsum("ij,jk->ik", a.to(dtype="int64"), a.to(dtype="int64"))
    assert counted.tolist() == [[1, 0], [2, 1]]


# ----------------------------------------------------------------------------- the graph
GRAPHS = [
    ("td,fd->tf", [(4, 3), (5, 3)], ["transpose", "matmul"]),        # as x @ w.T
    ("btd,fd->btf", [(2, 4, 3), (5, 3)], ["transpose", "matmul"]),   # no reshape: x (B, T, d)
    ("btf,df->btd", [(2, 4, 5), (3, 5)], ["transpose", "matmul"]),
    ("bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 5)], ["matmul"]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)], ["transpose", "matmul"]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], ["matmul", "matmul"]),
    ("ij->ji", [(2, 3)], ["transpose"]),
    ("ij->ij", [(2, 3)], ["clone"]),                                 # a new tensor, always
    ("ij->", [(2, 3)], ["sum"]),
    ("ii->i", [(3, 3)], ["reshape", "getitem"]),                     # every 4th of 9 entries
    ("iji->j", [(3, 2, 3)], ["transpose", "reshape", "getitem", "sum"]),
    ("i,j->ij", [(2,), (3,)], ["reshape", "mul"]),                   # nothing summed: mul
    ("bi,bi->b", [(4, 3), (4, 3)], ["reshape", "reshape", "matmul", "reshape"]),    ("ij,j->i", [(2, 3), (3,)], ["matmul"]),                           # as A @ v: no reshape
]


@pytest.mark.parametrize("equation, shapes, expected", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_graph_is_the_ops_claimed(equation, shapes, expected):
    xs = [tinyffn.tensor(a, requires_grad=True) for a in operands(shapes)]
    y = tinyffn.einsum(equation, *xs)
    assert sorted(op_names(y)) == sorted(expected)
    assert all(v.scope[-1].name == "einsum" for v in topological_order(y)
               if isinstance(v, Context))


def test_graph_of_td_fd_is_x_at_w_transposed():
    """One transpose (of w: axes (1, 0)) and one matmul, fed x directly: no reshape."""
    x, w = tinyffn.randn(4, 3, requires_grad=True), tinyffn.randn(5, 3, requires_grad=True)
    y = tinyffn.einsum("td,fd->tf", x, w)
    matmul = y.grad_fn
    assert matmul.name == "matmul" and matmul.parents[0] is x
    transpose = matmul.parents[1]
    assert transpose.name == "transpose" and dict(transpose.attrs) == {"axes": (1, 0)}
    assert transpose.parents == (w,)
    dot = tinyffn.to_dot(y)
    assert dot.count("matmul") == 1 and dot.count("transpose") == 1 and "reshape" not in dot


def test_flops_are_the_matmuls_of_x_at_w_transposed():
    """The FFN's first matmul as an equation counts what x @ W1.T counts: 2·B·T·d·d_ff
    forward, twice that backward, and nothing for the transpose."""
    x = tinyffn.randn(2, 3, 4, requires_grad=True)
    w = tinyffn.randn(8, 4, requires_grad=True)
    counts = []
    for f in (lambda: tinyffn.einsum("btd,fd->btf", x, w), lambda: x @ w.T):
        with tinyffn.FlopCounter() as c:
            f().sum().backward()
        counts.append((dict(c.forward), dict(c.backward)))
    assert counts[0] == counts[1]
    assert counts[0][0]["matmul"] == 2 * 2 * 3 * 4 * 8
    assert counts[0][1]["matmul"] == 2 * (2 * 2 * 3 * 4 * 8)


# ----------------------------------------------------------------------------- errors
A, B = tinyffn.ones(2, 3), tinyffn.ones(3, 4)
ERRORS = [
    (lambda: tinyffn.einsum("ij,jk->ik", A), ValueError,
     "einsum: 'ij,jk->ik' has subscripts for 2 operands (separated by ','), but 1 was given"),
    (lambda: tinyffn.einsum("ij->ij", A, B), ValueError,
     "einsum: 'ij->ij' has subscripts for 1 operand (separated by ','), but 2 were given"),
    (lambda: tinyffn.einsum("ijk,jk->ik", A, B), ValueError,
     "einsum: operand 0 has 2 dimensions (shape (2, 3)), but its subscripts 'ijk' name 3; "
     "write one letter per dimension"),
    (lambda: tinyffn.einsum("i->i", A), ValueError,
     "einsum: operand 0 has 2 dimensions (shape (2, 3)), but its subscripts 'i' name 1; "
     "write one letter per dimension, or '...' for the rest"),
    (lambda: tinyffn.einsum("ijkl...->i", A), ValueError,
     "einsum: operand 0 has 2 dimensions (shape (2, 3)), but its subscripts 'ijkl...' name "
     "4; write at most one letter per dimension"),
    (lambda: tinyffn.einsum("ij,jk->ik", A, tinyffn.ones(4, 4)), ValueError,
     "einsum: subscript 'j' has size 3 in operand 0 (shape (2, 3)) but 4 in operand 1 "
     "(shape (4, 4)); its sizes must be equal (or 1, to broadcast)"),
    (lambda: tinyffn.einsum("...ij,...jk", tinyffn.ones(5, 2, 2, 3), tinyffn.ones(4, 3, 2)),
     ValueError, "einsum: dimension 1 of '...' has size 2 in operand 0 (shape (5, 2, 2, 3)) "
     "but 4 in operand 1 (shape (4, 3, 2))"),
    (lambda: tinyffn.einsum("ii->i", A), ValueError,
     "einsum: subscript 'i' is repeated in operand 0 (shape (2, 3)) to take a diagonal, so "
     "its dimensions must have one size, not 2 and 3"),
    (lambda: tinyffn.einsum("ij,jk->iz", A, B), ValueError,
     "einsum: the output subscript 'z' of 'ij,jk->iz' is in no operand"),
    (lambda: tinyffn.einsum("ij,jk->ii", A, B), ValueError,
     "einsum: the output subscript 'i' appears 2 times in 'ij,jk->ii'; write it once"),
    (lambda: tinyffn.einsum("i1,jk->ik", A, B), ValueError,
     "einsum: 'i1,jk->ik' has '1' at index 1; the subscripts are letters (a-z, A-Z)"),
    (lambda: tinyffn.einsum("ij->i,j", A), ValueError, "einsum: 'ij->i,j' has ',' at index 5"),
    (lambda: tinyffn.einsum("ij,j#->i", A, B), ValueError, "einsum: 'ij,j#->i' has '#' at index 4"),
    (lambda: tinyffn.einsum("ij->ij->", A), ValueError, "einsum: 'ij->ij->' has '-' at index 6"),
    (lambda: tinyffn.einsum("\u00e9,\u00e9", A, A), ValueError, "has '\u00e9' at index 0"),
    (lambda: tinyffn.einsum("...i...,jk->ik", A, B), ValueError,
     "einsum: operand 0 of '...i...,jk->ik' has a second '...'"),
    (lambda: tinyffn.einsum("ij->...i...", A), ValueError,
     "einsum: the output of 'ij->...i...' has a second '...'"),
    (lambda: tinyffn.einsum("i.j,jk->ik", A, B), ValueError,
     "einsum: operand 0 of 'i.j,jk->ik' has a '.' at index 1 that is not part of '...'"),
    (lambda: tinyffn.einsum("i,i", tinyffn.ones(3), 2.0), TypeError,
     "einsum: operand 1 must be a tinyffn Tensor, got float; wrap it with tinyffn.tensor(...)"),
    (lambda: tinyffn.einsum("ij", [[1.0, 2.0]]), TypeError,
     "einsum: operand 0 must be a tinyffn Tensor, got list"),
    (lambda: tinyffn.einsum("ij,jk->ik", [A], B), TypeError,
     "einsum: operand 0 must be a tinyffn Tensor, got list"),
    (lambda: tinyffn.einsum("i", A.max(1)), TypeError,
     "einsum: an operand is the pair (values, indices) from x.max(dim) and x.min(dim); use "
     "its .values"),
    (lambda: tinyffn.einsum("ij", A.sort()), TypeError,
     "einsum: an operand is the pair (values, indices) from x.sort(); use its .values"),
    (lambda: tinyffn.einsum(A, [0, 1]), TypeError,
     "einsum: the equation must be a string such as 'ij,jk->ik', got Tensor; PyTorch's "
     "other form, einsum(a, [0, 1], b, [1, 2]), is not supported"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_error_messages(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_errors_name_what_torch_refuses_too():
    """Each equation refused above is refused by PyTorch too (its wording differs)."""
    torch = pytest.importorskip("torch")
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    for equation, ops in [("ij,jk->ik", [a]), ("ij->ij", [a, b]), ("ijk,jk->ik", [a, b]),
                          ("i->i", [a]),
                          ("ijkl...->i", [a]), ("ij,jk->ik", [a, torch.ones(4, 4)]),
                          ("ii->i", [a]), ("ij,jk->iz", [a, b]), ("ij,jk->ii", [a, b]),
                          ("i1,jk->ik", [a, b]), ("ij->i,j", [a]), ("ij->ij->", [a]),
                          ("...i...,jk->ik", [a, b]), ("ij->...i...", [a]),
                          ("i.j,jk->ik", [a, b]),
                          ("...ij,...jk", [torch.ones(5, 2, 2, 3), torch.ones(4, 3, 2)])]:
        with pytest.raises(RuntimeError, match="einsum"):
            torch.einsum(equation, *ops)


def test_operands_on_two_devices_are_refused():
    with pytest.raises(DeviceError, match=r"einsum: operands are on different devices "
                                          r"\(cpu and strict\)"):
        tinyffn.einsum("ij,jk->ik", A, B.to("strict"))
