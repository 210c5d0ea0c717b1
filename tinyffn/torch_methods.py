"""PyTorch's other names for what a :class:`tinyffn.Tensor` does, and its in-place methods.

``Tensor`` inherits these from :class:`TorchMethods`, so that tensor.py keeps the engine
(the operators, the primitives, backward) and this file holds the rest of the vocabulary
a PyTorch user brings: casts (``x.float()``; ``operator.index(t)``, so that a one-element
integer tensor indexes a list or a slice), devices (``x.cpu()``, ``x.cuda()``), shape
names (``x.view``, ``x.t()``, ``x.unsqueeze``, ``x.view_as(y)``), arithmetic methods
(``x.add(y, alpha=2)``, ``x.rsqrt()``), the comparisons, tests and logic under method
names (``x.eq(0)``, ``x.isnan()``, ``m.logical_and(k)``), ``x.norm()``, new tensors like x
(``x.new_zeros(2, 3)``), sorting (``h.topk(5)``, ``x.gather(1, i)``: :mod:`tinyffn.sorting`),
and the in-place methods (``p.grad.zero_()``, ``w.normal_(0, 0.02)``, ``p.add_(g,
alpha=-lr)``). Each is a line or two over a method of tensor.py or a function of
composed.py, torch_functions.py, sorting.py or init.py; none is a primitive of its own.

In place, tinyffn works as in ``x -= y`` (:func:`tinyffn.in_place.in_place`): the tensor
stays the same object and gets a new array, so a graph that saved the old one, views of
x and ``x.detach()`` keep the old values. Allowed where no gradient is needed (inside
``no_grad()``, or on a tensor that does not require grad, such as a ``.grad``); refused
where one is, since no graph records it; ``x[key] = value`` too
(:func:`tinyffn.in_place.set_item`). The in-place forms of the other methods
(``x.clamp_(0)``, ``x.exp_()``, ``s.masked_fill_(m, v)``) are in the base class
:class:`tinyffn.in_place.InPlaceMethods`.
A PyTorch in-place name tinyffn lacks (``x.unsqueeze_(0)``) is Python's own AttributeError,
which ends "Did you mean: 'unsqueeze'?". A ``__getattr__`` could say more, but a class with
one reads every attribute on a slower path (``t.data`` three times slower on Python 3.11),
and every op reads several.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import comparisons as K
from . import composed as C
from .ops import elementwise as E
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import _axis_list, _is_int, _shape_arg, is_real, type_name
from .backend import dtype_name
from . import in_place as IP
from .in_place import InPlaceMethods
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

    def cuda(self, device=None):
        """``to("cuda")`` (``device``: None, 0 or ``"cuda:0"``; tinyffn uses one GPU); self
        if it is there already. Without CuPy or a GPU, ``to``'s DeviceError says why."""
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

    # -- shape: PyTorch's names, each a reshape, transpose, broadcast_to or getitem --------
    @property
    def mT(self):
        """The last two axes swapped (a batch of matrices transposed), as ``torch.Tensor.mT``."""
        return self.transpose(-2, -1)

    def t(self):
        """A matrix's transpose, as ``torch.Tensor.t``: ``transpose()`` for at most 2 axes (a
        0-d or 1-d tensor as it is); more axes are refused, as in PyTorch."""
        if self.ndim > 2:
            raise ValueError(f"t: a tensor of shape {self.shape} has {self.ndim} axes, and "
                             "t() transposes at most 2; write x.mT (the last two swapped) "
                             "or x.transpose(d0, d1)")
        return self.transpose()

    def size(self, dim: int | None = None):
        """``shape``, or ``shape[dim]``, as ``torch.Tensor.size``."""
        return self.shape if dim is None else self.shape[_axis_list((dim,), self.ndim, "size")[0]]

    def dim(self) -> int:
        """``ndim``, as ``torch.Tensor.dim``."""
        return self.ndim

    def view(self, *shape):
        """``reshape``: as tinyffn writes into no array in place, a view and a copy read
        the same (``torch.Tensor.view`` shares memory)."""
        return self.reshape(*shape)

    def view_as(self, other): return self.view(other.shape)
    def reshape_as(self, other): return self.reshape(other.shape)
    def expand_as(self, other): return self.expand(*other.shape)

    def type_as(self, other):
        """``to(other)``: other's dtype and device, as ``torch.Tensor.type_as``."""
        return self.to(other)

    def nelement(self) -> int:
        return self.numel()

    def unsqueeze(self, dim): return C.unsqueeze(self, dim)
    def squeeze(self, dim=None): return C.squeeze(self, dim)
    def flatten(self, start_dim=0, end_dim=-1): return C.flatten(self, start_dim, end_dim)
    def expand(self, *sizes): return C.expand(self, *sizes)

    def repeat(self, *sizes):
        """Tiled ``sizes[i]`` times along axis i (more sizes than axes add leading axes), as
        ``torch.Tensor.repeat`` (NumPy's ``tile``): a ``reshape`` that puts a length-1 axis
        before each axis, an ``expand`` of those, and a ``reshape`` that merges each pair."""
        sizes = _shape_arg(sizes, "repeat")
        if len(sizes) < self.ndim or min(sizes, default=0) < 0:
            raise ValueError(f"repeat: needs a count >= 0 for each of x's {self.ndim} axes "
                             f"(shape {self.shape}; more counts add leading axes), got {sizes}")
        shape = (1,) * (len(sizes) - self.ndim) + tuple(self.shape)
        pairs = [v for n in shape for v in (1, n)]
        tiled = [v for s, n in zip(sizes, shape) for v in (s, n)]
        y = self.reshape(pairs).expand(*tiled).reshape([s * n for s, n in zip(sizes, shape)])
        return IP.as_view(y, None)       # a copy in PyTorch, its own to change

    def split(self, split_size, dim=0): return C.split(self, split_size, dim)
    def chunk(self, chunks, dim=0): return C.chunk(self, chunks, dim)

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

    def norm(self, p="fro", dim=None, keepdim=False):
        """``tinyffn.norm(self, p, dim, keepdim)``: (Σ |x|^p)^(1/p) over ``dim``."""
        from .torch_functions import norm
        return norm(self, p, dim, keepdim)

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

    # -- in place: a new array for the same tensor, outside any graph -----------------------
    def add_(self, other, *, alpha=1):
        """``self += alpha * other`` (``p.add_(p.grad, alpha=-lr)``); returns self. With
        the rules of ``x -= y``: x keeps its shape and dtype, no gradient may be needed."""
        return IP.in_place(self, E.Add, _scaled("add_", self, other, alpha), "+=", "add_")

    def sub_(self, other, *, alpha=1):
        return IP.in_place(self, E.Sub, _scaled("sub_", self, other, alpha), "-=", "sub_")

    def mul_(self, other): return IP.in_place(self, E.Mul, other, "*=", "mul_")
    def div_(self, other): return IP.in_place(self, E.Div, other, "/=", "div_")

    def zero_(self):
        """Every entry set to 0 (``p.grad.zero_()``); returns self. See :meth:`fill_`."""
        IP.check_in_place(self, "zero_", None, "x = tinyffn.zeros_like(x)")
        return self._set_data(self.backend.xp.zeros_like(self.data))

    def fill_(self, value):
        """Every entry set to ``value``, a number (or a 0-d tensor) that x's dtype holds
        (a fraction into an integer tensor is refused; PyTorch truncates it); returns
        self. As ``x -= y``: a new array, allowed where no gradient is needed."""
        from . import init
        IP.check_in_place(self, "fill_", value, "x = tinyffn.full_like(x, value)")
        if isinstance(value, _tensor.Tensor):
            if value.ndim != 0:
                raise ValueError(f"fill_: the value must be a number or a 0-d tensor, got "
                                 f"shape {value.shape}; for several values use copy_(src)")
            value = value.item()
        return init._constant("fill_", self, value, "value")   # nn.init.constant_'s checks

    def copy_(self, src):
        """``src``'s values into x, broadcast to x's shape, cast to x's dtype and moved to
        its device, as ``torch.Tensor.copy_``; returns self. As ``x -= y``: a new array,
        allowed where no gradient is needed (neither x nor src may require one)."""
        IP.check_in_place(self, "copy_", src, "x = src.expand(*x.shape)")
        if not isinstance(src, _tensor.Tensor):
            raise TypeError(f"copy_: src must be a tinyffn Tensor, got {type_name(src)}; wrap "
                            "it with tinyffn.tensor(...)")
        if _broadcast_shape(src.shape, self.shape) != self.shape:
            raise ValueError(f"copy_: src of shape {src.shape} does not broadcast to x's "
                             f"shape {self.shape}")
        values = src.detach().to(self.device).to(dtype=self.dtype).data
        xp = self.backend.xp
        return self._set_data(xp.asarray(xp.broadcast_to(values, self.shape), copy=True))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Entries drawn from N(mean, std²), as ``nn.init.normal_(x, mean, std)``, from
        ``generator`` or the one ``manual_seed`` seeds; returns self. Inside ``no_grad()`` for a
        parameter, as in PyTorch (``nn.init.normal_`` needs no ``no_grad``)."""
        from . import init
        IP.check_in_place(self, "normal_", None, "x = tinyffn.randn_like(x) * std + mean")
        return init.normal_(self, mean, std, generator)

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Entries drawn from U(a, b), as ``nn.init.uniform_(x, a, b)`` (PyTorch names the
        bounds ``from`` and ``to``: pass them by position); returns self."""
        from . import init
        IP.check_in_place(self, "uniform_", None, "x = tinyffn.rand_like(x) * (b - a) + a")
        return init.uniform_(self, a, b, generator)

    def _set_data(self, array: Any):
        self.data = array
        return self

    def __setitem__(self, key, value):
        """``x[key] = value``, as PyTorch's, under the rules of ``x -= y``: x gets a new array
        (see :func:`tinyffn.in_place.set_item`)."""
        IP.set_item(self, key, value)


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


