"""tinyffn.linalg's composed additions (pinv, lstsq, cond, matrix_power, multi_dot,
matmul, vecdot, diagonal) and torch's top-level matrix_power and pinverse.

Values written out by hand (CI has no torch), against PyTorch live where installed,
gradcheck in float64 on every device, and the errors.
"""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import linalg
from tinyffn.backend import dtype_name

rng = np.random.default_rng(11)


def _t(a, device="cpu", grad=False, dtype="float64"):
    return tinyffn.tensor(np.asarray(a), dtype=dtype, device=device, requires_grad=grad)


# ------------------------------------------------------------------ values written out by hand
def test_pinv_and_lstsq_of_a_tall_matrix_written_out(device):
    # A = [[1, 0], [0, 1], [1, 1]]: A^T A = [[2, 1], [1, 2]], (A^T A)^{-1} = [[2, -1], [-1, 2]] / 3
    A = _t([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], device)
    want = np.array([[2.0, -1.0, 1.0], [-1.0, 2.0, 1.0]]) / 3.0       # (A^T A)^{-1} A^T
    np.testing.assert_allclose(linalg.pinv(A).numpy(), want, atol=1e-14)
    r = linalg.lstsq(A, _t([1.0, 2.0, 0.0], device), driver="gelsd")
    # normal equations: [[2, 1], [1, 2]] x = A^T b = [1, 2] -> x = [0, 1]
    np.testing.assert_allclose(r.solution.numpy(), [0.0, 1.0], atol=1e-14)
    assert r.rank.item() == 2 and dtype_name(r.rank.dtype) == "int64"
    np.testing.assert_allclose(r.residuals.numpy(), [3.0], atol=1e-13)  # ‖[-1, -1, 1]‖²
    np.testing.assert_allclose(r.singular_values.numpy(), [np.sqrt(3.0), 1.0], atol=1e-14)
    r = linalg.lstsq(A, _t([1.0, 2.0, 0.0], device))                   # gelsy: rank only
    assert r.residuals.shape == (0,) and r.singular_values.shape == (0,) and r.rank.item() == 2


def test_pinv_of_a_rank_one_matrix_drops_the_zero_singular_value(device):
    # A = u v^T with u = [1, 1], v = [1, 0, 0]: A⁺ = v u^T / (‖u‖² ‖v‖²)
    A = _t([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], device)
    np.testing.assert_allclose(linalg.pinv(A).numpy(), [[0.5, 0.5], [0, 0], [0, 0]], atol=1e-15)
    assert linalg.lstsq(A, _t([[2.0], [4.0]], device)).rank.item() == 1
    np.testing.assert_allclose(linalg.lstsq(A, _t([[2.0], [4.0]], device)).solution.numpy(),
                               [[3.0], [0.0], [0.0]], atol=1e-14)        # the least-norm X


def test_cond_written_out(device):
    A = _t([[3.0, 0.0], [4.0, 5.0]], device)          # σ = √45, √5: cond 3
    assert linalg.cond(A).item() == pytest.approx(3.0)
    assert linalg.cond(A, -2).item() == pytest.approx(1 / 3)
    # fro: ‖A‖_F = √50, A^{-1} = [[5, 0], [-4, 3]] / 15, ‖A^{-1}‖_F = √50 / 15
    assert linalg.cond(A, "fro").item() == pytest.approx(50 / 15)
    assert linalg.cond(A, 1).item() == pytest.approx(7 * 9 / 15)   # column sums 7 and 9/15
    singular = _t([[1.0, 2.0], [2.0, 4.0]], device)
    assert linalg.cond(singular, "fro").item() == math.inf
    batch = linalg.cond(_t(np.stack([[[1.0, 2.0], [2.0, 4.0]], np.eye(2) * 2]), device), "fro")
    np.testing.assert_allclose(batch.numpy(), [math.inf, 2.0])       # ‖2I‖·‖I/2‖ = 2√2·√2/2


