"""The matrix decompositions of ``tinyffn.linalg``: singular values, determinants, inverses,
linear solves, symmetric eigenvalues and QR, each computed by the backend's ``xp.linalg`` and
differentiated by hand with the formulas PyTorch uses.

Notation: A (..., m, n) is the input, batched over the leading axes ``...``; ``gy`` the
gradient of the output, ``gA`` the gradient returned; ^T swaps the last two axes (mT).
A Function returns one array, so the ops with several outputs, ``Svd`` (U, S, Vh),
``Eigh`` (L, V), ``Qr`` (Q, R) and ``Slogdet`` (sign, logabsdet), pack them flattened along the
last axis and :mod:`tinyffn.linalg`
slices them apart; an output the loss never reads gets a zero gradient there, and the
backward treats an all-zero part as absent, as PyTorch treats an unused output (so
``svd(A).S`` alone is differentiable at repeated singular values, as ``svdvals`` is).

The inputs are float32 or float64 (tinyffn.linalg checks it and the shapes first).

Every backward here can run recorded (``create_graph=True``, :mod:`tinyffn.higher_order`):
``xp.linalg`` is then :class:`tinyffn.graph_xp.GraphLinalg`, whose svd, solve, inv, ... are
these very ops. A saved array must be the op's input or output to stay a function of A
there (any other is a constant), so the multi-output ops save their packed output and
slice U, S, Vh from it. Svdvals and Eigvalsh keep factors their output is not (U, Vh; V),
and not A: when gy is a tensor they compute the factors again from A, recorded, with A
the input tensor (``ctx.input_tensor``: of value U diag(S) Vh or V diag(L) V^T, the
forward's A even after an in-place change, its gradient going to the leaf, the input's
tensor while it lives, else the node that made it).
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .elementwise import sign_of
from .shape import sum_to_shape


def _mT(xp, a):
    return xp.matrix_transpose(a)


def _diag_embed(xp, v):
    """v (..., k) -> (..., k, k) with v on the diagonal."""
    k = v.shape[-1]
    return xp.expand_dims(v, axis=-1) * xp.eye(k, dtype=v.dtype)      # (..., k, k)


def _diagonal(xp, a):
    """a (..., k, k) -> its diagonal (..., k)."""
    k = a.shape[-1]
    return xp.sum(a * xp.eye(k, dtype=a.dtype), axis=-1)


def _pack(xp, batch, *parts):
    """Arrays with the batch axes ``batch``, flattened after them and concatenated: (..., N)."""
    flat = [xp.reshape(p, batch + (math.prod(p.shape[len(batch):]),)) for p in parts]
    return xp.concat(flat, axis=-1)


def _unpack(xp, y, shapes):
    """Undo :func:`_pack`: the parts of y (..., N), with the trailing shapes ``shapes``."""
    out, start = [], 0
    for shape in shapes:
        size = math.prod(shape)
        out.append(xp.reshape(y[..., start:start + size], y.shape[:-1] + tuple(shape)))
        start += size
    return out


def _any(xp, a) -> bool:
    return bool(xp.any(a != 0))


def _used(xp, g, reached):
    """Whether the backward takes the cotangent g of the singular or eigen vectors into
    account: g nonzero; or, under create_graph, g a tensor that requires grad, unless
    ``reached`` (see :func:`_reached`) shows it is zero whatever it depends on: jvp's and
    hvp's double-backward trick sends zero cotangents that require grad, whose recorded
    gradient must be the formula in g (infinite where values repeat, as PyTorch's), while
    a part of the output nobody used gets structural zeros (PyTorch's undefined gradient),
    for which the formula without it holds.

    In a plain backward (g an array) the answer is a 0-d bool array, left on the device
    (see :func:`_divisor`): reading it back would make a GPU wait for the whole backward
    queued so far. Under create_graph, a Python bool."""
    if not hasattr(g, "requires_grad"):                 # an array: decided on the device
        return xp.any(g != 0)                                           # 0-d bool
    if _any(xp, g):
        return True
    if not getattr(g, "requires_grad", False):
        return False
    return reached is None or bool(xp.any(reached))


def _divisor(xp, use, d):
    """``d``, or 1 where ``use`` (from :func:`_used`) is a 0-d bool array that is False: a
    cotangent nobody used is all zeros, so its terms of the backward vanish but for their
    divisions by zero where values repeat (0 / 0: NaN, and NumPy's warning); over 1 they
    stay 0. Selected on the device, in place of a wait for the GPU; True keeps ``d``."""
    return d if use is True else xp.where(use, d, xp.ones_like(d))


def _reached(xp, gy, shapes) -> list:
    """Under create_graph, per part of the packed cotangent gy (shapes as :func:`_unpack`),
    the entries any recorded value can reach, or None where that is unknown. A recorded
    backward of several outputs packed in one array (getitem's) scatters each used part
    into constant zeros (index_add), the walk adds the scatters up: the entries no
    scatter reaches are zero for any value of what gy depends on. For a raw gy: Nones."""
    from ..autograd import Context
    if not hasattr(gy, "grad_fn") or gy.grad_fn is None:
        return [None] * len(shapes)
    mask = xp.zeros(tuple(gy.shape), dtype=xp.bool)             # raw: no tensor argument
    stack = [gy.grad_fn]
    while stack:
        v = stack.pop()
        if isinstance(v, Context) and v.fn.op_name() == "add":
            stack.extend(v.parents)
        elif isinstance(v, Context) and v.fn.op_name() == "index_add" and \
                not v.needs_input_grad[0] and not _any(xp, v.parents[0].data):
            mask[v.attrs["key"]] = True                             # its scattered entries
        elif isinstance(v, Context) or v.requires_grad or _any(xp, v.data):
            return [None] * len(shapes)                             # made otherwise
    return _unpack(xp, mask, shapes)


class LinAlgError(RuntimeError):
    """A matrix the decomposition cannot take (singular for ``inv`` and ``solve``), as
    ``torch.linalg.LinAlgError``, a RuntimeError."""


def _symmetric(xp, A, UPLO):
    """The symmetric matrix that A's lower (``UPLO='L'``) or upper triangle spells."""
    if UPLO == "L":
        return xp.tril(A) + _mT(xp, xp.tril(A, k=-1))
    return xp.triu(A) + _mT(xp, xp.triu(A, k=1))


class Svdvals(Function):
    """S = svdvals(A): the singular values of A (..., m, n), (..., k) with k = min(m, n),
    largest first.

    With A = U diag(S) Vh:  dS_i = u_i^T dA v_i, so  gA = U diag(gS) Vh   (..., m, n).
    Defined wherever A is: repeated singular values do no harm here (but do to its own
    derivative, which goes through U and Vh: Svd's backward)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A):
        U, S, Vh = ctx.xp.linalg.svd(A, full_matrices=False)   # (.., m, k), (.., k), (.., k, n)
        ctx.save_for_backward(U, S, Vh)         # not A: S is the output, U and Vh are needed
        return S

    @staticmethod
    def backward(ctx: Context, gS):
        xp = ctx.xp
        U, _, Vh = ctx.saved_tensors
        if not isinstance(gS, ctx.backend.array_type):  # create_graph: U, Vh functions of A
            A = ctx.input_tensor(0, _svd_rebuilt)
            U, _, Vh = xp.linalg.svd(A, full_matrices=False)
        return xp.matmul(U * xp.expand_dims(gS, axis=-2), Vh)              # (..., m, n)


def _svd_rebuilt(xp, U, S, Vh):
    """A = U diag(S) Vh (..., m, n), from the factors Svdvals keeps."""
    return xp.matmul(U * xp.expand_dims(S, axis=-2), Vh)


class Svd(Function):
    """U, S, Vh = svd(A), packed: A (..., m, n) = U (..., m, m or k) diag(S) Vh (..., m or k, n),
    k = min(m, n); ``full_matrices`` as ``torch.linalg.svd``.

    PyTorch's backward (with the reduced U, Vh: the extra columns of a full U and rows of
    a full Vh are not unique, so their gradients are dropped, as PyTorch drops them).
    With E_ij = S_j² − S_i² (1 on the diagonal) and skew(X) = X − X^T:

        M  = (skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)        (..., k, k)
        gA = U M Vh + (I − U U^T) gU S⁻¹ Vh      (m > n)
           + U S⁻¹ gVh (I − V V^T)               (m < n)

    The 1/E terms make the gradient of U and Vh infinite (NaN) where two singular values
    are equal, as PyTorch's; a zero singular value does the same to the m ≠ n terms. The
    loss must not depend on the sign of a singular vector pair, as in PyTorch."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A, full_matrices=True):
        U, S, Vh = ctx.xp.linalg.svd(A, full_matrices=full_matrices)
        y = _pack(ctx.xp, S.shape[:-1], U, S, Vh)                      # (..., m·ku + k + kv·n)
        ctx.save_for_backward(y)                # U, S, Vh as parts of the output (see top)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        xp = ctx.xp
        (y,) = ctx.saved_tensors
        m, n = ctx.input_shapes[0][-2:]
        k = min(m, n)
        ku, kv = (m, n) if ctx.attrs.get("full_matrices", True) else (k, k)
        shapes = [(m, ku), (k,), (kv, n)]
        U, S, Vh = _unpack(xp, y, shapes)
        gU, gS, gVh = _unpack(xp, gy, shapes)
        reached_U, _, reached_V = _reached(xp, gy, shapes)
        use_U = _used(xp, gU, reached_U)
        use_V = _used(xp, gVh, reached_V)
        U, gU, Vh, gVh = U[..., :k], gU[..., :k], Vh[..., :k, :], gVh[..., :k, :]  # reduced
        if use_U is False and use_V is False:           # svdvals' gradient (create_graph)
            return xp.matmul(U * xp.expand_dims(gS, axis=-2), Vh)  # (..., m, n)
        S_row, S_col = xp.expand_dims(S, axis=-2), xp.expand_dims(S, axis=-1)
        E = S_row * S_row - S_col * S_col + xp.eye(k, dtype=S.dtype)   # (..., k, k)
        M = xp.zeros_like(E)
        if use_U is not False:
            UtgU = xp.matmul(_mT(xp, U), gU)                       # (..., k, k)
            M = M + (UtgU - _mT(xp, UtgU)) * S_row
        if use_V is not False:
            VtgV = xp.matmul(Vh, _mT(xp, gVh))                     # (..., k, k)
            M = M + S_col * (VtgV - _mT(xp, VtgV))
        either = True if use_U is True or use_V is True else use_U | use_V
        M = M / _divisor(xp, either, E) + _diag_embed(xp, gS)     # neither: diag(gS) alone
        gA = xp.matmul(xp.matmul(U, M), Vh)                         # (..., m, n)
        if m > n and use_U is not False:
            gUSinv = gU / _divisor(xp, use_U, S_row)               # (..., m, k)
            gUSinv = gUSinv - xp.matmul(U, xp.matmul(_mT(xp, U), gUSinv))
            gA = gA + xp.matmul(gUSinv, Vh)
        if m < n and use_V is not False:
            SinvgVh = gVh / _divisor(xp, use_V, S_col)             # (..., k, n)
            SinvgVh = SinvgVh - xp.matmul(xp.matmul(SinvgVh, _mT(xp, Vh)), Vh)
            gA = gA + xp.matmul(U, SinvgVh)
        return gA


class Det(Function):
    """y = det(A), A (..., n, n) -> (...).

    dy = tr(adj(A) dA), so gA = gy · adj(A)^T, the cofactor matrix; for an invertible A
    that is gy · det(A) · A^{-T}. Computed from the SVD A = U diag(s) Vh, where
    adj(A)^T = det(U) det(Vh) · U diag(Π_{j≠i} s_j) Vh, so it stays right at a singular
    A (rank n − 1 gives a nonzero cofactor matrix; PyTorch 2.13 returns zeros there).

    Under create_graph the cofactor matrix is det(A) A^{-T}, recorded, as PyTorch's: the
    SVD form's U and Vh would be differentiated through Svd's backward, infinite where two
    singular values are equal (at A = I, say), though adj(A) is smooth there. A singular A
    keeps the SVD form (its derivative then needs distinct singular values)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A):
        ctx.save_for_backward(A)
        return ctx.xp.linalg.det(A)

    @staticmethod
    def backward(ctx: Context, gy):
        xp = ctx.xp
        (A,) = ctx.saved_tensors
        cof = None
        if not isinstance(gy, ctx.backend.array_type):      # create_graph: det(A) A^{-T}
            try:
                Ainv = xp.linalg.inv(A)                                     # (..., n, n)
                det = xp.expand_dims(xp.expand_dims(xp.linalg.det(A), axis=-1), axis=-1)
                cof = det * _mT(xp, Ainv)
            except Exception as e:                          # singular: the SVD form below
                if type(e).__name__ != "LinAlgError":
                    raise
        if cof is None:
            cof = _cofactors(xp, A)
        return xp.expand_dims(xp.expand_dims(gy, axis=-1), axis=-1) * cof


def _cofactors(xp, A):
    """adj(A)^T = det(U) det(Vh) · U diag(Π_{j≠i} s_j) Vh for A (..., n, n) = U diag(s) Vh."""
    n = A.shape[-1]
    U, s, Vh = xp.linalg.svd(A)                                     # (.., n, n), (.., n), (.., n, n)
    s_row = xp.expand_dims(s, axis=-2)                              # (..., 1, n)
    others = xp.where(xp.eye(n, dtype=xp.bool), xp.ones_like(s_row), s_row)  # row i: s_j≠i
    p = xp.prod(others, axis=-1)                                    # (..., n): Π_{j≠i} s_j
    signs = sign_of(xp, xp.linalg.det(U) * xp.linalg.det(Vh))       # (...,): ±1, a constant
    cof = xp.matmul(U * xp.expand_dims(p, axis=-2), Vh)              # (..., n, n)
    return xp.expand_dims(xp.expand_dims(signs, axis=-1), axis=-1) * cof


class Slogdet(Function):
    """(sign, logabsdet) = slogdet(A), packed (..., 2); A (..., n, n).

    d log|det A| = tr(A^{-1} dA), so gA = g_logabsdet · A^{-T}; the sign is piecewise
    constant (gradient 0). At a singular A logabsdet is −inf and A^{-1} does not exist:
    the backward raises (tinyffn.linalg.LinAlgError)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A):
        xp = ctx.xp
        sign, logabsdet = xp.linalg.slogdet(A)
        ctx.save_for_backward(A)
        return xp.stack([sign, logabsdet], axis=-1)                # (..., 2)

    @staticmethod
    def backward(ctx: Context, gy):
        xp = ctx.xp
        (A,) = ctx.saved_tensors
        g = gy[..., 1]                                              # (...,)
        try:
            with ctx.backend.raising_linalg():          # CuPy: raise, not return inf
                Ainv = xp.linalg.inv(A)
        except Exception as e:
            if type(e).__name__ != "LinAlgError":
                raise
            raise LinAlgError(f"linalg.slogdet: backward at a singular A of shape "
                              f"{tuple(A.shape)}: logabsdet is -inf there and its gradient "
                              "A^{-T} does not exist (PyTorch returns infinities)") from e
        return xp.expand_dims(xp.expand_dims(g, axis=-1), axis=-1) * _mT(xp, Ainv)


class Inv(Function):
    """Y = A^{-1}, A (..., n, n).

    dY = −Y dA Y, so gA = −Y^T gY Y^T = −A^{-T} gY A^{-T}."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A):
        with ctx.backend.raising_linalg():              # CuPy: raise, not return inf/NaN
            Y = ctx.xp.linalg.inv(A)
        ctx.save_for_backward(Y)
        return Y

    @staticmethod
    def backward(ctx: Context, gY):
        xp = ctx.xp
        (Y,) = ctx.saved_tensors
        Yt = _mT(xp, Y)
        return -xp.matmul(xp.matmul(Yt, gY), Yt)


def _broadcast(a: int, b: int) -> int:
    """One batch axis of A and B broadcast: a 1 takes the other's length, a 0 included
    (max(1, 0) would make an empty batch of A and one B a batch of one)."""
    if a != b and 1 not in (a, b):
        raise ValueError(f"batch axes of lengths {a} and {b} cannot be broadcast together")
    return b if a == 1 else a


class Solve(Function):
    """X = A^{-1} B, the solution of A X = B; A (..., n, n), B (..., n, k), batch axes
    broadcasting (tinyffn.linalg.solve turns a vector B into a column, and ``left=False``
    into transposes).

    dX = A^{-1} (dB − dA X), so  gB = A^{-T} gX  (solve with A^T),  gA = −gB X^T,
    each summed back over the batch axes its input was broadcast along."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A, B):
        xp = ctx.xp
        batch = tuple(_broadcast(a, b) for a, b in zip(
            (1,) * (B.ndim - A.ndim) + A.shape[:-2], (1,) * (A.ndim - B.ndim) + B.shape[:-2]))
        A2 = xp.broadcast_to(A, batch + A.shape[-2:])              # (..., n, n)
        B2 = xp.broadcast_to(B, batch + B.shape[-2:])              # (..., n, k)
        with ctx.backend.raising_linalg():              # CuPy: raise, not return inf/NaN
            X = xp.linalg.solve(A2, B2)                             # (..., n, k)
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx: Context, gX):
        xp = ctx.xp
        A, X = ctx.saved_tensors
        A2 = xp.broadcast_to(A, X.shape[:-2] + A.shape[-2:])         # (..., n, n)
        gB = xp.linalg.solve(_mT(xp, A2), gX)                        # (..., n, k)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = sum_to_shape(xp, -xp.matmul(gB, _mT(xp, X)), A.shape)   # (..., n, n)
        return gA, sum_to_shape(xp, gB, ctx.input_shapes[1]) if ctx.needs_input_grad[1] else None


class Eigvalsh(Function):
    """L = eigvalsh(A): the eigenvalues of the symmetric A (..., n, n), ascending (..., n),
    read from the triangle ``UPLO`` ('L' lower, 'U' upper).

    With A = V diag(L) V^T:  dL_i = v_i^T dA v_i, so  gA = V diag(gL) V^T. This is
    PyTorch's gradient: symmetric, the derivative along symmetric perturbations, given to
    both triangles although only one is read (so A + A^T, or any symmetric function of a
    tensor, gets the exact gradient)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A, UPLO="L"):
        L, V = ctx.xp.linalg.eigh(_symmetric(ctx.xp, A, UPLO))
        ctx.save_for_backward(L, V)             # not A: L is the output, V is needed
        return L

    @staticmethod
    def backward(ctx: Context, gL):
        xp = ctx.xp
        _, V = ctx.saved_tensors
        if not isinstance(gL, ctx.backend.array_type):  # create_graph: V a function of A
            A = ctx.input_tensor(0, _eigh_rebuilt)      # symmetric, the read triangle in both
            # eigh of A itself, not of its triangle: Eigh's backward gives both triangles the
            # symmetric gradient, so the second derivative keeps the first's convention (and
            # PyTorch's); through tril it went to the read triangle alone, off-diagonals x2
            _, V = xp.linalg.eigh(A)
        return xp.matmul(V * xp.expand_dims(gL, axis=-2), _mT(xp, V))     # (..., n, n)


def _eigh_rebuilt(xp, L, V):
    """The symmetric A = V diag(L) V^T (..., n, n), from what Eigvalsh keeps (both triangles
    hold the one it read)."""
    return xp.matmul(V * xp.expand_dims(L, axis=-2), _mT(xp, V))


class Eigh(Function):
    """L, V = eigh(A), packed (..., n + n·n): the eigenvalues (ascending) and orthonormal
    eigenvectors (columns) of the symmetric A (..., n, n), read from the triangle ``UPLO``.

    PyTorch's backward, with E_ij = L_j − L_i (1 on the diagonal):

        gA = V (skew(V^T gV) / 2 / E + diag(gL)) V^T            symmetric (..., n, n)

    given to both triangles, as Eigvalsh's.
    Infinite (NaN) where two eigenvalues are equal and gV is used, as PyTorch's; the loss
    must not depend on the sign of an eigenvector."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A, UPLO="L"):
        L, V = ctx.xp.linalg.eigh(_symmetric(ctx.xp, A, UPLO))
        y = _pack(ctx.xp, L.shape[:-1], L, V)                           # (..., n + n·n)
        ctx.save_for_backward(y)                # L, V as parts of the output (see top)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        xp = ctx.xp
        (y,) = ctx.saved_tensors
        n = ctx.input_shapes[0][-1]
        L, V = _unpack(xp, y, [(n,), (n, n)])
        gL, gV = _unpack(xp, gy, [(n,), (n, n)])
        M = _diag_embed(xp, gL)                                     # (..., n, n)
        use_V = _used(xp, gV, _reached(xp, gy, [(n,), (n, n)])[1])
        if use_V is not False:
            E = xp.expand_dims(L, axis=-2) - xp.expand_dims(L, axis=-1) + xp.eye(n, dtype=L.dtype)
            VtgV = xp.matmul(_mT(xp, V), gV)                         # (..., n, n)
            M = M + (VtgV - _mT(xp, VtgV)) / 2 / _divisor(xp, use_V, E)
        return xp.matmul(xp.matmul(V, M), _mT(xp, V))


class Qr(Function):
    """Q, R = qr(A), packed (..., m·kq + kr·n): A (..., m, n) = Q R, Q's columns
    orthonormal, R upper triangular; ``mode`` 'reduced' (Q (m, k), R (k, n), k = min(m, n)),
    'complete' (Q (m, m), R (m, n)) or 'r' (R only; Q is not returned), as
    ``torch.linalg.qr``.

    PyTorch's backward. For m >= n, with M = gR R^T − Q^T gQ (..., n, n) and sym(M) the
    symmetric matrix of M's upper triangle (triu(M) + triu(M)^T − diag(M)):

        gA = (gQ + Q sym(M)) R^{-T}

    For m < n split A = [X | Y], R = [U | V] (X, U square): X = Q U is the case above with
    gQ + Y gV^T in place of gQ, and gY = Q gV. Like PyTorch, the backward refuses
    mode='r' (Q is needed) and mode='complete' with m > n (Q's extra columns are not
    unique); an R with a zero on its diagonal (A of lower rank) gives infinities."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A, mode="reduced"):
        xp = ctx.xp
        Q, R = xp.linalg.qr(A, mode="complete" if mode == "complete" else "reduced")
        y = _pack(xp, A.shape[:-2], Q, R)                              # (..., m·k + k·n)
        ctx.save_for_backward(y)                # Q, R as parts of the output (see top)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        xp = ctx.xp
        (y,) = ctx.saved_tensors
        m, n = ctx.input_shapes[0][-2:]
        mode = ctx.attrs.get("mode", "reduced")
        k = m if mode == "complete" else min(m, n)
        if mode == "r":
            raise RuntimeError("linalg.qr: the derivative of linalg.qr depends on Q, which "
                               "is not computed when mode='r'; use mode='reduced' to "
                               "differentiate through it (PyTorch refuses it too)")
        if mode == "complete" and m > n:
            raise RuntimeError(f"linalg.qr: the QR decomposition of a {m} by {n} matrix is "
                               "not differentiable with mode='complete' (Q's last columns "
                               "are not unique); use mode='reduced' (as PyTorch)")
        Q, R = _unpack(xp, y, [(m, k), (k, n)])
        gQ, gR = _unpack(xp, gy, [(m, k), (k, n)])
        if m >= n:
            return _qr_square_backward(xp, Q, R, gQ, gR)
        U, gU, gV = R[..., :m], gR[..., :m], gR[..., m:]            # (.., m, m), (.., m, n − m)
        Y = xp.matmul(Q, R[..., m:])                                # (..., m, n − m)
        gX = _qr_square_backward(xp, Q, U, gQ + xp.matmul(Y, _mT(xp, gV)), gU)
        return xp.concat([gX, xp.matmul(Q, gV)], axis=-1)           # (..., m, n)


def _qr_square_backward(xp, Q, R, gQ, gR):
    """gA = (gQ + Q sym(gR R^T − Q^T gQ)) R^{-T} for Q (..., m, n), R (..., n, n)."""
    M = xp.matmul(gR, _mT(xp, R)) - xp.matmul(_mT(xp, Q), gQ)       # (..., n, n)
    upper = xp.triu(M)
    sym = upper + _mT(xp, upper) - _diag_embed(xp, _diagonal(xp, M))
    G = gQ + xp.matmul(Q, sym)                                      # (..., m, n)
    # G R^{-T}: solve X R^T = G, that is R X^T = G^T
    return _mT(xp, xp.linalg.solve(R, _mT(xp, G)))


__all__ = ["LinAlgError", "Svdvals", "Svd", "Det", "Slogdet", "Inv", "Solve", "Eigvalsh", "Eigh", "Qr"]
