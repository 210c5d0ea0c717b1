"""Changes in place: their rules, and PyTorch's in-place forms of the Tensor methods.

**The rules** (:func:`in_place`, :func:`check_in_place`): ``x -= y`` inside ``no_grad()``
keeps x the same object (a Parameter stays registered) and gives it a new array, of x's
shape and dtype; a graph that saved x's old array, views of x and ``x.detach()`` keep the
old values. It is refused where a gradient is needed (tinyffn records no in-place ops),
and on what PyTorch makes a *view* of another tensor that is still alive (a slice, a
reshape, a transpose, ``detach()``, a ``state_dict()`` entry; see :func:`as_view`): there
the change would reach that tensor, here it could not.

**The in-place methods** (:class:`InPlaceMethods`): first PyTorch's own, ``p.add_(g,
alpha=-lr)``, ``sub_``, ``mul_``, ``div_``, ``zero_``, ``fill_``, ``copy_``, ``normal_``,
``uniform_`` and ``x[key] = value`` (:func:`set_item`); then the in-place forms of the other
methods, ``x.clamp_(0, 1)``, ``s.masked_fill_(m, v)``, ``h.relu_()``, ``x.exp_()``, ... Each
of these computes the method of its name without the underscore (``x.clamp(0, 1)``) and
gives x the result's array under the rules above (a result of x's kind is cast back, as
PyTorch casts it; one of another kind is refused, ``int_x.sqrt_()``, as PyTorch refuses
it); the error names the form to write, ``x = x.clamp(...)``.

Without them, ``x.clamp_(0)`` raised Python's AttributeError, "Did you mean: 'clamp'?",
which invites ``x.clamp(0)`` written as a statement: a line that changes nothing. These
are the in-place names whose method a Tensor has and whose result keeps x's shape; the
others (``x.unsqueeze_(0)``, which changes x's shape) still get Python's error, because a
``__getattr__`` that could word it would slow every attribute read (``t.data`` three
times slower on Python 3.11, and every op reads several).
:class:`~tinyffn.torch_methods.TorchMethods`, and so ``Tensor``, inherits
:class:`InPlaceMethods`.
"""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import _is_int, is_real, type_name
from .backend import dtype_name
from .ops import elementwise as E


# ----------------------------------------------------------------------------- the rules
def in_place(x, fn: Any, other: Any, symbol: str, what: str = ""):
    """``x op= y`` (or the method ``what``, ``x.add_(y)``): x stays the same object (a
    Parameter stays registered); its ``data`` becomes the array of ``x op y``, of x's
    shape and dtype.

    The new values go into a new array, not into x's old one, so arrays that a graph
    saved for backward keep their values (PyTorch would refuse that backward instead);
    views of x (``x[0]``) and a ``detach()`` of x keep the old values too. As in PyTorch,
    x keeps its dtype when the result has the same kind (a float32 x += a float64 array,
    an int32 x += an int64 tensor, wrapping around); an integer x cannot become float.
    Recording this in a graph would need in-place ops, which tinyffn does not have, so
    when a gradient would be needed it is an error, as PyTorch's is for a leaf.
    """
    what = what or f"x {symbol} y"
    check_in_place(x, what, other, f"x = x {symbol[:-1]} y")
    return _stored(x, fn.apply(x, other), what, "the result", f"x = x {symbol[:-1]} y")


def _stored(x, y, what: str, result: str, new: str):
    """x takes y's array, cast back to x's dtype if of its kind (x += float64 array: x
    stays float32); a y of another shape or kind is refused (an integer x cannot become
    float); returns x."""
    from .promotion import kind_of      # promotion.py imports tensor.py, which imports this
    if y.dtype != x.dtype and kind_of(x.dtype, x.backend) == kind_of(y.dtype, x.backend):
        y = y.to(dtype=x.dtype)
    if y.shape != x.shape or y.dtype != x.dtype:
        raise RuntimeError(
            f"{what}: {result} has shape {y.shape} and dtype {dtype_name(y.dtype)}, but x "
            f"has shape {x.shape} and dtype {dtype_name(x.dtype)}; in place, x cannot change "
            f"either (PyTorch refuses this too): write {new} for a new tensor")
    x.data = y.data
    return x


