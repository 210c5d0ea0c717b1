"""PyTorch's elementwise math that ported programs reach for, each a function and (where
torch has one) a Tensor method: ``expm1``, ``log2``, ``log10``, ``exp2``, ``sinh``,
``cosh``, ``atan``/``arctan``, ``atan2``/``arctan2``, ``logaddexp``, ``logaddexp2``,
``hypot``, ``clamp_min``, ``clamp_max``, ``xlogy``.

``log2``, ``log10``, ``exp2``, ``atan`` and ``atan2`` are primitives
(:mod:`tinyffn.ops.logs_and_angles`): the array library has them to the last bit. The
others are composed, each in a frame of its name, written so that no digit is lost where
a plain formula would lose it:

* ``expm1`` is Kahan's form, u = exp(x), (u - 1) · x / log u: the rounding error of u
  cancels between u - 1 and log u, so expm1(1e-10) keeps all its digits where
  exp(x) - 1 keeps six;
* ``sinh`` of |x| < 1 is (expm1(x) - expm1(-x)) / 2, no cancellation; for larger |x|
  h = exp(|x| / 2) and h/2 · h - 1/(2 h²), finite up to |x| = 710.4 as the true value
  is (exp(x)/2 overflows at 709.8); ``cosh`` is 1 + 2 sinh(x/2)²;
* ``logaddexp`` is max(a, b) + log1p(exp(-|a - b|)), never exp of a large number;
* ``hypot`` is m · sqrt(1 + (n/m)²), m and n the larger and smaller of |a| and |b|, so
  a² does not overflow (hypot(1e20, 1e20) in float32 is 1.41e20, not inf).

Both choose the larger operand with ``where`` (a mask outside the graph), not with
``maximum`` or ``abs``: each side of the choice is smooth, so second derivatives hold on
a tie too. max(a, b) + log1p(exp(-|a - b|)) has two kinks at a = b that cancel in the
value and the gradient but not in the second derivative, which was 0 there (σ(1 - σ) =
1/4 is right); hypot's was 0 at a = 0 and on |a| = |b| (fuzzer).

Where a branch is not taken, its input is replaced by a harmless value (the "double
where"), so that where's zero gradient does not meet an inf or NaN of the other branch
(0 · inf is NaN). Integers and bools compute in float32, float16 in float32 and rounded
once, as PyTorch. :class:`MathMethods` is a base class of ``Tensor`` (through
``TorchMethods``).
"""
from __future__ import annotations

import math
import numbers

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import tensor_arg, type_name
from .backend import dtype_name
from .ops.logs_and_angles import LN2, Atan, Atan2, Exp2, Log2, Log10


def _float(x):
    """x in the default float dtype if it holds integers or bools (as PyTorch), else as is."""
    return x if x.backend.is_floating(x.dtype) else x.to(dtype=x.backend.default_float())


def _wide(x):
    from .functional import _widened    # one definition (functional.py imports our users)
    return _widened(x)


def _composed(op: str, input, fn):
    """fn(x) of the float ``x`` of ``input``, in a frame named ``op``: float16 computed in
    float32 and rounded once, as PyTorch computes it."""
    from .functional import _narrowed       # (functional.py imports this module's users)
    x = _float(tensor_arg(op, "input", input))
    with grad_mode.scope("function", op):
        return _narrowed(fn(_wide(x)), x)   # float32 under autocast's list (amp.py)


class _Named:
    """What :func:`~tinyffn.promotion.as_tensors` reads of an op: its name, for errors."""

    def __init__(self, name: str):
        self.name = name

    def op_name(self) -> str:
        return self.name


