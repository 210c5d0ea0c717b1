"""The array namespace a backward computes with under ``create_graph=True``.

A primitive's backward is written against ``ctx.xp`` (NumPy's, CuPy's or the strict
array-API namespace) and Python's operators. :mod:`tinyffn.higher_order` runs that same
code with ``ctx.xp`` set to a :class:`GraphNamespace`: the same names and signatures, each
function a tinyffn op when an argument is a tensor (recorded when one requires grad), so
the gradient's own computation becomes a graph. Arguments that are all raw arrays (a mask
the forward saved) give a raw array, as in an ordinary backward: a constant. A tensor in
gives a tensor out, so that no raw array meets a tensor on the left of an operator (the
strict namespace's arrays raise there; NumPy's defer to the tensor).

Functions whose derivative is zero wherever it exists (``floor``, ``isnan``, comparisons)
and constructors (``zeros``, ``eye``) compute on the raw arrays: their results are
constants of the second derivative, as in PyTorch. A name not listed here raises
AttributeError, naming it: a backward under create_graph never hands a tensor to a raw
array function (NumPy would read it as an array and the graph would end there, silently).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np     # for np.broadcast_shapes alone: shape arithmetic, on any backend

from . import tensor as _tensor
from .ops import (BroadcastTo, Cast, Clone, Concat, Cos, Cumsum, Det, Digamma, Eigh, Erf,
                  Erfc, Erfcx, Erfinv, Exp, GetItem, I0, I0e, I1, I1e, Inv, Lgamma, Log, Log1p,
                  MatMul, Max, Maximum, Mean, Ndtri, Neg, Polygamma, Pow, Prod, Reshape, Sign,
                  Sin, Solve, Sum, Svd, Tanh, Transpose, Where, Zeta)
from .ops.bessel import J0, J1, K0, K0e, K1, K1e, Y0, Y1
from .ops.decompositions import _unpack
from .ops.elementwise import sign_of

__all__ = ["GraphNamespace", "GraphLinalg", "GraphBackend", "namespace"]


# names read from the raw namespace as they are: dtypes, numbers, and dtype questions
_AS_IS = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "e", "pi", "inf", "nan",
    "newaxis", "isdtype", "finfo", "iinfo", "can_cast",
})
# functions with no derivative worth recording (zero wherever it exists, or not a float
# result, or a constructor): computed on the raw arrays, the result a constant
_CONSTANT = frozenset({
    "zeros", "ones", "empty", "full", "eye", "arange", "linspace", "zeros_like", "ones_like",
    "empty_like", "full_like", "isnan", "isinf", "isfinite", "floor", "ceil", "trunc", "round",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor", "any", "all", "nonzero", "argmax", "argmin",
    "argsort", "signbit",
})


def _recorded(*args: Any) -> bool:
    """Whether an argument is a tensor (one level into lists): then the result is one."""
    for a in args:
        if isinstance(a, (list, tuple)):
            if _recorded(*a):
                return True
        elif isinstance(a, _tensor.Tensor):
            return True
    return False


def _raw(a: Any) -> Any:
    """A tensor's array (one level into lists); anything else as it is."""
    if isinstance(a, (list, tuple)):
        return type(a)(_raw(v) for v in a)
    return a.data if isinstance(a, _tensor.Tensor) else a


