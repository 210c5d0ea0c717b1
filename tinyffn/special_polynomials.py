"""The classical orthogonal polynomials of ``torch.special``: Chebyshev T, U, V, W and their
shifted forms, Hermite H and He, Laguerre L and Legendre P, each ``f(input, n)``.

Each is evaluated by its three-term recurrence p_k = (α_k(x) p_{k-1} - β_k p_{k-2}), one
array pass per degree up to the largest n asked for, every entry keeping the p_k whose k is
its own n, so values are exact wherever the arithmetic is (integer x, |x| = 1):

    T: T₀ = 1, T₁ = x,      T_k = 2x T_{k-1} - T_{k-2}     (U₁ = 2x, V₁ = 2x - 1,
                                                             W₁ = 2x + 1: the same step)
    shifted: the same of 2x - 1 (T*_n(x) = T_n(2x - 1), on [0, 1])
    H: H₁ = 2x,    H_k = 2x H_{k-1} - 2(k-1) H_{k-2}
    He: He₁ = x,   He_k = x He_{k-1} - (k-1) He_{k-2}
    L: L₁ = 1 - x, L_k = ((2k-1-x) L_{k-1} - (k-1) L_{k-2}) / k
    P: P₁ = x,     P_k = ((2k-1) x P_{k-1} - (k-1) P_{k-2}) / k

As PyTorch 2.13: n is a number or a tensor (broadcasting with input), truncated toward zero
(2.7 is 2); n < 0 gives 0; the dtype is the two arguments' result dtype, integers giving
float32 (float16 is computed in float32 and rounded once, where PyTorch refuses it); and the
result has no gradient (it does not require grad, as PyTorch's). PyTorch computes T, U, V
and W by cos(n acos x) and the like for |x| < 1 and n > 6 (8 for U): the values agree to
rounding. The cost is max(n) passes over the array.
"""
from __future__ import annotations

import math
import numbers

from .backend import dtype_name
from .arguments import type_name

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


def _chebyshev(first):
    """The Chebyshev recurrence with p₁ = first(x): T, U, V or W."""
    return first, lambda k, x, p1, p0: 2 * x * p1 - p0


_FAMILIES = {
    "t": _chebyshev(lambda x: x),
    "u": _chebyshev(lambda x: 2 * x),
    "v": _chebyshev(lambda x: 2 * x - 1),
    "w": _chebyshev(lambda x: 2 * x + 1),
    "h": (lambda x: 2 * x, lambda k, x, p1, p0: 2 * x * p1 - 2 * (k - 1) * p0),
    "he": (lambda x: x, lambda k, x, p1, p0: x * p1 - (k - 1) * p0),
    "l": (lambda x: 1 - x, lambda k, x, p1, p0: ((2 * k - 1 - x) * p1 - (k - 1) * p0) / k),
    "p": (lambda x: x, lambda k, x, p1, p0: ((2 * k - 1) * x * p1 - (k - 1) * p0) / k),
}


