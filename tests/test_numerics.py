"""What analysis scripts reach for: tinyffn/numerics.py (finfo, iinfo, nan_to_num,
count_nonzero, histc, median, kthvalue), tinyffn/linalg.py (vector_norm, matrix_norm, norm) and
tinyffn/distances.py (cosine_similarity, pairwise_distance, cdist).

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch; those tests run
without it, on every device); NumPy written out by hand; gradcheck on every device.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import functional as F
from tinyffn.backend import dtype_name

inf, nan = math.inf, math.nan    # (as the written-out values print them)
X = [[3.0, -4.0, 0.0, 1.5], [1.0, 2.0, -0.5, -2.5]]
A = [[1.0, 0.0], [0.0, 0.0], [3.0, 4.0], [-1.0, 2.5]]        # a zero row: cosine's eps
B = [[1.0, 1.0], [1.0, 0.0], [0.5, -2.0], [-1.0, 2.5]]
N = [nan, inf, -inf, 2.0, -0.0, 1.0]
E = [0.0, 0.1, 0.2, 0.3, 0.30000001, 0.7, 0.9, 1.0, 0.5, 0.6]  # on or near the edges

CASES = [
    "T.nan_to_num(n)", "T.nan_to_num(n, nan=1.0, posinf=2.0, neginf=-3.0)",
    "n.nan_to_num(posinf=5.0)", "T.nan_to_num(n.half())", "T.nan_to_num(n.float(), 7.0)",
    "T.nan_to_num(n.half(), posinf=1e10)", "T.nan_to_num(i)",
    "T.count_nonzero(x)", "T.count_nonzero(x, dim=1)", "x.count_nonzero((0, 1))",
    "T.count_nonzero(n, 0)", "T.count_nonzero(i > 1)",
    "T.histc(x, bins=4)", "T.histc(x, 3, -1, 1)", "x.histc(5, 0, 2)", "T.histc(x[0, :1], 4)",
    "T.histc(n, 4, -1, 3)", "T.histc(e, 10, 0, 1)", "T.histc(e.float(), 10, 0, 1)",
    "T.histc(e.half(), 10, 0, 1)", "T.histc(e.float() * 7 - 2, 7)", "T.histc(e[:0], 3)",
    "T.median(x)", "x.median(1)", "T.median(x, 0, keepdim=True)", "T.median(n)",
    "T.median(n.reshape(2, 3), 1)", "T.median(i)", "i.median(1)", "T.median(x[0, 0], 0)",
    "T.kthvalue(x, 2)", "x.kthvalue(1, 0)", "T.kthvalue(x, 4, 1, keepdim=True)",
    "T.kthvalue(n, 6)", "T.kthvalue(i, 3, dim=1)",
    "T.linalg.vector_norm(x)", "T.linalg.vector_norm(x, 1, dim=1)",
    "T.linalg.vector_norm(x, float('inf'))", "T.linalg.vector_norm(x, -float('inf'), 1)",
    "T.linalg.vector_norm(x, 0, dim=0)", "T.linalg.vector_norm(x, 3, dim=(0, 1), keepdim=True)",
    "T.linalg.vector_norm(x.float(), dtype=T.float64)", "T.linalg.vector_norm(x.half(), 2, -1)",
    "T.linalg.matrix_norm(a3)", "T.linalg.matrix_norm(x, 1)", "T.linalg.matrix_norm(x, -1)",
    "T.linalg.matrix_norm(x, float('inf'))", "T.linalg.matrix_norm(x, -float('inf'))",
    "T.linalg.matrix_norm(x, 'fro', dim=(1, 0))", "T.linalg.matrix_norm(a3, 1, keepdim=True)",
    "T.linalg.matrix_norm(x, float('inf'), dim=(1, 0))",
    "T.linalg.norm(x)", "T.linalg.norm(x, 1)", "T.linalg.norm(x[0], 1)", "T.linalg.norm(x, dim=1)",
    "T.linalg.norm(x, 3, dim=1)", "T.linalg.norm(x, float('inf'), dim=(1, 0))",
    "T.linalg.norm(a3)", "T.linalg.norm(x, 'fro', keepdim=True)", "T.linalg.norm(x, dim=(0,))",
    "T.nn.functional.cosine_similarity(a, b)", "T.cosine_similarity(a, b, dim=0)",
    "T.nn.functional.cosine_similarity(a.unsqueeze(1), a.unsqueeze(0), dim=-1)",
    "T.nn.functional.cosine_similarity(a[2], b, dim=-1)",
    "T.nn.functional.cosine_similarity(a, b, eps=0.5)",
    "T.nn.functional.pairwise_distance(a, b)", "T.pairwise_distance(a, b, p=1, keepdim=True)",
    "T.nn.functional.pairwise_distance(a, b, float('inf'))",
    "T.nn.functional.pairwise_distance(a[0], b[0])", "T.nn.functional.pairwise_distance(a, b, 0)",
    "T.cdist(a, b)", "T.cdist(a, b, p=1)", "T.cdist(a, b, p=0)", "T.cdist(a, b, float('inf'))",
    "T.cdist(a, b, 3)", "T.cdist(a3, b)", "T.cdist(a, a)",
    "T.cdist(a, b, compute_mode='donot_use_mm_for_euclid_dist')",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module`` (tinyffn or torch) as ``T``; the input named
    ``requires_grad`` requires a gradient (returned with the result)."""
    if "half()" in case and tensor_kwargs.get("device") == "strict":
        pytest.skip("the array API standard has no float16")
    inputs = {}
    for name, values in dict(x=X, a=A, b=B, n=N, e=E).items():
        inputs[name] = module.tensor(values, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["i"] = module.tensor([[0, 4, 2], [4, 1, 3]], **tensor_kwargs)
    inputs["a3"] = module.stack([inputs["a"], inputs["b"] * 2])                # (2, 4, 2)
    y = eval(case, {}, {"T": module, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare
assert_same = torch_parity.assert_close    # dtype, shape, values to 1e-12


# dL/d(input) for L = Σ f · (1, 2, 3, ...)/10: a backward that forgets gy shows
GRAD_CASES = [
    ("T.median(x)", "x"), ("T.median(b[:2])", "b"), ("x.median(1).values", "x"),
    ("T.kthvalue(x, 2, 0).values", "x"), ("T.nan_to_num(n)", "n"), ("T.linalg.vector_norm(x)", "x"),
    ("T.linalg.vector_norm(x, 1, dim=1)", "x"), ("T.linalg.vector_norm(x, 3, dim=0)", "x"),
    ("T.linalg.matrix_norm(x, 1)", "x"), ("T.linalg.matrix_norm(x, -float('inf'))", "x"),
    ("T.linalg.matrix_norm(a3)", "a"), ("T.linalg.norm(x, float('inf'), dim=(1, 0))", "x"),
    ("T.nn.functional.cosine_similarity(a, b)", "a"),
    ("T.nn.functional.cosine_similarity(a, b)", "b"),
    ("T.nn.functional.cosine_similarity(a.unsqueeze(1), a.unsqueeze(0), dim=-1)", "a"),
    ("T.nn.functional.pairwise_distance(a, b)", "a"),
    ("T.nn.functional.pairwise_distance(a, b, 1)", "b"),
    ("T.cdist(a, b)", "a"), ("T.cdist(a, b)", "b"), ("T.cdist(a, a)", "a"),
    ("T.cdist(a, b, p=1)", "a"), ("T.cdist(a, b, 3)", "b"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())     # live torch, EXPECTED(_GRADS), their check


# ----------------------------------------------------------------------------- gradcheck
GRADCHECKED = {
    "nan_to_num": (tinyffn.nan_to_num, (X,)),
    "vector_norm": (lambda x: tinyffn.linalg.vector_norm(x, 3, dim=1), (B,)),
    "matrix_norm-fro": (lambda x: tinyffn.linalg.matrix_norm(x), (B,)),
    "matrix_norm-1": (lambda x: tinyffn.linalg.matrix_norm(x, 1), (B,)),
    "matrix_norm-inf": (lambda x: tinyffn.linalg.norm(x, float("inf")), (B,)),
    "cosine_similarity": (lambda a, b: F.cosine_similarity(a, b), (B, [[0.5, -2.0]])),
    "cosine_similarity-pairs": (
        lambda b: F.cosine_similarity(b.unsqueeze(1), b.unsqueeze(0), dim=-1), (B,)),
    "pairwise_distance": (F.pairwise_distance, (B, [[0.5, 0.25], [2.0, -1.0], [0, 0], [1, 1]])),
    "cdist": (tinyffn.cdist, (B, [[0.5, 0.25], [2.0, -1.0]])),
    "cdist-p3": (lambda a, b: tinyffn.cdist(a, b, 3), (B, [[0.5, 0.25], [2.0, -1.0]])),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    inputs = [tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
              for v in values]
    assert tinyffn.gradcheck(fn, inputs)


# ----------------------------------------------------------------------------- by hand
def test_finfo_and_iinfo_are_the_dtypes_limits_as_python_numbers():
    """PyTorch 2.13's values, written out: float16's largest is 65504 (NumPy's float16
    scalar prints 65500.0), its eps 2^-10, its smallest normal 2^-14."""
    h = tinyffn.finfo(tinyffn.float16)
    assert (h.bits, h.max, h.min, h.eps, h.tiny, h.smallest_normal, h.resolution, h.dtype) == (
        16, 65504.0, -65504.0, 2.0 ** -10, 2.0 ** -14, 2.0 ** -14, 0.001, "float16")
    assert all(type(v) is float for v in (h.max, h.eps, h.tiny, h.resolution))
    assert repr(h) == ("finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, "
                       "smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)")
    f = tinyffn.finfo()                                             # float32, the default
    assert (f.bits, f.eps, f.max, f.resolution) == (32, 2.0 ** -23, 3.4028234663852886e+38,
                                                    1e-06)
    assert tinyffn.finfo("float64").eps == 2.0 ** -52 == tinyffn.finfo(tinyffn.tensor(
        [1.0], dtype="float64").dtype).eps
    assert tinyffn.finfo(tinyffn.float16) == h and tinyffn.finfo() != h
    i = tinyffn.iinfo(tinyffn.int64)
    assert (i.bits, i.min, i.max, i.dtype) == (64, -2 ** 63, 2 ** 63 - 1, "int64")
    assert (tinyffn.iinfo(tinyffn.uint8).max, tinyffn.iinfo("int8").min) == (255, -128)
    assert repr(tinyffn.iinfo(tinyffn.int8)) == "iinfo(min=-128, max=127, dtype=int8)"
    assert repr(tinyffn.iinfo(tinyffn.int32)) == (                  # PyTorch's %g
        "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)")


def test_finfo_and_iinfo_match_torch_live():
    torch = pytest.importorskip("torch")
    for name in ("float16", "float32", "float64"):
        ours, theirs = tinyffn.finfo(name), torch.finfo(getattr(torch, name))
        for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(ours, attr) == getattr(theirs, attr), (name, attr)
        assert repr(ours) == repr(theirs)
    for name in ("int8", "int16", "int32", "int64", "uint8"):
        ours, theirs = tinyffn.iinfo(name), torch.iinfo(getattr(torch, name))
        assert (ours.bits, ours.min, ours.max, repr(ours)) == (
            theirs.bits, theirs.min, theirs.max, repr(theirs))


def test_nan_to_num_written_out_in_numpy(device):
    """NaN to ``nan``, ±inf to the dtype's largest finite numbers: np.nan_to_num's rule."""
    for dtype in ("float32", "float64") if device == "strict" else ("float16", "float32",
                                                                       "float64"):
        n = np.array(N, dtype=dtype)
        got = tinyffn.nan_to_num(tinyffn.tensor(n, device=device))
        assert dtype_name(got.dtype) == dtype
        np.testing.assert_array_equal(got.numpy(), np.nan_to_num(n))
        got = tinyffn.tensor(n, device=device).nan_to_num(1.0, 2.0, -3.0).numpy()
        np.testing.assert_array_equal(got, np.nan_to_num(n, nan=1.0, posinf=2.0, neginf=-3.0))


def test_nan_to_num_does_not_replace_a_replacement(device):
    """The places replaced are read from the input: a replacement that is itself ±inf
    (nan=inf, posinf=-inf, 1e300 rounded into float32) stays, as NumPy's and PyTorch's."""
    dtypes = ("float32", "float64") if device == "strict" else ("float16", "float32", "float64")
    for dtype in dtypes:
        n = np.array(N, dtype=dtype)
        for kw in ({"nan": inf}, {"nan": -inf}, {"posinf": -inf}, {"neginf": inf},
                   {"nan": 1e300}, {"posinf": -1e10, "neginf": 1e10}):
            got = tinyffn.nan_to_num(tinyffn.tensor(n, device=device), **kw).numpy()
            with np.errstate(over="ignore"):
                want = np.nan_to_num(n, **kw)
            np.testing.assert_array_equal(got, want, err_msg=f"{dtype} {kw}")


def test_nan_to_num_replacements_against_torch():
    torch = pytest.importorskip("torch")
    for dtype in ("float16", "float32", "float64"):
        n = np.array(N, dtype=dtype)
        for kw in ({"nan": inf}, {"posinf": -inf}, {"neginf": inf}, {"nan": 1e300}):
            got = tinyffn.nan_to_num(tinyffn.tensor(n), **kw).numpy()
            np.testing.assert_array_equal(got, torch.nan_to_num(torch.tensor(n), **kw).numpy(),
                                          err_msg=f"{dtype} {kw}")


def test_nan_to_num_passes_the_gradient_to_finite_entries_alone(device):
    """PyTorch's gradient, grad · isfinite(x): the replaced entries get 0 (not NaN)."""
    n = tinyffn.tensor(N, device=device, requires_grad=True)
    y = tinyffn.nan_to_num(n)
    assert [s.name for s in y.grad_fn.scope if s.kind == "function"][0] == "nan_to_num"
    y.backward(tinyffn.tensor([1.0, 2, 3, 4, 5, 6], device=device))
    assert n.grad.tolist() == [0.0, 0.0, 0.0, 4.0, 5.0, 6.0]


def test_histc_written_out_in_numpy(device):
    """Away from the edges, histc is np.histogram over [min, max] (its last bin closed)."""
    r = np.random.default_rng(0)
    v = r.standard_normal(1000)
    for bins, lo, hi in ((10, -2.0, 2.0), (7, 0.0, 1.0), (30, -3.5, 3.5)):
        want, _ = np.histogram(v[(v >= lo) & (v <= hi)], bins=bins, range=(lo, hi))
        got = tinyffn.histc(tinyffn.tensor(v, device=device), bins, lo, hi)
        assert dtype_name(got.dtype) == "float64" and got.tolist() == want.tolist()
    want, _ = np.histogram(v, bins=13)                              # min = max: the entries'
    assert tinyffn.histc(tinyffn.tensor(v, device=device), 13).tolist() == want.tolist()


def test_histc_puts_edge_entries_where_pytorch_does_live():
    """PyTorch computes (x - min) · bins / (max - min) in the input's dtype: an entry on a
    bin edge (0.3 in float32, 0.7 in float16) lands where that rounding puts it."""
    torch = pytest.importorskip("torch")
    values = np.round(np.arange(0.0, 1.0001, 0.01), 2)
    for dtype in ("float16", "float32", "float64"):
        for bins, lo, hi in ((10, 0, 1), (7, 0, 1), (3, 0.1, 0.7), (100, 0, 1)):
            v = values.astype(dtype)
            ours = tinyffn.histc(tinyffn.tensor(v), bins, lo, hi).tolist()
            assert ours == torch.histc(torch.tensor(v), bins, lo, hi).tolist(), (dtype, bins)


def test_median_and_kthvalue_written_out_in_numpy(device):
    """The lower median, np.sort(...)[(n - 1) // 2] (NumPy's median averages the middle
    two); kthvalue k is np.sort(...)[k - 1]; the index found reads the value back."""
    r = np.random.default_rng(5)
    a = r.standard_normal((4, 7, 6))
    t = tinyffn.tensor(a, device=device)
    assert t.median().item() == np.sort(a.reshape(-1))[(a.size - 1) // 2]
    for dim in (0, 1, 2):
        values, indices = t.median(dim)
        n = a.shape[dim]
        want = np.take(np.sort(a, axis=dim), (n - 1) // 2, axis=dim)
        np.testing.assert_array_equal(values.numpy(), want)
        np.testing.assert_array_equal(
            np.take_along_axis(a, np.expand_dims(indices.numpy(), dim), dim).squeeze(dim), want)
        for k in (1, n):
            v, i = tinyffn.kthvalue(t, k, dim)
            np.testing.assert_array_equal(v.numpy(), np.take(np.sort(a, axis=dim), k - 1, dim))


def test_median_gradient_is_shared_by_ties_and_dims_goes_to_one_index():
    """PyTorch's median() shares its gradient evenly among the entries equal to it;
    median(dim) and kthvalue send it to the index they return (here the earlier of the
    ties, a stable sort's: PyTorch's choice among ties is unspecified)."""
    y = tinyffn.tensor([2.0, 1.0, 2.0, 2.0, 1.0], requires_grad=True)
    y.median().backward()
    np.testing.assert_allclose(y.grad.numpy(), [1 / 3, 0, 1 / 3, 1 / 3, 0], rtol=1e-6)
    y.grad = None
    values, indices = y.median(0)
    values.backward()
    assert indices.item() == 0 and y.grad.tolist() == [1.0, 0, 0, 0, 0]
    assert [s.name for s in values.grad_fn.scope if s.kind == "function"][0] == "median"


def test_count_nonzero_and_histc_record_no_graph():
    x = tinyffn.tensor(X, requires_grad=True)
    assert not x.count_nonzero().requires_grad and not x.histc(4).requires_grad


def test_cosine_similarity_written_out_in_numpy(device):
    """x1 · x2 / (‖x1‖ ‖x2‖) for rows away from 0; the (n, n) table of all pairs, the
    analysis of an FFN's value vectors (columns of W2), has 1 on its diagonal."""
    r = np.random.default_rng(1)
    w = r.standard_normal((64, 16))
    got = F.cosine_similarity(tinyffn.tensor(w, device=device).unsqueeze(1),
                              tinyffn.tensor(w, device=device).unsqueeze(0), dim=-1).numpy()
    unit = w / np.linalg.norm(w, axis=1, keepdims=True)
    np.testing.assert_allclose(got, unit @ unit.T, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(np.diag(got), 1.0, rtol=1e-15)


def test_cosine_similarity_broadcasts_before_its_norms_and_reads_dim_1(device):
    """x1 (1, 3) against x2 (4, 3) along dim 0 (=-2): the norm of x1 repeated 4 times, as
    PyTorch's (not the norm of its one row); the default dim is 1, in 3-D too."""
    a = np.array([[1.0, 2.0, -1.0]])
    b = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0], [3.0, 0.0, -2.0], [0.1, 0.2, 0.3]])
    want = (a * b).sum(0) / (np.sqrt(4 * (a * a).sum(0)) * np.linalg.norm(b, axis=0))
    t1, t2 = tinyffn.tensor(a, device=device), tinyffn.tensor(b, device=device)
    for dim in (0, -2):
        np.testing.assert_allclose(F.cosine_similarity(t1, t2, dim=dim).numpy(), want,
                                   rtol=1e-14)
    c = np.sin(np.arange(24.0)).reshape(2, 3, 4)
    want = (c * c[::-1]).sum(1) / (np.linalg.norm(c, axis=1) * np.linalg.norm(c[::-1], axis=1))
    got = F.cosine_similarity(tinyffn.tensor(c, device=device),
                              tinyffn.tensor(c[::-1].copy(), device=device))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)


def test_cosine_similarity_gradient_of_a_row_shorter_than_eps_is_pytorchs(device):
    """‖x1‖ = 5e-9 < eps = 1e-8: the norm is raised to eps outside the graph, so the
    gradient is that of x / (‖x‖ + const): u2 / eps - (x · u2) x / (‖x‖ eps²), u2 = x2 / ‖x2‖,
    as PyTorch's in-place clamp under no_grad gives (not u2 / eps alone)."""
    x1, x2 = np.array([[3e-9, 4e-9]]), np.array([[1.0, 2.0]])
    u2, n = x2 / np.linalg.norm(x2), np.linalg.norm(x1)
    want = u2 / 1e-8 - (x1 * u2).sum() * x1 / (n * 1e-16)
    t1 = tinyffn.tensor(x1, device=device, requires_grad=True)
    F.cosine_similarity(t1, tinyffn.tensor(x2, device=device)).sum().backward()
    np.testing.assert_allclose(t1.grad.numpy(), want, rtol=1e-12)


def test_cdist_written_out_in_numpy(device):
    r = np.random.default_rng(2)
    a, b = r.standard_normal((30, 5)), r.standard_normal((40, 5))
    for p in (2, 1, 3.5, math.inf):
        want = np.linalg.norm(a[:, None, :] - b[None, :, :], ord=p, axis=-1)
        got = tinyffn.cdist(tinyffn.tensor(a, device=device), tinyffn.tensor(b, device=device), p)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)
    d = tinyffn.cdist(tinyffn.tensor(a, device=device), tinyffn.tensor(a, device=device))
    assert np.diag(d.numpy()).tolist() == [0.0] * 30            # differences: exactly 0


def test_cdist_differs_from_pytorchs_matrix_product_form_only_by_its_rounding():
    """Past 25 rows, PyTorch's default p = 2 mode is the matrix-product form: its diagonal
    of cdist(x, x) is not 0; tinyffn's is, and elsewhere the two agree to rounding."""
    torch = pytest.importorskip("torch")
    w = np.random.default_rng(3).standard_normal((64, 16)).astype(np.float32) * 0.2
    ours = tinyffn.cdist(tinyffn.tensor(w), tinyffn.tensor(w)).numpy()
    theirs = torch.cdist(torch.tensor(w), torch.tensor(w)).numpy()
    exact = torch.cdist(torch.tensor(w), torch.tensor(w),
                        compute_mode="donot_use_mm_for_euclid_dist").numpy()
    assert np.diag(ours).max() == 0.0 < np.diag(theirs).max()
    np.testing.assert_allclose(ours, exact, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours, theirs, atol=2e-3)


def test_linalg_norms_written_out_in_numpy(device):
    r = np.random.default_rng(4)
    m = r.standard_normal((3, 5, 4))
    t = tinyffn.tensor(m, device=device)
    for ord in ("fro", 1, -1, math.inf, -math.inf):
        want = np.linalg.norm(m, ord=ord, axis=(1, 2))
        got = tinyffn.linalg.matrix_norm(t, ord).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-13, err_msg=str(ord))
    for ord in (1, 2, 3, math.inf, -math.inf, 0):
        want = np.linalg.norm(m.reshape(-1), ord=ord)
        np.testing.assert_allclose(tinyffn.linalg.vector_norm(t, ord).item(), want, rtol=1e-13)


def test_each_is_drawn_in_a_frame_of_its_name():
    a, b = tinyffn.tensor(A, requires_grad=True), tinyffn.tensor(B)
    for y, name in [(F.cosine_similarity(a, b), "cosine_similarity"),
                    (F.pairwise_distance(a, b), "pairwise_distance"), (tinyffn.cdist(a, b), "cdist"),
                    (tinyffn.linalg.matrix_norm(a, 1), "matrix_norm")]:
        assert [s.name for s in y.grad_fn.scope if s.kind == "function"][0] == name


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("call, error, match", [
    ("T.finfo(T.int64)", TypeError, "finfo: int64 is not a floating dtype; .* tinyffn.iinfo"),
    ("T.iinfo(T.float32)", TypeError, "iinfo: float32 is not an integer dtype; .*finfo"),
    ("T.iinfo(T.bool)", TypeError, "iinfo: bool is not an integer dtype"),
    ("T.finfo(3)", TypeError, "finfo: expected a dtype"),
    ("T.nan_to_num(X)", TypeError, "nan_to_num: input must be a tinyffn Tensor, got list"),
    ("T.nan_to_num(x, nan=None)", TypeError, "nan_to_num: nan must be a number, got None"),
    ("T.histc(i, 3)", TypeError, r"histc: .* dtype int64; .* x\.float\(\)"),
    ("T.histc(x, 0)", ValueError, "histc: bins must be a positive int, got 0"),
    ("T.histc(x, 3, 2, 1)", ValueError, "histc: max must be larger than min"),
    ("T.histc(x, 3, 0, float('inf'))", ValueError, "histc: max must be a finite number"),
    ("T.histc(T.tensor([1.0, float('inf')]), 3)", ValueError, r"histc: the range .* not finite"),
    ("T.kthvalue(x, 0)", ValueError, r"kthvalue: k must be an int in \[1, 4\] .* got 0"),
    ("T.kthvalue(x, 3, 0)", ValueError, r"kthvalue: k must be an int in \[1, 2\]"),
    ("T.median(x, keepdim=True)", TypeError, "median: keepdim needs a dim"),
    ("T.median(x[:0])", ValueError, "median: the tensor is empty"),
    ("T.median(x, 2)", ValueError, "median: dim 2 is out of range"),
    ("T.median(x[:, :0], 1)", ValueError, r"median: dim 1 of a tensor of shape \(2, 0\) is empty"),
    ("i[:, :0].median(-1)", ValueError, r"median: dim -1 of .* is empty"),
    ("T.linalg.vector_norm(i)", TypeError, r"linalg.vector_norm: .* dtype int64"),
    ("T.linalg.vector_norm(x, float('nan'))", ValueError, "ord must be a number"),
    ("T.linalg.vector_norm(x, 'fro')", ValueError, "for a matrix norm use linalg.matrix_norm"),
    ("T.linalg.vector_norm(x.double(), dtype=T.float32)", ValueError, "dtype=float32 would narrow"),
    ("T.linalg.matrix_norm(x, 3)", ValueError, "ord must be 'fro', 'nuc', 2, -2, 1, -1, inf"),
    ("T.linalg.matrix_norm(x[0])", ValueError, r"at least 2 axes .* shape \(4,\)"),
    ("T.linalg.matrix_norm(x, dim=(0, 0))", ValueError, "two different axes"),
    ("T.linalg.norm(x.reshape(2, 2, 2), 1)", ValueError, "A must be a vector or a matrix"),
    ("F.cosine_similarity(i, i)", TypeError, "cosine_similarity: x1 has dtype int64"),
    ("F.cosine_similarity(x, x[:, :2])", ValueError, r"shapes \(2, 4\) and \(2, 2\) cannot"),
    ("F.cosine_similarity(x, x, dim=2)", ValueError, "dim must be an axis of the broadcast"),
    ("T.cdist(x[0], x[0])", ValueError, "cdist: x1 and x2 must have at least 2 axes"),
    ("T.cdist(x, x[:, :3])", ValueError, "must have rows of the same length M"),
    ("T.cdist(x, x, -1)", ValueError, "cdist: p must be a number >= 0"),
    ("T.cdist(x, x, compute_mode='mm')", ValueError, "cdist: compute_mode must be one of"),
    ("F.cosine_similarity(x, x, eps=-1.0)", ValueError, "eps must be a number >= 0, got -1.0"),
    ("F.cosine_similarity(x, x, eps=None)", ValueError, "eps must be a number >= 0, got None"),
    ("F.pairwise_distance(x, x[:, :3])", ValueError,
     r"pairwise_distance: shapes \(2, 4\) and \(2, 3\) cannot be broadcast"),
    ("F.pairwise_distance(x, x, eps=None)", TypeError, "pairwise_distance: eps must be a number"),
    ("T.cdist(x, x, True)", ValueError, "cdist: p must be a number >= 0"),
    ("T.cdist(T.zeros(2, 3, 4), T.zeros(3, 5, 4))", ValueError,
     r"cdist \(the leading axes\): shapes \(2,\) and \(3,\) cannot be broadcast"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    names = {"T": tinyffn, "F": F, "x": tinyffn.tensor(X), "X": X,
             "i": tinyffn.tensor([[0, 4, 2], [4, 1, 3]])}
    with pytest.raises(error, match=match):
        eval(call, {}, names)


EXPECTED = {
    'T.median(x)': ('float64', 0.0),
    'x.median(1)': (('float64', [0.0, -0.5]), ('int64', [2, 2])),
    'T.median(x, 0, keepdim=True)': (('float64', [[1.0, -4.0, -0.5, -2.5]]), ('int64', [[1, 0, 1, 1]])),
    'T.median(n)': ('float64', nan),
    'T.median(n.reshape(2, 3), 1)': (('float64', [nan, 1.0]), ('int64', [0, 2])),
    'T.median(i)': ('int64', 2),
    'i.median(1)': (('int64', [2, 3]), ('int64', [2, 2])),
    'T.median(x[0, 0], 0)': (('float64', 3.0), ('int64', 0)),
    'T.kthvalue(x, 2)': (('float64', [0.0, -0.5]), ('int64', [2, 2])),
    'x.kthvalue(1, 0)': (('float64', [1.0, -4.0, -0.5, -2.5]), ('int64', [1, 0, 1, 1])),
    'T.kthvalue(x, 4, 1, keepdim=True)': (('float64', [[3.0], [2.0]]), ('int64', [[0], [1]])),
    'T.kthvalue(n, 6)': (('float64', nan), ('int64', 0)),
    'T.kthvalue(i, 3, dim=1)': (('int64', [4, 4]), ('int64', [1, 0])),
    'T.nan_to_num(n)': ('float64', [0.0, 1.7976931348623157e+308, -1.7976931348623157e+308, 2.0, -0.0, 1.0]),
    'T.nan_to_num(n, nan=1.0, posinf=2.0, neginf=-3.0)': ('float64', [1.0, 2.0, -3.0, 2.0, -0.0, 1.0]),
    'n.nan_to_num(posinf=5.0)': ('float64', [0.0, 5.0, -1.7976931348623157e+308, 2.0, -0.0, 1.0]),
    'T.nan_to_num(n.half())': ('float16', [0.0, 65504.0, -65504.0, 2.0, -0.0, 1.0]),
    'T.nan_to_num(n.float(), 7.0)': ('float32', [7.0, 3.4028234663852886e+38, -3.4028234663852886e+38, 2.0, -0.0, 1.0]),
    'T.nan_to_num(n.half(), posinf=1e10)': ('float16', [0.0, inf, -65504.0, 2.0, -0.0, 1.0]),
    'T.nan_to_num(i)': ('int64', [[0, 4, 2], [4, 1, 3]]),
    'T.count_nonzero(x)': ('int64', 7),
    'T.count_nonzero(x, dim=1)': ('int64', [3, 4]),
    'x.count_nonzero((0, 1))': ('int64', 7),
    'T.count_nonzero(n, 0)': ('int64', 5),
    'T.count_nonzero(i > 1)': ('int64', 4),
    'T.histc(x, bins=4)': ('float64', [2.0, 0.0, 3.0, 3.0]),
    'T.histc(x, 3, -1, 1)': ('float64', [1.0, 1.0, 1.0]),
    'x.histc(5, 0, 2)': ('float64', [1.0, 0.0, 1.0, 1.0, 1.0]),
    'T.histc(x[0, :1], 4)': ('float64', [0.0, 0.0, 1.0, 0.0]),
    'T.histc(n, 4, -1, 3)': ('float64', [0.0, 1.0, 1.0, 1.0]),
    'T.histc(e, 10, 0, 1)': ('float64', [1.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 0.0, 2.0]),
    'T.histc(e.float(), 10, 0, 1)': ('float32', [1.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 0.0, 2.0]),
    'T.histc(e.half(), 10, 0, 1)': ('float16', [1.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 0.0, 2.0]),
    'T.histc(e.float() * 7 - 2, 7)': ('float32', [2.0, 1.0, 2.0, 1.0, 2.0, 0.0, 2.0]),
    'T.histc(e[:0], 3)': ('float64', [0.0, 0.0, 0.0]),
    'T.linalg.vector_norm(x)': ('float64', 6.224949798994366),
    'T.linalg.vector_norm(x, 1, dim=1)': ('float64', [8.5, 6.0]),
    "T.linalg.vector_norm(x, float('inf'))": ('float64', 4.0),
    "T.linalg.vector_norm(x, -float('inf'), 1)": ('float64', [0.0, 0.5]),
    'T.linalg.vector_norm(x, 0, dim=0)': ('float64', [2.0, 2.0, 1.0, 2.0]),
    'T.linalg.vector_norm(x, 3, dim=(0, 1), keepdim=True)': ('float64', [[4.920406360337664]]),
    'T.linalg.vector_norm(x.float(), dtype=T.float64)': ('float64', 6.224949798994366),
    'T.linalg.vector_norm(x.half(), 2, -1)': ('float16', [5.21875, 3.390625]),
    'T.linalg.matrix_norm(a3)': ('float64', [5.766281297335398, 7.615773105863909]),
    'T.linalg.matrix_norm(x, 1)': ('float64', 6.0),
    'T.linalg.matrix_norm(x, -1)': ('float64', 0.5),
    "T.linalg.matrix_norm(x, float('inf'))": ('float64', 8.5),
    "T.linalg.matrix_norm(x, -float('inf'))": ('float64', 6.0),
    "T.linalg.matrix_norm(x, 'fro', dim=(1, 0))": ('float64', 6.224949798994366),
    'T.linalg.matrix_norm(a3, 1, keepdim=True)': ('float64', [[[6.5]], [[11.0]]]),
    "T.linalg.matrix_norm(x, float('inf'), dim=(1, 0))": ('float64', 6.0),
    'T.linalg.norm(x)': ('float64', 6.224949798994366),
    'T.linalg.norm(x, 1)': ('float64', 6.0),
    'T.linalg.norm(x[0], 1)': ('float64', 8.5),
    'T.linalg.norm(x, dim=1)': ('float64', [5.220153254455275, 3.391164991562634]),
    'T.linalg.norm(x, 3, dim=1)': ('float64', [4.552874245617287, 2.914238341625728]),
    "T.linalg.norm(x, float('inf'), dim=(1, 0))": ('float64', 6.0),
    'T.linalg.norm(a3)': ('float64', 9.5524865872714),
    "T.linalg.norm(x, 'fro', keepdim=True)": ('float64', [[6.224949798994366]]),
    'T.linalg.norm(x, dim=(0,))': ('float64', [3.1622776601683795, 4.47213595499958, 0.5, 2.9154759474226504]),
    'T.nn.functional.cosine_similarity(a, b)': ('float64', [0.7071067811865475, 0.0, -0.6305926250944658, 1.0000000000000002]),
    'T.cosine_similarity(a, b, dim=0)': ('float64', [0.5853694070049635, -0.11061060806599471]),
    'T.nn.functional.cosine_similarity(a.unsqueeze(1), a.unsqueeze(0), dim=-1)': ('float64', [[1.0, 0.0, 0.6, -0.3713906763541037], [0.0, 0.0, 0.0, 0.0], [0.6, 0.0, 1.0, 0.5199469468957454], [-0.3713906763541037, 0.0, 0.5199469468957454, 1.0000000000000002]]),
    'T.nn.functional.cosine_similarity(a[2], b, dim=-1)': ('float64', [0.9899494936611665, 0.6, -0.6305926250944658, 0.5199469468957454]),
    'T.nn.functional.cosine_similarity(a, b, eps=0.5)': ('float64', [0.7071067811865475, 0.0, -0.6305926250944658, 1.0000000000000002]),
    'T.nn.functional.pairwise_distance(a, b)': ('float64', [0.9999990000004999, 0.9999990000004999, 6.50000130769233, 1.414213562373095e-06]),
    'T.pairwise_distance(a, b, p=1, keepdim=True)': ('float64', [[1.0], [1.0], [8.500002], [2e-06]]),
    "T.nn.functional.pairwise_distance(a, b, float('inf'))": ('float64', [0.999999, 0.999999, 6.000001, 1e-06]),
    'T.nn.functional.pairwise_distance(a[0], b[0])': ('float64', 0.9999990000004999),
    'T.nn.functional.pairwise_distance(a, b, 0)': ('float64', [2.0, 2.0, 2.0, 2.0]),
    'T.cdist(a, b)': ('float64', [[1.0, 0.0, 2.0615528128088303, 3.2015621187164243], [1.4142135623730951, 1.0, 2.0615528128088303, 2.692582403567252], [3.605551275463989, 4.47213595499958, 6.5, 4.272001872658765], [2.5, 3.2015621187164243, 4.743416490252569, 0.0]]),
    'T.cdist(a, b, p=1)': ('float64', [[1.0, 0.0, 2.5, 4.5], [2.0, 1.0, 2.5, 3.5], [5.0, 6.0, 8.5, 5.5], [3.5, 4.5, 6.0, 0.0]]),
    'T.cdist(a, b, p=0)': ('float64', [[1.0, 0.0, 2.0, 2.0], [2.0, 1.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 0.0]]),
    "T.cdist(a, b, float('inf'))": ('float64', [[1.0, 0.0, 2.0, 2.5], [1.0, 1.0, 2.0, 2.5], [3.0, 4.0, 6.0, 4.0], [2.0, 2.5, 4.5, 0.0]]),
    'T.cdist(a, b, 3)': ('float64', [[1.0, 0.0, 2.010362879294529, 2.8693967741585835], [1.2599210498948732, 1.0, 2.010362879294529, 2.5522343610007314], [3.2710663101885897, 4.160167646103808, 6.141321179758671, 4.069111522198851], [2.2489707226377074, 2.8693967741585835, 4.554883457813493, 0.0]]),
    'T.cdist(a3, b)': ('float64', [[[1.0, 0.0, 2.0615528128088303, 3.2015621187164243], [1.4142135623730951, 1.0, 2.0615528128088303, 2.692582403567252], [3.605551275463989, 4.47213595499958, 6.5, 4.272001872658765], [2.5, 3.2015621187164243, 4.743416490252569, 0.0]], [[1.4142135623730951, 2.23606797749979, 4.272001872658765, 3.0413812651491097], [1.4142135623730951, 1.0, 2.5, 3.905124837953327], [5.0, 4.0, 2.0615528128088303, 6.800735254367722], [5.0, 5.830951894845301, 7.433034373659253, 2.692582403567252]]]),
    'T.cdist(a, a)': ('float64', [[0.0, 1.0, 4.47213595499958, 3.2015621187164243], [1.0, 0.0, 5.0, 2.692582403567252], [4.47213595499958, 5.0, 0.0, 4.272001872658765], [3.2015621187164243, 2.692582403567252, 4.272001872658765, 0.0]]),
    "T.cdist(a, b, compute_mode='donot_use_mm_for_euclid_dist')": ('float64', [[1.0, 0.0, 2.0615528128088303, 3.2015621187164243], [1.4142135623730951, 1.0, 2.0615528128088303, 2.692582403567252], [3.605551275463989, 4.47213595499958, 6.5, 4.272001872658765], [2.5, 3.2015621187164243, 4.743416490252569, 0.0]]),
}
EXPECTED_GRADS = {
    'T.median(x) dx': ('float64', [[0.0, 0.0, 0.1, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    'T.median(b[:2]) db': ('float64', [[0.03333333333333333, 0.03333333333333333], [0.03333333333333333, 0.0], [0.0, 0.0], [0.0, 0.0]]),
    'x.median(1).values dx': ('float64', [[0.0, 0.0, 0.1, 0.0], [0.0, 0.0, 0.2, 0.0]]),
    'T.kthvalue(x, 2, 0).values dx': ('float64', [[0.1, 0.0, 0.3, 0.4], [0.0, 0.2, 0.0, 0.0]]),
    'T.nan_to_num(n) dn': ('float64', [0.0, 0.0, 0.0, 0.4, 0.5, 0.6]),
    'T.linalg.vector_norm(x) dx': ('float64', [[0.048193159734149935, -0.06425754631219992, 0.0, 0.024096579867074967], [0.01606438657804998, 0.03212877315609996, -0.00803219328902499, -0.04016096644512494]]),
    'T.linalg.vector_norm(x, 1, dim=1) dx': ('float64', [[0.1, -0.1, 0.0, 0.1], [0.2, 0.2, -0.2, -0.2]]),
    'T.linalg.vector_norm(x, 3, dim=0) dx': ('float64', [[0.09760464552457489, -0.18489633982683593, 0.0, 0.1263979728341974], [0.010844960613841654, 0.04622408495670898, -0.3, -0.3511054800949928]]),
    'T.linalg.matrix_norm(x, 1) dx': ('float64', [[0.0, -0.1, 0.0, 0.0], [0.0, 0.1, -0.0, -0.0]]),
    "T.linalg.matrix_norm(x, -float('inf')) dx": ('float64', [[0.0, -0.0, 0.0, 0.0], [0.1, 0.1, -0.1, -0.1]]),
    'T.linalg.matrix_norm(a3) da': ('float64', [[0.0173421993904824, 0.0], [0.0, 0.0], [0.0520265981714472, 0.0693687975619296], [-0.0173421993904824, 0.043355498476206]]),
    "T.linalg.norm(x, float('inf'), dim=(1, 0)) dx": ('float64', [[0.0, -0.1, 0.0, 0.0], [0.0, 0.1, -0.0, -0.0]]),
    'T.nn.functional.cosine_similarity(a, b) da': ('float64', [[0.0, 0.07071067811865475], [20000000.0, 0.0], [0.03725347200558074, -0.027940104004185555], [6.938893903907228e-18, -2.7755575615628914e-17]]),
    'T.nn.functional.cosine_similarity(a, b) db': ('float64', [[0.03535533905932738, -0.03535533905932737], [0.0, 0.0], [0.1095690353105316, 0.02739225882763291], [6.938893903907228e-18, -2.7755575615628914e-17]]),
    'T.nn.functional.cosine_similarity(a.unsqueeze(1), a.unsqueeze(0), dim=-1) da': ('float64', [[0.0, 2.5384103745049407], [90294051.20209718, 340264871.99475706], [-0.21541377602543746, 0.16156033201907802], [1.3395677498841123, 0.5358270999536444]]),
    'T.nn.functional.pairwise_distance(a, b) da': ('float64', [[1.0000010000005002e-07, -0.09999999999995002], [-0.19999999999990004, 2.0000020000010003e-07], [0.11538463832498361, 0.27692306736458905], [0.28284271247461906, 0.28284271247461906]]),
    'T.nn.functional.pairwise_distance(a, b, 1) db': ('float64', [[-0.1, 0.1], [0.2, -0.2], [-0.3, -0.3], [-0.4, -0.4]]),
    'T.cdist(a, b) da': ('float64', [[0.32263870653266963, -0.12130477373361262], [-0.8262157870354238, -0.4172349931997489], [2.4931157082624407, 3.080005201194661], [-2.3889147156014507, 3.2962412802960133]]),
    'T.cdist(a, b) db': ('float64', [[0.8943232139905675, -1.0752918743107858], [1.027359471076236, -1.9876435242201582], [0.148278975962867, -3.408552062605718], [-1.670585573187906, 0.6337807465793497]]),
    'T.cdist(a, a) da': ('float64', [[1.2253252662425718, -2.400789605253051], [-0.9029405120209718, -3.4026487199475706], [4.08474509403637, 3.3813459214885566], [-4.40712984825797, 2.422092403712065]]),
    'T.cdist(a, b, p=1) da': ('float64', [[0.7, -0.20000000000000004], [-1.0, -0.6000000000000001], [4.2, 4.2], [-4.2, 4.2]]),
    'T.cdist(a, b, 3) db': ('float64', [[1.006628629488701, -0.9203446979910517], [1.0490328846466381, -1.9872212451188405], [0.005133114132104516, -3.503743916122299], [-1.4767273452669663, 0.9081627160163035]]),
}


def test_finfo_and_iinfo_take_a_tensors_dtype_on_every_device(device):
    """finfo(x.dtype).eps, as ported code reads it: the strict backend's dtypes are not
    NumPy's, and finfo refused them (found by the distributions helper)."""
    x = tinyffn.zeros(2, device=device)
    assert tinyffn.finfo(x.dtype).eps == np.finfo(np.float32).eps
    i = tinyffn.zeros(2, dtype="int8", device=device)
    assert tinyffn.iinfo(i.dtype).max == 127
