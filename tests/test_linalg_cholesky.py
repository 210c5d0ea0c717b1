"""linalg.cholesky, cholesky_ex, solve_triangular, matrix_exp; torch.cholesky_solve,
cholesky_inverse, torch.cholesky, torch.matrix_exp and their Tensor methods; and the three
gaps closed in linalg_extra.py (cond of empty matrices, lstsq with a batch of vectors,
matrix_power of integer matrices).

Values written out by hand for CI without torch, against PyTorch live (values, and
gradients through a random-weighted loss), gradcheck in float64 on every device, batches,
and the errors.
"""
import math
import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import linalg
from tinyffn.backend import dtype_name

rng = np.random.default_rng(11)


def _t(a, device="cpu", grad=False, dtype="float64"):
    return tinyffn.tensor(np.asarray(a), dtype=dtype, device=device, requires_grad=grad)


def _spd(*batch, n=4):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# ------------------------------------------------------------------ values written out by hand
def test_cholesky_of_a_two_by_two_written_out(device):
    # [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, √2]]; the 99 above is not read
    L = linalg.cholesky(_t([[4.0, 99.0], [2.0, 3.0]], device))
    np.testing.assert_allclose(L.numpy(), [[2.0, 0.0], [1.0, math.sqrt(2)]], rtol=1e-15)
    U = linalg.cholesky(_t([[4.0, 2.0], [99.0, 3.0]], device), upper=True)   # upper read
    np.testing.assert_allclose(U.numpy(), [[2.0, 1.0], [0.0, math.sqrt(2)]], rtol=1e-15)
    # A^{-1} = [[3, -2], [-2, 4]] / 8
    Ainv = tinyffn.cholesky_inverse(L)
    np.testing.assert_allclose(Ainv.numpy(), [[0.375, -0.25], [-0.25, 0.5]], atol=1e-15)
    x = tinyffn.cholesky_solve(_t([[1.0], [2.0]], device), L)      # A^{-1} [1, 2]
    np.testing.assert_allclose(x.numpy(), [[-0.125], [0.75]], atol=1e-15)
    np.testing.assert_allclose(tinyffn.cholesky_solve(_t([[1.0], [2.0]], device), U, upper=True)
                               .numpy(), [[-0.125], [0.75]], atol=1e-15)


def test_cholesky_gradient_written_out():
    """A = [[a, b], [b, c]]: L00 = √a, so dL00/da = 1 / (2√a) = 1/4 at a = 4, the rest 0."""
    A = _t([[4.0, 2.0], [2.0, 3.0]], grad=True)
    linalg.cholesky(A)[0, 0].backward()
    np.testing.assert_allclose(A.grad.numpy(), [[0.25, 0.0], [0.0, 0.0]], atol=1e-15)


def test_solve_triangular_written_out(device):
    T = _t([[2.0, 9.0], [3.0, 4.0]], device)            # lower: the 9 is not read
    b = _t([[1.0], [2.0]], device)
    # 2 x = 1, 3 x + 4 y = 2: x = 1/2, y = 1/8
    np.testing.assert_allclose(linalg.solve_triangular(T, b, upper=False).numpy(),
                               [[0.5], [0.125]], rtol=1e-15)
    # unit diagonal: x = 1, 3 + y = 2
    np.testing.assert_allclose(linalg.solve_triangular(T, b, upper=False, unitriangular=True)
                               .numpy(), [[1.0], [-1.0]], rtol=1e-15)
    # X T = [1, 2] with T's upper triangle [[2, 9], [0, 4]]: 2 x = 1, 9 x + 4 y = 2
    np.testing.assert_allclose(linalg.solve_triangular(T, b.mT, upper=True, left=False).numpy(),
                               [[0.5, (2 - 4.5) / 4]], rtol=1e-15)


# inf and NaN are the answer here: NumPy's divide-by-zero warnings are expected
@pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")
def test_zero_on_the_diagonal_gives_inf_and_nan_as_pytorch(device):
    X = linalg.solve_triangular(_t(np.zeros((2, 2)), device), _t([[1.0], [2.0]], device),
                                upper=True)
    x = X.numpy()
    assert np.isnan(x[0, 0]) and x[1, 0] == math.inf            # torch: [[nan], [inf]]