def _scaled(op: str, x: Any, other: Any, alpha: Any) -> Any:
    """``alpha * other`` for ``x.add`` and ``x.sub`` (``other`` itself when alpha is 1).

    As in PyTorch, alpha takes no part in the result's dtype, and ``other`` is scaled in
    the result's dtype: float16 + int64 * 0.5 stays float16, float64 + float16 * 2 is
    computed in float64. A float
    alpha with integer operands is refused (it would make the result float), and so is an
    alpha other than 1 on two bools (PyTorch's answer there is a logical or); a bool x
    plus a number or a tensor of numbers is arithmetic, as in PyTorch (``sub`` with a
    bool is refused by the ``Sub`` op, as ``-`` is)."""
    if not is_real(alpha):
        raise TypeError(f"{op}: alpha must be a number, got {type_name(alpha)}")
    if not isinstance(other, (_tensor.Tensor, bool)) and not is_real(other):
        from .creation import tensor    # a list or array, read as x + other reads it (a
        from .promotion import check_no_tensors     # list times alpha would repeat it)
        if isinstance(other, (list, tuple)):
            check_no_tensors(op, other)
        other = tensor(other, device=x.device)
    other_dtype = other.dtype if isinstance(other, _tensor.Tensor) else None
    floats = x.backend.is_floating(x.dtype) or isinstance(other, float) or \
        other_dtype is not None and other.backend.is_floating(other_dtype)
    if not _is_int(alpha) and not floats:
        raise TypeError(f"{op}: alpha={alpha!r} is not an integer, and x has dtype "
                        f"{dtype_name(x.dtype)}; PyTorch refuses this too: cast first (x.float())")
    if alpha == 1:
        return other
    if op.startswith("sub") and (other is True or other is False or other_dtype is not None and
                        dtype_name(other_dtype) == "bool"):
        raise TypeError(E.Sub.bool_refused)     # scaled, it would be 0s and 1s: refused first
    if dtype_name(x.dtype) == "bool" and (isinstance(other, bool) if other_dtype is None
                                          else dtype_name(other_dtype) == "bool"):
        raise TypeError(f"{op}: alpha={alpha!r} on bool tensors has no arithmetic meaning "
                        "(PyTorch answers a logical or); write x | y, or cast first (x.long())")
    if other_dtype is not None and other.backend is x.backend:   # (another device: add's
        from .promotion import _target  # DeviceError) scaled in the result's dtype, as
        target = _target((x, other), x.backend, E.Add)[2]   # PyTorch: float64 + float16 * 2
        if target != other_dtype:       # overflowed at 65504 in float16 first
            other = other.to(dtype=target)
    return other * alpha


def _broadcast_shape(a: tuple, b: tuple) -> tuple | None:
    """The shape ``a`` and ``b`` broadcast to, or None if they do not."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        return None
