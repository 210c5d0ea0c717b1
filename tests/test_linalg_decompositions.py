"""tinyffn.linalg's decompositions (svdvals, svd, matrix_rank, det, slogdet, inv, solve,
eigvalsh, eigh, qr) and torch's top-level det, slogdet, inverse, svd.

Values and gradients against PyTorch live (sign-free quantities: U S Vh, |U|, losses that
square each singular vector), against values worked out by hand for CI without torch,
gradcheck in float64 on every device, the errors PyTorch raises, and what happens where
PyTorch's gradient is infinite (repeated singular values or eigenvalues).
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import linalg
from tinyffn.backend import dtype_name

rng = np.random.default_rng(7)


def _t(a, device="cpu", grad=False, dtype="float64"):
    return tinyffn.tensor(np.asarray(a), dtype=dtype, device=device, requires_grad=grad)


# ------------------------------------------------------------------ values written out by hand
A2 = [[2.0, 1.0], [1.0, 3.0]]           # det 5, eigenvalues (5 ± √5) / 2


def test_det_inv_slogdet_solve_of_a_two_by_two(device):
    A = _t(A2, device, grad=True)
    assert linalg.det(A).item() == pytest.approx(5.0)
    np.testing.assert_allclose(linalg.inv(A).numpy(), [[0.6, -0.2], [-0.2, 0.4]], atol=1e-15)
    sign, logabsdet = linalg.slogdet(_t([[1.0, 2.0], [3.0, 4.0]], device))     # det -2
    assert (sign.item(), logabsdet.item()) == (-1.0, pytest.approx(np.log(2.0)))
    x = linalg.solve(A, _t([3.0, 4.0], device))             # 2x + y = 3, x + 3y = 4
    np.testing.assert_allclose(x.numpy(), [1.0, 1.0], atol=1e-15)
    linalg.det(A).backward()                                  # the cofactor matrix
    np.testing.assert_allclose(A.grad.numpy(), [[3.0, -1.0], [-1.0, 2.0]], atol=1e-14)


def test_svdvals_eigvalsh_and_rank_written_out(device):
    # [[3, 0], [4, 5]]: A^T A = [[25, 20], [20, 25]], eigenvalues 45 and 5
    S = linalg.svdvals(_t([[3.0, 0.0], [4.0, 5.0]], device))
    np.testing.assert_allclose(S.numpy(), [np.sqrt(45.0), np.sqrt(5.0)], rtol=1e-14)
    L = linalg.eigvalsh(_t([[2.0, 1.0], [1.0, 2.0]], device))
    np.testing.assert_allclose(L.numpy(), [1.0, 3.0], rtol=1e-14)
    # only the lower triangle is read: the 99 is not
    L = linalg.eigvalsh(_t([[2.0, 99.0], [1.0, 2.0]], device))
    np.testing.assert_allclose(L.numpy(), [1.0, 3.0], rtol=1e-14)
    r = linalg.matrix_rank(_t(np.ones((2, 3, 3)), device))
    assert dtype_name(r.dtype) == "int64" and r.tolist() == [1, 1]


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    """A deliberate difference: PyTorch 2.13 returns zeros here; the cofactor matrix
    [[4, -2], [-2, 1]] is the derivative (det(A + h E_00) = 4h)."""
    A = _t([[1.0, 2.0], [2.0, 4.0]], grad=True)
    linalg.det(A).backward()
    np.testing.assert_allclose(A.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    assert tinyffn.gradcheck(linalg.det, [A])


def test_matrix_rank_tolerances():
    D = _t(np.diag([1.0, 1e-3, 1e-9]))
    assert linalg.matrix_rank(D).item() == 3                  # eps · 3 ≈ 7e-16 below 1e-9
    assert linalg.matrix_rank(D, atol=1e-2).item() == 1       # atol alone: rtol 0
    assert linalg.matrix_rank(D, rtol=1e-4).item() == 2
    assert linalg.matrix_rank(D, atol=1e-2, rtol=1e-4).item() == 1   # the larger wins
    assert linalg.matrix_rank(D, atol=0.5, rtol=1e-4).item() == 1
    assert linalg.matrix_rank(_t(np.diag([1.0, -1.0, 0.0])), hermitian=True).item() == 2
    batch = _t(np.stack([np.diag([1.0, 1e-3, 0.0]), np.diag([1.0, 1.0, 1.0])]))
    assert linalg.matrix_rank(batch, atol=_t([1e-4, 2.0])).tolist() == [2, 0]
    assert not linalg.matrix_rank(_t(np.eye(2), grad=True)).requires_grad


def test_matrix_rank_tolerances_at_the_edges_as_torch(device):
    """As torch 2.13 (checked live): the cutoff is compared in float64, so float32's
    σ = 0.1f (0.100000001) is above atol = 0.1 and rtol = 0.1 (rounded to 0.1f it was
    not); a negative atol keeps rtol's default eps · max(m, n), which drops σ = 1e-16; and
    that rule holds entry by entry for a tensor atol (0 there, 1e-17 keeps σ = 1e-16)."""
    f32 = tinyffn.tensor(np.diag([1.0, 0.1]), dtype="float32", device=device)
    tiny = _t(np.stack([np.diag([2.0, 1e-16])] * 2), device)
    got = [linalg.matrix_rank(f32, atol=0.1).item(), linalg.matrix_rank(f32, rtol=0.1).item(),
           linalg.matrix_rank(tiny[0], atol=-1.0).item(),
           linalg.matrix_rank(tiny, atol=_t([0.0, 1e-17], device)).tolist(),
           linalg.matrix_rank(_t(np.diag([2.0, 0.5]), device), atol=0.5).item()]   # σ > atol
    assert got == [2, 2, 1, [1, 2], 1]
    torch = pytest.importorskip("torch")
    t32, ttiny = torch.tensor(np.diag([1.0, 0.1]), dtype=torch.float32), torch.tensor(tiny.numpy())
    assert [torch.linalg.matrix_rank(t32, atol=0.1).item(),
            torch.linalg.matrix_rank(t32, rtol=0.1).item(),
            torch.linalg.matrix_rank(ttiny[0], atol=-1.0).item(),
            torch.linalg.matrix_rank(ttiny, atol=torch.tensor([0.0, 1e-17],
                                                              dtype=torch.float64)).tolist(),
            torch.linalg.matrix_rank(torch.tensor(np.diag([2.0, 0.5])), atol=0.5).item()] == got


def test_svd_shapes_named_tuples_and_reconstruction(device):
    a = rng.standard_normal((2, 4, 3))
    U, S, Vh = linalg.svd(_t(a, device))
    assert (U.shape, S.shape, Vh.shape) == ((2, 4, 4), (2, 3), (2, 3, 3))
    U, S, Vh = r = linalg.svd(_t(a, device), full_matrices=False)
    assert (U.shape, S.shape, Vh.shape) == ((2, 4, 3), (2, 3), (2, 3, 3))
    assert r.U is U and r.S is S and r.Vh is Vh
    np.testing.assert_allclose(((U * S.unsqueeze(-2)) @ Vh).numpy(), a, atol=1e-13)
    np.testing.assert_allclose((U.mT @ U).numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)),
                               atol=1e-13)


def test_eigh_and_qr_reconstruct(device):
    a = rng.standard_normal((2, 3, 3))
    s = a + np.swapaxes(a, -1, -2)
    L, V = linalg.eigh(_t(s, device))
    np.testing.assert_allclose(((V * L.unsqueeze(-2)) @ V.mT).numpy(), s, atol=1e-13)
    assert np.all(np.diff(L.numpy(), axis=-1) > 0)            # ascending
    for mode, shapes in [("reduced", ((2, 3, 3), (2, 3, 3))), ("complete", ((2, 3, 3),) * 2)]:
        Q, R = linalg.qr(_t(a, device), mode=mode)
        assert (Q.shape, R.shape) == shapes
        np.testing.assert_allclose((Q @ R).numpy(), a, atol=1e-13)
        np.testing.assert_array_equal(np.tril(R.numpy(), -1), 0)
    Q, R = linalg.qr(_t(rng.standard_normal((5, 2)), device), mode="r")
    assert Q.shape == (0,) and R.shape == (2, 2)


def test_top_level_det_inverse_slogdet_svd():
    a = rng.standard_normal((4, 3))
    U, S, V = tinyffn.svd(_t(a))                              # V, not Vh; some=True
    assert (U.shape, S.shape, V.shape) == ((4, 3), (3,), (3, 3))
    np.testing.assert_allclose(((U * S) @ V.mT).numpy(), a, atol=1e-13)
    assert tinyffn.svd(_t(a), some=False).U.shape == (4, 4)
    U, S, V = tinyffn.svd(_t(a), compute_uv=False)
    assert (U.shape, V.shape) == ((4, 4), (3, 3)) and not U.numpy().any()
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-13)
    assert tinyffn.det(_t(A2)).item() == pytest.approx(5.0)
    np.testing.assert_allclose(tinyffn.inverse(_t(A2)).numpy(), np.linalg.inv(A2), rtol=1e-14)
    assert tinyffn.slogdet(_t(A2)).logabsdet.item() == pytest.approx(np.log(5.0))


def test_float32_stays_float32(device):
    a = _t(rng.standard_normal((3, 3)) + 3 * np.eye(3), device, dtype="float32", grad=True)
    outs = [linalg.svdvals(a), linalg.det(a), linalg.inv(a), linalg.eigvalsh(a),
            linalg.solve(a, a), *linalg.svd(a), *linalg.qr(a), *linalg.eigh(a)]
    assert all(dtype_name(y.dtype) == "float32" for y in outs)
    sum(y.sum() for y in outs).backward()
    assert dtype_name(a.grad.dtype) == "float32"


# ------------------------------------------------------------------ gradcheck, float64
def _sign_free(U):
    """A loss of U that does not change when a column flips sign."""
    w = tinyffn.tensor(np.linspace(0.5, 1.5, U.shape[-2] * U.shape[-1]).reshape(U.shape[-2:]),
                       device=U.device)
    return ((U * w).sum(-2) ** 2).sum()


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_gradcheck(shape, full, device):
    a = _t(rng.standard_normal(shape), device, grad=True)

    def f(a):
        U, S, Vh = linalg.svd(a, full_matrices=full)
        k = S.shape[-1]
        return _sign_free(U[..., :k]) + _sign_free(Vh[..., :k, :].mT) + (S ** 3).sum()
    assert tinyffn.gradcheck(f, [a])


def test_eigh_qr_slogdet_inv_gradcheck(device):
    x = _t(rng.standard_normal((2, 3, 3)), device, grad=True)
    for uplo in "LU":
        assert tinyffn.gradcheck(
            lambda x: (lambda L, V: (L ** 2).sum() + _sign_free(V))(*linalg.eigh(x + x.mT, uplo)),
            [x])
    for shape in [(4, 3), (3, 5), (2, 3, 3)]:
        a = _t(rng.standard_normal(shape), device, grad=True)
        assert tinyffn.gradcheck(lambda a: (lambda Q, R: _sign_free(Q) + _sign_free(R.mT))(
            *linalg.qr(a)), [a])
    w = _t(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), device, grad=True)
    assert tinyffn.gradcheck(lambda w: linalg.slogdet(w).logabsdet, [w])
    assert tinyffn.gradcheck(linalg.inv, [w])


def test_solve_gradcheck_broadcasting_and_left(device):
    A = _t(rng.standard_normal((2, 1, 3, 3)) + 3 * np.eye(3), device, grad=True)
    B = _t(rng.standard_normal((4, 3, 2)), device, grad=True)
    assert linalg.solve(A, B).shape == (2, 4, 3, 2)
    assert tinyffn.gradcheck(linalg.solve, [A, B])
    v = _t(rng.standard_normal(3), device, grad=True)
    assert tinyffn.gradcheck(lambda A, v: linalg.solve(A, v, left=False), [A, v])
    Bv = _t(rng.standard_normal((2, 1, 3)), device, grad=True)   # A's shape less its last axis
    assert linalg.solve(A, Bv).shape == (2, 1, 3)
    assert tinyffn.gradcheck(linalg.solve, [A, Bv])


# ------------------------------------------------------------------ where the gradient blows up
def test_repeated_singular_values_as_pytorch():
    """svd's U gradient is NaN at repeated singular values (PyTorch's too, checked live
    below); S alone, from svd or svdvals, keeps a finite gradient, as eigh's eigenvalues
    alone do: the unused vectors' zero terms are not divided by 0 (no NumPy warning)."""
    a = np.diag([2.0, 2.0, 1.0])
    A = _t(a, grad=True)
    with np.errstate(invalid="ignore", divide="ignore"):       # NumPy warns of 0 / 0
        linalg.svd(A).U.sum().backward()
    assert np.isnan(A.grad.numpy()).all()
    for f in (lambda A: linalg.svd(A).S, linalg.svdvals, lambda A: linalg.eigh(A).eigenvalues):
        A = _t(a, grad=True)
        with np.errstate(invalid="raise", divide="raise"):
            f(A).sum().backward()
        np.testing.assert_allclose(A.grad.numpy(), np.eye(3))


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("name", ["det", "slogdet", "inv", "eigvalsh", "eigh"])
def test_non_square_is_refused_as_pytorch(name):
    with pytest.raises(ValueError, match=rf"linalg.{name}: A must be batches of square "
                                         r"matrices, but they are 2 by 3 matrices"):
        getattr(linalg, name)(_t(np.ones((2, 3))))