def test_matrix_exp_written_out(device):
    # a rotation generator: exp([[0, -t], [t, 0]]) = [[cos t, -sin t], [sin t, cos t]]
    E = linalg.matrix_exp(_t([[0.0, -1.0], [1.0, 0.0]], device))
    c, s = math.cos(1.0), math.sin(1.0)
    np.testing.assert_allclose(E.numpy(), [[c, -s], [s, c]], atol=1e-15)
    # nilpotent: exp(N) = I + N; diagonal: exp of the entries; large norm: squared 6 times
    np.testing.assert_allclose(_t([[0.0, 5.0], [0.0, 0.0]], device).matrix_exp().numpy(),
                               [[1.0, 5.0], [0.0, 1.0]], atol=1e-14)
    np.testing.assert_allclose(tinyffn.matrix_exp(_t(np.diag([-3.0, 40.0]), device)).numpy(),
                               np.diag(np.exp([-3.0, 40.0])), rtol=1e-13)
    assert linalg.matrix_exp(_t(np.zeros((0, 0)), device)).shape == (0, 0)


def test_matrix_exp_gradient_of_a_diagonal_written_out():
    """d exp(A)_00 / d A_00 = e^{A_00} at a diagonal A; d exp(A)_00 / d A_01 = 0 there, and
    d exp(A)_01 / d A_01 = (e^a − e^d) / (a − d), the divided difference."""
    A = _t(np.diag([1.0, 2.0]), grad=True)
    linalg.matrix_exp(A)[0, 1].backward()
    np.testing.assert_allclose(A.grad.numpy(), [[0, (math.e - math.e ** 2) / (1 - 2)], [0, 0]],
                               atol=1e-13)


# the matrices are not positive definite on purpose: slogdet of them warns in NumPy
@pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")
def test_cholesky_ex_info_and_errors_name_the_minor(device):
    A = np.stack([_spd(n=3), -np.eye(3), np.diag([1.0, -1.0, 1.0]), np.full((3, 3), np.nan)])
    L, info = r = linalg.cholesky_ex(_t(A, device))
    assert r.L is L and r.info is info
    assert dtype_name(info.dtype) == "int32" and info.tolist() == [0, 1, 2, 1]
    L0 = np.linalg.cholesky(A[0])       # cuSOLVER rounds otherwise: close normwise, not per entry
    np.testing.assert_allclose(L.numpy()[0], L0, rtol=1e-14, atol=1e-14 * np.abs(L0).max())
    assert np.isnan(L.numpy()[1:]).all()
    with pytest.raises(linalg.LinAlgError, match=r"cholesky: \(Batch element 1\).*leading "
                                                 r"minor of order 1 is not positive-definite"):
        linalg.cholesky(_t(A, device))
    with pytest.raises(RuntimeError, match=r"cholesky_ex: .*order 2 .*shape \(3, 3\)"):
        linalg.cholesky_ex(_t(A[2], device), check_errors=True)
    ok = linalg.cholesky_ex(_t(np.zeros((3, 0, 0)), device))
    assert ok.L.shape == (3, 0, 0) and ok.info.tolist() == [0, 0, 0]


