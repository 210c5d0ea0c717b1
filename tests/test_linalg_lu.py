"""The LU family of tinyffn.linalg (tinyffn/linalg_lu.py): lu_factor, lu_factor_ex, lu,
lu_solve, solve_ex, inv_ex, tensorinv, tensorsolve, vander.

References: P L U rebuilds A, L unit lower and U upper triangular, |multipliers| <= 1
(partial pivoting), by hand in NumPy; solutions against np.linalg.solve; gradcheck
through the elimination on every device; PyTorch 2.13 live where installed (LU, pivots,
info, P, L, U, the solves, and gradients); the errors.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import linalg
from tinyffn.backend import dtype_name

rng = np.random.default_rng(0)
SHAPES = [(3, 3), (4, 3), (3, 5), (2, 4, 4), (2, 1, 3, 2)]


@pytest.mark.parametrize("shape", SHAPES)
def test_p_l_u_rebuild_a_with_partial_pivoting(shape, device):
    A = rng.standard_normal(shape)
    P, L, U = (t.numpy() for t in linalg.lu(tinyffn.tensor(A, device=device)))
    k = min(shape[-2:])
    np.testing.assert_allclose(P @ L @ U, A, atol=1e-13)
    np.testing.assert_array_equal(np.triu(L, 1), 0)
    np.testing.assert_array_equal(np.diagonal(L, axis1=-2, axis2=-1), 1)
    np.testing.assert_array_equal(np.tril(U, -1), 0)
    assert L.shape[-1] == U.shape[-2] == k and np.abs(L).max() <= 1 + 1e-15   # pivoting
    LU, piv, info = linalg.lu_factor_ex(tinyffn.tensor(A, device=device))
    assert piv.shape == shape[:-2] + (k,) and (info.numpy() == 0).all()


def test_solves_and_inverses(device):
    A, B = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 3))
    t = lambda a: tinyffn.tensor(a, device=device)       # noqa: E731
    LU, piv = linalg.lu_factor(t(A))
    np.testing.assert_allclose(linalg.lu_solve(LU, piv, t(B)).numpy(), np.linalg.solve(A, B),
                               rtol=1e-10)
    np.testing.assert_allclose(linalg.lu_solve(LU, piv, t(B), adjoint=True).numpy(),
                               np.linalg.solve(A.transpose(0, 2, 1), B), rtol=1e-10)
    C = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(linalg.lu_solve(LU, piv, t(C), left=False).numpy(),
                               np.linalg.solve(A.transpose(0, 2, 1), C.transpose(0, 2, 1))
                               .transpose(0, 2, 1), rtol=1e-10)
    S = np.stack([A[0], [[1.0, 2, 0, 0], [2, 4, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]])
    inverse, info = linalg.inv_ex(t(S))
    assert info.tolist() == [0, 2] and np.isnan(inverse.numpy()[1]).all()
    np.testing.assert_allclose(inverse.numpy()[0], np.linalg.inv(A[0]), rtol=1e-10)
    x, info = linalg.solve_ex(t(S), t(B[:, :, 0]))
    assert info.tolist() == [0, 2] and np.isnan(x.numpy()[1]).all() and x.shape == (2, 4)
    np.testing.assert_allclose(x.numpy()[0], np.linalg.solve(A[0], B[0, :, 0]), rtol=1e-10)
    a = rng.standard_normal((4, 6, 8, 3))
    np.testing.assert_allclose(np.tensordot(a, linalg.tensorinv(t(a), ind=2).numpy(), 2),
                               np.eye(24).reshape(4, 6, 4, 6), atol=1e-10)
    a, b = rng.standard_normal((2, 3, 6)), rng.standard_normal((2, 3))
    np.testing.assert_allclose(np.tensordot(a, linalg.tensorsolve(t(a), t(b)).numpy(), 1), b,
                               atol=1e-12)
    a = rng.standard_normal((2, 6, 3))          # dims=(1,): axis 1 of a is X's, moved last
    np.testing.assert_allclose(linalg.tensorsolve(t(a), t(b), dims=(1,)).numpy(),
                               np.linalg.tensorsolve(a, b, axes=(1,)), rtol=1e-10)
    np.testing.assert_array_equal(linalg.vander(t([1.0, 2.0, 3.0]), N=4).numpy(),
                                  np.vander([1.0, 2.0, 3.0], 4, increasing=True))


def test_lu_solve_broadcasts_batches_of_b_and_of_lu(device):
    """One LU and a batch of B, a batch of LU and one B, in each of the three forms, as
    np.linalg.solve broadcasts (and PyTorch's lu_solve); adjoint and left=False failed in
    a gather on either shape, and left alone on the second."""
    t = lambda a: tinyffn.tensor(a, device=device)       # noqa: E731
    A, B = rng.standard_normal((3, 3)), rng.standard_normal((2, 3, 2))
    AA = np.stack([A, rng.standard_normal((3, 3))])
    for a, b in ((A, B), (AA, B[0])):
        LU, piv = linalg.lu_factor(t(a))
        np.testing.assert_allclose(linalg.lu_solve(LU, piv, t(b)).numpy(),
                                   np.linalg.solve(a, b), rtol=1e-10)
        at = np.swapaxes(a, -1, -2)
        np.testing.assert_allclose(linalg.lu_solve(LU, piv, t(b), adjoint=True).numpy(),
                                   np.linalg.solve(at, b), rtol=1e-10)
        np.testing.assert_allclose(  # X A = Bᵀ is Aᵀ Xᵀ = B
            linalg.lu_solve(LU, piv, t(np.swapaxes(b, -1, -2)), left=False).numpy(),
            np.swapaxes(np.linalg.solve(at, b), -1, -2), rtol=1e-10)


def test_float32_stays_float32(device):
    """A float32 A gives float32 P, L, U, LU, solutions and inverses (int32 pivots and
    info), as PyTorch's: a P or a stand-in made in float64 would widen them."""
    A = tinyffn.tensor(rng.standard_normal((2, 3, 3)).astype(np.float32), device=device)
    b = tinyffn.tensor(np.ones((2, 3, 1), dtype=np.float32), device=device)
    LU, piv, info = linalg.lu_factor_ex(A)
    out = [*linalg.lu(A), LU, linalg.lu_solve(LU, piv, b), linalg.lu_solve(LU, piv, b,
                                                                           adjoint=True),
           linalg.solve_ex(A, b).result, linalg.inv_ex(A).inverse]
    assert [dtype_name(y.dtype) for y in out] == ["float32"] * 8
    assert dtype_name(piv.dtype) == dtype_name(info.dtype) == "int32"


def test_gradcheck(device):
    A = tinyffn.tensor(rng.standard_normal((3, 3)), device=device, requires_grad=True)
    B = tinyffn.tensor(rng.standard_normal((3, 2)), device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda a: linalg.lu(a).U + linalg.lu(a).L, [A])
    assert tinyffn.gradcheck(lambda a, b: linalg.lu_solve(*linalg.lu_factor(a), b), [A, B])


def test_a_zero_pivot_is_skipped_and_reported():
    """A zero column: LAPACK's pivot is its first row, the multipliers stay 0, and info
    names the column (1-based); lu_factor raises for a singular square matrix."""
    LU, piv, info = linalg.lu_factor_ex(tinyffn.tensor([[0.0, 1.0], [0.0, 2.0]]))
    assert piv.tolist() == [1, 2] and info.item() == 1 and LU.tolist() == [[0, 1], [0, 2]]
    with pytest.raises(linalg.LinAlgError, match=r"at 1, 1-based"):
        linalg.lu_factor(tinyffn.tensor([[0.0, 1.0], [0.0, 2.0]]))
    LU, piv, info = linalg.lu_factor_ex(tinyffn.tensor([[0.0, 0, 1], [0, 0, 2], [0, 0, 3]]))
    assert info.item() == 1 and piv.tolist() == [1, 2, 3]   # the first of two zero pivots
    with pytest.raises(linalg.LinAlgError, match=r"linalg.lu_factor: A .* is singular.*"
                                                 "lu_factor_ex"):
        linalg.lu_factor(tinyffn.tensor([[1.0, 2.0], [2.0, 4.0]]))
    wide = tinyffn.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]])     # rank 2, but U[1, 1] = 0
    LU, piv, info = linalg.lu_factor_ex(wide)                      # PyTorch 2.13's values
    assert LU.tolist() == [[2, 4, 7], [0.5, 0, -0.5]] and piv.tolist() == [2, 2]
    assert info.item() == 2
    with pytest.raises(linalg.LinAlgError, match=r"linalg.lu_factor: A \(shape \(2, 3\)\)"):
        linalg.lu_factor(wide)                                     # as PyTorch's, rectangular
    with pytest.raises(linalg.LinAlgError, match="linalg.inv_ex: A .* is singular"):
        linalg.inv_ex(tinyffn.tensor([[1.0, 2.0], [2.0, 4.0]]), check_errors=True)
    with pytest.raises(ValueError, match="LU without pivoting is not supported"):
        linalg.lu(tinyffn.eye(2), pivot=False)
    with pytest.raises(ValueError, match=r"first 2 axes \(2, 3\) \(6\) must equal .* \(5\)"):
        linalg.tensorinv(tinyffn.zeros(2, 3, 5))


