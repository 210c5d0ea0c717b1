"""PyTorch's module-level functions: ``tinyffn.tanh(x)``, ``tinyffn.sum(x, dim=1)``,
``tinyffn.tril(scores)``, ``tinyffn.where(c, x, y)``, as code ported from PyTorch writes
``torch.tanh(x)``, ...

tinyffn's own code calls methods (``x.tanh()``); each function here is that method, or
operator, under PyTorch's name and with PyTorch's parameter names: ``input`` first, then
``dim`` and ``keepdim`` (and NumPy's ``axis`` and ``keepdims``, where the method takes
them). The first argument must be a Tensor; a binary function (``maximum``, ``pow``,
``isclose``, ...) takes a number on either side of one, as the operators do (``equal``
wants two tensors, as PyTorch's). Two groups compute something of their own from
existing pieces: ``tril`` and ``triu``, one ``where`` each, and ``norm`` (the Tensor
methods ``x.tril()``, ``x.triu()`` and ``x.norm()`` call them), and the tests of values (``isnan``,
``isclose``, ``allclose``, ``equal``), computed on the arrays outside any graph. The
factory functions (``full``, ``eye``, ``linspace``, ``randint``, ``randn_like``, ...) are
in :mod:`tinyffn.creation`; ``tinyffn.functional`` (``F``) is ``torch.nn.functional``.

Seven names are Python builtins too: ``sum``, ``max``, ``min``, ``abs``, ``all``, ``any``
and ``pow``. ``tinyffn.sum`` is PyTorch's, but they are kept out of ``tinyffn.__all__`` so
that ``from tinyffn import *`` leaves the builtins alone; in this file they are PyTorch's.
"""
from __future__ import annotations

import math
import numbers
import types
from typing import Any

from . import grad_mode
from .arguments import _axes, _is_int, is_real, type_name
from .backend import dtype_name
from . import composed as C
from .functional import _narrowed, _widened
from .tensor import Tensor, as_tensors


# ----------------------------------------------------------------------------- arguments
def _tensor_input(op: str, input: Any):
    """``input``, which must be a Tensor: ``torch.exp(2.0)`` is an error in PyTorch too."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a tinyffn Tensor, got {type_name(input)}; " + (
            f"it is the pair (values, indices) from {getattr(input, 'made_by', 'x.max(dim)')}"
            ": pass its .values" if isinstance(input, tuple)
            and getattr(input, "_fields", None) == ("values", "indices")
            else "wrap it with tinyffn.tensor(...)"))
    return input


def _check_binary(op: str, input: Any, other: Any) -> None:
    """A Tensor, with anything its operator takes as the other operand, or a number and
    a Tensor: ``maximum(x, 0.0)`` and ``pow(2, x)``, as ``x.maximum(0.0)`` and ``2 ** x``."""
    if isinstance(input, Tensor) or \
            isinstance(other, Tensor) and isinstance(input, numbers.Real):
        return
    raise TypeError(f"{op}: input must be a tinyffn Tensor, or a number next to a Tensor "
                    f"other, got {type_name(input)} and {type_name(other)}; wrap one with "
                    "tinyffn.tensor(...)")


def _cast(x, dtype: Any):
    """``x`` in ``dtype`` (a recorded cast) before the op, as PyTorch's ``dtype=`` does."""
    return x if dtype is None else x.to(dtype=dtype)


# ----------------------------------------------------------------------------- elementwise
def exp(input):
    """e ** input, elementwise, as ``torch.exp``: ``input.exp()``."""
    return _tensor_input("exp", input).exp()


def log(input):
    """The natural logarithm, elementwise, as ``torch.log``: ``input.log()``."""
    return _tensor_input("log", input).log()


def tanh(input):
    """tanh, elementwise, as ``torch.tanh``: ``input.tanh()``."""
    return _tensor_input("tanh", input).tanh()