def _polynomial(op: str, family: str, input, n, shifted: bool = False):
    """p_n(x) of ``family`` for each entry of input and n (broadcast), as a tensor that does
    not require grad."""
    from .promotion import as_tensors
    from .torch_integers import result_type
    from .torch_math import _Named
    from .tensor import Tensor      # tensor.py imports special.py, which imports this
    for name, v in (("input", input), ("n", n)):
        if not isinstance(v, (Tensor, numbers.Real)):
            raise TypeError(f"{op}: {name} must be a tinyffn Tensor or a number, got "
                            f"{type_name(v)}")
    if not isinstance(input, Tensor) and not isinstance(n, Tensor):
        raise TypeError(f"{op}: input or n must be a tinyffn Tensor; wrap input with "
                        "tinyffn.tensor(...)")
    if isinstance(n, numbers.Real) and not isinstance(n, Tensor):
        if isinstance(n, float) and not math.isfinite(n):
            raise ValueError(f"{op}: n must be finite, got {n}")
        n = int(n)                                      # toward zero, as PyTorch's cast
    x, m = as_tensors((input, n), _Named(op))
    for a, b in zip(x.shape[::-1], m.shape[::-1]):
        if a != b and 1 not in (a, b):
            raise ValueError(f"{op}: shapes {x.shape} (input) and {m.shape} (n) cannot be "
                             "broadcast together; each trailing axis must match or be 1")
    be = x.backend
    xp = be.xp
    dtype = result_type(input, n)                      # as_tensors leaves x and n apart
    dtype = dtype if be.is_floating(dtype) else be.default_float()
    wide = xp.float32 if dtype_name(dtype) == "float16" else dtype
    xa, na = xp.broadcast_arrays(xp.astype(x.data, wide), m.data)
    if be.is_floating(na.dtype):                       # truncated; NaN counts as n < 0
        na = xp.where(xp.isnan(na), xp.full_like(na, -1), xp.trunc(na))
    na = xp.astype(na, xp.int64)
    if shifted:
        xa = 2 * xa - 1
    first, step = _FAMILIES[family]
    p0, p1 = xp.ones_like(xa), first(xa)
    y = xp.where(na == 1, p1, p0)
    top = int(xp.max(na)) if na.size else 0            # one read of the largest degree
    for k in range(2, top + 1):
        p0, p1 = p1, step(k, xa, p1, p0)
        y = xp.where(na == k, p1, y)
    y = xp.where(na < 0, xp.zeros_like(y), y)
    return Tensor(xp.astype(y, dtype), _backend=be)


def chebyshev_polynomial_t(input, n):
    """T_n(x), the Chebyshev polynomial of the first kind (cos nθ at x = cos θ), as
    ``torch.special.chebyshev_polynomial_t``."""
    return _polynomial("chebyshev_polynomial_t", "t", input, n)


def chebyshev_polynomial_u(input, n):
    """U_n(x), of the second kind (sin((n+1)θ) / sin θ), as
    ``torch.special.chebyshev_polynomial_u``."""
    return _polynomial("chebyshev_polynomial_u", "u", input, n)


def chebyshev_polynomial_v(input, n):
    """V_n(x), of the third kind, as ``torch.special.chebyshev_polynomial_v``."""
    return _polynomial("chebyshev_polynomial_v", "v", input, n)


def chebyshev_polynomial_w(input, n):
    """W_n(x), of the fourth kind, as ``torch.special.chebyshev_polynomial_w``."""
    return _polynomial("chebyshev_polynomial_w", "w", input, n)


def shifted_chebyshev_polynomial_t(input, n):
    """T_n(2x - 1), as ``torch.special.shifted_chebyshev_polynomial_t``."""
    return _polynomial("shifted_chebyshev_polynomial_t", "t", input, n, shifted=True)


def shifted_chebyshev_polynomial_u(input, n):
    """U_n(2x - 1), as ``torch.special.shifted_chebyshev_polynomial_u``."""
    return _polynomial("shifted_chebyshev_polynomial_u", "u", input, n, shifted=True)


def shifted_chebyshev_polynomial_v(input, n):
    """V_n(2x - 1), as ``torch.special.shifted_chebyshev_polynomial_v``."""
    return _polynomial("shifted_chebyshev_polynomial_v", "v", input, n, shifted=True)


def shifted_chebyshev_polynomial_w(input, n):
    """W_n(2x - 1), as ``torch.special.shifted_chebyshev_polynomial_w``."""
    return _polynomial("shifted_chebyshev_polynomial_w", "w", input, n, shifted=True)


def hermite_polynomial_h(input, n):
    """H_n(x), the physicists' Hermite polynomial, as ``torch.special.hermite_polynomial_h``."""
    return _polynomial("hermite_polynomial_h", "h", input, n)


def hermite_polynomial_he(input, n):
    """He_n(x), the probabilists' Hermite polynomial, as
    ``torch.special.hermite_polynomial_he``."""
    return _polynomial("hermite_polynomial_he", "he", input, n)


def laguerre_polynomial_l(input, n):
    """L_n(x), the Laguerre polynomial, as ``torch.special.laguerre_polynomial_l``."""
    return _polynomial("laguerre_polynomial_l", "l", input, n)


def legendre_polynomial_p(input, n):
    """P_n(x), the Legendre polynomial, as ``torch.special.legendre_polynomial_p``."""
    return _polynomial("legendre_polynomial_p", "p", input, n)