def _binary(op: str, input, other, fn, names=("input", "other"), widen=True):
    """fn(a, b) of both operands as float tensors, in a frame named ``op``. A number takes
    the dtype of the tensor next to it (a float32 tensor and 0.5 stay float32), two
    tensors PyTorch's result dtype; float16 computes in float32, rounded once."""
    Tensor = _tensor.Tensor
    for name, v in zip(names, (input, other)):
        if not isinstance(v, (Tensor, numbers.Real)):
            raise TypeError(f"{op}: {name} must be a tinyffn Tensor or a number, got "
                            f"{type_name(v)}")
    from .promotion import as_tensors
    a, b = (_float(t) for t in as_tensors((input, other), _Named(op)))
    for m, n in zip(a.shape[::-1], b.shape[::-1]):
        if m != n and 1 not in (m, n):
            raise ValueError(f"{op}: shapes {a.shape} and {b.shape} cannot be broadcast "
                             "together; each trailing axis must match or be 1")
    half = widen and dtype_name(a.dtype) == dtype_name(b.dtype) == "float16"
    with grad_mode.scope("function", op):
        if not half:
            return fn(a, b)
        y = fn(_wide(a), _wide(b))
        return y.to(dtype="float16") if half else y


# ----------------------------------------------------------------------------- exp and log
def expm1(input):
    """exp(x) - 1, as ``torch.expm1``, to the last digits near 0, where exp(x) - 1 cancels
    (at x = 1e-10 it is 8e-8 off). With t = tanh(x/2), exp(x) - 1 = 2t / (1 - t) exactly,
    and for |x| < 1 each part is accurate (1 - t lies in (0.53, 1.47)): used there. Where
    |x| >= 1, exp(x) - 1 itself loses nothing. Where exp(x) rounds to 1 the answer is x
    (it is x to within half an ulp; tanh(x/2) of the smallest subnormal is 0).

    The gradient, (1 + t) / (1 - t) near 0 and exp(x) elsewhere, is e^x to 2 ulp. Kahan's
    (u - 1) · x / log u, u = exp(x), is as exact in value but not in gradient: its terms
    cancel to 0 below x ≈ -37, and float32 log of a subnormal u put expm1(-98) at
    -0.99999 (tried first, replaced).
    """
    from .composed import where     # composed.py imports tensor.py, which imports this

    def fn(x):
        u = x.exp()
        near = (x > -1.0) & (x < 1.0)                       # bool, outside the graph
        t = (x.masked_fill(~near, 0.0) * 0.5).tanh()        # 0 where not used: no NaN
        return where(u == 1, x, where(near, 2.0 * t / (1.0 - t), u - 1.0))
    return _composed("expm1", input, fn)


def log2(input):
    """log base 2, as ``torch.log2``: log2(8) is 3.0 exactly. The Log2 primitive."""
    return Log2.apply(_float(tensor_arg("log2", "input", input)))


def log10(input):
    """log base 10, as ``torch.log10``: log10(1000) is 3.0 exactly. The Log10 primitive."""
    return Log10.apply(_float(tensor_arg("log10", "input", input)))


def exp2(input):
    """2 to the power x, as ``torch.exp2`` (exp2(3) is 8.0 exactly). The Exp2 primitive."""
    return Exp2.apply(_float(tensor_arg("exp2", "input", input)))


def _exp_halves(a):
    """(e^a / 2, e^-a / 2) for a = |x|, each finite wherever sinh and cosh are: exp(a) up to
    just below where it overflows (708 in float64, 87 in float32); past that
    e^(a/2) · (e^(a/2) / 2), and 0 for e^-a / 2, below an ulp of the other. There the two
    factors are made by two exp nodes of two halvings, so that each backward multiplies to
    e^a / 2 and the two add at a after halving: one shared node would add e^a / 2 twice,
    inf, where the gradient (e^a / 2) is finite. Each where's untaken side is fed a
    harmless a, so no inf · 0 reaches the gradient."""
    from .composed import where     # composed.py imports tensor.py, which imports this
    limit = math.floor(math.log(float(a.backend.xp.finfo(a.dtype).max))) - 1
    big = a > limit
    e = where(big, 0.0, a).exp()
    b = where(big, a, 0.0)
    return where(big, (b / 2).exp() * ((b / 2).exp() / 2), e / 2), where(big, 0.0, 0.5 / e)


def _abs(x):
    """|x| by where: abs's maximum turns inf · 0 into NaN in the gradient."""
    from .composed import where
    return where(x < 0, -x, x)