def test_matrix_power_multi_dot_vecdot_diagonal_written_out(device):
    F = _t([[1.0, 1.0], [1.0, 0.0]], device)          # Fibonacci: F^n = [[f(n+1), f(n)], ...]
    np.testing.assert_allclose(linalg.matrix_power(F, 10).numpy(), [[89, 55], [55, 34]])
    np.testing.assert_allclose(tinyffn.matrix_power(F, 0).numpy(), np.eye(2))
    np.testing.assert_allclose(linalg.matrix_power(F, -2).numpy(), [[1, -1], [-1, 2]], atol=1e-14)
    ones = _t(np.ones(3), device)
    assert linalg.multi_dot([ones, _t(np.ones((3, 2)), device), _t(np.ones(2), device)]).item() == 6
    np.testing.assert_allclose(linalg.vecdot(F, F).numpy(), [2.0, 1.0])
    np.testing.assert_allclose(linalg.diagonal(_t(np.arange(8.0).reshape(2, 2, 2))).numpy(),
                               [[0, 3], [4, 7]])
    np.testing.assert_allclose(linalg.matmul(F, F).numpy(), [[2, 1], [1, 1]])
    np.testing.assert_allclose(tinyffn.pinverse(F).numpy(), [[0, 1], [1, -1]], atol=1e-14)


# ------------------------------------------------------------------ gradcheck, float64
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_pinv_lstsq_cond_gradcheck(shape, device):
    a = _t(rng.standard_normal(shape), device, grad=True)
    b = _t(rng.standard_normal(shape[:-2] + (shape[-2], 2)), device, grad=True)
    assert tinyffn.gradcheck(linalg.pinv, [a])
    assert tinyffn.gradcheck(lambda a, b: linalg.lstsq(a, b).solution, [a, b])
    assert tinyffn.gradcheck(linalg.cond, [a])


def test_matrix_power_multi_dot_gradcheck(device):
    a = _t(rng.standard_normal((3, 3)) + 3 * np.eye(3), device, grad=True)
    b = _t(rng.standard_normal((3, 2)), device, grad=True)
    assert tinyffn.gradcheck(lambda a: linalg.matrix_power(a, 5), [a])
    assert tinyffn.gradcheck(lambda a: linalg.matrix_power(a, -3), [a])
    assert tinyffn.gradcheck(lambda a: linalg.cond(a, "nuc"), [a])
    assert tinyffn.gradcheck(lambda a, b: linalg.multi_dot([a, a, b]), [a, b])


# ------------------------------------------------------------------ PyTorch live
def test_against_torch():
    torch = pytest.importorskip("torch")
    for shape in [(5, 3), (3, 5), (2, 4, 4)]:
        a = rng.standard_normal(shape)
        b = rng.standard_normal(shape[:-1] + (2,))
        A, B = _t(a, grad=True), _t(b, grad=True)
        At = torch.tensor(a, requires_grad=True)
        Bt = torch.tensor(b, requires_grad=True)
        np.testing.assert_allclose(linalg.pinv(A).numpy(), torch.linalg.pinv(At).detach(),
                                   atol=1e-12)
        for driver in [None, "gelsd", "gels"] if shape[-2] >= shape[-1] else [None, "gelsd"]:
            r, rt = linalg.lstsq(A, B, driver=driver), torch.linalg.lstsq(At, Bt, driver=driver)
            for mine, theirs in zip(r, rt):
                assert mine.shape == tuple(theirs.shape)
                np.testing.assert_allclose(mine.detach().numpy(), theirs.detach(), atol=1e-10)
        for p in [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf]:
            if p in (None, 2, -2) or shape[-1] == shape[-2]:
                np.testing.assert_allclose(linalg.cond(A, p).numpy(),
                                           torch.linalg.cond(At, p).detach(), rtol=1e-10)
        (linalg.lstsq(A, B).solution.sum() + linalg.cond(A).sum()).backward()
        (torch.linalg.lstsq(At, Bt).solution.sum() + torch.linalg.cond(At).sum()).backward()
        np.testing.assert_allclose(A.grad.numpy(), At.grad, atol=1e-9)
        np.testing.assert_allclose(B.grad.numpy(), Bt.grad, atol=1e-9)
    m = rng.standard_normal((2, 3, 3))
    for n in [0, 1, 4, 7, -1, -2]:
        np.testing.assert_allclose(linalg.matrix_power(_t(m), n).numpy(),
                                   torch.linalg.matrix_power(torch.tensor(m), n), rtol=1e-10)
    v, w = rng.standard_normal(3), rng.standard_normal((3, 4))
    x, y = rng.standard_normal((4, 2)), rng.standard_normal(2)
    np.testing.assert_allclose(
        linalg.multi_dot([_t(v), _t(w), _t(x), _t(y)]).numpy(),
        torch.linalg.multi_dot([torch.tensor(t) for t in (v, w, x, y)]), rtol=1e-12)
    np.testing.assert_allclose(tinyffn.pinverse(_t(w)).numpy(), torch.pinverse(torch.tensor(w)),
                               atol=1e-12)


