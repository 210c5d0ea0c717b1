"""Reducing and writing at indices (tinyffn/index_writes.py): scatter_reduce, index_reduce,
index_fill, index_copy, index_put, put, masked_scatter, select_scatter, slice_scatter,
diagonal_scatter, and the in-place forms.

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` (those run without torch, on every device);
loops written out by hand in Python over NumPy arrays; finite differences (gradcheck) on
every device; and, where PyTorch 2.13's gradient is wrong (amax or amin without the
input's own value, tied with it), a directional derivative.
"""

import itertools

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.backend import dtype_name

# torch's index_reduce says it is in beta, once per process: not a finding here
pytestmark = pytest.mark.filterwarnings(r"ignore:index_reduce\(\) is in beta:UserWarning")

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [1.0, 2.0, -1.0, 0.75]]   # (3, 4)
S = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]                                # (2, 4)
R = [[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]                                  # (3, 2)
J = "T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]])"        # scatter_reduce's index into x, for s

CASES = [
    *[f"x.scatter_reduce(0, {J}, s, '{r}'{inc})" for r in ("sum", "prod", "mean", "amax", "amin")
      for inc in ("", ", include_self=False")],
    "T.scatter_reduce(x, 1, T.tensor([[1, 1], [0, 3], [3, 3]]), r, 'amax')",
    "x.scatter_reduce(-1, T.tensor([[1, 1], [0, 3]]), r, 'mean', include_self=False)",
    "T.tensor([1, -2, 3]).scatter_reduce(0, T.tensor([0, 0, 1]), T.tensor([-4, 0, 0]), 'mean')",
    "T.tensor([1, 2, 3]).scatter_reduce(0, T.tensor([2, 2]), T.tensor([-5, 9]), 'amin')",
    "x.index_reduce(0, T.tensor([2, 0]), s, 'prod')",
    "x.index_reduce(0, T.tensor([1, 1]), s, 'mean', include_self=False)",
    "T.index_reduce(x, 1, T.tensor([3, 3]), r, 'amax')",
    "x.index_reduce(1, T.tensor([0, 2]), r, 'amin', include_self=False)",
    "x.index_fill(1, T.tensor([0, 2, 0]), -1.0)", "T.index_fill(x, 0, T.tensor(-1), 7.0)",
    "T.arange(6).reshape(2, 3).index_fill(1, T.tensor([1]), -3)",
    "x.index_copy(0, T.tensor([2, 0]), s)", "T.index_copy(x, 1, T.tensor([3, 1]), r)",
    "x.index_put((T.tensor([0, 2, -1]), T.tensor([1, 3, 0])), r[:, 1])",
    "x.index_put((T.tensor([1]),), s[1])",
    "x.index_put((T.tensor([0, 0, 2]), T.tensor([1, 1, 3])), r[:, 0], accumulate=True)",
    "T.index_put(x, (x > 1,), T.tensor(-1.0, dtype=T.float64))",
    "x.index_put([T.tensor([2, 0, 2])], T.tensor(0.0, dtype=T.float64))",
    "x.put(T.tensor([0, -1, 5]), T.tensor([9.0, 8.0, 7.0], dtype=T.float64))",
    "T.put(x, T.tensor([[1, 1], [4, 11]]), s[0], accumulate=True)",
    "x.masked_scatter(x > 0.7, s)", "T.masked_scatter(x, T.tensor([True, False, False, True]), r)",
    "T.select_scatter(x, s[0], 0, -1)", "x.select_scatter(r[:, 0], 1, 2)",
    "T.slice_scatter(x, r, 1, 0, 4, 2)", "x.slice_scatter(s, 0, 1)",
    "x.slice_scatter(r[:, :1], dim=1, start=-1, end=100)",
    "T.diagonal_scatter(x, s[0, :3], 0)", "x.diagonal_scatter(s[1, :2], -1)",
    "T.diagonal_scatter(x, s[0, :2], 1, 1, 0)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module`` (tinyffn or torch) as ``T``; the input named
    ``requires_grad`` requires a gradient (returned with the result)."""
    inputs = {}
    for name, values in dict(x=X, s=S, r=R).items():
        inputs[name] = module.tensor(values, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    device = tensor_kwargs.get("device")
    made = {"tensor": module.tensor, "arange": module.arange}
    if device:
        made = {k: (lambda f: lambda *a, **kw: f(*a, **kw, device=device))(f)
                for k, f in made.items()}

    class T:                    # the module, with tensor and arange on the device asked for
        def __getattr__(self, name):
            return made.get(name) or getattr(module, name)
    y = eval(case, {}, {"T": T(), **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain
assert_same = torch_parity.assert_close


# dL/d(input) for L = Σ f · (1, 2, 3, ...)/10: a backward that forgets gy shows. Ties:
# s's 2.0 and x's 2.0 meet at [2][1] (amax); amin without x meets only s's values.
GRAD_CASES = [
    *[(f"x.scatter_reduce(0, {J}, s, '{r}')", w) for r in ("sum", "prod", "mean", "amax", "amin")
      for w in "xs"],
    *[(f"x.scatter_reduce(0, {J}, s, '{r}', include_self=False)", w)
      for r in ("sum", "prod", "mean") for w in "xs"],      # amax, amin: see the tie test
    ("x.index_reduce(0, T.tensor([1, 1]), s, 'mean', include_self=False)", "s"),
    ("x.index_reduce(0, T.tensor([2, 0]), s, 'prod')", "x"),
    ("x.index_fill(1, T.tensor([0, 2, 0]), -1.0)", "x"),
    ("x.index_copy(0, T.tensor([2, 0]), s)", "x"), ("x.index_copy(0, T.tensor([2, 0]), s)", "s"),
    ("x.index_put((T.tensor([0, 0, 2]), T.tensor([1, 1, 3])), s[0, :3], accumulate=True)", "s"),
    ("x.index_put((T.tensor([1]),), s[0])", "s"), ("x.index_put((T.tensor([1]),), s[0])", "x"),
    ("x.put(T.tensor([0, -1, 5]), r[:, 0])", "r"), ("x.masked_scatter(x > 0.7, s)", "s"),
    ("x.masked_scatter(x > 0.7, s)", "x"), ("T.slice_scatter(x, r, 1, 0, 4, 2)", "r"),
    ("T.diagonal_scatter(x, s[0, :2], 1, 1, 0)", "s"), ("T.diagonal_scatter(x, s[0, :3], 0)", "x"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())     # live torch, EXPECTED(_GRADS), their check


# ----------------------------------------------------------------------------- by hand
def _by_hand(x, dim, index, src, reduce, include_self):
    """scatter_reduce written out: each place's list of values, then the reduction."""
    received = {p: ([x[p]] if include_self else []) for p in np.ndindex(x.shape)}
    for q in np.ndindex(index.shape):
        p = q[:dim] + (index[q],) + q[dim + 1:]
        received[p].append(src[q])
    mean = (lambda v: sum(v) // len(v)) if x.dtype.kind == "i" else np.mean    # ints: floor
    reduce_one = {"sum": sum, "prod": np.prod, "mean": mean, "amax": max, "amin": min}[reduce]
    return np.array([reduce_one(received[p]) if received[p] else x[p]
                     for p in np.ndindex(x.shape)]).reshape(x.shape)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_is_each_places_values_reduced_by_hand(reduce, device):
    r = np.random.default_rng(1)
    x, src = r.standard_normal((4, 5, 3)), r.standard_normal((4, 6, 2))
    index = r.integers(0, 5, (3, 6, 2))
    for include_self, dim in itertools.product((True, False), (1,)):
        got = tinyffn.tensor(x, device=device).scatter_reduce(
            dim, tinyffn.tensor(index, device=device), tinyffn.tensor(src, device=device),
            reduce, include_self=include_self)
        np.testing.assert_allclose(got.numpy(), _by_hand(x, dim, index, src, reduce,
                                                         include_self), rtol=1e-13)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_negative_integers_and_an_empty_index_by_hand(reduce, device):
    """int64 below 0: amax's stand-in where no value is must lie below them all (0 does
    not), and a mean rounds down (-9 / 2 is -5, -11 / 2 is -6, as PyTorch's); an index of
    no entries leaves input as it is. Without torch, only these cases check them."""
    t = lambda a: tinyffn.tensor(a, device=device)       # noqa: E731
    x, src, index = np.array([-5, -7, 3, -2]), np.array([-4, -8, -3, -9, -1]), [0, 1, 1, 3, 3]
    for include_self in (True, False):
        got = t(x).scatter_reduce(0, t(index), t(src), reduce, include_self=include_self)
        assert dtype_name(got.dtype) == "int64"
        assert got.tolist() == _by_hand(x, 0, np.array(index), src, reduce,
                                        include_self).tolist()
        none = t(np.zeros((0, 4), dtype=np.int64))
        xf = np.array([[0.5, -2.0, 3.0, 0.0], [1.0, 2.0, -1.0, 0.75]])
        assert t(xf).scatter_reduce(0, none, t(xf), reduce,
                                    include_self=include_self).tolist() == xf.tolist()


def test_index_reduce_is_scatter_reduce_with_the_index_along_each_slice(device):
    r = np.random.default_rng(2)
    x, src = r.standard_normal((3, 4)), r.standard_normal((3, 5))
    i = np.array([0, 3, 3, 1, 0])
    for reduce in ("prod", "mean", "amax", "amin"):
        got = tinyffn.tensor(x, device=device).index_reduce(
            1, tinyffn.tensor(i, device=device), tinyffn.tensor(src, device=device), reduce,
            include_self=False)
        want = _by_hand(x, 1, np.broadcast_to(i, (3, 5)), src, reduce, False)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)


def test_writes_by_hand(device):
    """index_copy, index_put, put and masked_scatter written out as assignments."""
    r = np.random.default_rng(3)
    x = r.standard_normal((4, 5))
    t = lambda a: tinyffn.tensor(a, device=device)      # noqa: E731
    want = x.copy()
    want[:, [4, 0, 2]] = x[:, :3] * 10
    assert np.array_equal(t(x).index_copy(1, t([4, 0, 2]), t(x[:, :3] * 10)).numpy(), want)
    want = x.copy()
    want[[3, 0], [1, -1]] = [7.0, 8.0]
    got = t(x).index_put((t([3, 0]), t([1, -1])), t(np.array([7.0, 8.0])))
    assert np.array_equal(got.numpy(), want)
    want = x.copy().reshape(-1)
    np.add.at(want, [3, 3, 19], [1.0, 2.0, 3.0])
    got = t(x).put(t([3, 3, 19]), t(np.array([1.0, 2.0, 3.0])), accumulate=True)
    assert np.array_equal(got.numpy(), want.reshape(4, 5))
    mask = x > 0
    want = x.copy()
    want[mask] = np.arange(100.0, 120.0)[:mask.sum()]      # row-major, source in order
    got = t(x).masked_scatter(t(mask), t(np.arange(100.0, 120.0).reshape(4, 5)))
    assert np.array_equal(got.numpy(), want)
    want = x.copy()
    want[1:, :-1][np.diag_indices(3)] = [1.0, 2.0, 3.0]    # the diagonal at offset -1
    assert np.array_equal(t(x).diagonal_scatter(t(np.array([1.0, 2.0, 3.0])), -1).numpy(), want)


# ----------------------------------------------------------------------------- gradients
def _i(values, device):
    return tinyffn.tensor(values, device=device)


GRADCHECKED = {
    "scatter_reduce prod": (lambda x, s, d: x.scatter_reduce(     # s's row 1 unread
        0, _i([[0, 2, 2, 1]], d), s, "prod"), (X, S)),
    "scatter_reduce amax": (lambda x, s, d: x.scatter_reduce(
        0, _i([[0, 2, 2, 1], [2, 1, 0, 0]], d), s, "amax", include_self=False), (X, S)),
    "scatter_reduce mean": (lambda x, s, d: x.scatter_reduce(
        1, _i([[1, 1], [0, 3], [3, 3]], d), s.t(), "mean"), (X, S)),
    "index_reduce amin": (lambda x, s, d: x.index_reduce(0, _i([2, 2], d), s, "amin"), (X, S)),
    "index_copy": (lambda x, s, d: x.index_copy(0, _i([2, 0], d), s), (X, S)),
    "index_put": (lambda x, s, d: x.index_put((_i([0, 2], d), _i([3, 1], d)), s[1, :2]), (X, S)),
    "masked_scatter": (lambda x, s, d: x.masked_scatter(x > 0.7, s), (X, S)),
    "diagonal_scatter": (lambda x, s, d: x.diagonal_scatter(s[0, :2], 1, 1, 0), (X, S)),
    "index_fill": (lambda x, s, d: x.index_fill(1, _i([1, 3], d), s[0, 0]), (X, S)),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    inputs = [tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
              for v in values]
    assert tinyffn.gradcheck(lambda *t: fn(*t, device), inputs)


def test_random_configurations_give_pytorchs_values_and_gradients():
    """150 random calls (1 to 3 axes, each dim, src longer than index or not, float64,
    float32 with a NaN, int64; every reduce, with and without self) against torch live.
    Gradients in float64 where src is as long as index; where it is longer, its entries
    beyond are not read and get 0 here (PyTorch 2.13 fails there for sum and mean, "invalid
    gradient", and gives prod, amax and amin values), and amax/amin without self are
    left to the tie test below."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for _ in range(150):
        shape = tuple(rng.integers(1, 5, rng.integers(1, 4)))
        dim = int(rng.integers(0, len(shape)))
        ishape = tuple(int(rng.integers(1, n + 1)) if a != dim else int(rng.integers(0, 6))
                       for a, n in enumerate(shape))
        sshape = tuple(n + int(rng.integers(0, 2)) for n in ishape)
        dtype = str(rng.choice(["float64", "float32", "int64"]))
        reduce, include_self = str(rng.choice(REDUCE)), bool(rng.integers(0, 2))
        x, src = (rng.integers(-3, 4, n).astype(dtype) for n in (shape, sshape))
        if dtype == "float32" and src.size:
            src.flat[0] = np.nan
        index, w = rng.integers(0, shape[dim], ishape), rng.standard_normal(shape)
        grads = dtype == "float64" and sshape == ishape and (
            include_self or reduce not in ("amax", "amin"))
        out = []
        for m in (tinyffn, torch):
            xm, sm = m.tensor(x, requires_grad=grads), m.tensor(src, requires_grad=grads)
            y = xm.scatter_reduce(dim, m.tensor(index), sm, reduce, include_self=include_self)
            out.append([y.detach().numpy()])
            if grads:
                (y * m.tensor(w)).sum().backward()
                out[-1] += [xm.grad.numpy(), sm.grad.numpy()]
        for ours, theirs in zip(*out):
            np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-12)


REDUCE = ("sum", "prod", "mean", "amax", "amin")


def test_amax_ties_share_gy_so_that_the_shares_add_up_where_pytorch_2_13s_do_not():
    """y = max(s0, s1) with s0 = s1 = 5 and include_self=False: raising both by ε raises y
    by ε, so the shares of the gradient add up to gy (½ each). PyTorch 2.13 counts the
    input's own 5 among the ties although it was left out, and gives ⅓ each (⅔ in all);
    its share goes nowhere (x's gradient is 0). With include_self=True three values tie
    and ⅓ each is right, and PyTorch's too (its rows in EXPECTED_GRADS)."""
    x = tinyffn.tensor([5.0], dtype="float64", requires_grad=True)
    s = tinyffn.tensor([5.0, 5.0], dtype="float64", requires_grad=True)
    i = tinyffn.tensor([0, 0])
    x.scatter_reduce(0, i, s, "amax", include_self=False).sum().backward()
    assert x.grad.tolist() == [0.0] and s.grad.tolist() == [0.5, 0.5]
    eps = 1e-6                                      # the directional derivative along (1, 1)
    up = x.detach().scatter_reduce(0, i, s.detach() + eps, "amax", include_self=False)
    assert abs((up.item() - 5.0) / eps - sum(s.grad.tolist())) < 1e-9
    x.grad = s.grad = None
    x.scatter_reduce(0, i, s, "amax").sum().backward()
    assert x.grad.tolist() == [1 / 3] and s.grad.tolist() == [1 / 3, 1 / 3]


def test_the_value_of_index_fill_and_of_one_written_value_gets_the_sum_of_gy():
    v = tinyffn.tensor(2.0, dtype="float64", requires_grad=True)
    x = tinyffn.tensor(X, dtype="float64")
    w = tinyffn.arange(12.0, dtype="float64").reshape(3, 4)
    (x.index_fill(1, tinyffn.tensor([1, 3, 1]), v) * w).sum().backward()
    assert v.grad.item() == w.numpy()[:, [1, 3]].sum()
    v.grad = None
    (x.index_put((x > 1,), v) * w).sum().backward()
    assert v.grad.item() == w.numpy()[np.array(X) > 1].sum()


def test_one_value_written_twice_to_a_place_is_counted_once_in_its_gradient():
    """x.index_put((i,), v) with i = [1, 1, 2] and one value: y[1] = y[2] = v, so dL/dv =
    gy[1] + gy[2], what raising v by ε changes. PyTorch 2.13 sums gy over the index,
    counting place 1 twice (gy[1] · 2 + gy[2])."""
    x = tinyffn.tensor([0.5, -1.0, 2.0, 4.0], dtype="float64")
    v = tinyffn.tensor(3.0, dtype="float64", requires_grad=True)
    w = tinyffn.tensor([1.0, 10.0, 100.0, 1000.0], dtype="float64")
    i = (tinyffn.tensor([1, 1, 2]),)
    (x.index_put(i, v) * w).sum().backward()
    eps = 1e-7
    up = ((x.index_put(i, v.detach() + eps) - x.index_put(i, v.detach())) * w).sum() / eps
    assert v.grad.item() == 110.0 and abs(up.item() - 110.0) < 1e-6


def test_masked_scatter_of_a_0d_input_writes_source_first_entry_where_the_mask_holds(device):
    """A 0-d input reads one place: with the mask True it takes source's first entry (its
    gradient gy, the rest 0), with False it stays (source's gradient 0), as PyTorch 2.13
    gives; nonzero refuses 0-d arrays, and this call once failed there."""
    for mask, want, gx, gs in ((True, 5.0, 0.0, [3.0, 0.0]), (False, 2.0, 3.0, [0.0, 0.0])):
        x = tinyffn.tensor(2.0, device=device, requires_grad=True)
        s = tinyffn.tensor([5.0, 6.0], device=device, requires_grad=True)
        y = x.masked_scatter(tinyffn.tensor(mask, device=device), s)
        (y * 3).backward()
        assert y.shape == () and y.item() == want
        assert x.grad.item() == gx and s.grad.tolist() == gs
    x, none = tinyffn.tensor(2.0, device=device), tinyffn.zeros(0, device=device)
    assert x.masked_scatter(tinyffn.tensor(False, device=device), none).item() == 2.0
    with pytest.raises(ValueError, match="the mask holds at 1 places but source has 0"):
        x.masked_scatter(tinyffn.tensor(True, device=device), none)


# ----------------------------------------------------------------------------- in place
def test_in_place_forms_follow_the_rules_of_x_minus_equals_y(device):
    t = lambda values: tinyffn.tensor(values, device=device)       # noqa: E731
    z = tinyffn.zeros(2, 3, device=device)
    assert z.index_fill_(1, t([2]), 1.0) is z and z.tolist() == [[0, 0, 1], [0, 0, 1]]
    z.index_put_((t([0, 0]), t([0, 0])), t([2.0, 3.0]), accumulate=True)
    z.put_(t([4]), t([7.0]))
    z.scatter_reduce_(1, t([[2], [2]]), t([[4.0], [-1.0]]), "amax")
    assert z.tolist() == [[5, 0, 4], [0, 7, 1]]
    z.masked_scatter_(z == 0, t([8.0, 9.0, 6.0]))
    z.index_copy_(0, t([1]), tinyffn.ones(1, 3, device=device))
    z.index_reduce_(1, t([0]), t([[2.0], [3.0]]), "prod")
    assert z.tolist() == [[10, 8, 4], [3, 1, 1]]
    w = tinyffn.zeros(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"index_fill_: x requires grad.*x = x\.index_fill"):
        w.index_fill_(0, t([0]), 1.0)


def test_in_place_matches_torch_live():
    torch = pytest.importorskip("torch")
    results = []
    for module in (tinyffn, torch):
        z = module.arange(6.0).reshape(2, 3)
        z.index_fill_(1, module.tensor([0]), -1.0)
        z.scatter_reduce_(0, module.tensor([[1, 1, 0]]), module.tensor([[9.0, -9.0, 2.0]]),
                          "amin", include_self=False)
        z.index_put_((module.tensor([1]),), module.tensor([4.0, 5.0, 6.0]), accumulate=True)
        z.masked_scatter_(z > 5, module.tensor([0.5, 0.25, 0.125]))
        results.append(z.tolist())
    assert results[0] == results[1]


def test_each_is_drawn_in_a_frame_of_its_name():
    x = tinyffn.tensor(X, requires_grad=True)
    i = tinyffn.tensor([[0, 2, 2, 1]])
    for y, name in [(x.scatter_reduce(0, i, x, "amax"), "scatter_reduce"),
                    (x.index_copy(0, tinyffn.tensor([1]), x[:1]), "index_copy"),
                    (x.masked_scatter(x > 0, x), "masked_scatter"),
                    (tinyffn.slice_scatter(x, x[:1], 0, 0, 1), "slice_scatter")]:
        assert [s.name for s in y.grad_fn.scope if s.kind == "function"][0] == name


def test_float16_and_integers_keep_their_dtype():
    h = tinyffn.zeros(3, dtype="float16").scatter_reduce(
        0, tinyffn.tensor([0, 0]), tinyffn.ones(2, dtype="float16"), "amax", include_self=False)
    assert dtype_name(h.dtype) == "float16" and h.tolist() == [1, 0, 0]
    c = tinyffn.tensor([5, 0, 0]).scatter_reduce(0, tinyffn.tensor([1, 1]), tinyffn.tensor(
        [-7, 3]), "amin", include_self=False)
    assert dtype_name(c.dtype) == "int64" and c.tolist() == [5, -7, 0]


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("call, error, match", [
    (f"x.scatter_reduce(0, {J}, s, 'max')", ValueError,
     "scatter_reduce: reduce must be one of 'sum', 'prod', 'mean', 'amax', 'amin', got 'max'; "
     "the maximum is 'amax'"),
    (f"x.scatter_reduce(0, {J}, s, 'min')", ValueError, "got 'min'; the minimum is 'amin'"),
    (f"x.scatter_reduce(0, {J}, s.double(), 'sum')", TypeError,
     r"scatter_reduce: input \(float32\) and src \(float64\) must have the same dtype"),
    (f"x.scatter_reduce(0, {J}, s, 'sum', include_self=1)", TypeError, "include_self must be"),
    ("x.scatter_reduce(0, T.tensor([[-1, 0, 0, 0]]), s, 'sum')", IndexError,
     "index -1 is out of range for dim 0 of size 3"),
    ("x.bool().scatter_reduce(0, T.tensor([[0]]), s.bool(), 'amax')", TypeError,
     r"input is bool.*\.int\(\)"),
    ("x.index_reduce(0, T.tensor([0, 1]), s, 'sum')", ValueError, "for a sum use index_add"),
    ("x.index_reduce(0, T.tensor([0]), s, 'prod')", ValueError,
     r"index_reduce: source must have input's shape with index's length along dim 0, \(1, 4\)"),
    ("x.index_reduce(0, T.tensor([3, 0]), s, 'amin')", IndexError, "index 3 is out of range"),
    ("x.index_fill(0, T.tensor([3]), 1.0)", IndexError,
     r"index_fill: index 3 is out of range .* must lie in \[-3, 3\)"),
    ("x.index_fill(0, T.tensor([0]), T.tensor([1.0]))", ValueError,
     "index_fill: value must be a number or a 0-d tensor"),
    ("x.index_fill(0, T.tensor([[0]]), 1.0)", ValueError, "index_fill: index must have 1 axis"),
    ("x.index_copy(0, T.tensor([0, 0]), s)", ValueError,
     "index_copy: the index names a place more than once.*make the indices distinct"),
    ("x.index_copy(0, T.tensor([0]), s)", ValueError, r"index_copy: source must have .*\(1, 4\)"),
    ("x.index_copy(0, T.tensor([-1, 0]), s)", IndexError, "index -1 is out of range"),
    ("x.index_put((T.tensor([0, 0]),), s)", ValueError,
     "index_put: the index names a place more than once.*accumulate=True to add them"),
    ("x.index_put((T.tensor([5]),), s[0])", IndexError, "index_put: index 5 is out of range"),
    ("x.index_put((T.tensor([0]),), s[0].double())", TypeError,
     r"index_put: input \(float32\) and values \(float64\) must have the same dtype"),
    ("x.index_put((None, T.tensor([0])), s[0])", TypeError,
     "index_put: indices must be a tuple of index tensors .* holding NoneType, Tensor"),
    ("x.index_put(T.tensor([0]), s[0])", TypeError, "indices must be a tuple of index tensors"),
    ("x.index_put((T.tensor([0.0]),), s[0])", TypeError, "index tensors must be int64"),
    ("x.index_put((T.tensor([0]),), s[0, :3])", ValueError,
     r"values of shape \(3,\) do not broadcast to input\[indices\]'s shape \(1, 4\)"),
    ("x.put(T.tensor([0, 1]), s[0, :1])", ValueError,
     "put: source must have as many entries as index, 2"),
    ("x.put(T.tensor([12]), s[0, :1])", IndexError, "put: index 12 is out of range"),
    ("x.put([0], s[0, :1])", TypeError, "put: index must be a tinyffn Tensor of int64"),
    ("x.masked_scatter(x > 0, s[0, :2])", ValueError,
     "masked_scatter: the mask holds at 7 places but source has 2 entries"),
    ("x.masked_scatter((x > 0).int(), s)", TypeError, "masked_scatter: mask must be a bool"),
    ("x.masked_scatter(T.tensor([True, False]), s)", ValueError,
     r"a mask of shape \(2,\) does not broadcast to input's shape \(3, 4\)"),
    ("T.select_scatter(x, s[0, :2], 0, 0)", ValueError,
     r"select_scatter: src must have the shape of what it replaces, \(4,\)"),
    ("T.select_scatter(x, s[0], 0, 3)", IndexError, r"index must be an int in \[-3, 3\)"),
    ("T.select_scatter(x, s[0].long(), 0, 0)", TypeError, r"src \(int64\) is not of the kind"),
    ("T.slice_scatter(x, s, 0, 0, 2, -1)", ValueError, "step must be a positive int"),
    ("T.slice_scatter(x, s, 0, 0.5)", TypeError, "start and end must be ints or None"),
    ("T.diagonal_scatter(x, s[0, :2], 0)", ValueError, r"src must have .* \(3,\)"),
    ("T.diagonal_scatter(x, s[0, :3], 0, 1, -1)", ValueError, "dim1 and dim2 must differ"),
    ("T.diagonal_scatter(x[0], s[0], 0)", ValueError, "input must have 2 axes or more"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    names = {"T": tinyffn, "x": tinyffn.tensor(X), "s": tinyffn.tensor(S)}
    with pytest.raises(error, match=match):
        eval(call, {}, names)


EXPECTED = {
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'sum')": ('float64', [[1.5, -2.0, 10.0, 8.0], [-4.0, 1.5, 0.25, 3.5], [6.0, 10.0, 2.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'sum', include_self=False)": ('float64', [[1.0, -2.0, 7.0, 8.0], [-4.0, 1.5, 0.25, 4.0], [5.0, 8.0, 3.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'prod')": ('float64', [[0.5, -2.0, 21.0, 0.0], [-4.0, 1.5, 0.25, -2.0], [5.0, 24.0, -3.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'prod', include_self=False)": ('float64', [[1.0, -2.0, 7.0, 8.0], [-4.0, 1.5, 0.25, 4.0], [5.0, 12.0, 3.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'mean')": ('float64', [[0.75, -2.0, 5.0, 4.0], [-4.0, 1.5, 0.25, 1.75], [3.0, 3.3333333333333335, 1.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'mean', include_self=False)": ('float64', [[1.0, -2.0, 7.0, 8.0], [-4.0, 1.5, 0.25, 4.0], [5.0, 4.0, 3.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amax')": ('float64', [[1.0, -2.0, 7.0, 8.0], [-4.0, 1.5, 0.25, 4.0], [5.0, 6.0, 3.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amax', include_self=False)": ('float64', [[1.0, -2.0, 7.0, 8.0], [-4.0, 1.5, 0.25, 4.0], [5.0, 6.0, 3.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amin')": ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [1.0, 2.0, -1.0, 0.75]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amin', include_self=False)": ('float64', [[1.0, -2.0, 7.0, 8.0], [-4.0, 1.5, 0.25, 4.0], [5.0, 2.0, 3.0, 0.75]]),
    "T.scatter_reduce(x, 1, T.tensor([[1, 1], [0, 3], [3, 3]]), r, 'amax')": ('float64', [[0.5, 20.0, 3.0, 0.0], [30.0, 1.5, 0.25, 40.0], [1.0, 2.0, -1.0, 60.0]]),
    "x.scatter_reduce(-1, T.tensor([[1, 1], [0, 3]]), r, 'mean', include_self=False)": ('float64', [[0.5, 15.0, 3.0, 0.0], [30.0, 1.5, 0.25, 40.0], [1.0, 2.0, -1.0, 0.75]]),
    "T.tensor([1, -2, 3]).scatter_reduce(0, T.tensor([0, 0, 1]), T.tensor([-4, 0, 0]), 'mean')": ('int64', [-1, -1, 3]),
    "T.tensor([1, 2, 3]).scatter_reduce(0, T.tensor([2, 2]), T.tensor([-5, 9]), 'amin')": ('int64', [1, 2, -5]),
    "x.index_reduce(0, T.tensor([2, 0]), s, 'prod')": ('float64', [[2.5, -12.0, 21.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [1.0, 4.0, -3.0, 3.0]]),
    "x.index_reduce(0, T.tensor([1, 1]), s, 'mean', include_self=False)": ('float64', [[0.5, -2.0, 3.0, 0.0], [3.0, 4.0, 5.0, 6.0], [1.0, 2.0, -1.0, 0.75]]),
    "T.index_reduce(x, 1, T.tensor([3, 3]), r, 'amax')": ('float64', [[0.5, -2.0, 3.0, 20.0], [-4.0, 1.5, 0.25, 40.0], [1.0, 2.0, -1.0, 60.0]]),
    "x.index_reduce(1, T.tensor([0, 2]), r, 'amin', include_self=False)": ('float64', [[10.0, -2.0, 20.0, 0.0], [30.0, 1.5, 40.0, -0.5], [50.0, 2.0, 60.0, 0.75]]),
    'x.index_fill(1, T.tensor([0, 2, 0]), -1.0)': ('float64', [[-1.0, -2.0, -1.0, 0.0], [-1.0, 1.5, -1.0, -0.5], [-1.0, 2.0, -1.0, 0.75]]),
    'T.index_fill(x, 0, T.tensor(-1), 7.0)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [7.0, 7.0, 7.0, 7.0]]),
    'T.arange(6).reshape(2, 3).index_fill(1, T.tensor([1]), -3)': ('int64', [[0, -3, 2], [3, -3, 5]]),
    'x.index_copy(0, T.tensor([2, 0]), s)': ('float64', [[5.0, 6.0, 7.0, 8.0], [-4.0, 1.5, 0.25, -0.5], [1.0, 2.0, 3.0, 4.0]]),
    'T.index_copy(x, 1, T.tensor([3, 1]), r)': ('float64', [[0.5, 20.0, 3.0, 10.0], [-4.0, 40.0, 0.25, 30.0], [1.0, 60.0, -1.0, 50.0]]),
    'x.index_put((T.tensor([0, 2, -1]), T.tensor([1, 3, 0])), r[:, 1])': ('float64', [[0.5, 20.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [60.0, 2.0, -1.0, 40.0]]),
    'x.index_put((T.tensor([1]),), s[1])': ('float64', [[0.5, -2.0, 3.0, 0.0], [5.0, 6.0, 7.0, 8.0], [1.0, 2.0, -1.0, 0.75]]),
    'x.index_put((T.tensor([0, 0, 2]), T.tensor([1, 1, 3])), r[:, 0], accumulate=True)': ('float64', [[0.5, 38.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [1.0, 2.0, -1.0, 50.75]]),
    'T.index_put(x, (x > 1,), T.tensor(-1.0, dtype=T.float64))': ('float64', [[0.5, -2.0, -1.0, 0.0], [-4.0, -1.0, 0.25, -0.5], [1.0, -1.0, -1.0, 0.75]]),
    'x.index_put([T.tensor([2, 0, 2])], T.tensor(0.0, dtype=T.float64))': ('float64', [[0.0, 0.0, 0.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [0.0, 0.0, 0.0, 0.0]]),
    'x.put(T.tensor([0, -1, 5]), T.tensor([9.0, 8.0, 7.0], dtype=T.float64))': ('float64', [[9.0, -2.0, 3.0, 0.0], [-4.0, 7.0, 0.25, -0.5], [1.0, 2.0, -1.0, 8.0]]),
    'T.put(x, T.tensor([[1, 1], [4, 11]]), s[0], accumulate=True)': ('float64', [[0.5, 1.0, 3.0, 0.0], [-1.0, 1.5, 0.25, -0.5], [1.0, 2.0, -1.0, 4.75]]),
    'x.masked_scatter(x > 0.7, s)': ('float64', [[0.5, -2.0, 1.0, 0.0], [-4.0, 2.0, 0.25, -0.5], [3.0, 4.0, -1.0, 5.0]]),
    'T.masked_scatter(x, T.tensor([True, False, False, True]), r)': ('float64', [[10.0, -2.0, 3.0, 20.0], [30.0, 1.5, 0.25, 40.0], [50.0, 2.0, -1.0, 60.0]]),
    'T.select_scatter(x, s[0], 0, -1)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5], [1.0, 2.0, 3.0, 4.0]]),
    'x.select_scatter(r[:, 0], 1, 2)': ('float64', [[0.5, -2.0, 10.0, 0.0], [-4.0, 1.5, 30.0, -0.5], [1.0, 2.0, 50.0, 0.75]]),
    'T.slice_scatter(x, r, 1, 0, 4, 2)': ('float64', [[10.0, -2.0, 20.0, 0.0], [30.0, 1.5, 40.0, -0.5], [50.0, 2.0, 60.0, 0.75]]),
    'x.slice_scatter(s, 0, 1)': ('float64', [[0.5, -2.0, 3.0, 0.0], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]),
    'x.slice_scatter(r[:, :1], dim=1, start=-1, end=100)': ('float64', [[0.5, -2.0, 3.0, 10.0], [-4.0, 1.5, 0.25, 30.0], [1.0, 2.0, -1.0, 50.0]]),
    'T.diagonal_scatter(x, s[0, :3], 0)': ('float64', [[1.0, -2.0, 3.0, 0.0], [-4.0, 2.0, 0.25, -0.5], [1.0, 2.0, 3.0, 0.75]]),
    'x.diagonal_scatter(s[1, :2], -1)': ('float64', [[0.5, -2.0, 3.0, 0.0], [5.0, 1.5, 0.25, -0.5], [1.0, 6.0, -1.0, 0.75]]),
    'T.diagonal_scatter(x, s[0, :2], 1, 1, 0)': ('float64', [[0.5, -2.0, 3.0, 0.0], [1.0, 1.5, 0.25, -0.5], [1.0, 2.0, -1.0, 0.75]]),
}

EXPECTED_GRADS = {
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'sum') dx": ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'sum') ds": ('float64', [[0.1, 1.0, 1.1, 0.8], [0.9, 1.0, 0.3, 0.4]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'prod') dx": ('float64', [[0.1, 0.2, 2.1, 3.2], [0.5, 0.6, 0.7, 3.2], [4.5, 12.0, 3.3000000000000003, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'prod') ds": ('float64', [[0.05, 12.0, -1.1, -0.4], [0.9, 4.0, 0.9, 0.0]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'mean') dx": ('float64', [[0.05, 0.2, 0.15, 0.2], [0.5, 0.6, 0.7, 0.4], [0.45, 0.3333333333333333, 0.55, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'mean') ds": ('float64', [[0.05, 0.3333333333333333, 0.55, 0.4], [0.45, 0.3333333333333333, 0.15, 0.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amax') dx": ('float64', [[0.0, 0.2, 0.0, 0.0], [0.5, 0.6, 0.7, 0.0], [0.0, 0.0, 0.0, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amax') ds": ('float64', [[0.1, 0.0, 1.1, 0.8], [0.9, 1.0, 0.3, 0.4]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amin') dx": ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 0.5, 1.1, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'amin') ds": ('float64', [[0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'sum', include_self=False) dx": ('float64', [[0.0, 0.2, 0.0, 0.0], [0.5, 0.6, 0.7, 0.0], [0.0, 0.0, 0.0, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'sum', include_self=False) ds": ('float64', [[0.1, 1.0, 1.1, 0.8], [0.9, 1.0, 0.3, 0.4]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'prod', include_self=False) dx": ('float64', [[0.0, 0.2, 0.0, 0.0], [0.5, 0.6, 0.7, 0.0], [0.0, 0.0, 0.0, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'prod', include_self=False) ds": ('float64', [[0.1, 6.0, 1.1, 0.8], [0.9, 2.0, 0.3, 0.4]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'mean', include_self=False) dx": ('float64', [[0.0, 0.2, 0.0, 0.0], [0.5, 0.6, 0.7, 0.0], [0.0, 0.0, 0.0, 1.2]]),
    "x.scatter_reduce(0, T.tensor([[0, 2, 2, 1], [2, 2, 0, 0]]), s, 'mean', include_self=False) ds": ('float64', [[0.1, 0.5, 1.1, 0.8], [0.9, 0.5, 0.3, 0.4]]),
    "x.index_reduce(0, T.tensor([1, 1]), s, 'mean', include_self=False) ds": ('float64', [[0.25, 0.3, 0.35, 0.4], [0.25, 0.3, 0.35, 0.4]]),
    "x.index_reduce(0, T.tensor([2, 0]), s, 'prod') dx": ('float64', [[0.5, 1.2000000000000002, 2.1, 3.2], [0.5, 0.6, 0.7, 0.8], [0.9, 2.0, 3.3000000000000003, 4.8]]),
    'x.index_fill(1, T.tensor([0, 2, 0]), -1.0) dx': ('float64', [[0.0, 0.2, 0.0, 0.4], [0.0, 0.6, 0.0, 0.8], [0.0, 1.0, 0.0, 1.2]]),
    'x.index_copy(0, T.tensor([2, 0]), s) dx': ('float64', [[0.0, 0.0, 0.0, 0.0], [0.5, 0.6, 0.7, 0.8], [0.0, 0.0, 0.0, 0.0]]),
    'x.index_copy(0, T.tensor([2, 0]), s) ds': ('float64', [[0.9, 1.0, 1.1, 1.2], [0.1, 0.2, 0.3, 0.4]]),
    'x.index_put((T.tensor([0, 0, 2]), T.tensor([1, 1, 3])), s[0, :3], accumulate=True) ds': ('float64', [[0.2, 0.2, 1.2, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    'x.index_put((T.tensor([1]),), s[0]) ds': ('float64', [[0.5, 0.6, 0.7, 0.8], [0.0, 0.0, 0.0, 0.0]]),
    'x.index_put((T.tensor([1]),), s[0]) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.0, 0.0], [0.9, 1.0, 1.1, 1.2]]),
    'x.put(T.tensor([0, -1, 5]), r[:, 0]) dr': ('float64', [[0.1, 0.0], [1.2, 0.0], [0.6, 0.0]]),
    'x.masked_scatter(x > 0.7, s) ds': ('float64', [[0.3, 0.6, 0.9, 1.0], [1.2, 0.0, 0.0, 0.0]]),
    'x.masked_scatter(x > 0.7, s) dx': ('float64', [[0.1, 0.2, 0.0, 0.4], [0.5, 0.0, 0.7, 0.8], [0.0, 0.0, 1.1, 0.0]]),
    'T.slice_scatter(x, r, 1, 0, 4, 2) dr': ('float64', [[0.1, 0.3], [0.5, 0.7], [0.9, 1.1]]),
    'T.diagonal_scatter(x, s[0, :2], 1, 1, 0) ds': ('float64', [[0.5, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    'T.diagonal_scatter(x, s[0, :3], 0) dx': ('float64', [[0.0, 0.2, 0.3, 0.4], [0.5, 0.0, 0.7, 0.8], [0.9, 1.0, 0.0, 1.2]]),
}