def test_shape_and_dtype_errors():
    with pytest.raises(ValueError, match=r"cholesky: A must be batches of square matrices"):
        linalg.cholesky(_t(np.ones((2, 3))))
    with pytest.raises(TypeError, match=r"matrix_exp: A has dtype int64"):
        linalg.matrix_exp(tinyffn.tensor([[1, 2], [3, 4]]))
    T = _t(np.eye(3))
    with pytest.raises(ValueError, match=r"solve_triangular: .*at least 2-D"):
        linalg.solve_triangular(T, _t(np.ones(3)), upper=True)
    with pytest.raises(ValueError, match=r"solve_triangular: A of shape \(3, 3\) and B of "
                                         r"shape \(2, 1\) do not fit"):
        linalg.solve_triangular(T, _t(np.ones((2, 1))), upper=True)
    with pytest.raises(ValueError, match=r"cannot be broadcast"):
        linalg.solve_triangular(_t(np.ones((2, 3, 3))), _t(np.ones((3, 3, 1))), upper=True)
    with pytest.raises(ValueError, match=r"cholesky_solve: .*n = 3 rows as L \(3, 3\); got \(2, 1\)"):
        tinyffn.cholesky_solve(_t(np.ones((2, 1))), T)              # named, not solve_triangular
    with pytest.raises(TypeError, match=r"cholesky_solve: B has dtype float32 and L float64"):
        tinyffn.cholesky_solve(_t(np.ones((3, 1)), dtype="float32"), T)     # torch refuses too
    with pytest.raises(TypeError, match="upper"):          # keyword-only and required, as torch
        linalg.solve_triangular(T, _t(np.ones((3, 1))))
    with pytest.raises(ValueError, match=r"cholesky_solve: B must be .* at least 2-D"):
        tinyffn.cholesky_solve(_t(np.ones(3)), T)


def test_solve_triangular_casts_b_to_a_dtype_as_torch():
    """torch.linalg.solve_triangular casts B to A's dtype: float64 A with float32 or int64 B
    gives float64, float32 A with float64 B gives float32 (tinyffn refused, saying wrongly
    that PyTorch does); B's gradient comes back in B's dtype."""
    A = np.array([[2.0, 0.0], [1.0, 4.0]])
    for a_dtype, b, want in [("float64", np.array([[1.0], [3.0]], np.float32), "float64"),
                             ("float32", np.array([[1.0], [3.0]]), "float32"),
                             ("float64", np.array([[1], [3]]), "float64")]:
        B = tinyffn.tensor(b, requires_grad=b.dtype.kind == "f")
        X = linalg.solve_triangular(_t(A, dtype=a_dtype), B, upper=False)
        assert dtype_name(X.dtype) == want
        np.testing.assert_allclose(X.numpy(), [[0.5], [0.625]], rtol=1e-6)   # by hand
        if B.requires_grad:
            X.sum().backward()                                      # gB = A^{-T} 1
            assert dtype_name(B.grad.dtype) == dtype_name(B.dtype)
            np.testing.assert_allclose(B.grad.numpy(), [[0.375], [0.25]], rtol=1e-6)


# ------------------------------------------------------------------ gradcheck, every device
def test_gradcheck_every_device(device):
    a = _t(rng.standard_normal((2, 3, 3)), device, grad=True)
    b = _t(rng.standard_normal((3, 2)), device, grad=True)
    eye = tinyffn.eye(3, dtype=a.dtype, device=device)
    spd = lambda a: a @ a.mT + 3 * eye                                        # noqa: E731
    assert tinyffn.gradcheck(lambda a: linalg.cholesky(spd(a)), [a])
    assert tinyffn.gradcheck(lambda a: linalg.cholesky(spd(a), upper=True), [a])
    assert tinyffn.gradcheck(lambda a: linalg.cholesky_ex(spd(a)).L, [a])
    assert tinyffn.gradcheck(lambda a, b: tinyffn.cholesky_solve(b, linalg.cholesky(spd(a))),
                             [a, b])
    assert tinyffn.gradcheck(lambda a: tinyffn.cholesky_inverse(linalg.cholesky(spd(a))), [a])
    t = _t(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), device, grad=True)
    for upper in (False, True):
        for unit in (False, True):
            assert tinyffn.gradcheck(lambda t, b: linalg.solve_triangular(
                t, b, upper=upper, unitriangular=unit), [t, b])
            assert tinyffn.gradcheck(lambda t, b: linalg.solve_triangular(
                t, b.mT, upper=upper, left=False, unitriangular=unit), [t, b])
    assert tinyffn.gradcheck(lambda a: linalg.matrix_exp(a), [a])
    big = _t(rng.standard_normal((3, 3)) * 3, device, grad=True)      # norm > θ13: squarings
    assert tinyffn.gradcheck(lambda a: linalg.matrix_exp(a), [big], rtol=1e-5)