# ------------------------------------------------------------------ errors
def test_errors():
    with pytest.raises(ValueError, match=r"lstsq: driver must be"):
        linalg.lstsq(_t(np.eye(2)), _t(np.eye(2)), driver="gelsx")
    with pytest.raises(ValueError, match=r"lstsq: A \(3, 2\).*B \(2,\)"):
        linalg.lstsq(_t(np.ones((3, 2))), _t(np.ones(2)))
    with pytest.raises(ValueError, match=r"cond\(p=fro\): A must be batches of square"):
        linalg.cond(_t(np.ones((3, 2))), "fro")
    with pytest.raises(ValueError, match=r"cond: p must be"):
        linalg.cond(_t(np.eye(2)), 3)
    with pytest.raises(TypeError, match=r"matrix_power: n must be an int"):
        linalg.matrix_power(_t(np.eye(2)), 1.5)
    with pytest.raises(ValueError, match=r"multi_dot: tensor 1 must be 2-D"):
        linalg.multi_dot([_t(np.eye(2)), _t(np.ones(2)), _t(np.eye(2))])
    with pytest.raises(linalg.LinAlgError, match=r"inv"):
        linalg.matrix_power(_t(np.ones((2, 2))), -1)


# ------------------------------------------------------------------ found by review (h_rev11)
def _with_singular_values(s, m, n, seed=0):
    """A (m, n) = U diag(s) V^T with known orthonormal U (m, k), V (n, k): (A, U, V)."""
    g = np.random.default_rng(seed)
    k = len(s)
    U = np.linalg.qr(g.standard_normal((m, k)))[0]
    V = np.linalg.qr(g.standard_normal((n, k)))[0]
    return U @ np.diag(s) @ V.T, U, V


def _pinv_keeping(U, s, V, keep):
    return (V[:, keep] / np.asarray(s)[keep]) @ U[:, keep].T      # Σ over kept σ of v u^T / σ


@pytest.mark.parametrize("kwargs, s, kept", [
    # default rtol eps · max(m, n) = 6 eps ≈ 1.3e-15: σ = 1e-15 is dropped (eps · min(m, n),
    # 2 eps ≈ 4.4e-16, would keep it, and A⁺ would hold 1e15)
    ({}, [2.0, 1e-15], [True, False]),
    # atol = 0 counts as not given: rtol keeps its default, and drops σ = 1e-15 too
    ({"atol": 0.0}, [2.0, 1e-15], [True, False]),
    # atol above rtol · σ_max decides (rtol is 0 when atol > 0): 0.5 drops σ = 0.3
    ({"atol": 0.5}, [2.0, 0.3], [True, False]),
    ({"atol": 0.2}, [2.0, 0.3], [True, True]),
    # both given: the larger of the two cuts (0.5 keeps 0.8, where their sum 0.9 would not;
    # rtol · σ_max = 0.4 drops 0.3, where atol = 0.1 alone would keep it)
    ({"atol": 0.5, "rtol": 0.2}, [2.0, 0.8], [True, True]),
    ({"atol": 0.1, "rtol": 0.2}, [2.0, 0.3], [True, False]),
    # a negative atol counts as not given too (PyTorch: rtol = where(atol > 0, 0, eps ·
    # max(m, n))), so the default rtol still drops σ = 1e-15
    ({"atol": -1.0}, [2.0, 1e-15], [True, False]),
])
def test_pinv_tolerances_drop_the_singular_values_pytorch_drops(kwargs, s, kept):
    A, U, V = _with_singular_values(s, 2, 6)
    got = linalg.pinv(_t(A), **kwargs).numpy()
    np.testing.assert_allclose(got, _pinv_keeping(U, s, V, np.array(kept)), atol=1e-12)