def _axes(axis: Any, ndim: int) -> tuple | None:
    """An ``axis`` argument as the ops take it: None, or a tuple of axes in [0, ndim)."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted(a % ndim if ndim else a for a in axes))


class GraphNamespace:
    """``ctx.xp`` under create_graph for arrays of one backend (see the module docstring)."""

    def __init__(self, backend: Any):
        self._backend = backend
        self._xp = backend.xp
        self.linalg = GraphLinalg(self)

    def __getattr__(self, name: str) -> Any:
        if name in _AS_IS:
            return getattr(self._xp, name)
        if name in _CONSTANT:
            raw = getattr(self._xp, name)
            return lambda *args, **kwargs: self._constant(raw(*_raw(args), **kwargs), args)
        raise AttributeError(
            f"create_graph: a backward called xp.{name}, which tinyffn.graph_xp does not "
            "record; add it to GraphNamespace (as a composition of recorded ops), or leave "
            "the op's twice_differentiable unset so that create_graph refuses it")

    def __repr__(self) -> str:
        return f"<GraphNamespace over {self._xp.__name__}>"

    def _lift(self, *args: Any) -> tuple:
        """The arguments, each raw array of this backend as a constant tensor."""
        array = self._backend.array_type
        return tuple([_tensor.Tensor._wrap(a, self._backend) if isinstance(a, array) else a
                      for a in args])

    def _constant(self, y: Any, args: tuple) -> Any:
        """``y``, computed on raw arrays, as a constant tensor if a tensor was given."""
        if _recorded(args) and isinstance(y, self._backend.array_type):
            return _tensor.Tensor._wrap(y, self._backend)
        return y

    # -- conversions ---------------------------------------------------------------------
    def asarray(self, obj: Any, dtype: Any = None, copy: bool | None = None, **kwargs: Any) -> Any:
        if not _recorded(obj):
            return self._xp.asarray(_raw(obj), dtype=dtype, copy=copy, **kwargs)
        y = obj if dtype is None else self.astype(obj, dtype)
        return Clone.apply(y) if copy and y is obj else y

    def astype(self, x: Any, dtype: Any, copy: bool = True) -> Any:
        if not _recorded(x):
            return self._xp.astype(_raw(x), dtype, copy=copy)
        return x if x.dtype == dtype else Cast.apply(x, dtype=dtype)

    def result_type(self, *args: Any) -> Any:
        return self._xp.result_type(*[a.dtype if isinstance(a, _tensor.Tensor) else a for a in args])

    # -- shape ---------------------------------------------------------------------------
    def reshape(self, x: Any, shape: Any, copy: bool | None = None) -> Any:
        if not _recorded(x):
            return self._xp.reshape(_raw(x), shape)
        return Reshape.apply(x, shape=tuple(shape))

    def expand_dims(self, x: Any, axis: int = 0) -> Any:
        position = axis if axis >= 0 else x.ndim + 1 + axis
        return self.reshape(x, x.shape[:position] + (1,) + x.shape[position:])

    def squeeze(self, x: Any, axis: Any) -> Any:
        axes = _axes(axis, x.ndim)
        return self.reshape(x, tuple(n for i, n in enumerate(x.shape) if i not in axes))

    def permute_dims(self, x: Any, axes: Any) -> Any:
        if not _recorded(x):
            return self._xp.permute_dims(_raw(x), axes)
        return Transpose.apply(x, axes=tuple(axes))

    def matrix_transpose(self, x: Any) -> Any:
        axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
        return self.permute_dims(x, axes)

    def broadcast_to(self, x: Any, shape: Any) -> Any:
        if not _recorded(x):
            return self._xp.broadcast_to(_raw(x), shape)
        return x if x.shape == tuple(shape) else BroadcastTo.apply(x, shape=tuple(shape))

    def broadcast_arrays(self, *arrays: Any) -> list:
        shape = tuple(np.broadcast_shapes(*[tuple(a.shape) for a in arrays]))   # shapes only
        return [self.broadcast_to(a, shape) for a in arrays]

    def flip(self, x: Any, axis: Any = None) -> Any:
        if not _recorded(x):
            return self._xp.flip(_raw(x), axis=axis)
        axes = _axes(axis, x.ndim) or tuple(range(x.ndim))
        return GetItem.apply(x, key=tuple(slice(None, None, -1) if i in axes else slice(None)
                                          for i in range(x.ndim)))

    def concat(self, arrays: Any, axis: int | None = 0) -> Any:
        if not _recorded(arrays):
            return self._xp.concat(_raw(arrays), axis=axis)
        if axis is None:
            return Concat.apply(*self._lift(*[self.reshape(a, (-1,)) for a in arrays]), axis=0)
        return Concat.apply(*self._lift(*arrays), axis=axis % arrays[0].ndim)

    def stack(self, arrays: Any, axis: int = 0) -> Any:
        if not _recorded(arrays):
            return self._xp.stack(_raw(arrays), axis=axis)
        axis = axis % (arrays[0].ndim + 1)
        return self.concat([self.expand_dims(a, axis) for a in arrays], axis=axis)

    # -- reductions ----------------------------------------------------------------------
    def _reduce(self, name: str, op: Any, x: Any, axis: Any, keepdims: bool, **dtype: Any) -> Any:
        """``xp.<name>(x, axis, keepdims[, dtype])``: the op ``op`` when x is a tensor (cast
        to ``dtype`` first, if given), else the raw function."""
        if not _recorded(x):
            return getattr(self._xp, name)(_raw(x), axis=axis, keepdims=keepdims, **dtype)
        x = x if dtype.get("dtype") is None else self.astype(x, dtype["dtype"])
        return op.apply(x, axis=_axes(axis, x.ndim), keepdims=keepdims)

    def sum(self, x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        return self._reduce("sum", Sum, x, axis, keepdims, dtype=dtype)

    def mean(self, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return self._reduce("mean", Mean, x, axis, keepdims)

    def prod(self, x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        return self._reduce("prod", Prod, x, axis, keepdims, dtype=dtype)

    def max(self, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return self._reduce("max", Max, x, axis, keepdims)

    def min(self, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if not _recorded(x):
            return self._xp.min(_raw(x), axis=axis, keepdims=keepdims)
        return Neg.apply(self.max(Neg.apply(x), axis=axis, keepdims=keepdims))

    def cumulative_sum(self, x: Any, axis: int | None = None, dtype: Any = None,
                       include_initial: bool = False) -> Any:
        if not _recorded(x):
            return self._xp.cumulative_sum(_raw(x), axis=axis, dtype=dtype,
                                           include_initial=include_initial)
        if include_initial:
            raise ValueError("create_graph: cumulative_sum(include_initial=True) is not recorded")
        x = x if dtype is None else self.astype(x, dtype)
        return Cumsum.apply(x, axis=0 if axis is None else axis % x.ndim)

    # -- elementwise ---------------------------------------------------------------------
    def where(self, condition: Any, x1: Any, x2: Any) -> Any:
        if not _recorded(x1, x2):
            return self._xp.where(_raw(condition), _raw(x1), _raw(x2))
        return Where.apply(*self._lift(_raw(condition), x1, x2))

    def _unary(self, name: str, op: Any, x: Any) -> Any:
        return op.apply(x) if _recorded(x) else getattr(self._xp, name)(_raw(x))

    def exp(self, x): return self._unary("exp", Exp, x)
    def log(self, x): return self._unary("log", Log, x)
    def log1p(self, x): return self._unary("log1p", Log1p, x)
    def tanh(self, x): return self._unary("tanh", Tanh, x)
    def sin(self, x): return self._unary("sin", Sin, x)
    def cos(self, x): return self._unary("cos", Cos, x)
    def sign(self, x): return Sign.apply(x) if _recorded(x) else sign_of(self._xp, _raw(x))
    def negative(self, x): return self._unary("negative", Neg, x)

    def sqrt(self, x: Any) -> Any:
        return Pow.apply(x, p=0.5) if _recorded(x) else self._xp.sqrt(_raw(x))

    def square(self, x: Any) -> Any:
        return x * x

    def abs(self, x: Any) -> Any:
        """|x| = x sign(x): its derivative sign(x), 0 at 0, as PyTorch's."""
        return x * Sign.apply(x) if _recorded(x) else self._xp.abs(_raw(x))

    def pow(self, x1: Any, x2: Any) -> Any:
        if not _recorded(x1, x2):
            return self._xp.pow(_raw(x1), _raw(x2))
        if isinstance(x2, (int, float)):
            return Pow.apply(x1, p=x2)
        raise TypeError("create_graph: pow with a tensor exponent is not recorded; write "
                        "exp(x2 * log(x1))")

    def add(self, x1, x2): return operator.add(*self._lift(x1, x2))
    def subtract(self, x1, x2): return operator.sub(*self._lift(x1, x2))
    def multiply(self, x1, x2): return operator.mul(*self._lift(x1, x2))
    def divide(self, x1, x2): return operator.truediv(*self._lift(x1, x2))

    def maximum(self, x1: Any, x2: Any) -> Any:
        if not _recorded(x1, x2):
            return self._xp.maximum(_raw(x1), _raw(x2))
        return Maximum.apply(*self._lift(x1, x2))

    def minimum(self, x1: Any, x2: Any) -> Any:
        """min(a, b) = -max(-a, -b): the same tie rule, half of gy to each."""
        if not _recorded(x1, x2):
            return self._xp.minimum(_raw(x1), _raw(x2))
        x1, x2 = self._lift(x1, x2)
        return Neg.apply(Maximum.apply(-x1, -x2))

    def matmul(self, x1: Any, x2: Any) -> Any:
        if not _recorded(x1, x2):
            return self._xp.matmul(_raw(x1), _raw(x2))
        return MatMul.apply(*self._lift(x1, x2))

    def tril(self, x: Any, k: int = 0) -> Any:
        return self._triangle("tril", x, k)

    def triu(self, x: Any, k: int = 0) -> Any:
        return self._triangle("triu", x, k)

    def _triangle(self, name: str, x: Any, k: int) -> Any:
        if not _recorded(x):
            return getattr(self._xp, name)(_raw(x), k=k)
        keep = getattr(self._xp, name)(self._xp.ones(x.shape[-2:], dtype=self._xp.bool), k=k)
        return Where.apply(*self._lift(keep, x, self._xp.zeros((), dtype=x.dtype)))


