"""Fused activations: GELU and Swish as single nodes with closed-form backwards.

``tinyffn.functional.gelu`` and ``swish`` are, by default, compositions of primitives
(GELU is div, erf, add, mul, mul), which is what a learner should see in the graph and
what gradcheck checks end to end. The cost is speed: each composed node is a separate
pass over a (T, d_ff) array forward, and about two more backward, each allocating its
result. The ops below compute the same functions in one node, with the derivative
written out, reusing their temporaries in place. Select them with ``fused=True``
(``functional.gelu(x, fused=True)``, ``nn.FFN(..., fused=True)``); the tests check they
equal the composed forms and pass gradcheck like every primitive.

Under ``create_graph=True`` (:mod:`tinyffn.higher_order`) each backward is recorded, so a
second derivative (a Hessian-vector product, a gradient penalty) runs through them too.
The ordinary backward above works in place on raw arrays, and reads Φ(x) or s from the
forward pass, which the recorded graph would take as constants; so when ``gy`` is a tensor
the backward takes another branch: the same formula written with recorded ops on x alone
(Φ, φ, s computed again from x), itself differentiable to any order its ops allow.

A float16 input is computed in float32 and the result rounded back to float16, as
PyTorch does (its "opmath" type): float16 overflows above 65504, so x² is inf for
|x| > 256, and the tanh-GELU derivative's (1 + 3·0.044715 x²)(t² - 1) became inf · 0 =
NaN there; float32 also keeps the small values near the left tail accurate.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .elementwise import Sigmoid, as_float, stable_sigmoid

# The GELU constants; tinyffn.functional's composed GELU uses the same ones.
SQRT_2 = math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_TANH_COEFF = 0.044715  # GPT-2's cubic term, fitted so that the tanh form tracks x·Φ(x)


def _opmath(xp, x):
    """x in the dtype to compute in: float32 for a float16 x (PyTorch's "opmath"), else x.

    The strict backend has no float16, hence the getattr.
    """
    half = getattr(xp, "float16", None)
    return xp.astype(x, xp.float32) if half is not None and x.dtype == half else x


def _rounded(xp, y, dtype):
    """y in the input's dtype: float32 back to float16 after :func:`_opmath`, else y."""
    return y if y.dtype == dtype else xp.astype(y, dtype)


class GELU(Function):
    """y = x Φ(x), Φ the standard normal CDF and φ = Φ' its density, in one node.

    approximate="none":  Φ(x) = (1 + erf(x/√2)) / 2,     dy/dx = Φ(x) + x φ(x),
                         φ(x) = exp(-x²/2) / √(2π).
    approximate="tanh":  Φ(x) ≈ (1 + tanh(u)) / 2,  u = √(2/π) (x + 0.044715 x³),
                         dy/dx = (1 + t)/2 + x (1 - t²) √(2/π) (1 + 3·0.044715 x²) / 2,  t = tanh(u).

    ``cdf`` holds Φ(x) and ``pdf`` its derivative: φ(x), or the tanh form's (1 - t²) du/dx / 2.
    The input is saved as given (float16 stays float16), so that under create_graph it is
    read back as the input tensor itself, not as a float32 copy the graph does not know.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, approximate):
        x_in = x
        xp, x = ctx.xp, as_float(ctx, x)                   # an integer x gives float32
        dtype, x = x.dtype, _opmath(xp, x)                 # float16 runs in float32
        if approximate == "none":
            cdf = ctx.backend.erf(x * (1 / SQRT_2))        # erf(x/√2)
        else:
            cdf = x * x
            cdf *= GELU_TANH_COEFF
            cdf += 1
            cdf *= x
            cdf *= SQRT_2_OVER_PI                          # u
            cdf = xp.tanh(cdf)                             # t = tanh(u)
        cdf += 1
        cdf *= 0.5                                         # Φ(x)
        ctx.save_for_backward(x_in, cdf)
        return _rounded(xp, x * cdf, dtype)

    @staticmethod
    def backward(ctx: Context, gy):
        x, cdf = ctx.saved_tensors
        if not isinstance(gy, ctx.backend.array_type):     # create_graph: recorded ops
            return _gelu_grad_recorded(ctx, x, gy)
        xp = ctx.xp
        x = _opmath(xp, as_float(ctx, x))                  # as forward computed with it
        if ctx.attrs["approximate"] == "none":
            pdf = x * x
            pdf *= -0.5
            pdf = xp.exp(pdf)
            pdf *= INV_SQRT_2PI                            # φ(x) = dΦ/dx
        else:
            t = 2 * cdf
            t -= 1                                         # tanh(u), recovered from Φ
            pdf = x * x
            pdf *= 3 * GELU_TANH_COEFF
            pdf += 1
            pdf *= SQRT_2_OVER_PI * 0.5                    # du/dx / 2
            t *= t
            t -= 1
            pdf *= t
            pdf *= -1                                      # (1 - t²) du/dx / 2 = dΦ/dx
        gx = pdf                                           # the same buffer, now for gx
        gx *= x
        gx += cdf                                          # dy/dx = Φ + x dΦ/dx
        gx *= gy
        return _rounded(xp, gx, gy.dtype)

    @classmethod
    def op_name(cls) -> str:
        return "gelu"

    @staticmethod
    def flops(ctx, y):
        """As the composed form counts them, one per primitive and element: x/√2, erf, +1,
        ×½, x·Φ (5); or x³, ×0.044715, +x, ×√(2/π), tanh, +1, ×½, x·Φ (8)."""
        return (5 if ctx.attrs["approximate"] == "none" else 8) * math.prod(y.shape)


def _gelu_grad_recorded(ctx: Context, x, gy):
    """GELU's backward under create_graph: gy (Φ + x dΦ/dx), each factor a recorded op on
    x, the input tensor (the forward's Φ(x) would be a constant here)."""
    xp, dtype = ctx.xp, gy.dtype
    x = _opmath(xp, as_float(ctx, x))
    if ctx.attrs["approximate"] == "none":
        cdf = 0.5 * (1 + ctx.backend.erf(x * (1 / SQRT_2)))                  # Φ(x)
        pdf = INV_SQRT_2PI * xp.exp(-0.5 * (x * x))                          # φ(x)
    else:
        t = xp.tanh(SQRT_2_OVER_PI * (x + GELU_TANH_COEFF * (x * x * x)))   # tanh(u)
        cdf = 0.5 * (1 + t)
        pdf = (SQRT_2_OVER_PI * 0.5) * (1 + (3 * GELU_TANH_COEFF) * (x * x)) * (1 - t * t)
    return _rounded(xp, (cdf + x * pdf) * gy, dtype)


class Swish(Function):
    """y = x sigmoid(β x) for a constant β, in one node (β = 1: SiLU).

    dy/dx = s + β x s (1 - s),  s = sigmoid(β x), computed by
    :func:`~tinyffn.ops.elementwise.stable_sigmoid` as the Sigmoid op does. The input is
    saved as given, as GELU's.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, beta):
        x_in = x
        xp, x = ctx.xp, as_float(ctx, x)                   # an integer x gives float32
        dtype, x = x.dtype, _opmath(xp, x)                 # float16 runs in float32
        s = stable_sigmoid(xp, x if beta == 1 else x * beta)   # sigmoid(βx)
        ctx.save_for_backward(x_in, s)
        return _rounded(xp, x * s, dtype)

    @staticmethod
    def backward(ctx: Context, gy):
        x, s = ctx.saved_tensors
        beta = ctx.attrs["beta"]
        if not isinstance(gy, ctx.backend.array_type):     # create_graph: recorded ops
            x = _opmath(ctx.xp, as_float(ctx, x))          # the input tensor
            s = Sigmoid.apply(x if beta == 1 else x * beta)    # s again, as a function of x
            xs = x * (s * (1 - s)) if beta == 1 else beta * x * (s * (1 - s))   # β x s (1 - s)
            return _rounded(ctx.xp, (s + xs) * gy, gy.dtype)
        x = _opmath(ctx.xp, as_float(ctx, x))              # as forward computed with it
        g = 1 - s
        g *= s
        g *= x
        if beta != 1:
            g *= beta                                      # β x s (1 - s)
        g += s
        g *= gy
        return _rounded(ctx.xp, g, gy.dtype)

    @classmethod
    def op_name(cls) -> str:
        return "swish"

    @staticmethod
    def flops(ctx, y):
        """As the composed form counts them: sigmoid, x·s (2), and βx when β ≠ 1 (3)."""
        return (2 if ctx.attrs["beta"] == 1 else 3) * math.prod(y.shape)