@pytest.mark.parametrize("name", ["svd", "svdvals", "det", "inv", "qr", "matrix_rank"])
def test_vectors_integers_and_float16_are_refused(name):
    f = getattr(linalg, name)
    with pytest.raises(ValueError, match=rf"linalg.{name}: A must have at least 2 axes"):
        f(_t([1.0, 2.0]))
    for dtype in ("int64", "float16"):
        with pytest.raises(TypeError, match=rf"linalg.{name}: A has dtype {dtype}"):
            f(tinyffn.ones(2, 2, dtype=dtype))
    with pytest.raises(TypeError, match="expected a tinyffn Tensor"):
        f(np.eye(2))


def test_singular_matrices_raise_linalg_error(device):
    S = _t([[1.0, 2.0], [2.0, 4.0]], device)
    for call in (lambda: linalg.inv(S), lambda: tinyffn.inverse(S)):
        with pytest.raises(linalg.LinAlgError, match=r"linalg.inv: A \(shape \(2, 2\)\) is "
                                                     r"singular, so it has no inverse"):
            call()
    with pytest.raises(linalg.LinAlgError, match=r"linalg.solve: A \(shape \(2, 2\)\) is "
                       r"singular, so A X = B has no unique solution \(B of shape \(2,\)\)"):
        linalg.solve(S, _t([1.0, 1.0], device))
    assert issubclass(linalg.LinAlgError, RuntimeError)       # as torch.linalg.LinAlgError
    assert linalg.det(S).item() == 0.0                          # det and slogdet do not raise
    sign, logabsdet = linalg.slogdet(S)
    assert sign.item() == 0.0 and logabsdet.item() == -np.inf
    S.requires_grad = True
    with pytest.raises(linalg.LinAlgError, match="slogdet: backward at a singular A"):
        linalg.slogdet(S).logabsdet.backward()