# ------------------------------------------------------------------ against PyTorch live
def _both(a, grad=True):
    torch = pytest.importorskip("torch")
    return _t(a, grad=grad), torch.tensor(a, requires_grad=grad)


def _loss_and_grads(f_ours, f_torch, inputs):
    """Σ w ⊙ f for a random w, backward, on both: the values and each input's gradient."""
    torch = pytest.importorskip("torch")
    ours = [_t(a, grad=True) for a in inputs]
    theirs = [torch.tensor(a, requires_grad=True) for a in inputs]
    y, yt = f_ours(*ours), f_torch(*theirs)
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = rng.standard_normal(tuple(yt.shape))
    (y * _t(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    for x, xt in zip(ours, theirs):
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_matches_torch(upper):
    torch = pytest.importorskip("torch")
    A = _spd(2, n=4)
    A[..., 0, 3] += 50.0                 # the triangle not read: torch does not read it either
    A = A if not upper else np.swapaxes(A, -1, -2)
    _loss_and_grads(lambda a: linalg.cholesky(a, upper=upper),
                    lambda a: torch.linalg.cholesky(a, upper=upper), [A])
    with warnings.catch_warnings():          # torch.cholesky warns that it is deprecated
        warnings.simplefilter("ignore", UserWarning)
        _loss_and_grads(lambda a: tinyffn.cholesky(a, upper) + a.cholesky(upper=upper),
                        lambda a: torch.cholesky(a, upper) + a.cholesky(upper=upper), [A])


def test_cholesky_ex_info_matches_torch():
    torch = pytest.importorskip("torch")
    A = np.stack([_spd(n=4), np.diag([1.0, 2.0, -1.0, 3.0]), -_spd(n=4),
                  np.array([[1.0, 2, 0, 0], [2, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])])
    ours = linalg.cholesky_ex(_t(A)).info.tolist()
    assert ours == torch.linalg.cholesky_ex(torch.tensor(A)).info.tolist() == [0, 3, 1, 2]


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_matches_torch(upper, left, unit):
    torch = pytest.importorskip("torch")
    A = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    B = rng.standard_normal((4, 3) if left else (3, 4))           # broadcast over A's batch
    kw = dict(upper=upper, left=left, unitriangular=unit)
    _loss_and_grads(lambda a, b: linalg.solve_triangular(a, b, **kw),
                    lambda a, b: torch.linalg.solve_triangular(a, b, **kw), [A, B])


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_match_torch(upper):
    """Through cholesky (a full A's gradient matches torch's); with a leaf L, only the
    triangle read is compared (torch's formula also fills the other one)."""
    torch = pytest.importorskip("torch")
    A, B = _spd(2, n=3), rng.standard_normal((2, 3, 2))
    _loss_and_grads(lambda a, b: tinyffn.cholesky_solve(b, linalg.cholesky(a, upper=upper), upper),
                    lambda a, b: torch.cholesky_solve(b, torch.linalg.cholesky(a, upper=upper), upper),
                    [A, B])
    _loss_and_grads(lambda a: linalg.cholesky(a, upper=upper).cholesky_inverse(upper),
                    lambda a: torch.linalg.cholesky(a, upper=upper).cholesky_inverse(upper), [A])
    L = np.linalg.cholesky(A)
    L = np.swapaxes(L, -1, -2) if upper else L
    Lo, Lt = _both(L)
    y = _t(B).cholesky_solve(Lo, upper)
    yt = torch.cholesky_solve(torch.tensor(B), Lt, upper)
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=1e-12)
    y.sum().backward()
    yt.sum().backward()
    tri = np.triu if upper else np.tril
    np.testing.assert_allclose(Lo.grad.numpy(), tri(Lt.grad.numpy()), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("scale", [0.1, 1.0, 6.0])
def test_matrix_exp_matches_torch(scale):
    torch = pytest.importorskip("torch")
    A = rng.standard_normal((2, 4, 4)) * scale
    _loss_and_grads(lambda a: linalg.matrix_exp(a), lambda a: torch.linalg.matrix_exp(a), [A])
    _loss_and_grads(lambda a: a.matrix_exp(), lambda a: a.matrix_exp(), [A[0]])


def test_float32_stays_float32(device):
    A = _t(_spd(n=3), device, dtype="float32")
    for y in (linalg.cholesky(A), linalg.matrix_exp(A * 0.1),
              linalg.solve_triangular(A, A, upper=True)):
        assert dtype_name(y.dtype) == "float32"


# ------------------------------------------------------------------ the gaps, now as PyTorch
@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
def test_cond_of_empty_matrices_is_zero_as_pytorch(p):
    for shape, out in [((0, 0), ()), ((2, 0, 0), (2,)), ((0, 2, 2), (0,))]:
        y = linalg.cond(_t(np.zeros(shape)), p)
        assert y.shape == out and not y.numpy().any()
    if p in ("fro", "nuc"):
        with pytest.raises(ValueError, match="square"):
            linalg.cond(_t(np.zeros((3, 0))), p)
    else:
        assert linalg.cond(_t(np.zeros((3, 0))), p).item() == 0.0


def test_lstsq_takes_a_batch_of_vectors_as_pytorch():
    A, B = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4))
    r = linalg.lstsq(_t(A), _t(B), driver="gelsd")
    assert (r.solution.shape, r.residuals.shape, r.rank.shape) == ((2, 3), (2, 1), (2,))
    for i in range(2):
        np.testing.assert_allclose(r.solution.numpy()[i],
                                   np.linalg.lstsq(A[i], B[i], rcond=None)[0], rtol=1e-12)
    with pytest.raises(ValueError, match=r"lstsq: .*one fewer"):       # torch refuses too
        linalg.lstsq(_t(A), _t(B[0]))


def test_lstsq_batch_of_vectors_matches_torch():
    torch = pytest.importorskip("torch")
    A, B = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4))
    _loss_and_grads(lambda a, b: linalg.lstsq(a, b).solution,
                    lambda a, b: torch.linalg.lstsq(a, b).solution, [A, B])


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8"])
def test_matrix_power_of_integer_matrices(dtype):
    M = tinyffn.tensor([[1, 1], [1, 0]], dtype=dtype)              # Fibonacci
    assert linalg.matrix_power(M, 5).tolist() == [[8, 5], [5, 3]]
    assert linalg.matrix_power(M, 0).tolist() == [[1, 0], [0, 1]]
    assert dtype_name(tinyffn.matrix_power(M, 3).dtype) == dtype
    # uint8 wraps around, as torch's: [[200, 1], [1, 1]]^2 = [[40001, 201], [201, 2]] mod 256
    if dtype == "uint8":
        W = linalg.matrix_power(tinyffn.tensor([[200, 1], [1, 1]], dtype="uint8"), 2)
        assert W.tolist() == [[65, 201], [201, 2]]
    with pytest.raises(TypeError, match=r"matrix_power: n = -1 < 0 needs the inverse"):
        linalg.matrix_power(M, -1)