class GraphLinalg:
    """``ctx.xp.linalg`` under create_graph: the decompositions that backwards call (Det's
    svd and det, Slogdet's and Cholesky's inv, Solve's and Qr's solve, ...), each the tinyffn
    primitive, so its own backward differentiates it in turn. Raw arrays in, raw out."""

    def __init__(self, ns: GraphNamespace):
        self._ns = ns
        self._raw = ns._xp.linalg

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"create_graph: a backward called xp.linalg.{name}, which tinyffn.graph_xp does "
            "not record; add it to GraphLinalg, or leave the op's twice_differentiable unset")

    def inv(self, x: Any) -> Any:
        return Inv.apply(x) if _recorded(x) else self._raw.inv(_raw(x))

    def det(self, x: Any) -> Any:
        return Det.apply(x) if _recorded(x) else self._raw.det(_raw(x))

    def solve(self, x1: Any, x2: Any) -> Any:
        if not _recorded(x1, x2):
            return self._raw.solve(_raw(x1), _raw(x2))
        return Solve.apply(*self._ns._lift(x1, x2))

    def svd(self, x: Any, full_matrices: bool = True) -> Any:
        """(U, S, Vh), as the array API's svd: Svd's packed output sliced apart."""
        if not _recorded(x):
            return self._raw.svd(_raw(x), full_matrices=full_matrices)
        m, n = x.shape[-2:]
        k = min(m, n)
        ku, kv = (m, n) if full_matrices else (k, k)
        y = Svd.apply(x, full_matrices=bool(full_matrices))            # (..., m·ku + k + kv·n)
        return tuple(_unpack(self._ns, y, [(m, ku), (k,), (kv, n)]))

    def eigh(self, x: Any) -> Any:
        """(L, V) of the symmetric x, its lower triangle read: Eigh's packed output apart."""
        if not _recorded(x):
            return self._raw.eigh(_raw(x))
        n = x.shape[-1]
        return tuple(_unpack(self._ns, Eigh.apply(x), [(n,), (n, n)]))      # (..., n + n·n)