def test_pinv_cutoff_equal_to_a_singular_value_is_exclusive_as_torch():
    A = _t(np.diag([2.0, 0.5]))
    np.testing.assert_array_equal(linalg.pinv(A, atol=0.5).numpy(), [[0.5, 0.0], [0.0, 0.0]])
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(torch.linalg.pinv(torch.tensor(A.numpy()), atol=0.5),
                                  [[0.5, 0.0], [0.0, 0.0]])


def test_lstsq_gelss_gives_the_singular_values_as_gelsd():
    A, U, V = _with_singular_values([3.0, 2.0], 4, 2)
    r = linalg.lstsq(_t(A), _t(np.ones((4, 1))), driver="gelss")
    np.testing.assert_allclose(r.singular_values.numpy(), [3.0, 2.0], rtol=1e-12)
    assert r.rank.item() == 2 and r.residuals.shape == (1,)


def test_lstsq_gels_ignores_rcond_as_torch():
    # gels solves by QR for a full-rank A and takes no rcond; tinyffn's once dropped the
    # σ below rcond · σ_max all the same and returned another X.
    a = rng.standard_normal((3, 3))
    b = rng.standard_normal((3, 1))
    r = linalg.lstsq(_t(a), _t(b), rcond=0.99, driver="gels")
    np.testing.assert_allclose(r.solution.numpy(), np.linalg.solve(a, b), rtol=1e-10)
    torch = pytest.importorskip("torch")
    t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), rcond=0.99, driver="gels")
    np.testing.assert_allclose(r.solution.numpy(), t.solution, rtol=1e-10)


def test_lstsq_takes_a_batch_of_vectors_as_torch():
    # A (2, 4, 2) with B (2, 4): one vector per matrix, solution (2, 2), as PyTorch reads
    # a B with one axis fewer than A; tinyffn refused it.
    a, b = rng.standard_normal((2, 4, 2)), rng.standard_normal((2, 4))
    x = linalg.lstsq(_t(a), _t(b)).solution
    want = np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(2)])
    assert x.shape == (2, 2)
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-10)
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(x.numpy(), torch.linalg.lstsq(torch.tensor(a),
                                                             torch.tensor(b)).solution, rtol=1e-10)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3), (3, 0)])
def test_cond_of_empty_matrices_is_zero_as_torch(shape):
    # was an IndexError from getitem (s[..., 0] of no singular values)
    batch = shape[:-2]
    for p in [None, 2, -2] + (["fro", "nuc", 1, -1, math.inf] if shape[-1] == shape[-2] else []):
        y = linalg.cond(_t(np.zeros(shape)), p)
        assert y.shape == batch
        np.testing.assert_array_equal(y.numpy(), np.zeros(batch))


def test_vecdot_sums_along_dim():
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(linalg.vecdot(_t(x), _t(y), dim=0).numpy(), (x * y).sum(0),
                               rtol=1e-13)


def test_lstsq_rank_counts_singular_values_above_the_cutoff_strictly():
    # σ = (2, 1), rcond 0.5: the cutoff 0.5 · 2 = 1 equals σ_2, which LAPACK's gelsd
    # treats as zero (σ <= rcond · σ_max): rank 1, X = [0.5, 0]
    r = linalg.lstsq(_t(np.diag([2.0, 1.0])), _t(np.ones((2, 1))), rcond=0.5, driver="gelsd")
    assert r.rank.item() == 1
    np.testing.assert_allclose(r.solution.numpy(), [[0.5], [0.0]], atol=1e-15)


# ------------------------------------------------------------------ cross (found missing by
# the fuzzer's new families: torch.cross and torch.linalg.cross had no tinyffn name)
def test_cross_of_the_unit_vectors_and_along_an_inner_axis(device):
    e = np.eye(3)
    got = linalg.cross(_t(e, device), _t(np.roll(e, -1, axis=0), device))
    np.testing.assert_array_equal(got.numpy(), np.roll(e, -2, axis=0))   # x×y=z, y×z=x, z×x=y
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((3, 1))       # vectors in columns
    y = tinyffn.cross(_t(a, device), _t(b, device), dim=0)
    assert y.shape == (3, 2)
    np.testing.assert_allclose(y.numpy(), np.cross(a.T, b.T).T, rtol=1e-14)


