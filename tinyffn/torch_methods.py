"""PyTorch's other names for what a :class:`tinyffn.Tensor` does.

``Tensor`` inherits these from :class:`TorchMethods`, so that tensor.py keeps the engine
(the operators, the primitives, backward) and this file holds the rest of the vocabulary
a PyTorch user brings: casts (``x.float()``; ``operator.index(t)``, so that a one-element
integer tensor indexes a list or a slice), devices (``x.cpu()``, ``x.cuda()``), arithmetic
methods (``x.add(y, alpha=2)``, ``x.rsqrt()``), the comparisons, tests and logic under method
names (``x.eq(0)``, ``x.isnan()``, ``m.logical_and(k)``), ``x.norm()``, new tensors like x
(``x.new_zeros(2, 3)``) and sorting (``h.topk(5)``, ``x.gather(1, i)``:
:mod:`tinyffn.sorting`). Each is a line or two over a method of tensor.py or a function of
composed.py, torch_functions.py, sorting.py or creation.py; none is a primitive of its own.

Two groups live in base classes of their own: the shape names (``x.view``, ``x.t()``,
``x.unsqueeze``, ``x.view_as(y)``, with ``reshape`` and ``transpose``) in
:class:`tinyffn.view_methods.ViewMethods`, and the in-place methods (``p.grad.zero_()``,
``w.normal_(0, 0.02)``, ``p.add_(g, alpha=-lr)``, ``x.clamp_(0)``, ``x[key] = value``) in
:class:`tinyffn.in_place.InPlaceMethods`, beside the rules of ``x -= y`` they follow.
"""
from __future__ import annotations

from typing import Any

from . import comparisons as K
from . import composed as C
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import _is_int, is_real, type_name
from .backend import dtype_name
from .in_place import InPlaceMethods, _scaled
from .index_writes import IndexWriteMethods
from .more_functions import MoreMethods
from .numerics import NumericsMethods
from .random_sampling import RandomMethods
from .scatter import ScatterMethods
from .torch_extras import ExtraMethods
from .torch_names import NameMethods
from .torch_math import MathMethods
from .torch_linalg import LinalgMethods
from .torch_pointwise import PointwiseMethods
from .torch_accumulate import AccumulateMethods
from .torch_select import SelectMethods
from .torch_shapes import ShapeMethods
from .torch_products import ProductMethods
from .torch_operators import OperatorMethods
from .torch_special import SpecialMethods
from .torch_stats import StatsMethods