def test_solve_and_qr_errors():
    A = _t(np.eye(3))
    with pytest.raises(ValueError, match=r"A of shape \(3, 3\) and B of shape \(2,\) do not fit"):
        linalg.solve(A, _t([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"batch axes of A \(2, 3, 3\) and B \(3, 3, 1\)"):
        linalg.solve(_t(np.ones((2, 3, 3)) + np.eye(3)), _t(np.ones((3, 3, 1))))
    with pytest.raises(TypeError, match="A has dtype float64 and B float32"):
        linalg.solve(A, tinyffn.ones(3))
    with pytest.raises(ValueError, match="UPLO must be 'L' or 'U'"):
        linalg.eigh(A, UPLO="X")
    with pytest.raises(ValueError, match="mode must be 'reduced', 'complete' or 'r'"):
        linalg.qr(A, mode="full")
    a = _t(rng.standard_normal((4, 3)), grad=True)
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        linalg.qr(a, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match="not differentiable with mode='complete'"):
        linalg.qr(a, mode="complete").Q.sum().backward()


# ------------------------------------------------------------------ PyTorch, live
def _both(a, grad=True):
    torch = pytest.importorskip("torch")
    return _t(a, grad=grad), torch.tensor(a, requires_grad=grad)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_decompositions_match_torch(shape):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal(shape)
    for full in (True, False):
        (x, tx) = _both(a)
        U, S, Vh = linalg.svd(x, full_matrices=full)
        tU, tS, tVh = torch.linalg.svd(tx, full_matrices=full)
        k = S.shape[-1]
        np.testing.assert_allclose(S.numpy(), tS.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(np.abs(U.numpy()[..., :k]), np.abs(tU.detach().numpy()[..., :k]),
                                   atol=1e-12)
        for lib, (u, s, vh) in ((tinyffn, (U, S, Vh)), (torch, (tU, tS, tVh))):
            loss = _sign_free(u[..., :k]) + _sign_free(vh[..., :k, :].mT) if lib is tinyffn else \
                _torch_sign_free(u[..., :k]) + _torch_sign_free(vh[..., :k, :].mT)
            (loss + (s ** 3).sum()).backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    x, tx = _both(a)
    Q, R = linalg.qr(x)
    tQ, tR = torch.linalg.qr(tx)
    np.testing.assert_allclose(np.abs(R.numpy()), np.abs(tR.detach().numpy()), atol=1e-12)
    (_sign_free(Q) + _sign_free(R.mT)).backward()
    (_torch_sign_free(tQ) + _torch_sign_free(tR.mT)).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    x, tx = _both(a, grad=False)
    assert linalg.matrix_rank(x).tolist() == torch.linalg.matrix_rank(tx).tolist()


def _torch_sign_free(U):
    import torch
    w = torch.tensor(np.linspace(0.5, 1.5, U.shape[-2] * U.shape[-1]).reshape(U.shape[-2:]))
    return ((U * w).sum(-2) ** 2).sum()


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_square_ops_match_torch(uplo):
    """A not symmetric: eigh reads one triangle, and A.grad is PyTorch's symmetric one."""
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    ops = [
        (lambda A, B: linalg.det(A), lambda A, B: torch.linalg.det(A)),
        (lambda A, B: linalg.slogdet(A).logabsdet * 2 + linalg.slogdet(A).sign,
         lambda A, B: torch.linalg.slogdet(A).logabsdet * 2 + torch.linalg.slogdet(A).sign),
        (lambda A, B: linalg.inv(A), lambda A, B: torch.linalg.inv(A)),
        (lambda A, B: linalg.solve(A, B), lambda A, B: torch.linalg.solve(A, B)),
        (lambda A, B: linalg.solve(A, B.mT, left=False),
         lambda A, B: torch.linalg.solve(A, B.mT, left=False)),
        (lambda A, B: linalg.solve(A, B[..., 0]), lambda A, B: torch.linalg.solve(A, B[..., 0])),
        (lambda A, B: linalg.eigvalsh(A, UPLO=uplo), lambda A, B: torch.linalg.eigvalsh(A, UPLO=uplo)),
        (lambda A, B: (lambda L, V: L * 2 + (V ** 2).sum(-2))(*linalg.eigh(A, UPLO=uplo)),
         lambda A, B: (lambda L, V: L * 2 + (V ** 2).sum(-2))(*torch.linalg.eigh(A, UPLO=uplo))),
    ]
    w = rng.standard_normal(8)
    for i, (ours, theirs) in enumerate(ops):
        (A, tA), (B, tB) = _both(a), _both(b)
        y, ty = ours(A, B), theirs(tA, tB)
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
        (y.sum() * w[i]).backward()
        (ty.sum() * w[i]).backward()
        np.testing.assert_allclose(A.grad.numpy(), tA.grad.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(B.grad.numpy(), tB.grad.numpy(), rtol=1e-9, atol=1e-12) \
            if tB.grad is not None else None


def test_torch_agrees_where_the_gradient_blows_up():
    torch = pytest.importorskip("torch")
    tA = torch.tensor(np.diag([2.0, 2.0, 1.0]), requires_grad=True)
    torch.linalg.svd(tA).U.sum().backward()
    assert torch.isnan(tA.grad).all()                         # as tinyffn's, above
    tA = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    torch.linalg.det(tA).backward()
    assert not tA.grad.any()        # PyTorch's zeros, where tinyffn gives the cofactor matrix
    with pytest.raises(torch.linalg.LinAlgError, match="singular"):
        torch.linalg.inv(tA)
    with pytest.raises(RuntimeError, match="must be batches of square matrices, but they are "
                                           "2 by 3 matrices"):
        torch.linalg.det(torch.ones(2, 3))
    U, S, V = torch.svd(torch.tensor(A2), compute_uv=False)
    assert U.shape == (2, 2) and not U.any()


# ------------------------------------------------------------------ matrix norms of singular values
def test_matrix_norms_of_singular_values(device):
    """ord 2, -2 and 'nuc' of [[3, 0], [4, 5]]: √45, √5 and their sum, over any two axes."""
    a = np.array([[3.0, 0.0], [4.0, 5.0]])
    x = _t(np.stack([a, 2 * a]), device, grad=True)          # (2, 2, 2)
    s45, s5 = np.sqrt(45.0), np.sqrt(5.0)
    np.testing.assert_allclose(linalg.matrix_norm(x, 2).numpy(), [s45, 2 * s45], rtol=1e-14)
    np.testing.assert_allclose(linalg.matrix_norm(x, -2).numpy(), [s5, 2 * s5], rtol=1e-14)
    np.testing.assert_allclose(linalg.norm(x[0], "nuc").numpy(), s45 + s5, rtol=1e-14)
    y = linalg.matrix_norm(x, 2, dim=(0, 2), keepdim=True)     # the matrices x[:, j, :]
    assert y.shape == (1, 2, 1)
    np.testing.assert_allclose(y.numpy().ravel(), np.linalg.norm(
        np.moveaxis(x.numpy(), 1, 0), 2, axis=(1, 2)), rtol=1e-14)
    w = _t(rng.standard_normal((3, 2, 4)), device, grad=True)  # distinct, nonzero σ
    for ord in (2, -2, "nuc"):
        assert tinyffn.gradcheck(lambda w: linalg.matrix_norm(w, ord, dim=(2, 0)), [w])


def test_matrix_norms_of_singular_values_match_torch():
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 4, 2))
    for ord in (2, -2, "nuc"):
        x, tx = _both(a)
        y, ty = linalg.matrix_norm(x, ord, dim=(0, 1)), torch.linalg.matrix_norm(tx, ord, dim=(0, 1))
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-12)
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_solve_of_an_empty_batch_as_pytorch():
    """A batch of no matrices broadcasts against a B without that axis: X is empty, with
    A's batch shape (PyTorch's too); a batch axis of 1 against 0 is broadcast to 0."""
    for a_shape, b_shape, x_shape in [((0, 3, 3), (3,), (0, 3)), ((0, 3, 3), (3, 2), (0, 3, 2)),
                                      ((0, 3, 3), (1, 3, 2), (0, 3, 2)),
                                      ((1, 3, 3), (0, 3, 2), (0, 3, 2))]:
        A = _t(np.broadcast_to(np.eye(3), a_shape), grad=True)
        B = _t(np.ones(b_shape), grad=True)
        X = linalg.solve(A, B)
        assert X.shape == x_shape
        X.sum().backward()
        assert A.grad.shape == a_shape and B.grad.shape == b_shape
        np.testing.assert_array_equal(B.grad.numpy(), np.zeros(b_shape))   # X used no B
    X = linalg.solve(_t(np.ones((0, 3, 3))), _t(np.ones((2, 3))), left=False)   # (n, k)→(k, n)
    assert X.shape == (0, 2, 3)
    with pytest.raises(ValueError, match=r"linalg.solve: the batch axes of A \(2, 3, 3\) "
                                         r"and B \(0, 3, 1\) cannot be broadcast"):
        linalg.solve(_t(np.ones((2, 3, 3))), _t(np.ones((0, 3, 1))))


# ------------------------------------------------------------------ torch.logdet
def test_logdet_is_log_det_then_minus_inf_and_nan_as_pytorch(device):
    """torch 2.13: logdet([[2,1],[1,3]]) = log 5, of a singular matrix -inf, of
    [[0,1],[1,0]] (det -1) nan; the gradient where det > 0 is A^{-T}."""
    a = _t(A2, device, grad=True)
    y = tinyffn.logdet(a)
    assert y.item() == pytest.approx(np.log(5.0), rel=1e-14)
    y.backward()
    np.testing.assert_allclose(a.grad.numpy(), np.linalg.inv(A2).T, rtol=1e-13)
    assert _t([[1.0, 2.0], [2.0, 4.0]], device).logdet().item() == -np.inf
    assert np.isnan(tinyffn.logdet(_t([[0.0, 1.0], [1.0, 0.0]], device)).item())
    b = rng.standard_normal((3, 4, 4))
    sign, logabs = np.linalg.slogdet(b)
    np.testing.assert_allclose(tinyffn.logdet(_t(b, device)).numpy(),
                               np.where(sign > 0, logabs, np.nan), rtol=1e-12)


def test_logdet_is_gradchecked_and_equals_the_cholesky_diagonal(device):
    m = rng.standard_normal((4, 4))
    spd = _t(m @ m.T + 4 * np.eye(4), device, grad=True)
    assert tinyffn.gradcheck(tinyffn.logdet, [spd])
    chol = 2 * linalg.cholesky(spd).diagonal().log().sum()
    assert abs(tinyffn.logdet(spd).item() - chol.item()) < 1e-12


def test_logdet_matches_torch_live():
    torch = pytest.importorskip("torch")
    b = rng.standard_normal((5, 3, 3))
    ours, theirs = _t(b, grad=True), torch.tensor(b, requires_grad=True)
    y, yt = tinyffn.logdet(ours), torch.logdet(theirs)
    np.testing.assert_array_equal(np.isnan(y.numpy()), np.isnan(yt.detach().numpy()))
    keep = ~np.isnan(yt.detach().numpy())
    np.testing.assert_allclose(y.numpy()[keep], yt.detach().numpy()[keep], rtol=1e-12)
    y[tinyffn.tensor(keep)].sum().backward()
    yt[torch.tensor(keep)].sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["svdvals", "eigvalsh"])
