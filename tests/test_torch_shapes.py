"""The names of tinyffn/torch_shapes.py and tinyffn/torch_products.py: broadcast_shapes,
broadcast_to, broadcast_tensors, swapaxes, swapdims, atleast_1d/2d/3d, hstack, vstack,
row_stack, dstack, column_stack, concat, concatenate, tensor_split, hsplit, vsplit, dsplit,
ravel, select, take, diagflat, sum_to_size, adjoint, mH, H, true_divide, positive, sgn,
fix, msort, numel, the dtype questions of numerics.py (element_size, nbytes, ...); mv,
addmv, addr, inner, vdot, cross, linalg.cross, dist.

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed and written out in ``EXPECTED`` and
``EXPECTED_GRADS`` (those run without it, on every device); the cross product against
NumPy's ``cross`` and its defining identities; tensor_split against NumPy's
``array_split``; gradcheck on every device; the errors against what torch refuses.
"""
import warnings

import numpy as np
import pytest

import tinyffn
import torch_parity

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]

CASES = [
    "T.broadcast_to(v, (2, 3))", "T.broadcast_to(s, (2, 2, -1))", "r.broadcast_to(3, -1)",
    "T.broadcast_tensors(x, r)", "T.broadcast_tensors(c, s, r)",
    "T.swapaxes(x3, 0, 2)", "x3.swapdims(-1, 1)", "T.swapdims(x, 0, 1)",
    "T.atleast_1d(s0)", "T.atleast_1d(s0, v)", "T.atleast_2d(v)", "T.atleast_2d([s0, x])",
    "T.atleast_3d(s0)", "T.atleast_3d(v)", "T.atleast_3d(x)", "T.atleast_3d(x3)",
    "T.hstack([v, v, s0])", "T.hstack((x, x[:, :1]))", "T.vstack([v, v])", "T.vstack([x, r])",
    "T.row_stack([x[0], r])", "T.dstack([x, x])", "T.dstack([v, v])",
    "T.column_stack([v, x[:, :3].T, v])", "T.column_stack([s0, s0])",
    "T.concat([x, r], dim=0)", "T.concatenate([x, x], axis=1)", "T.cat([x, i], 0)",
    "T.tensor_split(seven, 3)", "T.tensor_split(seven, [1, 5, 9, -1])", "seven.tensor_split(9)",
    "T.tensor_split(x3, 2, dim=-1)", "T.tensor_split(x, (1,), 1)",
    "T.tensor_split(seven, T.tensor(4))", "T.tensor_split(seven, T.tensor([2, 3]))",
    "T.hsplit(x, 2)", "T.hsplit(seven, [2])", "T.vsplit(x, 2)", "x3.dsplit([1, 3])",
    "T.mv(x, c)", "x.mv(c)", "T.addmv(v[:2], x, c)", "T.addmv(s0, x, c, beta=0.5, alpha=-2)",
    "T.addmv(nan2, x, c, beta=0)", "T.addr(x, v[:2], c)", "T.addr(s0, v, c, beta=0, alpha=3)",
    "x.addr(v[1:], c, alpha=0.5)",
    "T.inner(c, c)", "T.inner(x, x)", "T.inner(x3, x)", "T.inner(s0, x)", "x.inner(c)",
    "T.vdot(v, v)", "c.vdot(c)",
    "T.cross(m3, n3, dim=1)", "T.cross(m3, n3, dim=0)", "m3.cross(n3, 1)",
    "T.linalg.cross(m3, n3)", "T.linalg.cross(m3[:1], n3)", "T.linalg.cross(b3, m3[None], dim=-1)",
    "T.dist(x, r)", "T.dist(x, r, 1)", "T.dist(x, r, 0)", "x.dist(r, float('inf'))",
    "T.dist(x, r, 3.5)", "T.dist(x, r, -float('inf'))", "T.dist(x, r, 0.5)",
    "T.dist(x, x.detach(), 0.5)",
    "T.true_divide(i, 2)", "i.true_divide(i + 1)", "T.positive(x)", "T.sgn(x)", "x.sgn()",
    "T.fix(x * 1.5)", "(x * -1.5).fix()", "T.msort(x)", "x3.msort()", "T.numel(x3)",
    "T.ravel(x3.mT)", "x3.select(1, -1)", "T.select(x, 0, 1)", "T.take(x, idx)", "x3.take(idx)",
    "T.diagflat(x)", "v.diagflat(-1)", "x3.sum_to_size(3, 1)", "x3.sum_to_size((1, 1, 4))",
    "x.sum_to_size(2, 4)", "x.adjoint()", "x3.mH", "x.H",
    "T.is_nonzero(s0)", "T.is_nonzero(c[1:2] * 0)", "T.is_complex(x)", "x.element_size()",
    "x.itemsize", "x3.nbytes", "i.nbytes", "i.is_signed()", "(x > 0).is_signed()",
    "x.is_contiguous()", "x3.ndimension()", "i.byte()", "i.char()", "i.short()",
    "x.new_empty(2, 3).shape == (2, 3)",
    # edges the mutation audit found untested: an int shape, concat's dim, 4-D dstack and
    # dsplit (dim 2, not the last), addmv's (1,) input, addr's vector input and beta=0
    # with a NaN input, inner with a 0-d second operand
    "T.broadcast_shapes(3, (2, 1)) == (2, 3)", "T.concat([x, r.expand(2, 4)], dim=1)",
    "T.dstack([x[None, None], x[None, None]])", "T.dsplit(x[None, None], [1])",
    "T.addmv(v[:1], x, c)", "T.addr(c, v[:2], c)", "T.addr(nan2[:, None], v[:2], c, beta=0)",
    "T.inner(x, s0)", "x.float().nbytes", "x.short().element_size()", "i.byte().is_signed()",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {}
    values = dict(x=X, v=[1.0, 2.5, -1.0], c=[1.0, -2.0, 0.5, 3.0], r=[[0.25, 1.0, -1.0, 2.0]],
                  s=[[2.0], [3.0]], s0=1.5, nan2=[float("nan"), 1.0],
                  x3=np.arange(24.0).reshape(2, 3, 4).tolist(),
                  seven=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                  m3=[[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [4.0, -3.0, 0.25]],
                  n3=[[0.5, -1.0, 2.0], [3.0, 1.0, -2.0], [1.0, 1.0, 1.0]],
                  b3=np.arange(18.0).reshape(2, 3, 3).tolist())
    for name, v in values.items():
        inputs[name] = module.tensor(v, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["i"] = module.tensor([[0, 4, 2, 1], [4, 1, 3, -7]], **tensor_kwargs)
    inputs["idx"] = module.tensor([[7, 0, 7], [-1, 3, 2]], **tensor_kwargs)
    y = eval(case, {}, {"T": module, **inputs})
    if isinstance(y, tuple):
        y = tuple(y)
    return (y, inputs[requires_grad]) if requires_grad else y


def plain(result):
    if isinstance(result, int) and not isinstance(result, bool):
        return ("int", result)
    if isinstance(result, tuple) and not result:           # torch.Size() of a 0-d tensor
        return ("int", ())
    return torch_parity.plain(result)


def assert_same(actual, expected, case):
    if isinstance(expected, bool) or expected[0] == "int":
        assert actual == expected, case
        return
    torch_parity.assert_close(actual, expected, case, rtol=1e-13, atol=1e-15)


GRAD_CASES = [
    ("T.broadcast_tensors(c, s)[0]", "c"), ("T.broadcast_tensors(c, s)[1]", "s"),
    ("T.swapaxes(x3, 0, 2)", "x3"), ("T.atleast_3d(v)", "v"),
    ("T.hstack([v, c])", "c"), ("T.vstack([x, r])", "r"), ("T.dstack([x, x])", "x"),
    ("T.column_stack([v, x[:, :3].T])", "x"),
    ("T.tensor_split(seven, 3)[1] * 2", "seven"), ("T.hsplit(x, [1, 3])[2]", "x"),
    ("T.mv(x, c)", "x"), ("T.mv(x, c)", "c"), ("T.addmv(v[:2], x, c, beta=0.5, alpha=-2)", "v"),
    ("T.addmv(v[:2], x, c, beta=0.5, alpha=-2)", "x"), ("T.addr(x, v[:2], c, alpha=3)", "x"),
    ("T.addr(x, v[:2], c, beta=2)", "c"), ("T.inner(x3, x)", "x3"), ("T.inner(x3, x)", "x"),
    ("T.vdot(c, c)", "c"), ("T.cross(m3, n3, dim=1)", "m3"), ("T.cross(m3, n3, dim=0)", "n3"),
    ("T.linalg.cross(m3[:1], n3)", "m3"), ("T.dist(x, r)", "r"), ("T.dist(x, r, 3.5)", "x"),
    ("T.dist(x, r, float('inf'))", "x"), ("T.msort(x3)", "x3"),
    # fractional p, and x = other where its slope is infinite (PyTorch's gradient: 0)
    ("T.dist(x, r, 0.5)", "x"), ("T.dist(x, x.detach(), 0.5)", "x"),
    ("T.dist(x, r, -float('inf'))", "x"), ("T.dist(x, r, 1)", "r"),
    ("T.take(x, idx)", "x"), ("x3.select(1, -1)", "x3"), ("T.diagflat(x, 1)", "x"),
    ("x3.sum_to_size(3, 1)", "x3"), ("x3.mH", "x3"), ("x.H", "x"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())


def test_cross_against_numpy_and_its_identities(device):
    """a × b as NumPy's cross, orthogonal to a and b, anti-commuting, with
    |a × b|² = |a|²|b|² − (a·b)², along any axis of broadcast batches."""
    r = np.random.default_rng(0)
    a, b = r.standard_normal((4, 3, 5)), r.standard_normal((1, 3, 5))
    got = tinyffn.linalg.cross(tinyffn.tensor(a, device=device),
                               tinyffn.tensor(b, device=device), dim=1).numpy()
    np.testing.assert_allclose(got, np.cross(a, b, axis=1), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose((got * a).sum(1), 0, atol=1e-13)
    np.testing.assert_allclose((got * b).sum(1), 0, atol=1e-13)
    lagrange = (a * a).sum(1) * (b * b).sum(1) - ((a * b).sum(1)) ** 2
    np.testing.assert_allclose((got * got).sum(1), lagrange, rtol=1e-12)


def test_tensor_split_against_numpy_array_split(device):
    """Every section count (more than the length too) and index lists out of range and
    negative, against numpy.array_split."""
    a = np.arange(7.0)
    x = tinyffn.tensor(a, device=device)
    for spec in (1, 2, 3, 6, 7, 9, [0], [3, 3], [2, -2], [-9, 4, 20], [5, 2]):
        got = [t.numpy().tolist() for t in tinyffn.tensor_split(x, spec)]
        assert got == [p.tolist() for p in np.array_split(a, spec)], spec


def test_gradcheck_of_the_composed_functions(device):
    """Finite differences (float64) of the functions with arithmetic in them."""
    r = np.random.default_rng(1)
    t = lambda *s: tinyffn.tensor(r.standard_normal(s), device=device, requires_grad=True)
    cases = [
        (lambda a, b: tinyffn.linalg.cross(a, b), (t(2, 3), t(2, 3))),
        (lambda a, b: tinyffn.cross(a, b, dim=0), (t(3, 2), t(3, 1))),
        (lambda m, v, i: tinyffn.addmv(i, m, v, beta=0.5, alpha=2), (t(2, 3), t(3), t(2))),
        (lambda u, v, i: tinyffn.addr(i, u, v, beta=-1, alpha=0.5), (t(2), t(3), t(1, 3))),
        (lambda a, b: tinyffn.inner(a, b), (t(2, 3), t(4, 3))),
        (lambda a, b: tinyffn.dist(a, b, 3), (t(2, 3), t(3))),
        (lambda a, b: tinyffn.dist(a, b), (t(2, 3), t(2, 3))),
        (lambda a, b: tinyffn.dist(a, b, 0.5), (t(2, 3), t(3))),
        (lambda a, b: tinyffn.dist(a, b, 0), (t(2, 3), t(3))),     # a count: flat, 0
        (lambda a, b: tinyffn.column_stack([a, b]), (t(3), t(3, 2))),
        (lambda a: tinyffn.tensor_split(a, 3, dim=1)[0], (t(2, 5),)),
    ]
    for fn, inputs in cases:
        assert tinyffn.gradcheck(fn, inputs)


def test_the_count_p_0_has_gradient_zero(device):
    """dist(x, w, 0), norm and vector_norm at 0 count the entries that are not 0 (a NaN
    counts); the count is flat wherever it has a derivative, so its gradient is 0. PyTorch
    2.13 agrees for vector_norm (an undefined gradient, zeros when materialized, below)
    while its dist(x, w, 0).backward() raises (DistBackward0 hands an undefined tensor on)."""
    x = tinyffn.tensor(X, device=device, requires_grad=True)
    w = tinyffn.tensor([[0.5, 1.0, 3.0, float("nan")]], device=device, requires_grad=True)
    calls = {"dist": (lambda: tinyffn.dist(x, w, 0), 6.0),
             "norm dim=1": (lambda: tinyffn.norm(x - w, 0, dim=1), [2.0, 4.0]),
             "vector_norm": (lambda: tinyffn.linalg.vector_norm(x, 0), 7.0),
             "pairwise_distance": (lambda: tinyffn.nn.functional.pairwise_distance(
                 x, w, 0, eps=0.0), [2.0, 4.0])}
    for name, (f, count) in calls.items():
        x.grad = w.grad = None
        y = f()
        assert y.tolist() == count and y.requires_grad, name
        y.sum().backward()
        assert x.grad.tolist() == np.zeros((2, 4)).tolist(), name
        assert w.grad is None or not w.grad.numpy().any(), name


def test_pytorchs_gradient_of_the_count_is_zero():
    torch = pytest.importorskip("torch")
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    for y in (torch.linalg.vector_norm(x, 0), torch.norm(x, 0), torch.cdist(x, x + 1, 0)):
        g, = torch.autograd.grad(y.sum(), x, materialize_grads=True)
        assert not g.any()


def test_cross_without_dim_warns_and_takes_the_first_axis_of_length_3(device):
    a = tinyffn.tensor(np.arange(18.0).reshape(2, 3, 3) - 4, device=device)
    b = tinyffn.tensor(np.ones((2, 3, 3)), device=device)
    with pytest.warns(UserWarning, match="first axis of length 3") as said:
        got = tinyffn.cross(a, b)
    np.testing.assert_array_equal(got.numpy(), np.cross(a.numpy(), b.numpy(), axis=1))
    assert said[0].filename == __file__                 # the warning points at the caller
    with pytest.warns(UserWarning, match="first axis of length 3"):
        assert a.cross(b).tolist() == got.tolist()      # the method's dim is None too
    a4, b4 = a.reshape(6, 3)[:4], b.reshape(6, 3)[:4]          # (4, 3): axis 1, not 0
    with pytest.warns(UserWarning, match="first axis of length 3"):
        got = tinyffn.cross(a4, b4)
    np.testing.assert_array_equal(got.numpy(), np.cross(a4.numpy(), b4.numpy(), axis=1))


ERRORS = [
    ("T.cross(v, x)", ValueError, "same number of axes"),
    ("T.linalg.cross(x, x)", ValueError, "length 3"),
    ("T.linalg.cross(v, v.double())", TypeError, "one dtype"),
    ("T.cross(x[:, :2], x[:, :2])", ValueError, "no axis of length 3"),
    ("T.tensor_split(x, 0)", ValueError, "sections must be >= 1"),
    ("T.tensor_split(s0, 2)", ValueError, "at least one axis"),
    ("T.tensor_split(x, 1.5)", TypeError, "int or a list of ints"),
    ("T.tensor_split(x, T.tensor([1.0]))", TypeError, "integer tensor"),
    ("T.hsplit(x, 3)", ValueError, "equal parts"),
    ("T.vsplit(v, 1)", ValueError, "at least 2 axes"),
    ("T.dsplit(x, 1)", ValueError, "at least 3 axes"),
    ("T.mv(x, v)", ValueError, "vec a vector"),
    ("T.mv(x, c.float())", TypeError, "one dtype"),
    ("T.addmv(v, x, c)", ValueError, "does not broadcast"),
    ("T.addr(x, v, c)", ValueError, "does not broadcast to the outer product's shape"),
    ("T.inner(x, v)", ValueError, "last axes"),
    ("T.vdot(x, x)", ValueError, "1-D"),
    ("T.positive(x > 0)", TypeError, "bool"),
    ("T.broadcast_tensors(x, v)", ValueError, "cannot be broadcast"),
    ("T.broadcast_shapes((2,), (-1,))", TypeError, "ints >= 0"),
    ("T.hstack([])", ValueError, "non-empty"),
    ("T.hstack(x)", TypeError, "list or tuple"),
    ("T.dist(x, x, 'fro')", TypeError, "p must be a number"),
    ("x.select(1, 4)", IndexError, "out of range"),
    ("T.select(s0, 0, 0)", IndexError, "0-d"),
    ("T.take(x, T.tensor([0.0]))", TypeError, "integer tensor"),
    ("x.sum_to_size(3, 1)", ValueError, "not expandable"),
    ("x.sum_to_size(1, 2, 4)", ValueError, "not expandable"),
    ("v.H", ValueError, "only matrices"),
    ("x[None].H", ValueError, "only matrices"),
    ("v.adjoint()", ValueError, "only matrices"),
    ("T.is_nonzero(v)", ValueError, "one entry"),
    ("T.is_nonzero(v[:0])", ValueError, "one entry"),
    ("T.tensor_split(x, T.tensor([[1]]))", TypeError, "0 or 1 axes"),
    ("T.select(x, 0, 1.5)", TypeError, "must be an int"),
    ("T.select(x, 0, True)", TypeError, "must be an int"),
    ("T.take(v, v > 0)", TypeError, "integer tensor"),
    ("T.addr(x[None], v[:2], c)", ValueError, "does not broadcast"),
    ("T.addmv(c[:2], x, c.float())", TypeError, "one dtype"),
    ("T.addmv(v[:2], x, c)", TypeError, "one dtype"),
    ("T.vdot(c, c[:3])", ValueError, "one length"),
    ("T.vdot(v, c[:3])", TypeError, "one dtype"),
    ("T.linalg.cross(x[:, :3], x[:, :1])", ValueError, "length 3 in both"),
    ("T.linalg.cross(c[:3], x[:, :3])", ValueError, "same number of axes"),
]


@pytest.mark.parametrize("case,error,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_is_refused_by_name(case, error, match):
    """Each is refused by PyTorch too (where torch is installed, checked), with a message
    naming the function."""
    values = dict(x=tinyffn.tensor(X), v=tinyffn.tensor([1.0, 2.5, -1.0]),
                  c=tinyffn.tensor([1.0, -2.0, 0.5, 3.0], dtype="float64"),
                  s0=tinyffn.tensor(1.5))
    values["x"] = values["x"].double()
    name = case.split("(")[0].split(".")[-1]
    with pytest.raises(error, match=match) as info:
        eval(case, {}, {"T": tinyffn, **values})
    assert name in str(info.value)
    try:
        import torch
    except ImportError:
        return
    tv = dict(x=torch.tensor(X, dtype=torch.float64), v=torch.tensor([1.0, 2.5, -1.0]),
              c=torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64), s0=torch.tensor(1.5))
    with warnings.catch_warnings(), pytest.raises(Exception):
        warnings.simplefilter("ignore")
        eval(case.replace("'fro'", "'x'"), {}, {"T": torch, **tv})




EXPECTED = {
    'T.broadcast_to(v, (2, 3))': ('float64', [[1.0, 2.5, -1.0], [1.0, 2.5, -1.0]]),
    'T.broadcast_to(s, (2, 2, -1))': ('float64', [[[2.0], [3.0]], [[2.0], [3.0]]]),
    'r.broadcast_to(3, -1)': ('float64', [[0.25, 1.0, -1.0, 2.0], [0.25, 1.0, -1.0, 2.0], [0.25, 1.0, -1.0, 2.0]]),
    'T.broadcast_tensors(x, r)': (('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]), ('float64', [[0.25, 1.0, -1.0, 2.0], [0.25, 1.0, -1.0, 2.0]])),
    'T.broadcast_tensors(c, s, r)': (('float64', [[1.0, -2.0, 0.5, 3.0], [1.0, -2.0, 0.5, 3.0]]), ('float64', [[2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0]]), ('float64', [[0.25, 1.0, -1.0, 2.0], [0.25, 1.0, -1.0, 2.0]])),
    'T.swapaxes(x3, 0, 2)': ('float64', [[[0.0, 12.0], [4.0, 16.0], [8.0, 20.0]], [[1.0, 13.0], [5.0, 17.0], [9.0, 21.0]], [[2.0, 14.0], [6.0, 18.0], [10.0, 22.0]], [[3.0, 15.0], [7.0, 19.0], [11.0, 23.0]]]),
    'x3.swapdims(-1, 1)': ('float64', [[[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]], [[12.0, 16.0, 20.0], [13.0, 17.0, 21.0], [14.0, 18.0, 22.0], [15.0, 19.0, 23.0]]]),
    'T.swapdims(x, 0, 1)': ('float64', [[0.5, -4.0], [-2.0, 1.5], [3.0, 0.25], [0.0, -0.5]]),
    'T.atleast_1d(s0)': ('float64', [1.5]),
    'T.atleast_1d(s0, v)': (('float64', [1.5]), ('float64', [1.0, 2.5, -1.0])),
    'T.atleast_2d(v)': ('float64', [[1.0, 2.5, -1.0]]),
    'T.atleast_2d([s0, x])': (('float64', [[1.5]]), ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]])),
    'T.atleast_3d(s0)': ('float64', [[[1.5]]]),
    'T.atleast_3d(v)': ('float64', [[[1.0], [2.5], [-1.0]]]),
    'T.atleast_3d(x)': ('float64', [[[0.5], [-2.0], [3.0], [0.0]], [[-4.0], [1.5], [0.25], [-0.5]]]),
    'T.atleast_3d(x3)': ('float64', [[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]),
    'T.hstack([v, v, s0])': ('float64', [1.0, 2.5, -1.0, 1.0, 2.5, -1.0, 1.5]),
    'T.hstack((x, x[:, :1]))': ('float64', [[0.5, -2.0, 3.0, 0.0, 0.5], [-4.0, 1.5, 0.25, -0.5, -4.0]]),
    'T.vstack([v, v])': ('float64', [[1.0, 2.5, -1.0], [1.0, 2.5, -1.0]]),
    'T.vstack([x, r])': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [0.25, 1.0, -1.0, 2.0]]),
    'T.row_stack([x[0], r])': ('float64', [[0.5, -2.0, 3.0, 0.0], [0.25, 1.0, -1.0, 2.0]]),
    'T.dstack([x, x])': ('float64', [[[0.5, 0.5], [-2.0, -2.0], [3.0, 3.0], [0.0, 0.0]], [[-4.0, -4.0], [1.5, 1.5], [0.25, 0.25], [-0.5, -0.5]]]),
    'T.dstack([v, v])': ('float64', [[[1.0, 1.0], [2.5, 2.5], [-1.0, -1.0]]]),
    'T.column_stack([v, x[:, :3].T, v])': ('float64', [[1.0, 0.5, -4.0, 1.0], [2.5, -2.0, 1.5, 2.5], [-1.0, 3.0, 0.25, -1.0]]),
    'T.column_stack([s0, s0])': ('float64', [[1.5, 1.5]]),
    'T.concat([x, r], dim=0)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [0.25, 1.0, -1.0, 2.0]]),
    'T.concatenate([x, x], axis=1)': ('float64', [[0.5, -2.0, 3.0, 0.0, 0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5, -4.0, 1.5, 0.25, -0.5]]),
    'T.cat([x, i], 0)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [0.0, 4.0, 2.0, 1.0], [4.0, 1.0, 3.0, -7.0]]),
    'T.tensor_split(seven, 3)': (('float64', [0.0, 1.0, 2.0]), ('float64', [3.0, 4.0]), ('float64', [5.0, 6.0])),
    'T.tensor_split(seven, [1, 5, 9, -1])': (('float64', [0.0]), ('float64', [1.0, 2.0, 3.0, 4.0]), ('float64', [5.0, 6.0]), ('float64', []), ('float64', [6.0])),
    'seven.tensor_split(9)': (('float64', [0.0]), ('float64', [1.0]), ('float64', [2.0]), ('float64', [3.0]), ('float64', [4.0]), ('float64', [5.0]), ('float64', [6.0]), ('float64', []), ('float64', [])),
    'T.tensor_split(x3, 2, dim=-1)': (('float64', [[[0.0, 1.0], [4.0, 5.0], [8.0, 9.0]], [[12.0, 13.0], [16.0, 17.0], [20.0, 21.0]]]), ('float64', [[[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]], [[14.0, 15.0], [18.0, 19.0], [22.0, 23.0]]])),
    'T.tensor_split(x, (1,), 1)': (('float64', [[0.5], [-4.0]]), ('float64', [[-2.0, 3.0, 0.0], [1.5, 0.25, -0.5]])),
    'T.tensor_split(seven, T.tensor(4))': (('float64', [0.0, 1.0]), ('float64', [2.0, 3.0]), ('float64', [4.0, 5.0]), ('float64', [6.0])),
    'T.tensor_split(seven, T.tensor([2, 3]))': (('float64', [0.0, 1.0]), ('float64', [2.0]), ('float64', [3.0, 4.0, 5.0, 6.0])),
    'T.hsplit(x, 2)': (('float64', [[0.5, -2.0], [-4.0, 1.5]]), ('float64', [[3.0, 0.0], [0.25, -0.5]])),
    'T.hsplit(seven, [2])': (('float64', [0.0, 1.0]), ('float64', [2.0, 3.0, 4.0, 5.0, 6.0])),
    'T.vsplit(x, 2)': (('float64', [[0.5, -2.0, 3.0, 0.0]]), ('float64', [[-4.0, 1.5, 0.25, -0.5]])),
    'x3.dsplit([1, 3])': (('float64', [[[0.0], [4.0], [8.0]], [[12.0], [16.0], [20.0]]]), ('float64', [[[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]], [[13.0, 14.0], [17.0, 18.0], [21.0, 22.0]]]), ('float64', [[[3.0], [7.0], [11.0]], [[15.0], [19.0], [23.0]]])),
    'T.mv(x, c)': ('float64', [6.0, -8.375]),
    'x.mv(c)': ('float64', [6.0, -8.375]),
    'T.addmv(v[:2], x, c)': ('float64', [7.0, -5.875]),
    'T.addmv(s0, x, c, beta=0.5, alpha=-2)': ('float64', [-11.25, 17.5]),
    'T.addmv(nan2, x, c, beta=0)': ('float64', [6.0, -8.375]),
    'T.addr(x, v[:2], c)': ('float64', [[1.5, -4.0, 3.5, 3.0], [-1.5, -3.5, 1.5, 7.0]]),
    'T.addr(s0, v, c, beta=0, alpha=3)': ('float64', [[3.0, -6.0, 1.5, 9.0], [7.5, -15.0, 3.75, 22.5], [-3.0, 6.0, -1.5, -9.0]]),
    'x.addr(v[1:], c, alpha=0.5)': ('float64', [[1.75, -4.5, 3.625, 3.75], [-4.5, 2.5, 0.0, -2.0]]),
    'T.inner(c, c)': ('float64', 14.25),
    'T.inner(x, x)': ('float64', [[13.25, -4.25], [-4.25, 18.5625]]),
    'T.inner(x3, x)': ('float64', [[[4.0, 0.5], [10.0, -10.5], [16.0, -21.5]], [[22.0, -32.5], [28.0, -43.5], [34.0, -54.5]]]),
    'T.inner(s0, x)': ('float64', [[0.75, -3.0, 4.5, 0.0], [-6.0, 2.25, 0.375, -0.75]]),
    'x.inner(c)': ('float64', [6.0, -8.375]),
    'T.vdot(v, v)': ('float64', 8.25),
    'c.vdot(c)': ('float64', 14.25),
    'T.cross(m3, n3, dim=1)': ('float64', [[7.0, -0.5, -2.0], [-3.0, 4.0, -2.5], [-3.25, -3.75, 7.0]]),
    'T.cross(m3, n3, dim=0)': ('float64', [[-13.0, 3.5, 2.5], [1.0, 1.0, -2.5], [3.5, 2.5, -10.0]]),
    'm3.cross(n3, 1)': ('float64', [[7.0, -0.5, -2.0], [-3.0, 4.0, -2.5], [-3.25, -3.75, 7.0]]),
    'T.linalg.cross(m3, n3)': ('float64', [[7.0, -0.5, -2.0], [-3.0, 4.0, -2.5], [-3.25, -3.75, 7.0]]),
    'T.linalg.cross(m3[:1], n3)': ('float64', [[7.0, -0.5, -2.0], [-7.0, 11.0, -5.0], [-1.0, 2.0, -1.0]]),
    'T.linalg.cross(b3, m3[None], dim=-1)': ('float64', [[[-1.0, 2.0, -1.0], [5.5, -11.0, 5.5], [25.75, 30.5, -46.0]], [[8.0, -16.0, 8.0], [19.0, -38.0, 19.0], [55.0, 64.25, -109.0]]]),
    'T.dist(x, r)': ('float64', 7.428828979051813),
    'T.dist(x, r, 1)': ('float64', 17.75),
    'T.dist(x, r, 0)': ('float64', 8.0),
    "x.dist(r, float('inf'))": ('float64', 4.25),
    'T.dist(x, r, 3.5)': ('float64', 5.422680551266111),
    "T.dist(x, r, -float('inf'))": ('float64', 0.25),
    'T.dist(x, r, 0.5)': ('float64', 123.52314729681032),
    'T.dist(x, x.detach(), 0.5)': ('float64', 0.0),
    'T.true_divide(i, 2)': ('float32', [[0.0, 2.0, 1.0, 0.5], [2.0, 0.5, 1.5, -3.5]]),
    'i.true_divide(i + 1)': ('float32', [[0.0, 0.800000011920929, 0.6666666865348816, 0.5], [0.800000011920929, 0.5, 0.75, 1.1666666269302368]]),
    'T.positive(x)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'T.sgn(x)': ('float64', [[1.0, -1.0, 1.0, 0.0], [-1.0, 1.0, 1.0, -1.0]]),
    'x.sgn()': ('float64', [[1.0, -1.0, 1.0, 0.0], [-1.0, 1.0, 1.0, -1.0]]),
    'T.fix(x * 1.5)': ('float64', [[0.0, -3.0, 4.0, 0.0], [-6.0, 2.0, 0.0, -0.0]]),
    '(x * -1.5).fix()': ('float64', [[-0.0, 3.0, -4.0, -0.0], [6.0, -2.0, -0.0, 0.0]]),
    'T.msort(x)': ('float64', [[-4.0, -2.0, 0.25, -0.5], [0.5, 1.5, 3.0, 0.0]]),
    'x3.msort()': ('float64', [[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]),
    'T.numel(x3)': ('int', 24),
    'T.ravel(x3.mT)': ('float64', [0.0, 4.0, 8.0, 1.0, 5.0, 9.0, 2.0, 6.0, 10.0, 3.0, 7.0, 11.0, 12.0, 16.0, 20.0, 13.0, 17.0, 21.0, 14.0, 18.0, 22.0, 15.0, 19.0, 23.0]),
    'x3.select(1, -1)': ('float64', [[8.0, 9.0, 10.0, 11.0], [20.0, 21.0, 22.0, 23.0]]),
    'T.select(x, 0, 1)': ('float64', [-4.0, 1.5, 0.25, -0.5]),
    'T.take(x, idx)': ('float64', [[-0.5, 0.5, -0.5], [-0.5, 0.0, 3.0]]),
    'x3.take(idx)': ('float64', [[7.0, 0.0, 7.0], [23.0, 3.0, 2.0]]),
    'T.diagflat(x)': ('float64', [[0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -4.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5]]),
    'v.diagflat(-1)': ('float64', [[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 2.5, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0]]),
    'x3.sum_to_size(3, 1)': ('float64', [[60.0], [92.0], [124.0]]),
    'x3.sum_to_size((1, 1, 4))': ('float64', [[[60.0, 66.0, 72.0, 78.0]]]),
    'x.sum_to_size(2, 4)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'x.adjoint()': ('float64', [[0.5, -4.0], [-2.0, 1.5], [3.0, 0.25], [0.0, -0.5]]),
    'x3.mH': ('float64', [[[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]], [[12.0, 16.0, 20.0], [13.0, 17.0, 21.0], [14.0, 18.0, 22.0], [15.0, 19.0, 23.0]]]),
    'x.H': ('float64', [[0.5, -4.0], [-2.0, 1.5], [3.0, 0.25], [0.0, -0.5]]),
    'T.is_nonzero(s0)': True,
    'T.is_nonzero(c[1:2] * 0)': False,
    'T.is_complex(x)': False,
    'x.element_size()': ('int', 8),
    'x.itemsize': ('int', 8),
    'x3.nbytes': ('int', 192),
    'i.nbytes': ('int', 64),
    'i.is_signed()': True,
    '(x > 0).is_signed()': False,
    'x.is_contiguous()': True,
    'x3.ndimension()': ('int', 3),
    'i.byte()': ('uint8', [[0, 4, 2, 1], [4, 1, 3, 249]]),
    'i.char()': ('int8', [[0, 4, 2, 1], [4, 1, 3, -7]]),
    'i.short()': ('int16', [[0, 4, 2, 1], [4, 1, 3, -7]]),
    'x.new_empty(2, 3).shape == (2, 3)': True,
    'T.broadcast_shapes(3, (2, 1)) == (2, 3)': True,
    'T.concat([x, r.expand(2, 4)], dim=1)': ('float64', [[0.5, -2.0, 3.0, 0.0, 0.25, 1.0, -1.0, 2.0], [-4.0, 1.5, 0.25, -0.5, 0.25, 1.0, -1.0, 2.0]]),
    'T.dstack([x[None, None], x[None, None]])': ('float64', [[[[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]]]),
    'T.dsplit(x[None, None], [1])': (('float64', [[[[0.5, -2.0, 3.0, 0.0]]]]), ('float64', [[[[-4.0, 1.5, 0.25, -0.5]]]])),
    'T.addmv(v[:1], x, c)': ('float64', [7.0, -7.375]),
    'T.addr(c, v[:2], c)': ('float64', [[2.0, -4.0, 1.0, 6.0], [3.5, -7.0, 1.75, 10.5]]),
    'T.addr(nan2[:, None], v[:2], c, beta=0)': ('float64', [[1.0, -2.0, 0.5, 3.0], [2.5, -5.0, 1.25, 7.5]]),
    'T.inner(x, s0)': ('float64', [[0.75, -3.0, 4.5, 0.0], [-6.0, 2.25, 0.375, -0.75]]),
    'x.float().nbytes': ('int', 32),
    'x.short().element_size()': ('int', 2),
    'i.byte().is_signed()': False,
}

EXPECTED_GRADS = {
    'T.broadcast_tensors(c, s)[0] dc': ('float64', [0.6, 0.8, 1.0, 1.2000000000000002]),
    'T.broadcast_tensors(c, s)[1] ds': ('float64', [[1.0], [2.6]]),
    'T.swapaxes(x3, 0, 2) dx3': ('float64', [[[0.1, 0.7, 1.3, 1.9], [0.3, 0.9, 1.5, 2.1], [0.5, 1.1, 1.7, 2.3]], [[0.2, 0.8, 1.4, 2.0], [0.4, 1.0, 1.6, 2.2], [0.6, 1.2, 1.8, 2.4]]]),
    'T.atleast_3d(v) dv': ('float64', [0.1, 0.2, 0.3]),
    'T.hstack([v, c]) dc': ('float64', [0.4, 0.5, 0.6, 0.7]),
    'T.vstack([x, r]) dr': ('float64', [[0.9, 1.0, 1.1, 1.2]]),
    'T.dstack([x, x]) dx': ('float64', [[0.30000000000000004, 0.7, 1.1, 1.5], [1.9, 2.3, 2.7, 3.1]]),
    'T.column_stack([v, x[:, :3].T]) dx': ('float64', [[0.2, 0.5, 0.8, 0.0], [0.3, 0.6, 0.9, 0.0]]),
    'T.tensor_split(seven, 3)[1] * 2 dseven': ('float64', [0.0, 0.0, 0.0, 0.2, 0.4, 0.0, 0.0]),
    'T.hsplit(x, [1, 3])[2] dx': ('float64', [[0.0, 0.0, 0.0, 0.1], [0.0, 0.0, 0.0, 0.2]]),
    'T.mv(x, c) dx': ('float64', [[0.1, -0.2, 0.05, 0.30000000000000004], [0.2, -0.4, 0.1, 0.6000000000000001]]),
    'T.mv(x, c) dc': ('float64', [-0.75, 0.10000000000000003, 0.35000000000000003, -0.1]),
    'T.addmv(v[:2], x, c, beta=0.5, alpha=-2) dv': ('float64', [0.05, 0.1, 0.0]),
    'T.addmv(v[:2], x, c, beta=0.5, alpha=-2) dx': ('float64', [[-0.2, 0.4, -0.1, -0.6000000000000001], [-0.4, 0.8, -0.2, -1.2000000000000002]]),
    'T.addr(x, v[:2], c, alpha=3) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]),
    'T.addr(x, v[:2], c, beta=2) dc': ('float64', [1.35, 1.7, 2.05, 2.4]),
    'T.inner(x3, x) dx3': ('float64', [[[-0.75, 0.10000000000000003, 0.35000000000000003, -0.1], [-1.4500000000000002, 1.1102230246251565e-16, 0.9999999999999999, -0.2], [-2.15, -0.10000000000000009, 1.65, -0.3]], [[-2.85, -0.19999999999999973, 2.3, -0.4], [-3.55, -0.30000000000000004, 2.95, -0.5], [-4.25, -0.40000000000000036, 3.6, -0.6]]]),
    'T.inner(x3, x) dx': ('float64', [[50.0, 53.6, 57.2, 60.8], [56.0, 60.2, 64.4, 68.6]]),
    'T.vdot(c, c) dc': ('float64', [0.2, -0.4, 0.1, 0.6000000000000001]),
    'T.cross(m3, n3, dim=1) dm3': ('float64', [[-0.7, 0.05000000000000002, 0.2], [1.6, -2.5999999999999996, 1.1], [0.09999999999999998, -0.20000000000000007, 0.10000000000000009]]),
    'T.cross(m3, n3, dim=0) dn3': ('float64', [[2.3, -1.9, -1.6500000000000001], [0.29999999999999993, 2.2, 2.625], [-0.5, -0.9, -1.1999999999999997]]),
    'T.linalg.cross(m3[:1], n3) dm3': ('float64', [[1.0, -2.75, 1.4000000000000001], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'T.dist(x, r) dr': ('float64', [[0.05384428705088517, 0.03365267940680323, -0.07067062675428679, 0.06057482293224581]]),
    'T.dist(x, r, 3.5) dx': ('float64', [[4.563677736186051e-05, -0.02276502252032205, 0.046732060018545164, -0.008261139134482506], [-0.054379758254491095, 0.0002581605979525783, 0.0025511734113785904, -0.014431616153348951]]),
    "T.dist(x, r, float('inf')) dx": ('float64', [[0.0, -0.0, 0.0, -0.0], [-0.1, 0.0, 0.0, -0.0]]),
    'T.dist(x, r, 0.5) dx': ('float64', [[2.222819356554287, -0.6416726769332642, 0.5557048391385717, -0.7858853201861272], [-0.5391128819847534, 1.5717706403722544, 0.9940750365915455, -0.7029171993821474]]),
    'T.dist(x, x.detach(), 0.5) dx': ('float64', [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    "T.dist(x, r, -float('inf')) dx": ('float64', [[0.1, -0.0, 0.0, -0.0], [-0.0, 0.0, 0.0, -0.0]]),
    'T.dist(x, r, 1) dr': ('float64', [[0.0, 0.0, -0.2, 0.2]]),
    'T.msort(x3) dx3': ('float64', [[[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]], [[1.3, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]]]),
    'T.take(x, idx) dx': ('float64', [[0.2, 0.0, 0.6, 0.5], [0.0, 0.0, 0.0, 0.8]]),
    'x3.select(1, -1) dx3': ('float64', [[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]], [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.5, 0.6, 0.7, 0.8]]]),
    'T.diagflat(x, 1) dx': ('float64', [[0.2, 1.2, 2.2, 3.2], [4.2, 5.2, 6.2, 7.2]]),
    'x3.sum_to_size(3, 1) dx3': ('float64', [[[0.1, 0.1, 0.1, 0.1], [0.2, 0.2, 0.2, 0.2], [0.3, 0.3, 0.3, 0.3]], [[0.1, 0.1, 0.1, 0.1], [0.2, 0.2, 0.2, 0.2], [0.3, 0.3, 0.3, 0.3]]]),
    'x3.mH dx3': ('float64', [[[0.1, 0.4, 0.7, 1.0], [0.2, 0.5, 0.8, 1.1], [0.3, 0.6, 0.9, 1.2]], [[1.3, 1.6, 1.9, 2.2], [1.4, 1.7, 2.0, 2.3], [1.5, 1.8, 2.1, 2.4]]]),
    'x.H dx': ('float64', [[0.1, 0.3, 0.5, 0.7], [0.2, 0.4, 0.6, 0.8]]),
}
