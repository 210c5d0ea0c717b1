"""The ops with a hand-written backward: the primitives, and three fused alternatives.

Everything else in tinyffn (linear, GELU, Swish, softmax, the FFN) is composed of the
primitives, so its gradient follows from theirs. The fused ``Linear``, ``GELU`` and
``Swish`` are the exception, by choice: explicit one-node alternatives to the composed
``functional.linear``, ``gelu`` and ``swish``, selected with ``fused=True``, each tested
against its composed form in tests/test_fused.py. ``PRIMITIVES`` is the registry the test suite
reads, fused ops included: every op listed here is gradchecked, and a Function subclass
defined in this package but missing from the list fails the suite.
"""
from .activations import GELU, Swish
from .bessel import Gammainc, Gammaincc, J0, J1, K0, K0e, K1, K1e, StandardGamma, Y0, Y1
from .cholesky import Cholesky, MatrixExp, Pinv, SolveTriangular
from .decompositions import Det, Eigh, Eigvalsh, Inv, Qr, Slogdet, Solve, Svd, Svdvals
from .division import FloorDivide, Fmod, Remainder
from .elementwise import (Add, Cast, Clone, Cos, Div, Erf, Exp, Log, Log1p, Maximum, Mul, Neg,
                          Pow, ReLU, Sigmoid, Sign, Sin, Sub, Tanh, Where)
from .linalg import Linear, MatMul
from .logs_and_angles import Acos, Acosh, Asin, Asinh, Atan, Atan2, Atanh, Exp2, Log2, Log10, Tan
from .special_functions import (Digamma, Erfc, Erfcx, Erfinv, I0, I0e, I1, I1e, Lgamma, Ndtri,
                                Polygamma, Zeta)
from .reduce import Cumsum, Max, Mean, Prod, Sum
from .shape import BroadcastTo, Concat, GetItem, IndexAdd, Reshape, Transpose, sum_to_shape
from .windows import Col2Im, Im2Col

PRIMITIVES = (
    # elementwise, binary (broadcasting), and the selection where(c, x, w)
    Add, Sub, Mul, Div, FloorDivide, Remainder, Fmod, Maximum, Where,
    # elementwise, unary
    Neg, Pow, Exp, Log, Log1p, Tanh, Sigmoid, Erf, Sin, Cos, Sign, ReLU, Cast, Clone,
    Log2, Log10, Exp2, Atan, Atan2,                     # logs_and_angles.py
    Tan, Asin, Acos, Atanh, Asinh, Acosh,
    Lgamma, Digamma, Polygamma, Erfc, Erfcx, Erfinv, Ndtri,         # special_functions.py
    I0, I0e, I1, I1e, Zeta,
    J0, J1, Y0, Y1, K0, K1, K0e, K1e, Gammainc, Gammaincc,         # bessel.py
    StandardGamma,
    # reductions, and the running sum
    Sum, Mean, Max, Prod, Cumsum,
    # linear algebra
    MatMul,
    Svdvals, Svd, Det, Slogdet, Inv, Solve, Eigvalsh, Eigh, Qr,     # decompositions.py
    Cholesky, SolveTriangular, MatrixExp, Pinv,                     # cholesky.py
    # shape, and indexing's adjoint (scatter-add)
    Reshape, Transpose, BroadcastTo, GetItem, Concat, IndexAdd,
    # a convolution's sliding windows, and their adjoint (windows.py)
    Im2Col, Col2Im,
    # fused ops: one-node alternatives to composed forms, selected with fused=True
    Linear, GELU, Swish,
)

__all__ = [f.__name__ for f in PRIMITIVES] + ["PRIMITIVES", "sum_to_shape"]