class TorchMethods(MoreMethods, ExtraMethods, NameMethods, MathMethods, LinalgMethods,
                   AccumulateMethods, SelectMethods, StatsMethods, NumericsMethods,
                   ScatterMethods, PointwiseMethods, SpecialMethods, InPlaceMethods,
                   RandomMethods, ShapeMethods, OperatorMethods,
                   ProductMethods, IndexWriteMethods):
    """The methods of :class:`tinyffn.Tensor` that this file holds (see its docstring); its
    base classes hold those of the modules they are imported from (``x.sin()``: more_functions,
    ``x.clamp_(0)``: in_place, ...)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    # -- casts: .to(dtype=...) under the dtype's torch name ------------------------------
    def float(self): return self.to(dtype="float32")
    def double(self): return self.to(dtype="float64")
    def half(self): return self.to(dtype="float16")
    def long(self): return self.to(dtype="int64")
    def int(self): return self.to(dtype="int32")
    def bool(self): return self.to(dtype="bool")

    def type_as(self, other):
        """``to(other)``: other's dtype and device, as ``torch.Tensor.type_as``."""
        return self.to(other)


    def __index__(self) -> int:
        """A one-element integer (or bool) tensor as an index, as in PyTorch: ``d[i:i + 8]``
        with ``i`` from ``randint``, ``range(t)``, ``[10, 20][t]`` (``operator.index``)."""
        if self.numel() != 1 or self.backend.is_floating(self.dtype):
            raise TypeError(f"only integer tensors of a single element can be converted to an "
                            f"index (PyTorch's rule); this one is {dtype_name(self.dtype)} of "
                            f"shape {self.shape}: " + ("pick one element first, t[0]" if
                                                       self.numel() != 1 else "cast it, t.long()"))
        return int(self.item())

    # -- devices -------------------------------------------------------------------------
    def cpu(self):
        """``to("cpu")``: self if it is there already (as PyTorch's)."""
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        """``to("cuda")`` (``device``: None, 0 or ``"cuda:0"``; tinyffn uses one GPU); self
        if it is there already. Without CuPy or a GPU, ``to``'s DeviceError says why.
        ``non_blocking`` changes nothing, as ``to``'s: the copy is complete on return."""
        return self.to("cuda" if device is None else f"cuda:{device}" if _is_int(device)
                       else device)

    @property
    def is_cuda(self) -> bool:
        """Whether the tensor is on the GPU, as ``torch.Tensor.is_cuda``."""
        return self.device == "cuda"

    def contiguous(self):
        """self, as PyTorch's for a tensor already contiguous. Here layout never matters:
        no op writes into an array, and every op reads a strided view (``x.T``'s, a
        slice's) as it reads a packed copy, so no tensor needs a packed copy made."""
        return self

    def tril(self, diagonal=0):
        """``tinyffn.tril(self, diagonal)``: zeros above the ``diagonal``-th diagonal."""
        from .torch_functions import tril       # torch_functions.py imports tensor.py
        return tril(self, diagonal)

    def triu(self, diagonal=0):
        """``tinyffn.triu(self, diagonal)``: zeros below the ``diagonal``-th diagonal."""
        from .torch_functions import triu
        return triu(self, diagonal)

    # -- sorting and picking by index: tinyffn.sort(self, ...), ... (sorting.py) -------------
    def sort(self, dim=-1, descending=False, *, stable=False):
        """``values, indices = x.sort()``: ``tinyffn.sort(self, dim, descending)``."""
        from . import sorting               # sorting.py imports tensor.py
        return sorting.sort(self, dim, descending, stable=stable)

    def argsort(self, dim=-1, descending=False, *, stable=False):
        from . import sorting
        return sorting.argsort(self, dim, descending, stable=stable)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        """``values, indices = h.topk(5)``: ``tinyffn.topk(self, k, dim, largest, sorted)``."""
        from . import sorting
        return sorting.topk(self, k, dim, largest, sorted)

    def take_along_dim(self, indices, dim=None):
        from . import sorting
        return sorting.take_along_dim(self, indices, dim)

    def nonzero(self, *, as_tuple=False):
        """``tinyffn.nonzero(self, as_tuple=as_tuple)``: the indices of the nonzero entries."""
        from .torch_functions import nonzero
        return nonzero(self, as_tuple=as_tuple)

    # -- functional's softmax and log_softmax, under method names ---------------------------
    def softmax(self, dim, dtype=None):
        """``tinyffn.functional.softmax(self, dim)``, as ``torch.Tensor.softmax``."""
        from .functional import softmax         # functional.py imports tensor.py
        return softmax(self, dim=dim, dtype=dtype)

    def log_softmax(self, dim, dtype=None):
        """``tinyffn.functional.log_softmax(self, dim)``."""
        from .functional import log_softmax
        return log_softmax(self, dim=dim, dtype=dtype)

    # -- reductions beyond tensor.py's sum, mean, max and min ------------------------------
    def var(self, dim=None, *, correction=None, keepdim=None, axis=None, keepdims=False,
            unbiased=None):
        """Σ (x - mean)² / (n - correction) over ``dim``/``axis``; correction 1 by default,
        as PyTorch's (NumPy's ddof is 0: pass ``correction=0``). See functional.variance."""
        from .functional import variance        # functional.py imports this module
        return variance(self, "var", dim, correction, keepdim, axis, keepdims, unbiased)

    def std(self, dim=None, *, correction=None, keepdim=None, axis=None, keepdims=False,
            unbiased=None):
        """The square root of :meth:`var`, with its arguments."""
        from .functional import variance
        return variance(self, "std", dim, correction, keepdim, axis, keepdims, unbiased)

    # whether any / every element (along dim) is nonzero: a bool tensor, outside any graph
    def any(self, dim=None, keepdim=None, *, axis=None, keepdims=False):
        return C.any_all(self, "any", dim, keepdim, axis, keepdims)

    def all(self, dim=None, keepdim=None, *, axis=None, keepdims=False):
        return C.any_all(self, "all", dim, keepdim, axis, keepdims)

    # -- arithmetic under method names: the operators ---------------------------------------
    def add(self, other, *, alpha=1):
        """``self + alpha * other``, as ``torch.Tensor.add`` (``alpha`` a number)."""
        return self + _scaled("add", self, other, alpha)

    def sub(self, other, *, alpha=1):
        """``self - alpha * other``, as ``torch.Tensor.sub``."""
        return self - _scaled("sub", self, other, alpha)

    def mul(self, other): return self * other
    def matmul(self, other): return self @ other
    def neg(self): return -self
    negative = neg

    def clip(self, min=None, max=None):
        """``clamp(min, max)``, under its other name, as ``torch.Tensor.clip``."""
        return self.clamp(min, max)

    def square(self):
        """``self ** 2``, as ``torch.square`` (a bool or integer x stays an integer)."""
        return self ** 2

    def reciprocal(self):
        """``1 / self``, as ``torch.reciprocal`` (an integer x gives float32; 1/0 is inf)."""
        return 1 / self

    def rsqrt(self):
        """``self ** -0.5``, as ``torch.rsqrt``: one ``pow`` node in the graph."""
        return self ** -0.5

    # -- comparisons, tests and logic: PyTorch's method names for the operators -------------
    def eq(self, other): return _compared(self, other, "eq", "equal")
    def ne(self, other): return _compared(self, other, "ne", "not_equal")
    def lt(self, other): return _compared(self, other, "lt", "less")
    def le(self, other): return _compared(self, other, "le", "less_equal")
    def gt(self, other): return _compared(self, other, "gt", "greater")
    def ge(self, other): return _compared(self, other, "ge", "greater_equal")

    def isnan(self):
        from . import torch_functions as F      # torch_functions.py imports tensor.py
        return F.isnan(self)

    def isinf(self):
        from . import torch_functions as F
        return F.isinf(self)

    def isfinite(self):
        from . import torch_functions as F
        return F.isfinite(self)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        from . import torch_functions as F
        return F.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        from . import torch_functions as F
        return F.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other):
        from . import torch_functions as F
        return F.equal(self, other)

    def logical_not(self):
        """True where an entry is zero (False), as ``torch.logical_not``: ``self == 0``."""
        return self == 0

    def logical_and(self, other):
        """Both nonzero, as ``torch.logical_and``: ``(self != 0) & (other != 0)``; a NaN
        counts as nonzero (true), as in PyTorch. ``other`` is a Tensor (or a number)."""
        return (self != 0) & (_logical_operand("logical_and", other) != 0)

    def logical_or(self, other): return (self != 0) | (_logical_operand("logical_or", other) != 0)
    def logical_xor(self, other): return (self != 0) ^ (_logical_operand("logical_xor", other) != 0)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """``tinyffn.norm(self, p, dim, keepdim)``: (Σ |x|^p)^(1/p) over ``dim``; with
        ``dtype``, of x cast to it first, as PyTorch's (a float dtype, no narrower than x's)."""
        from .torch_functions import norm
        return norm(self if dtype is None else _norm_input(self, dtype), p, dim, keepdim)

    # -- new tensors: self's dtype and device unless told otherwise --------------------------
    def new_zeros(self, *shape, size=None, dtype=None, device=None, requires_grad=False):
        """``tinyffn.zeros(*shape)`` (or ``size=``) in self's dtype and on its device, as
        PyTorch's."""
        from . import creation
        return creation.zeros(*shape, size=size, **self._new_kwargs(dtype, device, requires_grad))

    def new_ones(self, *shape, size=None, dtype=None, device=None, requires_grad=False):
        from . import creation
        return creation.ones(*shape, size=size, **self._new_kwargs(dtype, device, requires_grad))

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        from . import creation
        return creation.full(size, fill_value, **self._new_kwargs(dtype, device, requires_grad))

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        """``tinyffn.tensor(data)`` in self's dtype and on its device (``[1.5]`` into an
        int64 x's dtype truncates, as PyTorch's ``new_tensor``)."""
        from . import creation
        return creation.tensor(data, **self._new_kwargs(dtype, device, requires_grad))

    def _new_kwargs(self, dtype, device, requires_grad) -> dict:
        return {"dtype": dtype_name(self.dtype) if dtype is None else dtype,
                "device": self.device if device is None else device,
                "requires_grad": requires_grad}


