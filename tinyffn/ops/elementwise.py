"""Elementwise primitives: arithmetic, exp, log, log1p, tanh, sigmoid, erf, sin/cos, sign,
relu, maximum, where, cast, clone (``//``, ``%`` and fmod are in division.py).

Binary ops broadcast their inputs as NumPy does, so each backward first computes the
gradient at the broadcast shape and then sums it back to its input's shape
(:func:`~tinyffn.ops.shape.sum_to_shape`): that is how a bias of shape (d,) added to
activations of shape (T, d) receives a gradient of shape (d,).

Notation in the docstrings: ``gy = dL/dy``, the gradient arriving from above; the
backward returns ``gx = dL/dx = gy * dy/dx`` for each input.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function, refuse_bool
from .shape import sum_to_shape

SQRT_PI = math.sqrt(math.pi)


def as_float(ctx: Context, x):
    """x, or an integer or bool x in the default float dtype (float32 unless set), as PyTorch.

    For the ops whose result is not an integer (x / w, exp, log, tanh, sigmoid, erf,
    x ** 0.5, mean, the fused activations): NumPy would compute an integer x in float64,
    and a bool x in float16, and carry that dtype into the graph downstream.
    """
    return x if x.dtype in ctx.backend.float_dtypes else ctx.xp.astype(x, ctx.backend.default_float())


def _broadcast_error(op: str, x, w) -> ValueError:
    return ValueError(f"{op}: shapes {tuple(x.shape)} and {tuple(w.shape)} cannot be "
                      "broadcast together; each trailing axis must match or be 1")


def sign_of(xp, x):
    """``xp.sign(x)`` of a float array, NumPy's (NaN stays NaN, -0.0 gives 0.0), from two
    comparisons and a ``where``: array_api_compat's ``sign`` for CuPy sets NaN through a
    boolean mask (CuPy's own gives 0 there), and on a GPU a boolean mask reads its count
    back, a wait for every kernel queued. Under create_graph (x a tensor), ``xp.sign``:
    the Sign op, recorded."""
    from ..tensor import Tensor        # tensor.py imports the ops
    if isinstance(x, Tensor):
        return xp.sign(x)
    s = xp.astype(x > 0, x.dtype) - xp.astype(x < 0, x.dtype)
    return xp.where(xp.isnan(x), x, s)


class Add(Function):
    """y = x + w (broadcasting).    dy/dx = 1,  dy/dw = 1."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w):
        try:
            return x + w
        except ValueError as e:
            raise _broadcast_error("add", x, w) from e

    @staticmethod
    def backward(ctx: Context, gy):
        x_shape, w_shape = ctx.input_shapes
        gx = sum_to_shape(ctx.xp, gy, x_shape) if ctx.needs_input_grad[0] else None
        gw = sum_to_shape(ctx.xp, gy, w_shape) if ctx.needs_input_grad[1] else None
        return gx, gw


class Sub(Function):
    """y = x - w (broadcasting).    dy/dx = 1,  dy/dw = -1.

    A bool operand is refused, as in PyTorch: ``1 - mask`` is most often a mask meant to
    be inverted (``~mask``), and two masks have no arithmetic difference (``a ^ b``)."""

    twice_differentiable = True

    bool_refused = ("sub: subtraction with a bool operand is not supported, as in PyTorch: "
                    "to invert a mask write ~mask, for the logical difference of two masks "
                    "a ^ b; for arithmetic, cast it first (mask.long() or mask.float())")

    @staticmethod
    def forward(ctx: Context, x, w):
        refuse_bool(Sub, x, ctx.backend)    # both bool here: promotion refused one alone
        try:
            return x - w
        except ValueError as e:
            raise _broadcast_error("sub", x, w) from e

    @staticmethod
    def backward(ctx: Context, gy):
        x_shape, w_shape = ctx.input_shapes
        gx = sum_to_shape(ctx.xp, gy, x_shape) if ctx.needs_input_grad[0] else None
        gw = -sum_to_shape(ctx.xp, gy, w_shape) if ctx.needs_input_grad[1] else None
        return gx, gw


class Mul(Function):
    """y = x * w (broadcasting).    dy/dx = w,  dy/dw = x.

    Each input is saved only if the other's gradient needs it: in ``0.5 * h`` (GELU's
    composed form) the (T, d_ff) h is not kept for the constant's gradient."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w):
        need_x, need_w = ctx.needs_input_grad
        ctx.save_for_backward(x if need_w else None, w if need_x else None)
        try:
            return x * w
        except ValueError as e:
            raise _broadcast_error("mul", x, w) from e

    @staticmethod
    def backward(ctx: Context, gy):
        x, w = ctx.saved_tensors
        x_shape, w_shape = ctx.input_shapes
        gx = sum_to_shape(ctx.xp, gy * w, x_shape) if ctx.needs_input_grad[0] else None
        gw = sum_to_shape(ctx.xp, gy * x, w_shape) if ctx.needs_input_grad[1] else None
        return gx, gw


class Div(Function):
    """y = x / w (broadcasting).    dy/dx = 1/w,  dy/dw = -x/w^2 = -y/w."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w):
        floats = ctx.backend.float_dtypes
        if x.dtype not in floats and w.dtype not in floats:
            # integers divide into the default float (the standard does not define / on
            # integers); as_tensors already gave an integer next to a float the float's dtype
            x, w = as_float(ctx, x), as_float(ctx, w)
        try:
            y = x / w
        except ValueError as e:
            raise _broadcast_error("div", x, w) from e
        ctx.save_for_backward(w, y if ctx.needs_input_grad[1] else None)  # y: for gw alone
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        w, y = ctx.saved_tensors
        x_shape, w_shape = ctx.input_shapes
        gx = gy / w                                  # gw needs it too: -gy y / w = -gx y
        gw = sum_to_shape(ctx.xp, -gx * y, w_shape) if ctx.needs_input_grad[1] else None
        gx = sum_to_shape(ctx.xp, gx, x_shape) if ctx.needs_input_grad[0] else None
        return gx, gw


class Neg(Function):
    """y = -x.    dy/dx = -1.  A bool x is refused, as in PyTorch (``~mask`` inverts one)."""

    twice_differentiable = True

    bool_refused = ("neg: negation of a bool tensor is not supported, as in PyTorch: to "
                    "invert a mask write ~mask; for arithmetic, cast it first (-mask.long())")

    @staticmethod
    def forward(ctx: Context, x):
        refuse_bool(Neg, x, ctx.backend)
        return -x

    @staticmethod
    def backward(ctx: Context, gy):
        return -gy


class Pow(Function):
    """y = x ** p for a constant number p.    dy/dx = p * x ** (p - 1);  0 for p = 0.

    For p = 0, y = 1 is constant and dy/dx = 0 everywhere, also at x = 0 where the
    formula would give 0 * 0 ** -1 = 0 * inf = NaN (PyTorch also returns 0).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, p):
        if isinstance(p, float):
            x = as_float(ctx, x)            # int ** 2.0 is float (as in PyTorch), int ** 2 int
        elif ctx.xp.isdtype(x.dtype, "bool"):
            x = ctx.xp.astype(x, ctx.xp.int64)     # bool ** 2 counts, as PyTorch: int64
        if p < 0 and x.dtype not in ctx.backend.float_dtypes:
            # NumPy and PyTorch refuse (also for bools); CuPy would answer 0 for |x| > 1
            raise ValueError(f"pow: an integer or bool tensor to a negative integer power ({p}) "
                             f"has no integer result; use a float power (x ** {float(p)}) or "
                             "x.float()")
        ctx.save_for_backward(x)
        return _power(ctx.xp, x, p)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        p = ctx.attrs["p"]
        if p == 0:
            return ctx.xp.zeros_like(gy)
        if p == 2 and not isinstance(gy, ctx.backend.array_type):
            # create_graph: x ** 1 recorded as a pow, not _power's copy of x (a clone, whose
            # gradient does not read x), as PyTorch's pow_backward reads x at every power:
            # the Hessian of x ** 2 (2, through x ** 0, derivative 0) stays in x's graph
            return gy * (2 * ctx.xp.pow(x, 1))
        return gy * (p * _power(ctx.xp, x, p - 1))


def _power(xp, x, p):
    """x ** p, with the common small powers written as products (same values).

    NumPy's float32 ``power`` is a generic powf call per element: for x ** 3 it is about
    300 times slower than x * x * x, which the tanh form of GELU would otherwise pay.
    """
    if p == 1:          # a copy: an output that is its input's array would confuse
        return xp.asarray(x, copy=True)     # create_graph's saved-array mapping (x ** 1 * x)
    if p == 2:
        return x * x
    if p == 3:
        return x * x * x
    if p == 0.5:
        return xp.sqrt(x)
    if p == -0.5:       # as torch.rsqrt: nan at -inf and -inf at -0.0, where IEEE's pow
        # gives 0 and inf (so sqrt's gradient at -inf was 0). float16 is computed in
        # float32 and rounded once, as PyTorch's: 1 / a rounded sqrt is 1 ulp off for a
        # quarter of the float16 numbers
        half = getattr(xp, "float16", None)     # (the strict backend has none)
        if half is not None and x.dtype == half:
            return xp.astype(1 / xp.sqrt(xp.astype(x, xp.float32)), half)
        return 1 / xp.sqrt(x)
    return x ** p


class Exp(Function):
    """y = exp(x).    dy/dx = exp(x) = y."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        y = ctx.xp.exp(as_float(ctx, x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        return gy * y


class Log(Function):
    """y = log(x) (natural log).    dy/dx = 1/x."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.log(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / x


class Log1p(Function):
    """y = log(1 + x), computed without forming 1 + x, so a tiny x keeps its digits
    (log(1 + 1e-20) rounds to log 1 = 0; log1p gives 1e-20).    dy/dx = 1/(1 + x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.log1p(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / (1 + x)


class Tanh(Function):
    """y = tanh(x).    dy/dx = 1 - tanh(x)^2 = 1 - y^2."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        y = ctx.xp.tanh(as_float(ctx, x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        return gy * (1 - y * y)


def stable_sigmoid(xp, x):
    """sigmoid(x) = 1 / (1 + exp(-x)), with no overflow and full relative precision.

    With e = exp(-|x|), which lies in (0, 1] and so never overflows,

        sigmoid(x) = 1 / (1 + e)    for x >= 0,
        sigmoid(x) = e / (1 + e)    for x < 0    (1 / (1 + exp(-x)), times exp(x) / exp(x)).

    Each branch divides positive numbers, so the result is correct to about an ulp even
    where it is tiny: sigmoid(-50) = 1.9e-22, log(sigmoid(-50)) = -50. The tanh form
    (1 + tanh(x/2)) / 2 subtracts nearly equal numbers for x < 0: in float32 it is stuck
    at 3e-8 from x = -17.5 and exactly 0 from x = -20 (from about -38 in float64). The
    fused Swish shares this function.

    The choice of numerator, 1 or e, is written as maximum(e, [x >= 0]) (e <= 1, so that
    is 1 where x >= 0 and e elsewhere, and NaN stays NaN) rather than xp.where: NumPy's
    where is ~30x slower on mixed signs (2 ms against 0.06 ms at 512 x 1024 float32).
    """
    e = xp.exp(-xp.abs(x))                         # in (0, 1]
    y = xp.maximum(e, xp.astype(x >= 0, e.dtype))  # numerator: 1 where x >= 0, else e
    e += 1
    y /= e                                         # (1 or e) / (1 + e)
    return y


class Sigmoid(Function):
    """y = sigmoid(x) = 1 / (1 + exp(-x)).    dy/dx = y (1 - y).

    Computed by :func:`stable_sigmoid`: the same function, arranged so that no exp
    overflows and no subtraction cancels.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        y = stable_sigmoid(ctx.xp, as_float(ctx, x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        return gy * (y * (1 - y))


class Erf(Function):
    """y = erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt.    dy/dx = 2/sqrt(pi) * exp(-x^2).

    GELU is x * (1 + erf(x / sqrt(2))) / 2. erf is not in the array API standard; each
    backend supplies it (``ctx.backend.erf``). On the CPU, float64 uses SciPy's erf;
    float32 uses :func:`tinyffn.backend.erf_float32`, a rational approximation
    x P(x²) / Q(x²) on x clamped to [-4, 4] (Eigen's float32 coefficients, evaluated in
    float64, within 2 ulp of the true value and about 3x faster than SciPy's); float16
    uses that and rounds to float16. On the GPU, CuPy's erf.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.backend.erf(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy * ((2 / SQRT_PI) * ctx.xp.exp(-(x * x)))


class Sin(Function):
    """y = sin(x).    dy/dx = cos(x).  (Sinusoidal position encodings are sines and cosines.)"""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.sin(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy * ctx.xp.cos(x)


class Cos(Function):
    """y = cos(x).    dy/dx = -sin(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.cos(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return -gy * ctx.xp.sin(x)


class Sign(Function):
    """y = sign(x) = [x > 0] - [x < 0]: -1, 0 or 1, in x's dtype.    dy/dx = 0.

    Written as PyTorch computes it, so sign(NaN) is 0 (NumPy's sign gives NaN) and
    sign(-0.0) is 0. A bool x is its own sign. The derivative is 0 wherever it exists (the
    jump at 0 has none; 0 there too, as PyTorch): backward returns zeros without reading
    gy, so a NaN or inf arriving from above does not pass through. The result is in the
    graph all the same, as PyTorch's, so ``(x.sign() * w).sum().backward()`` runs.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        xp = ctx.xp
        if xp.isdtype(x.dtype, "bool"):
            return xp.asarray(x, copy=True)
        return xp.astype(x > 0, x.dtype) - xp.astype(x < 0, x.dtype)

    @staticmethod
    def backward(ctx: Context, gy):
        return ctx.xp.zeros_like(gy)


class ReLU(Function):
    """y = max(x, 0).    dy/dx = 0 where x <= 0, else 1 (0 at the kink x = 0, as PyTorch).

    A NaN input gives y = NaN and passes gy back, as PyTorch does (it zeroes gy only
    where x <= 0), so the NaN is not hidden from the layers below. A bool x is refused, as
    in PyTorch (NumPy would give int64 0s and 1s).

    relu(-0.0) is 0.0 here (NumPy's maximum returns its second argument on that tie; CuPy's
    is CUDA's max, for which +0.0 > -0.0) and -0.0 in PyTorch (``clamp_min``: x unless
    x < 0); the two compare equal. The select that would keep -0.0, ``where(x < 0, 0, x)``,
    is 8-13x slower than maximum in NumPy on random signs, and this is the FFN's hot path.
    """

    twice_differentiable = True

    bool_refused = ("relu: a bool tensor is not supported, as in PyTorch; cast it first "
                    "(mask.float().relu())")

    @staticmethod
    def forward(ctx: Context, x):
        refuse_bool(ReLU, x, ctx.backend)
        y = ctx.xp.maximum(x, 0)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        # gy where not x <= 0. y = max(x, 0) is 0 where x <= 0, positive where x > 0 and
        # NaN where x is NaN (maximum propagates NaN), so that is y != 0: the 0/1 mask,
        # multiplied by gy in place so the mask's buffer becomes the result (one (T, d_ff)
        # array, not two). Not xp.where: NumPy's where is ~10x slower here on random signs
        # (2 ms vs 0.15 ms, 512 x 1024).
        xp = ctx.xp
        if not isinstance(gy, ctx.backend.array_type):
            # create_graph: the same 0/1 mask, written sign(y) (+1 where y is NaN) so that
            # it is recorded on y, with derivative 0, as PyTorch records threshold_backward
            # on relu's output: the gradient stays in x's graph, and jacobian or hessian
            # (create_graph=True) of a ReLU network require grad (their values: zeros)
            return (xp.sign(y) + xp.astype(xp.isnan(y), gy.dtype)) * gy
        gx = xp.astype(y != 0, gy.dtype)
        gx *= gy
        return gx


class Maximum(Function):
    """y = maximum(x, w) elementwise (broadcasting).

    dy/dx = 1 where x > w, dy/dw = 1 where w > x; where x == w the gradient is split
    half and half (the average of the two one-sided derivatives). Where x or w is NaN (so
    is y) both get all of gy, so the NaN reaches both. That is PyTorch's rule, written as
    it does: each input's share is 1, less 1 where it lost, less 1/2 on a tie.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w):
        ctx.save_for_backward(x, w)
        try:
            return ctx.xp.maximum(x, w)
        except ValueError as e:
            raise _broadcast_error("maximum", x, w) from e

    @staticmethod
    def backward(ctx: Context, gy):
        x, w = ctx.saved_tensors
        xp = ctx.xp
        tie = 0.5 * xp.astype(x == w, gy.dtype)
        gx = gw = None
        if ctx.needs_input_grad[0]:
            gx = sum_to_shape(xp, gy * (1 - xp.astype(x < w, gy.dtype) - tie), x.shape)
        if ctx.needs_input_grad[1]:
            gw = sum_to_shape(xp, gy * (1 - xp.astype(x > w, gy.dtype) - tie), w.shape)
        return gx, gw


class Where(Function):
    """y = x where the condition c holds, else w (broadcasting all three), as torch.where.

    dy/dx = [c],  dy/dw = 1 - [c]  (each 1 on the elements it supplied, 0 elsewhere);
    the condition gets no gradient. c arrives as a mask of the values' dtype (every op's
    inputs are promoted to one dtype, and bool is the lowest kind) and is read back as
    bool. Gradients are selected with ``where`` too, not multiplied by the mask, so an inf
    arriving at a discarded element does not become inf * 0 = NaN.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, c, x, w):
        xp = ctx.xp
        c = xp.astype(c, xp.bool)
        ctx.save_for_backward(c)
        try:
            return xp.where(c, x, w)
        except ValueError as e:
            raise ValueError(f"where: shapes {tuple(c.shape)} (condition), {tuple(x.shape)} and "
                             f"{tuple(w.shape)} cannot be broadcast together; each trailing "
                             "axis must match or be 1") from e

    @staticmethod
    def backward(ctx: Context, gy):
        (c,) = ctx.saved_tensors
        xp = ctx.xp
        zero = xp.zeros((), dtype=gy.dtype)
        _, x_shape, w_shape = ctx.input_shapes
        gx = sum_to_shape(xp, xp.where(c, gy, zero), x_shape) if ctx.needs_input_grad[1] else None
        gw = sum_to_shape(xp, xp.where(c, zero, gy), w_shape) if ctx.needs_input_grad[2] else None
        return None, gx, gw


class Cast(Function):
    """y = x converted to another dtype.    dy/dx = 1 (gx cast back to x's dtype).

    To an integer or bool dtype the result starts no graph (``Function.apply`` records no
    node for a non-float result): truncation has no useful derivative.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, dtype):
        return ctx.xp.astype(x, dtype)

    @staticmethod
    def backward(ctx: Context, gy):
        return ctx.xp.astype(gy, ctx.input_dtypes[0])

    @staticmethod
    def flops(ctx, y):
        return 0


class Clone(Function):
    """y = a copy of x (``x.clone()``: new memory, still in the graph).    dy/dx = 1."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        return ctx.xp.asarray(x, copy=True)

    @staticmethod
    def backward(ctx: Context, gy):
        return gy

    @staticmethod
    def flops(ctx, y):
        return 0