def test_svdvals_and_eigvalsh_keep_the_factors_not_the_matrix(name, device):
    """Their backward needs U and Vh (V) alone, so A is not saved (it was: one more
    (m, n) array alive until backward when A is an intermediate). Under create_graph the
    factors are computed again from A read back through the graph: the input's tensor
    while it lives, else one standing for it, of value U diag(S) Vh (V diag(L) V^T).
    With the intermediate gone, the second derivatives still match finite differences
    (gradgradcheck) and equal those computed with it alive. Reference for the saved
    arrays: NumPy's factors."""
    a = np.random.default_rng(11).standard_normal((4, 3) if name == "svdvals" else (3, 3))
    W = _t(a, device, grad=True)
    op = (lambda w: linalg.svdvals(w * 1.5)) if name == "svdvals" else \
        (lambda w: linalg.eigvalsh(w + w.mT))
    y = op(W)
    saved = y.grad_fn.saved_tensors
    matrix = 1.5 * a if name == "svdvals" else a + a.T
    if name == "svdvals":
        U, S, Vh = (tinyffn.tensor(s, device=device).numpy() for s in saved)
        np.testing.assert_allclose(U * S @ Vh, matrix, rtol=1e-12, atol=1e-12)
        shapes = [(4, 3), (3,), (3, 3)]
    else:
        L, V = (tinyffn.tensor(s, device=device).numpy() for s in saved)
        np.testing.assert_allclose(V * L @ V.T, matrix, rtol=1e-12, atol=1e-12)
        shapes = [(3,), (3, 3)]
    assert [tuple(s.shape) for s in saved] == shapes            # no (4, 3) or (3, 3) A
    assert y.grad_fn.parents[0].output is None                  # the intermediate is gone
    (g,) = tinyffn.grad(y, [W], tinyffn.ones_like(y), create_graph=True)
    (h,) = tinyffn.grad((g * g).sum(), [W])
    A = W * 1.5 if name == "svdvals" else W + W.mT               # alive this time
    f = linalg.svdvals if name == "svdvals" else linalg.eigvalsh
    (g_alive,) = tinyffn.grad(f(A), [W], tinyffn.ones_like(y), create_graph=True)
    (h_alive,) = tinyffn.grad((g_alive * g_alive).sum(), [W])
    np.testing.assert_allclose(h.numpy(), h_alive.numpy(), rtol=1e-9, atol=1e-12)
    assert tinyffn.gradgradcheck(op, [W])