# backend.special(name) as a primitive: the functions whose derivatives special_functions.py
# writes with one another (lgamma' = digamma, i0' = i1, ...), each differentiable again
_SPECIAL = {"gammaln": Lgamma.apply, "digamma": Digamma.apply, "erfc": Erfc.apply,
            "erfcx": Erfcx.apply, "erfinv": Erfinv.apply, "ndtri": Ndtri.apply,
            "i0": I0.apply, "i0e": I0e.apply, "i1": I1.apply, "i1e": I1e.apply,
            "polygamma": lambda n, x: Polygamma.apply(x, n=int(_raw(n))),   # n: no gradient
            "zeta": Zeta.apply, "j0": J0.apply, "j1": J1.apply, "y0": Y0.apply,
            "y1": Y1.apply, "k0": K0.apply, "k1": K1.apply, "k0e": K0e.apply,
            "k1e": K1e.apply}


class GraphBackend:
    """``ctx.backend`` under create_graph: the backend's facts (device, dtypes), with ``xp``
    the :class:`GraphNamespace`; ``erf`` and ``special(name)`` as the tinyffn primitives
    (Erf, Digamma, Polygamma, ...) where a tensor is given, the backend's own on raw arrays.
    Its other array routines (``index_add``, ``fmod``) compute on raw arrays alone, so they
    raise here, naming themselves, rather than read a tensor as an array and end the graph."""

    _FACTS = frozenset({"device", "array_type", "is_floating", "float_dtypes", "dtype",
                        "default_float", "synchronize", "raising_linalg"})

    def __init__(self, backend: Any):
        self._backend = backend
        self.xp = namespace(backend)

    def __getattr__(self, name: str) -> Any:
        if name in self._FACTS:
            return getattr(self._backend, name)
        raise AttributeError(
            f"create_graph: a backward called backend.{name}, which computes on raw arrays "
            "and is not recorded; express it with ctx.xp, or leave the op's "
            "twice_differentiable unset so that create_graph refuses it")

    def erf(self, x: Any) -> Any:
        return Erf.apply(x) if _recorded(x) else self._backend.erf(_raw(x))

    def special(self, name: str) -> Any:
        """``scipy.special.<name>`` as the recorded primitive of that name."""
        if name not in _SPECIAL:
            raise AttributeError(f"create_graph: a backward called backend.special({name!r}), "
                                 "which is no tinyffn primitive, so it is not recorded")
        op, raw = _SPECIAL[name], self._backend.special(name)

        def fn(*args: Any) -> Any:
            if not _recorded(args):
                return raw(*args)
            return op(*self.xp._lift(*args))
        return fn


_NAMESPACES: dict = {}


def namespace(backend: Any) -> GraphNamespace:
    """The one :class:`GraphNamespace` of ``backend``."""
    ns = _NAMESPACES.get(backend.device)
    if ns is None or ns._backend is not backend:
        ns = _NAMESPACES[backend.device] = GraphNamespace(backend)
    return ns