def sigmoid(input):
    """1 / (1 + exp(-input)), elementwise, as ``torch.sigmoid``: ``input.sigmoid()``."""
    return _tensor_input("sigmoid", input).sigmoid()


def relu(input):
    """max(input, 0), elementwise, as ``torch.relu``: ``input.relu()``."""
    return _tensor_input("relu", input).relu()


def erf(input):
    """The error function, elementwise, as ``torch.erf``: ``input.erf()``."""
    return _tensor_input("erf", input).erf()


def sqrt(input):
    """The square root, elementwise, as ``torch.sqrt``: ``input.sqrt()`` (``input ** 0.5``)."""
    return _tensor_input("sqrt", input).sqrt()


def abs(input):
    """|input|, elementwise, as ``torch.abs``: ``input.abs()`` (gradient 0 at 0)."""
    return _tensor_input("abs", input).abs()


def neg(input):
    """-input, as ``torch.neg``."""
    return -_tensor_input("neg", input)


def square(input):
    """input ** 2, as ``torch.square``: ``input.square()``."""
    return _tensor_input("square", input).square()


def reciprocal(input):
    """1 / input, as ``torch.reciprocal``: ``input.reciprocal()``."""
    return _tensor_input("reciprocal", input).reciprocal()


def rsqrt(input):
    """input ** -0.5, as ``torch.rsqrt``: ``input.rsqrt()``."""
    return _tensor_input("rsqrt", input).rsqrt()


def maximum(input, other):
    """The larger of ``input`` and ``other``, elementwise with broadcasting, as
    ``torch.maximum``: ``input.maximum(other)``; a number may stand on either side, as
    the two swap freely (ties share the gradient)."""
    _check_binary("maximum", input, other)
    if not isinstance(input, Tensor):
        input, other = other, input
    return input.maximum(other)


def minimum(input, other):
    """The smaller of ``input`` and ``other``, as ``torch.minimum``: ``input.minimum(other)``."""
    _check_binary("minimum", input, other)
    if not isinstance(input, Tensor):
        input, other = other, input
    return input.minimum(other)


def clamp(input, min=None, max=None):
    """``input`` limited to [min, max], as ``torch.clamp``: ``input.clamp(min, max)``."""
    return _tensor_input("clamp", input).clamp(min, max)


def clip(input, min=None, max=None):
    """``clamp``, under its other PyTorch (and NumPy) name, as ``torch.clip``."""
    return _tensor_input("clip", input).clamp(min, max)


def pow(input, exponent):
    """``input ** exponent``, as ``torch.pow``: a tensor to a number's power, or a number
    to a tensor's (``pow(2, x)``); a tensor to a tensor's power is refused, as ``x ** y``."""
    _check_binary("pow", input, exponent)
    return input ** exponent


def matmul(input, other):
    """``input @ other``, as ``torch.matmul``: 1-D, 2-D, and batched with broadcasting."""
    _check_binary("matmul", input, other)
    return input @ other


def softmax(input, dim, dtype=None):
    """``input.softmax(dim)``, as ``torch.softmax`` (``dim`` required there too);
    ``dtype``: cast ``input`` to it first (a recorded ``cast``), a float dtype."""
    return _tensor_input("softmax", input).softmax(dim, dtype)


def log_softmax(input, dim, dtype=None):
    """``input.log_softmax(dim)``, as ``torch.log_softmax``, with ``softmax``'s ``dtype``."""
    return _tensor_input("log_softmax", input).log_softmax(dim, dtype)


# ----------------------------------------------------------------------------- reductions
# By position, PyTorch's order: sum(x, 1, True) is dim 1, keepdim.
def sum(input, dim=None, keepdim=None, *, axis=None, keepdims=False, dtype=None):
    """The sum over ``dim`` (all axes when None), as ``torch.sum``: ``input.sum(...)``;
    ``dtype``: cast ``input`` to it first."""
    return _tensor_input("sum", input).sum(axis, keepdims, dim=dim, keepdim=keepdim,
                                           dtype=dtype)