@pytest.mark.parametrize("name", ["svdvals", "eigvalsh"])
@pytest.mark.parametrize("changed", ["leaf", "intermediate"])
def test_svdvals_and_eigvalsh_read_a_from_the_forward_after_an_in_place_change(name, changed,
                                                                             device):
    """A changed in place between the forward and a create_graph backward (A.mul_(-1)
    gives A a new array): the first and second derivatives are still those at the forward's
    A, as without the change and as create_graph=False gives. Read back as the tensor it
    is now, A had the sign flipped and so did the gradient (review 21)."""
    a = np.array([[2.0, 1.0], [0.0, 1.0]]) if name == "svdvals" else \
        np.array([[2.0, 0.5], [0.5, -1.0]])
    f = linalg.svdvals if name == "svdvals" else linalg.eigvalsh
    w = _t([1.0, 3.0], device)

    def derivatives(change: bool):
        W = _t(a, device, grad=True)
        A = W if changed == "leaf" else W * 1.0
        y = f(A)
        if change:
            with tinyffn.no_grad():
                A.mul_(-1.0)
        (g,) = tinyffn.grad((y * w).sum(), [W], create_graph=True)
        (h,) = tinyffn.grad((g * g).sum(), [W])
        return g.detach().numpy(), h.numpy()

    (g0, h0), (g1, h1) = derivatives(False), derivatives(True)
    np.testing.assert_allclose(g1, g0, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h1, h0, rtol=1e-9, atol=1e-12)
    W = _t(a, device, grad=True)
    (g_plain,) = tinyffn.grad((f(W) * w).sum(), [W])
    np.testing.assert_allclose(g0, g_plain.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigvalsh_second_derivative_keeps_the_first_ones_symmetric_convention(uplo, device):
    """eigvalsh's gradient is symmetric, given to both triangles (PyTorch's); its derivative
    must be too. It went to the read triangle alone, off-diagonals doubled (0.05 away from
    PyTorch 2.13's on a 3 x 3). Reference: central differences of the plain first derivative
    along symmetric perturbations E = e_ij + e_ji, d/dt <g(A + tE), W> = h_ij + h_ji."""
    A = np.array([[2.0, 0.3, -0.5], [0.7, 1.0, 0.2], [-0.1, 0.4, -1.5]])
    c, W = _t([1.0, -2.0, 0.5], device), np.array([[1.0, 2, 0], [-1, 0.5, 3], [0.2, -2, 1]])

    def g(a, create_graph=False):
        (grad,) = tinyffn.grad((linalg.eigvalsh(a, UPLO=uplo) * c).sum(), [a],
                               create_graph=create_graph)
        return grad

    X = _t(A, device, grad=True)
    (h,) = tinyffn.grad((g(X, True) * _t(W, device)).sum(), [X])
    want = np.zeros((3, 3))
    for i, j in [(i, j) for i in range(3) for j in range(i + 1)]:
        E = np.zeros((3, 3))
        E[i, j] = E[j, i] = 1e-6
        step = [(g(_t(A + s * E, device, grad=True)).numpy() * W).sum() for s in (1, -1)]
        want[i, j] = want[j, i] = (step[0] - step[1]) / 2e-6 / (1 if i == j else 2)
    np.testing.assert_allclose(h.numpy(), want, atol=1e-8)