def test_cross_gradcheck_and_torch(device):
    a = _t(rng.standard_normal((2, 3)), device, grad=True)
    b = _t(rng.standard_normal((1, 3)), device, grad=True)
    assert tinyffn.gradcheck(linalg.cross, [a, b])
    y = linalg.cross(a, b)
    y.backward(_t(np.ones((2, 3)), device))
    # ga = b × gy, gb = Σ gy × a over the broadcast rows
    np.testing.assert_allclose(a.grad.numpy(), np.cross(b.numpy(), np.ones((2, 3))), rtol=1e-14)
    np.testing.assert_allclose(b.grad.numpy(), np.cross(np.ones((2, 3)), a.numpy()).sum(0,
                               keepdims=True), rtol=1e-14)
    torch = pytest.importorskip("torch")
    ta, tb = (torch.tensor(x.numpy(), requires_grad=True) for x in (a, b))
    torch.linalg.cross(ta, tb).backward(torch.ones(2, 3, dtype=torch.float64))
    np.testing.assert_allclose(y.numpy(), torch.linalg.cross(ta, tb).detach(), rtol=1e-15)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad, rtol=1e-14)


def test_cross_errors_name_the_shapes_where_torch_refuses_too():
    with pytest.raises(ValueError, match=r"linalg.cross: .*same number of axes.*\(2, 3\).*\(3,\)"):
        linalg.cross(_t(np.ones((2, 3))), _t(np.ones(3)))
    with pytest.raises(ValueError, match=r"axis -1 must have length 3"):
        linalg.cross(_t(np.ones((2, 3))), _t(np.ones((2, 2))))
    with pytest.raises(TypeError, match="one dtype, got float64 and float32"):
        linalg.cross(_t(np.ones(3)), _t(np.ones(3), dtype="float32"))
    with pytest.raises(ValueError, match="cross: no axis of length 3"):
        tinyffn.cross(_t(np.ones((2, 2))), _t(np.ones((2, 2))))
    with pytest.warns(UserWarning, match="first axis of length 3"):
        y = tinyffn.cross(_t(np.ones((3, 2))), _t(np.ones((3, 2))))      # dim 0, the first 3
    assert y.shape == (3, 2)