def test_matrix_power_zero_is_the_identity_even_where_A_is_not_finite(device):
    """A^0 = I, as PyTorch's, whatever A holds: it was A · 0 + I, NaN beside a NaN or inf
    of A; and it stays in A's graph, as PyTorch's, so A's gradient is zeros, not an error."""
    A = _t([[[np.nan, 1.0], [np.inf, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], device, grad=True)
    I = linalg.matrix_power(A, 0)                                 # (2, 2, 2)
    np.testing.assert_array_equal(I.numpy(), np.broadcast_to(np.eye(2), (2, 2, 2)))
    I.sum().backward()
    np.testing.assert_array_equal(A.grad.numpy(), np.zeros((2, 2, 2)))


def test_matrix_power_of_integers_matches_torch():
    torch = pytest.importorskip("torch")
    M = rng.integers(-3, 4, (2, 3, 3))
    for n in (0, 1, 2, 7):
        assert linalg.matrix_power(tinyffn.tensor(M), n).tolist() == \
            torch.linalg.matrix_power(torch.tensor(M), n).tolist()
    with pytest.raises(TypeError, match="dtype bool"):
        linalg.matrix_power(tinyffn.tensor([[True]]), 2)   # torch: not implemented for Bool


# ------------------------------------------------------------------ mutants that survived
def test_solve_triangular_sums_a_gradient_back_over_the_batch_it_was_broadcast_to(device):
    """A (3, 3) shared by a batch of B (4, 3, 2): gA is the sum over the batch of
    tril(−A^{-T} gX X^T), here written with NumPy's solve."""
    A = np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    B, W = rng.standard_normal((4, 3, 2)), rng.standard_normal((4, 3, 2))
    a, b = _t(A, device, grad=True), _t(B, device, grad=True)
    (linalg.solve_triangular(a, b, upper=False) * _t(W, device)).sum().backward()
    X = np.linalg.solve(A, B)                                       # (4, 3, 2)
    gB = np.linalg.solve(A.T, W)                                    # (4, 3, 2)
    assert a.grad.shape == (3, 3) and b.grad.shape == (4, 3, 2)
    np.testing.assert_allclose(a.grad.numpy(), np.tril(-(gB @ X.transpose(0, 2, 1)).sum(0)),
                               rtol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), gB, rtol=1e-10)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_matrix_exp_of_nan_or_inf_is_nan_and_leaves_the_rest_of_the_batch(device):
    """As torch 2.13: a matrix holding NaN or ±inf gives all NaN (its scaling power is not
    a number); the other matrices of the batch are right: exp([[0, 1], [0, 0]]) = I + N."""
    A = _t([[[math.nan, 0.0], [0.0, 1.0]], [[math.inf, 0.0], [0.0, 1.0]],
            [[1.0, 2.0], [-math.inf, 0.0]], [[0.0, 1.0], [0.0, 0.0]]], device)
    E = linalg.matrix_exp(A).numpy()
    assert np.isnan(E[:3]).all()
    np.testing.assert_allclose(E[3], [[1.0, 1.0], [0.0, 1.0]], rtol=1e-15, atol=0)


def test_cholesky_ex_reports_a_lost_factor_even_when_every_minor_looks_positive(monkeypatch):
    """Near-singular matrices can have positive rounded minors (slogdet) and still fail
    LAPACK's factorization (the two round differently); then info is n, as LAPACK's last
    pivot, never 0 beside a NaN factor. The disagreement is forced here, since which
    matrices show it depends on the BLAS."""
    import tinyffn.linalg_cholesky as lc
    monkeypatch.setattr(lc, "first_bad_minor", lambda xp, A: xp.zeros(A.shape[:-2],
                                                                        dtype=xp.int32))
    A = _t([[[4.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], -np.eye(3)])
    L, info = linalg.cholesky_ex(A)
    assert info.tolist() == [0, 3] and np.isnan(L.numpy()[1]).all()
    with pytest.raises(linalg.LinAlgError, match=r"Batch element 1.*order 3"):
        linalg.cholesky(A)


def test_cholesky_ex_info_reads_the_same_triangle_as_the_factor():
    """info comes from the triangle the factor reads: the lower one of [[1, -1, 0],
    [5, 1, 0], [0, 0, 1]] is [[1, 5, 0], [5, 1, 0], [0, 0, 1]], whose 2 × 2 minor has
    determinant 1 - 25 < 0, so info is 2 (torch's), though the full matrix's minors are
    1, 6, 6, all positive; upper=True reads the upper triangle."""
    A = _t([[1.0, -1.0, 0.0], [5.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert linalg.cholesky_ex(A).info.item() == 2
    assert linalg.cholesky_ex(A.mT, upper=True).info.item() == 2
    with pytest.raises(linalg.LinAlgError, match="order 2"):
        linalg.cholesky(A)