def sinh(input):
    """(e^x - e^-x) / 2, as ``torch.sinh``: for |x| < 1 (expm1(x) - expm1(-x)) / 2, which
    keeps every digit of sinh(1e-10); else ±(e^|x| / 2 - e^-|x| / 2), finite up to where
    sinh is (:func:`_exp_halves`). Within 2 ulp of the exact value and gradient in float64
    (measured against mpmath), 3.5 ulp in float32 (NumPy's float32 exp is 2 ulp)."""
    from .composed import where

    def fn(x):
        small = x.abs() < 1
        xs = where(small, x, 0.0)                           # harmless where not taken
        near = (expm1(xs) - expm1(-xs)) / 2
        up, down = _exp_halves(_abs(where(small, 1.0, x)))
        far = up - down
        return where(small, near, where(x < 0, -far, far))
    return _composed("sinh", input, fn)


def cosh(input):
    """(e^x + e^-x) / 2, as ``torch.cosh``: for |x| < 1, 1 + 2 sinh(x/2)², whose gradient
    2 sinh(x/2) cosh(x/2) = sinh x is exact for tiny x too; else e^|x| / 2 + e^-|x| / 2,
    two positive terms, finite up to where cosh is (:func:`_exp_halves`)."""
    from .composed import where

    def fn(x):
        small = x.abs() < 1
        near = 1 + 2 * sinh(where(small, x, 0.0) / 2) ** 2
        up, down = _exp_halves(_abs(where(small, 1.0, x)))
        return where(small, near, up + down)
    return _composed("cosh", input, fn)


# ----------------------------------------------------------------------------- angles
def atan(input):
    """The inverse tangent, in (-pi/2, pi/2), as ``torch.atan``. The Atan primitive."""
    return Atan.apply(_float(tensor_arg("atan", "input", input)))


def atan2(input, other):
    """The angle of the point (other, input), in [-pi, pi], as ``torch.atan2(input, other)``
    (input the y coordinate, other the x), broadcasting. The Atan2 primitive; its gradient
    is (other, -input) / (input² + other²), and 0 at the origin, as PyTorch's."""
    for name, v in (("input", input), ("other", other)):
        if not isinstance(v, (_tensor.Tensor, numbers.Real)):
            raise TypeError(f"atan2: {name} must be a tinyffn Tensor or a number, got "
                            f"{type_name(v)}")
    return Atan2.apply(input, other)


arctan, arctan2 = atan, atan2           # PyTorch's (and NumPy's) other names


# ----------------------------------------------------------------------------- two operands
def logaddexp(input, other):
    """log(e^a + e^b), elementwise with broadcasting, as ``torch.logaddexp``: max(a, b) +
    log1p(exp(-|a - b|)), stable for any size (logaddexp(1000, 1000) is 1000.693). The
    gradient is sigmoid(a - b) to a, 1/2 each on a tie. Where a and b are the same
    infinity, a - b is NaN: it is read as 0 there, giving that infinity."""
    from .composed import where     # composed.py imports tensor.py, which imports this

    def fn(a, b):
        first = a >= b                                  # a mask, outside the graph
        d = where(first, b - a, a - b)                  # -|a - b|, no kink at a tie
        tie = d.isnan() & ~(a.isnan() | b.isnan())      # inf - inf: a tie, 1/2 each
        d = where(tie, 0.0, d)
        return where(tie, a * 0.5 + b * 0.5, where(first, a, b)) + d.exp().log1p()
    return _binary("logaddexp", input, other, fn)


def logaddexp2(input, other):
    """log2(2^a + 2^b), elementwise with broadcasting, as ``torch.logaddexp2``: max(a, b) +
    log1p(2^-|a - b|) / ln 2, stable for any size (logaddexp2(1000, 1000) is 1001). The
    gradient is 1 / (1 + 2^(b - a)) to a, 1/2 each on a tie; the same infinity twice
    gives it, as :func:`logaddexp`."""
    from .composed import where     # composed.py imports tensor.py, which imports this

    def fn(a, b):
        first = a >= b                                  # a mask, outside the graph
        d = where(first, b - a, a - b)                  # -|a - b|, no kink at a tie
        tie = d.isnan() & ~(a.isnan() | b.isnan())      # inf - inf: a tie, 1/2 each
        d = where(tie, 0.0, d)
        return where(tie, a * 0.5 + b * 0.5, where(first, a, b)) + d.exp2().log1p() * (1 / LN2)
    return _binary("logaddexp2", input, other, fn)