def as_view(y, made_by: str | None, base=None):
    """Mark ``y`` as a tensor PyTorch makes a *view* of ``base``, sharing its memory: a
    slice ``w[0]``, a reshape, a transpose, an expand, a ``detach()``, a ``state_dict()``
    entry. There a change of y in place reaches ``base``; here it could not (tinyffn's
    tensors share no memory), so :func:`check_in_place` refuses it while ``base``, or a
    tensor ``base`` is a view of, is alive: ``randn(3).clone().detach()`` is free
    to change, as no one can see its base. ``made_by`` says how y was made, for that
    error; None unmarks a result that is a copy in PyTorch (``x.repeat(2)``) though made
    here by a reshape."""
    mark = getattr(base, "_view", None)         # w.T[0]: a view of w.T and of w
    alive = tuple(r for r in mark[1] if r() is not None) if mark is not None else ()
    y._view = None if made_by is None else (made_by, (weakref.ref(base),) + alive)
    return y


def check_in_place(x, what: str, other: Any, new: str) -> None:
    """The rules of every change in place, ``x -= y`` as ``x.zero_()`` (see
    :func:`in_place`): ``what`` starts the errors, ``new`` is the form they suggest."""
    from .promotion import is_shared_constant   # promotion.py imports tensor.py, which imports this
    if is_shared_constant(x):
        raise RuntimeError(f"{what}: x is a shared constant of the graph (the 2 in "
                           "x * 2); it cannot change")
    if grad_mode.STATE.grad_enabled and (
            x.requires_grad or isinstance(other, _tensor.Tensor) and other.requires_grad):
        raise RuntimeError(
            f"{what}: {'x' if other is None else 'x or y'} requires grad, and tinyffn does "
            f"not record in-place ops; update parameters inside `with tinyffn.no_grad():` (or "
            f"with tinyffn.optim), or write {new} for a new tensor in the graph")
    check_not_view(x, what, new)


def check_not_view(x, what: str, new: str | None = None) -> None:
    """Refuse to change a view (see :func:`as_view`) in place: w[:, k].zero_() would
    leave w as it was. ``new``, if given, is the form for a new tensor."""
    made_by, bases = getattr(x, "_view", None) or (None, ())
    if any(base() is not None for base in bases):
        raise RuntimeError(
            f"{what}: x was made from another tensor by {made_by}, which in PyTorch shares "
            f"that tensor's memory{' (wherever it can)' * ('reshape' in made_by)}, so this "
            "change would reach it too; tinyffn's tensors "
            "share none, and the other tensor would keep its values. Change that tensor "
            "itself (w[key] = value, inside `with tinyffn.no_grad():` where w requires grad; "
            "for w[key] += y write w[key] = w[key] + y), or make x a tensor of its own first "
            "(x = x.clone())"
            + (f", or write {new} for a new tensor" if new else ""))


# ----------------------------------------------------------------------------- x[key] = value
def set_item(x, key, value) -> None:
    """``x[key] = value``, as in PyTorch, under the rules of ``x -= y``: x gets a new array,
    a copy of its old one with ``value`` written where ``x[key]`` reads (ints, slices,
    index tensors, a bool mask), so a graph that saved x, views of x and ``x.detach()``
    keep the old values. nanoGPT's ``logits[logits < v[:, [-1]]] = -float("inf")`` inside
    ``no_grad()``, ``counts[i] = n``, ``p.grad[mask] = 0``.

    ``value`` (a number, a tensor, or a list or array as ``tinyffn.tensor`` reads it)
    broadcasts to the shape of ``x[key]`` (leading axes of length 1 dropped) and takes x's
    dtype, unless its kind is higher: a float into an integer tensor, and a fraction, are
    refused (PyTorch truncates them).
    Where a gradient would be needed (x or value requires grad, outside ``no_grad()``) it
    is refused, as every change in place: ``x.masked_fill`` and ``where`` are in the graph.
    A view of another tensor (``w[0][1] = 5``, where ``w[0]`` is one) is refused too:
    write ``w[0, 1] = 5``. ``x[key] += y`` reads ``x[key]``, a view, and changes it in place,
    which is refused: write ``x[key] = x[key] + y``.
    """
    from .backend import DeviceError
    from .creation import _check_fits, tensor   # creation.py imports tensor.py, which imports this
    from .ops.shape import GetItem, normalize_key
    from .promotion import kind_of
    what = "x[key] = value"
    check_in_place(x, what, value if isinstance(value, _tensor.Tensor) else None,
                   "x = x.masked_fill(mask, value) or x = tinyffn.where(mask, values, x)")
    try:
        with grad_mode.no_grad():       # normalized once: a mask's nonzero is a read
            key = normalize_key(key, x)
            target = GetItem.apply(x, key=key).shape    # checked, with getitem's messages
    except (IndexError, TypeError, ValueError, DeviceError) as e:
        raise type(e)(f"{what}: {str(e).removeprefix('getitem: ')}") from e
    if isinstance(value, _tensor.Tensor):
        if value.device != x.device and value.ndim:
            raise DeviceError(f"{what}: the value is on {value.device} but x on {x.device}; "
                              f"move it with .to('{x.device}')")
        v = value.detach().to(x.device)
    elif isinstance(value, bool) or is_real(value):
        _check_fits(what, "value", value, x.dtype)
        v = tensor(value, dtype=dtype_name(x.dtype), device=x.device)
    else:
        v = tensor(value, device=x.device)
    kinds = kind_of(v.dtype, x.backend), kind_of(x.dtype, x.backend)
    if None in kinds:                   # complex: no kind to compare, and no op takes it
        raise TypeError(f"{what}: tinyffn computes with float, integer and bool tensors, not "
                        f"{dtype_name(v.dtype if kinds[0] is None else x.dtype)}")
    if kinds[0] > kinds[1]:             # float into int, int into bool
        raise TypeError(f"{what}: a value of dtype {dtype_name(v.dtype)} into a tensor of "
                        f"dtype {dtype_name(x.dtype)} would be cut to x's dtype (PyTorch does "
                        "that in silence); cast the value first, or make x of a wider dtype")
    while v.ndim > len(target) and v.shape[0] == 1:     # leading 1s go, as in NumPy and
        v = v.reshape(v.shape[1:])                     # PyTorch: row[...] = a (1, d) value
    if _broadcast_shape(v.shape, target) != target:
        raise ValueError(f"{what}: a value of shape {v.shape} does not broadcast to {target}, "
                         f"the shape of x[key] for x of shape {x.shape}")
    xp = x.backend.xp
    new = xp.asarray(x.data, copy=True)
    values = xp.broadcast_to(v.to(dtype=x.dtype).data, target)
    x.backend.index_put(new, key, values)
    x.data = new