# ------------------------------------------------------------------ pinv where σ repeat
def test_pinv_gradient_is_finite_where_singular_values_repeat(device):
    """At A = 2 I, an orthogonal Q and a tall [[I], [0]] (every σ equal) the gradient
    through the SVD's factors was NaN (it divides by σ_i² − σ_j²). The Pinv primitive's
    backward reads A and A⁺ only: for a square invertible A it is inv's, −A⁻ᵀ G A⁻ᵀ; for
    the tall one, finite differences; second derivatives by gradgradcheck."""
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    G = rng.standard_normal((3, 3))
    for a in (2 * np.eye(3), q):
        x = _t(a, device, grad=True)
        (linalg.pinv(x) * _t(G, device)).sum().backward()
        inv_t = np.linalg.inv(a).T
        np.testing.assert_allclose(x.grad.numpy(), -inv_t @ G @ inv_t, rtol=1e-12, atol=1e-14)
    tall = _t(np.vstack([np.eye(2), np.zeros((1, 2))]), device, grad=True)
    assert tinyffn.gradcheck(linalg.pinv, [tall])
    assert tinyffn.gradgradcheck(linalg.pinv, [_t(2 * np.eye(2), device, grad=True)])
    torch = pytest.importorskip("torch")
    t = torch.tensor(tall.numpy(), requires_grad=True)
    W = rng.standard_normal((2, 3))
    torch.linalg.pinv(t).mul(torch.tensor(W)).sum().backward()
    (linalg.pinv(tall) * _t(W, device)).sum().backward()
    np.testing.assert_allclose(tall.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("device", ["cpu", "strict"])   # CuPy's SVD gives NaN, unchecked
def test_pinv_and_lstsq_of_a_non_finite_matrix_raise_tinyffns_linalg_error(device):
    """The Pinv primitive's SVD fails on NaN as linalg.svd's does: the error is tinyffn's
    LinAlgError (a RuntimeError, as torch's), naming the function and the likely cause,
    not NumPy's LinAlgError (a ValueError, which ``except RuntimeError`` misses)."""
    A = _t([[math.nan, 1.0], [1.0, 1.0]], device)
    with pytest.raises(linalg.LinAlgError, match=r"linalg.pinv: the SVD .*NaN or inf"):
        linalg.pinv(A)
    with pytest.raises(linalg.LinAlgError, match=r"linalg.lstsq: .*did not converge"):
        linalg.lstsq(A, _t([[1.0], [2.0]], device))
    with pytest.raises(linalg.LinAlgError, match=r"linalg.svd: the SVD .*did not converge"):
        linalg.svd(A)


# ------------------------------------------------------------------ pinv at the edges
def test_pinv_gradient_of_a_rank_deficient_square_matrix_along_its_rank():
    """A = B C of rank 2 (3, 3): both (I - A P) and (I - P A) are nonzero, so every term of
    the backward counts (at a full-rank square A both vanish). Along a curve that keeps
    the rank, A(t) = (B + t dB)(C + t dC), the derivative exists: central differences of
    Σ G ⊙ pinv(A(t)) at t = 0 equal <gA, dB C + B dC>; and torch's gradient, live."""
    g = np.random.default_rng(5)
    B, C, dB, dC = g.standard_normal((3, 2)), g.standard_normal((2, 3)), \
        g.standard_normal((3, 2)), g.standard_normal((2, 3))
    G = g.standard_normal((3, 3))
    x = _t(B @ C, grad=True)
    (linalg.pinv(x) * _t(G)).sum().backward()
    h = 1e-6
    f = [(np.linalg.pinv((B + t * dB) @ (C + t * dC)) * G).sum() for t in (h, -h)]
    np.testing.assert_allclose((x.grad.numpy() * (dB @ C + B @ dC)).sum(),
                               (f[0] - f[1]) / (2 * h), rtol=1e-7)
    torch = pytest.importorskip("torch")
    a = torch.tensor(B @ C, requires_grad=True)
    (torch.linalg.pinv(a) * torch.tensor(G)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), a.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 3), (0, 2, 2)])
def test_pinv_of_empty_matrices_is_empty_transposed(shape, device):
    # PyTorch: the (..., n, m) zeros of no entries
    p = linalg.pinv(_t(np.zeros(shape), device))
    assert p.shape == shape[:-2] + (shape[-1], shape[-2])


def test_pinv_cutoff_is_compared_in_float64_as_torch():
    """PyTorch's tolerances are doubles: in float32, σ = 0.1f (0.100000001...) is above
    atol = 0.1 and above rtol 0.1 · σ_max; rounded to float32 the cut was 0.1f, and σ
    was dropped."""
    A = _t(np.diag([1.0, 0.1]), dtype="float32")
    for kwargs in ({"atol": 0.1}, {"rtol": 0.1}):
        p = linalg.pinv(A, **kwargs)
        assert dtype_name(p.dtype) == "float32"
        np.testing.assert_allclose(p.numpy(), [[1.0, 0.0], [0.0, 10.0]], rtol=1e-6)
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(torch.linalg.pinv(torch.tensor(A.numpy()), atol=0.1),
                               [[1.0, 0.0], [0.0, 10.0]], rtol=1e-6)


def test_lstsq_cuts_in_the_matrix_dtype_as_gelsd(device):
    """lstsq is the SVD cut of 'gelsd', which LAPACK makes in A's dtype: in float32,
    rcond · σ_max = 0.1f, and σ = 0.1f is not above it (rank 1, solution [1, 0]), where
    pinv's float64 comparison keeps it; the rank and the solution agree."""
    A = tinyffn.tensor(np.diag([1.0, 0.1]), dtype="float32", device=device)
    r = linalg.lstsq(A, tinyffn.ones(2, 1, device=device), rcond=0.1, driver="gelsd")
    assert r.solution.tolist() == [[1.0], [0.0]] and r.rank.item() == 1
    torch = pytest.importorskip("torch")
    t = torch.linalg.lstsq(torch.tensor(A.numpy()), torch.ones(2, 1), rcond=0.1, driver="gelsd")
    assert t.solution.tolist() == [[1.0], [0.0]] and t.rank.item() == 1