def _compared(x: Any, other: Any, op: str, name: str) -> Any:
    """``x.eq(other)``, ...: the operator's bool tensor; where the operator leaves the
    answer to Python (``x == None`` is False), the method raises, as PyTorch's does."""
    y = K.compare(x, other, name)
    if y is NotImplemented:
        raise TypeError(f"{op}: other must be a Tensor, a number or an array, got "
                        f"{type_name(other)}")
    return y


def _logical_operand(op: str, other: Any) -> Any:
    """A Tensor or a number: ``[0, 1] != 0`` would be Python's True, a silent wrong mask."""
    if isinstance(other, (_tensor.Tensor, bool)) or is_real(other):
        return other
    raise TypeError(f"{op}: other must be a Tensor (or a number), got {type_name(other)}; "
                    "wrap it with tinyffn.tensor(...)")


def _norm_input(x: Any, dtype: Any) -> Any:
    """x cast to ``norm``'s ``dtype``: a float dtype at least as wide as x's, as PyTorch's
    (a float64 norm of float16 entries, say); an integer x is left for norm to refuse."""
    if not x.backend.is_floating(x.dtype):
        return x
    y, floats = x.to(dtype=dtype), ("float16", "float32", "float64")
    if dtype_name(y.dtype) not in floats or \
            floats.index(dtype_name(y.dtype)) < floats.index(dtype_name(x.dtype)):
        raise ValueError(f"norm: dtype={dtype_name(y.dtype)} for a {dtype_name(x.dtype)} "
                         "tensor; as in PyTorch, dtype must be a float dtype x converts to "
                         "without narrowing (leave it out to compute in x's dtype)")
    return y