# ----------------------------------------------------------------------------- the methods


class InPlaceMethods:
    """PyTorch's in-place methods, ``p.add_(g, alpha=-lr)``, ``zero_()``, ``x[key] = v``, and
    ``x.name_(*args)``: ``x.name(*args)`` stored into x (see the module docstring)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def add_(self, other, *, alpha=1):
        """``self += alpha * other`` (``p.add_(p.grad, alpha=-lr)``); returns self. With
        the rules of ``x -= y``: x keeps its shape and dtype, no gradient may be needed."""
        return in_place(self, E.Add, _scaled("add_", self, other, alpha), "+=", "add_")

    def sub_(self, other, *, alpha=1):
        return in_place(self, E.Sub, _scaled("sub_", self, other, alpha), "-=", "sub_")

    def mul_(self, other): return in_place(self, E.Mul, other, "*=", "mul_")
    def div_(self, other, *, rounding_mode=None):
        """``x /= other``; with ``rounding_mode`` (``"trunc"``, ``"floor"``), ``x.div(other,
        rounding_mode=...)`` stored into x, which keeps an integer dtype, as PyTorch's."""
        if rounding_mode is None:
            return in_place(self, E.Div, other, "/=", "div_")
        return _replaced(self, "div", other, rounding_mode=rounding_mode)

    def zero_(self):
        """Every entry set to 0 (``p.grad.zero_()``); returns self. See :meth:`fill_`."""
        check_in_place(self, "zero_", None, "x = tinyffn.zeros_like(x)")
        return self._set_data(self.backend.xp.zeros_like(self.data))

    def fill_(self, value):
        """Every entry set to ``value``, a number (or a 0-d tensor) that x's dtype holds
        (a fraction into an integer tensor is refused; PyTorch truncates it); returns
        self. As ``x -= y``: a new array, allowed where no gradient is needed."""
        from . import init
        check_in_place(self, "fill_", value, "x = tinyffn.full_like(x, value)")
        if isinstance(value, _tensor.Tensor):
            if value.ndim != 0:
                raise ValueError(f"fill_: the value must be a number or a 0-d tensor, got "
                                 f"shape {value.shape}; for several values use copy_(src)")
            value = value.item()
        return init._constant("fill_", self, value, "value")   # nn.init.constant_'s checks

    def copy_(self, other, non_blocking=False):
        """``other``'s values into x (PyTorch's documentation calls it ``src``; its keyword
        is ``other``), broadcast to x's shape, cast to x's dtype and moved to its device, as
        ``torch.Tensor.copy_``; returns self. As ``x -= y``: a new array, allowed where no
        gradient is needed (neither x nor other may require one). ``non_blocking`` changes
        nothing: the copy is complete when copy_ returns, as ``to``'s."""
        check_in_place(self, "copy_", other, "x = other.expand(*x.shape)")
        if not isinstance(other, _tensor.Tensor):
            raise TypeError(f"copy_: other must be a tinyffn Tensor, got {type_name(other)}; "
                            "wrap it with tinyffn.tensor(...)")
        if _broadcast_shape(other.shape, self.shape) != self.shape:
            raise ValueError(f"copy_: other of shape {other.shape} does not broadcast to x's "
                             f"shape {self.shape}")
        values = other.detach().to(self.device).to(dtype=self.dtype).data
        xp = self.backend.xp
        return self._set_data(xp.asarray(xp.broadcast_to(values, self.shape), copy=True))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Entries drawn from N(mean, std²), as ``nn.init.normal_(x, mean, std)``, from
        ``generator`` or the one ``manual_seed`` seeds; returns self. Inside ``no_grad()`` for a
        parameter, as in PyTorch (``nn.init.normal_`` needs no ``no_grad``)."""
        from . import init
        check_in_place(self, "normal_", None, "x = tinyffn.randn_like(x) * std + mean")
        return init.normal_(self, mean, std, generator)

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Entries drawn from U(a, b), as ``nn.init.uniform_(x, a, b)`` (PyTorch names the
        bounds ``from`` and ``to``: pass them by position); returns self."""
        from . import init
        check_in_place(self, "uniform_", None, "x = tinyffn.rand_like(x) * (b - a) + a")
        return init.uniform_(self, a, b, generator)

    def _set_data(self, array: Any):
        self.data = array
        return self

    def __setitem__(self, key, value):
        """``x[key] = value``, as PyTorch's, under the rules of ``x -= y``: x gets a new array
        (see :func:`tinyffn.in_place.set_item`)."""
        set_item(self, key, value)

    # -- the methods' in-place forms: x.name(...) stored into x ------------------------------
    def clamp_(self, min=None, max=None): return _replaced(self, "clamp", min, max)
    def clip_(self, min=None, max=None): return _replaced(self, "clip", min, max)
    def masked_fill_(self, mask, value): return _replaced(self, "masked_fill", mask, value)
    def relu_(self): return _replaced(self, "relu")
    def exp_(self): return _replaced(self, "exp")
    def log_(self): return _replaced(self, "log")
    def tanh_(self): return _replaced(self, "tanh")
    def sigmoid_(self): return _replaced(self, "sigmoid")
    def erf_(self): return _replaced(self, "erf")
    def sqrt_(self): return _replaced(self, "sqrt")
    def rsqrt_(self): return _replaced(self, "rsqrt")
    def abs_(self): return _replaced(self, "abs")
    def neg_(self): return _replaced(self, "neg")
    def negative_(self): return _replaced(self, "negative")
    def square_(self): return _replaced(self, "square")
    def reciprocal_(self): return _replaced(self, "reciprocal")
    def pow_(self, exponent): return _replaced(self, "pow", exponent)
    def tril_(self, diagonal=0): return _replaced(self, "tril", diagonal)
    def triu_(self, diagonal=0): return _replaced(self, "triu", diagonal)
    def sin_(self): return _replaced(self, "sin")
    def cos_(self): return _replaced(self, "cos")
    def log1p_(self): return _replaced(self, "log1p")
    def floor_divide_(self, other): return _replaced(self, "floor_divide", other)
    def remainder_(self, other): return _replaced(self, "remainder", other)
    def fmod_(self, other): return _replaced(self, "fmod", other)
    def lerp_(self, end, weight): return _replaced(self, "lerp", end, weight)

    def index_add_(self, dim, index, source, *, alpha=1):
        return _replaced(self, "index_add", dim, index, source, alpha=alpha)

    def scatter_add_(self, dim, index, src): return _replaced(self, "scatter_add", dim, index, src)

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        if reduce is not None or (src is None) == (value is None):
            self.scatter(dim, index, src, value=value, reduce=reduce)   # raises, saying why
        return _replaced(self, "scatter", dim, index, value if src is None else src)


def _replaced(x: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """x takes the values of ``x.name(*args, **kwargs)``, under the rules of ``x -= y``;
    returns x."""
    what, new = f"{name}_", f"x = x.{name}(...)"
    needs_grad = [a for a in args if isinstance(a, _tensor.Tensor) and a.requires_grad]
    check_in_place(x, what, needs_grad[0] if needs_grad else None, new)
    return _stored(x, getattr(x, name)(*args, **kwargs), what, f"x.{name}(...)", new)


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