def test_pinv_takes_a_tolerance_per_matrix_as_a_tensor(device):
    """atol and rtol as tensors broadcast against A's batch shape (PyTorch's rule): A
    (2, 2, 2) with atol [0, 1.5] keeps both σ of the first and drops σ = 1 of the second;
    a (2,) tolerance on one matrix makes two pseudo-inverses; rtol's default stays where
    atol <= 0 (entry by entry), and the gradient reaches A alone: inv's −A⁻ᵀ J A⁻ᵀ for the
    first, and for the second (P = diag(0.5, 0)) −Pᵀ J Pᵀ + (I − A P) J P Pᵀ + Pᵀ P J (I − P A)
    written out, J the ones."""
    D = np.stack([np.diag([2.0, 1.0]), np.diag([2.0, 1.0])])
    x = _t(D, device, grad=True)
    p = linalg.pinv(x, atol=_t([0.0, 1.5], device))
    np.testing.assert_array_equal(p.detach().numpy(), [[[0.5, 0], [0, 1]], [[0.5, 0], [0, 0]]])
    p.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[-0.25, -0.5], [-0.5, -1]],
                                                  [[-0.25, 0.25], [0.25, 0]]])
    x0 = _t(D[0], device, grad=True)
    q = linalg.pinv(x0, rtol=_t([[0.1], [0.6]], device))                    # (2, 1, 2, 2)
    np.testing.assert_array_equal(q.detach().numpy(),
                                  [[np.diag([0.5, 1.0])], [np.diag([0.5, 0.0])]])
    q.sum().backward()                              # A's gradient: the two above, summed
    np.testing.assert_array_equal(x0.grad.numpy(), [[-0.5, -0.25], [-0.25, -1]])
    ints = linalg.pinv(_t(D, device), atol=tinyffn.tensor([0, 1], device=device))  # int64
    np.testing.assert_array_equal(ints.numpy(), p.detach().numpy())      # σ = 1 > 1: no
    tiny = _t(np.diag([2.0, 1e-16]), device)      # atol -1 and 0: rtol's default 4 eps drops
    r = linalg.pinv(tiny, atol=_t([-1.0, 0.0, 1e-17], device))     # σ = 1e-16; 1e-17 keeps it
    np.testing.assert_allclose(r.numpy()[:, 1, 1], [0.0, 0.0, 1e16], rtol=1e-15)
    assert linalg.pinv(tiny, atol=1e-17).numpy()[1, 1] == pytest.approx(1e16)   # a number too
    torch = pytest.importorskip("torch")
    tp = torch.linalg.pinv(torch.tensor(np.diag([2.0, 1e-16])),
                           atol=torch.tensor([-1.0, 0.0, 1e-17], dtype=torch.float64))
    np.testing.assert_allclose(tp[:, 1, 1], [0.0, 0.0, 1e16], rtol=1e-15)


def test_pinv_tolerance_errors_name_pinv():
    A = _t(np.eye(2))
    with pytest.raises(ValueError, match=r"linalg.pinv: A must be batches of square"):
        linalg.pinv(_t(np.ones((3, 2))), hermitian=True)      # torch: eigh's refusal
    with pytest.raises(TypeError, match=r"linalg.pinv: atol must be a number or a tensor"):
        linalg.pinv(A, atol="0.1")
    with pytest.raises(ValueError, match=r"linalg.pinv: rtol requires grad.*rtol.detach\(\)"):
        linalg.pinv(A, rtol=_t([0.1], grad=True))         # torch refuses it too
    with pytest.raises(ValueError, match=r"linalg.pinv: .*\(3,\).*batch shape \(2,\)"):
        linalg.pinv(_t(np.ones((2, 2, 2))), atol=_t([0.0, 1.0, 2.0]))