def mean(input, dim=None, keepdim=None, *, axis=None, keepdims=False, dtype=None):
    """The mean over ``dim``, as ``torch.mean``: ``input.mean(...)``; ``dtype`` as ``sum``'s."""
    return _tensor_input("mean", input).mean(axis, keepdims, dim=dim, keepdim=keepdim,
                                             dtype=dtype)


def max(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """``input.max(...)``, as ``torch.max``: the maximum; over ``dim``, the pair
    ``(values, indices)``; ``max(x, other)`` of two tensors is :func:`maximum`, as there."""
    return _tensor_input("max", input).max(dim, keepdim, axis=axis, keepdims=keepdims)


def min(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """``input.min(...)``, as ``torch.min``: the minimum; over ``dim``, ``(values, indices)``;
    ``min(x, other)`` is :func:`minimum`."""
    return _tensor_input("min", input).min(dim, keepdim, axis=axis, keepdims=keepdims)


def amax(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """The maximum over ``dim`` (an int, a tuple, or None for all), the values alone, as
    ``torch.amax``: ``input.amax(...)``."""
    return _tensor_input("amax", input).amax(dim, keepdim, axis=axis, keepdims=keepdims)


def amin(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """The minimum over ``dim``, the values alone, as ``torch.amin``: ``input.amin(...)``."""
    return _tensor_input("amin", input).amin(dim, keepdim, axis=axis, keepdims=keepdims)


def argmax(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """Indices of the maxima along ``dim`` (of the flattened tensor when None), as
    ``torch.argmax``: ``input.argmax(...)``."""
    return _tensor_input("argmax", input).argmax(axis, keepdims, dim=dim, keepdim=keepdim)


def argmin(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """Indices of the minima, as ``torch.argmin``: ``input.argmin(...)``."""
    return _tensor_input("argmin", input).argmin(axis, keepdims, dim=dim, keepdim=keepdim)


def var(input, dim=None, *, correction=None, keepdim=None, axis=None, keepdims=False,
        unbiased=None):
    """Σ (x - mean)² / (n - correction) over ``dim``, as ``torch.var``: ``input.var(...)``
    (correction 1 unless given)."""
    return _tensor_input("var", input).var(dim, correction=correction, keepdim=keepdim,
                                           axis=axis, keepdims=keepdims, unbiased=unbiased)


def std(input, dim=None, *, correction=None, keepdim=None, axis=None, keepdims=False,
        unbiased=None):
    """The square root of :func:`var`, as ``torch.std``: ``input.std(...)``."""
    return _tensor_input("std", input).std(dim, correction=correction, keepdim=keepdim,
                                           axis=axis, keepdims=keepdims, unbiased=unbiased)


def any(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """Whether any entry (along ``dim``) is nonzero, as ``torch.any``: ``input.any(...)``."""
    return _tensor_input("any", input).any(dim, keepdim, axis=axis, keepdims=keepdims)


def all(input, dim=None, keepdim=None, *, axis=None, keepdims=False):
    """Whether every entry (along ``dim``) is nonzero, as ``torch.all``: ``input.all(...)``."""
    return _tensor_input("all", input).all(dim, keepdim, axis=axis, keepdims=keepdims)


# ----------------------------------------------------------------------------- shape
def reshape(input, shape):
    """The same entries in ``shape`` (a tuple), as ``torch.reshape``: ``input.reshape(shape)``."""
    return _tensor_input("reshape", input).reshape(shape)


def transpose(input, dim0, dim1):
    """Axes ``dim0`` and ``dim1`` swapped, as ``torch.transpose``: ``input.transpose(dim0, dim1)``."""
    return _tensor_input("transpose", input).transpose(dim0, dim1)


def permute(input, dims):
    """The axes in the order ``dims`` (a tuple), as ``torch.permute``: ``input.permute(dims)``."""
    return _tensor_input("permute", input).permute(dims)


def flatten(input, start_dim=0, end_dim=-1):
    """Axes ``start_dim`` to ``end_dim`` merged into one, as ``torch.flatten``."""
    return _tensor_input("flatten", input).flatten(start_dim, end_dim)


def squeeze(input, dim=None):
    """Without the length-1 axes among ``dim`` (all when None), as ``torch.squeeze``."""
    return _tensor_input("squeeze", input).squeeze(dim)


def unsqueeze(input, dim):
    """A new axis of length 1 at ``dim``, as ``torch.unsqueeze``."""
    return _tensor_input("unsqueeze", input).unsqueeze(dim)


def masked_fill(input, mask, value):
    """``value`` where the bool ``mask`` holds, as ``torch.masked_fill``:
    ``input.masked_fill(mask, value)``."""
    return _tensor_input("masked_fill", input).masked_fill(mask, value)


# ----------------------------------------------------------------------------- where, nonzero
def where(condition, input=None, other=None):
    """``input`` where the bool ``condition`` holds, else ``other``, as ``torch.where``: the
    ``where`` primitive (:func:`tinyffn.composed.where`). With the condition alone, as
    ``torch.where(c)``: ``nonzero(condition, as_tuple=True)``, the indices where it holds."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where: pass condition, input and other, or the condition alone (for "
                        "the indices where it holds, nonzero(condition, as_tuple=True))")
    return C.where(condition, input, other)


def nonzero(input, *, as_tuple=False):
    """The indices of ``input``'s nonzero entries (True, a NaN) in row-major order, as
    ``torch.nonzero``: an int64 tensor of shape (n, input.ndim), a row per entry; with
    ``as_tuple=True`` a tuple of ndim int64 tensors of n indices each (a 0-d input counts as
    1-d), so ``x[nonzero(m, as_tuple=True)]`` picks the entries. Its shape depends on the
    values; not differentiable, as indices are not."""
    x = _tensor_input("nonzero", input)
    be = x.backend
    xp, int64 = be.xp, be.dtype("int64")
    found = xp.nonzero(x.data if x.ndim else xp.reshape(x.data, (1,)))   # (n,) per axis
    found = [xp.astype(i, int64) for i in found]
    if as_tuple:
        return tuple(Tensor(i, _backend=be) for i in found)
    rows = xp.stack(found, axis=-1) if x.ndim else xp.zeros((found[0].shape[0], 0), dtype=int64)
    return Tensor(rows, _backend=be)                                      # (n, ndim)


# ----------------------------------------------------------------------------- triangles
def tril(input, diagonal=0):
    """``input`` with the entries above its ``diagonal``-th diagonal set to 0 (0: the main
    diagonal; 1: one above it, -1: one below), as ``torch.tril``; for a matrix, or a batch
    of them on the last two axes: y[..., i, j] = x[..., i, j] if j - i <= diagonal else 0."""
    return _triangle("tril", input, diagonal)


def triu(input, diagonal=0):
    """``input`` with the entries below its ``diagonal``-th diagonal set to 0, as
    ``torch.triu``: y[..., i, j] = x[..., i, j] if j - i >= diagonal else 0."""
    return _triangle("triu", input, diagonal)


def _triangle(op: str, x, diagonal: int):
    """One ``where`` with a constant mask: an entry left out gets an exact 0 as its
    gradient, also an inf (multiplying by a 0/1 mask would give inf · 0 = NaN)."""
    x = _tensor_input(op, x)
    if x.ndim < 2:
        raise ValueError(f"{op}: needs a matrix or a batch of them (2 axes or more), got "
                         f"shape {x.shape}")
    if not _is_int(diagonal):
        raise TypeError(f"{op}: diagonal must be an int, got {diagonal!r}")
    xp, (n, m) = x.backend.xp, x.shape[-2:]
    offset = xp.arange(m)[None, :] - xp.arange(n)[:, None]        # (n, m): j - i
    keep = offset <= diagonal if op == "tril" else offset >= diagonal
    zero = False if xp.isdtype(x.dtype, "bool") else 0            # bool stays bool
    with grad_mode.scope("function", op):
        return C.where(Tensor(keep, _backend=x.backend), x, zero)


# ----------------------------------------------------------------------------- norms
def norm(input, p="fro", dim=None, keepdim=False):
    """The p-norm (Σ |x|^p)^(1/p) over ``dim`` (an int, a tuple, or None or (): every entry),
    as ``torch.norm``. ``p``: ``"fro"`` or 2 (the default, sqrt(Σ x²): for a matrix its
    Frobenius norm), 1 (Σ |x|), ``inf`` (max |x|), ``-inf`` (min |x|), 0 (the count of
    x != 0, gradient 0), or another number (a negative p gives 0 for a slice holding a
    0, where |0|^p is infinite, with gradient 0 there). Composed of mul, abs, pow, sum, amax and
    where, in a frame ``norm``: gradient x /
    norm for p = 2, sign(x) for 1, ties sharing it for ±inf. Where x = 0 (a kink of |x|,
    and the root's slope is infinite at a zero sum) the gradient is 0, as PyTorch's. A
    float16 input is computed in float32 and rounded, and an integer one refused, as there.
    """
    x = _tensor_input("norm", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"norm: the tensor has dtype {dtype_name(x.dtype)}; a norm needs a "
                        "floating-point tensor, as in PyTorch: call x.float() first")
    if not (p == "fro" or is_real(p) and not isinstance(p, bool) and p == p):
        raise ValueError(f"norm: p must be 'fro' or a number (inf and -inf too), got {p!r}" + (
            "; 'nuc' needs singular values, which tinyffn does not compute"
            if p == "nuc" else ""))
    if not isinstance(keepdim, bool):
        raise TypeError(f"norm: keepdim must be True or False, got {keepdim!r}")
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None                      # dim=() is every axis, in PyTorch as in sum(dim=())
    axes, p = _axes(dim, x.ndim, "norm"), 2 if p == "fro" else p
    with grad_mode.scope("function", "norm"):
        w = _widened(x)
        if p == 0:                      # the count of w != 0 (a NaN counts): its derivative
            # is 0 wherever it exists; sign(w), 0 at w = 0, keeps w in the graph with that 0
            y = w.sign().where(w == 0, 1.0).sum(axis=axes, keepdims=keepdim)
        elif p == 2:
            y = _root((w * w).sum(axis=axes, keepdims=keepdim), 2)
        elif p == 1:
            y = w.abs().sum(axis=axes, keepdims=keepdim)
        elif math.isinf(p):
            y = w.abs().amax(axes, keepdim) if p > 0 else w.abs().amin(axes, keepdim)
        elif p < 0:                     # Σ |x|^p is infinite if an |x| is 0: its root is 0
            zero = w == 0
            s = C.where(zero, 1.0, w.abs()) ** p                    # 1: finite, and unused
            y = where(zero.any(axes, keepdim), 0.0, s.sum(axis=axes, keepdims=keepdim) ** (1 / p))
        else:                           # |x|^p: d/dx is infinite at 0 for p < 1; 0 there
            a = w.abs()
            zero = a == 0
            y = _root(C.where(zero, 0.0, C.where(zero, 1.0, a) ** p).sum(
                axis=axes, keepdims=keepdim), p)
        return _narrowed(y, x)


def _root(s, p):
    """s^(1/p), with gradient 0 where s = 0, where the slope is infinite: inf · 0 = NaN
    would reach every entry. ``where`` selects gradients rather than multiplying them, so
    the root sees 1 in place of those 0s (as in ``functional.variance``)."""
    flat = s == 0
    return where(flat, 0.0, where(flat, 1.0, s) ** (1 / p))


# ----------------------------------------------------------------------------- tests of values
# Not differentiable: bool tensors (or Python bools) outside any graph, computed on the
# arrays, as the comparisons are.
def isnan(input):
    """Where ``input`` is NaN, as ``torch.isnan``: a bool tensor (all False for integers)."""
    return _value_test("isnan", input)


def isinf(input):
    """Where ``input`` is inf or -inf, as ``torch.isinf``: a bool tensor."""
    return _value_test("isinf", input)


def isfinite(input):
    """Where ``input`` is neither inf, -inf nor NaN, as ``torch.isfinite``: a bool tensor
    (all True for integers and bools)."""
    return _value_test("isfinite", input)


def logical_not(input):
    """Where ``input`` is zero (False), as ``torch.logical_not``: ``input.logical_not()``."""
    return _tensor_input("logical_not", input).logical_not()


def logical_and(input, other):
    """Where both are nonzero (a NaN counts as nonzero), as ``torch.logical_and``."""
    return _tensor_input("logical_and", input).logical_and(other)


def logical_or(input, other):
    """Where either is nonzero, as ``torch.logical_or``."""
    return _tensor_input("logical_or", input).logical_or(other)


def logical_xor(input, other):
    """Where exactly one is nonzero, as ``torch.logical_xor``."""
    return _tensor_input("logical_xor", input).logical_xor(other)


def _value_test(op: str, x):
    x = _tensor_input(op, x)
    xp = x.backend.xp
    if x.backend.is_floating(x.dtype):
        found = getattr(xp, op)(x.data)
    else:                           # integers and bools are finite, never NaN or inf
        found = xp.full_like(x.data, op == "isfinite", dtype=xp.bool)
    return Tensor(found, _backend=x.backend)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Where ``input`` and ``other`` are close, as ``torch.isclose``: a bool tensor of
    their broadcast shape, True where they are equal (inf and inf too), or both finite
    and |input - other| <= atol + rtol · |other| (not symmetric: the tolerance scales
    with ``other``), or both NaN and ``equal_nan``.

    Tensors of two dtypes (and numbers) meet as in the operators (PyTorch refuses two
    dtypes); integers are compared in float64, so that uint8 1 - 2 does not wrap around."""
    _check_binary("isclose", input, other)
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not (is_real(tol) and tol >= 0):
            raise ValueError(f"isclose: {name} must be a number >= 0, got {tol!r}")
    a, b = _promoted("isclose", input, other)
    be = a.backend
    xp, x, w = be.xp, a.data, b.data
    if xp.isdtype(x.dtype, "bool") and xp.isdtype(w.dtype, "bool"):
        return Tensor(x == w, _backend=be)
    if not (be.is_floating(x.dtype) or be.is_floating(w.dtype)):
        x, w = xp.astype(x, xp.float64), xp.astype(w, xp.float64)
    finite = xp.isfinite(x) & xp.isfinite(w)
    x0, w0 = xp.where(finite, x, 0), xp.where(finite, w, 0)     # no inf - inf
    close = (x == w) | finite & (xp.abs(x0 - w0) <= atol + rtol * xp.abs(w0))
    if equal_nan:
        close = close | xp.isnan(x) & xp.isnan(w)
    return Tensor(close, _backend=be)


def _promoted(op: str, input, other) -> tuple:
    """Both operands as tensors of one dtype on one device, as an op's (``as_tensors``),
    recording no cast."""
    with grad_mode.no_grad():
        return as_tensors((input, other), types.SimpleNamespace(op_name=lambda: op))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every entry is close (:func:`isclose`), as ``torch.allclose``: a Python bool."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    """Whether ``input`` and ``other`` have the same shape and the same values, as
    ``torch.equal``: a Python bool. Dtypes may differ (int 1 equals float 1.0); NaN equals
    nothing, itself included; shapes must match without broadcasting."""
    _tensor_input("equal", input)
    if not isinstance(other, Tensor):
        raise TypeError(f"equal: other must be a tinyffn Tensor, got {type_name(other)}; "
                        "wrap it with tinyffn.tensor(...)")
    if input.shape != other.shape:
        return False
    a, b = _promoted("equal", input, other)
    return bool(a.backend.xp.all(a.data == b.data))