def hypot(input, other):
    """sqrt(a² + b²), elementwise with broadcasting, as ``torch.hypot``, without
    overflow: m · sqrt(1 + (n/m)²), m and n the larger and smaller of |a| and |b|; m where
    m is 0, inf where either is infinite, even if the other is NaN. The gradient is (a, b) /
    hypot(a, b), and 0 at the origin (PyTorch's
    is NaN there)."""
    from .composed import where     # composed.py imports tensor.py, which imports this

    def fn(a, b):
        first = a.abs() >= b.abs()          # a mask: the larger magnitude, outside the graph
        m, n = where(first, a, b), where(first, b, a)      # signed: no kink at 0 or a tie
        inf = a.isinf() | b.isinf()         # inf even beside a NaN, as C99's hypot and torch's
        edge = ((m == 0) & (n == 0)) | inf  # not (NaN, 0): NaN, from n / m
        r = where(edge, 0.0, n) / where(edge, 1.0, m)      # harmless where not taken
        m = m.abs()                         # |m| is smooth but at the origin, an edge
        far = where(edge, m, m * (1 + r * r).sqrt())
        return where(inf, where(a.isinf(), a, b).abs(), far)
    return _binary("hypot", input, other, fn)


def xlogy(input, other):
    """x · log(y), elementwise with broadcasting, and 0 where x is 0 (unless y is NaN), as
    ``torch.xlogy``: the entropy term p · log p is 0 at p = 0. The gradients are PyTorch's:
    log(y) and x/y, where x = 0 too (d/dx is 0 there if y <= 0), except at x = 0 where
    y is 0 (d/dy: 0 here, NaN in PyTorch) or inf (d/dx: 0 here, inf in PyTorch). float16
    computes in float16 (log y rounded,
    then the product), as PyTorch's xlogy does."""
    from .composed import where     # composed.py imports tensor.py, which imports this

    def fn(x, y):
        zero = (x == 0) & ~y.isnan()
        ys = where(zero & ((y <= 0) | y.isinf()), 1.0, y)   # log y = 0 where 0 · log y is not 0
        xl = x * ys.log()                   # where x = 0: ±0, with d/dx = log y, as PyTorch
        return where(zero, xl + 0.0, xl)    # + 0.0: xlogy(0, 0.5) is 0.0, not -0.0
    return _binary("xlogy", input, other, fn, ("self", "other"), widen=False)


# ----------------------------------------------------------------------------- clamps
def clamp_min(input, min):
    """input limited from below by ``min`` (a number or a tensor), as ``torch.clamp_min``:
    ``clamp(input, min=min)``."""
    x = tensor_arg("clamp_min", "input", input)
    with grad_mode.scope("function", "clamp_min"):
        return x.clamp(min=min)


def clamp_max(input, max):
    """input limited from above by ``max``, as ``torch.clamp_max``: ``clamp(input, max=max)``."""
    x = tensor_arg("clamp_max", "input", input)
    with grad_mode.scope("function", "clamp_max"):
        return x.clamp(max=max)


class MathMethods:
    """The Tensor methods of the functions above."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def expm1(self): return expm1(self)
    def log2(self): return log2(self)
    def log10(self): return log10(self)
    def exp2(self): return exp2(self)
    def sinh(self): return sinh(self)
    def cosh(self): return cosh(self)
    def atan(self): return atan(self)
    def arctan(self): return atan(self)
    def atan2(self, other): return atan2(self, other)
    def arctan2(self, other): return atan2(self, other)
    def logaddexp(self, other): return logaddexp(self, other)
    def logaddexp2(self, other): return logaddexp2(self, other)
    def hypot(self, other): return hypot(self, other)
    def xlogy(self, other): return xlogy(self, other)
    def clamp_min(self, min): return clamp_min(self, min)
    def clamp_max(self, max): return clamp_max(self, max)


__all__ = ["expm1", "log2", "log10", "exp2", "sinh", "cosh", "atan", "arctan", "atan2",
           "arctan2", "logaddexp", "logaddexp2", "hypot", "xlogy", "clamp_min", "clamp_max", "MathMethods"]