def test_as_pytorchs():
    torch = pytest.importorskip("torch")
    for shape in SHAPES + [(2, 2)]:
        A = rng.standard_normal(shape) if shape != (2, 2) else np.array([[1.0, 2], [2, 4]])
        ours = linalg.lu_factor_ex(tinyffn.tensor(A))
        theirs = torch.linalg.lu_factor_ex(torch.tensor(A))
        np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-14)
        assert ours.pivots.tolist() == theirs.pivots.tolist()
        assert ours.info.tolist() == theirs.info.tolist()
        a, b = tinyffn.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
        W = rng.standard_normal(shape[-2:])
        Pa, La, Ua = linalg.lu(a)
        Pb, Lb, Ub = torch.linalg.lu(b)
        assert Pa.tolist() == Pb.tolist()
        if shape != (2, 2):                     # PyTorch's LU backward needs full rank
            ((La @ Ua) * tinyffn.tensor(W)).sum().backward()
            ((Lb @ Ub) * torch.tensor(W)).sum().backward()
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-12)
    A, B = rng.standard_normal((3, 3)), rng.standard_normal((3, 2))
    a, b = tinyffn.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
    for adjoint in (False, True):
        x = linalg.lu_solve(*linalg.lu_factor(a), tinyffn.tensor(B), adjoint=adjoint)
        y = torch.linalg.lu_solve(*torch.linalg.lu_factor(b), torch.tensor(B), adjoint=adjoint)
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), atol=1e-13)
        x.sum().backward(), y.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-12)
