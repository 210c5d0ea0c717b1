"""PyTorch's in-place forms of the Tensor methods: ``x.clamp_(0, 1)``, ``s.masked_fill_(m,
v)``, ``h.relu_()``, ``x.exp_()``, ...

Each computes the method of its name without the underscore (``x.clamp(0, 1)``) and gives
x the result's array, with the rules of ``x -= y`` (:func:`tinyffn.composed.in_place`): x
stays the same object, with its shape and dtype (a result of x's kind is cast back, as
PyTorch casts it; one of another kind is refused, ``int_x.sqrt_()``, as PyTorch refuses
it); a graph that saved x's old array, views of x and ``x.detach()`` keep the old values.
It is allowed where no gradient is needed (inside ``no_grad()``, or on a tensor that does
not require grad: a mask, a batch, ``p.grad``), and refused where one is, since tinyffn
records no in-place ops, and on what PyTorch makes a view of another tensor; the error
names the form to write, ``x = x.clamp(...)``.

Without them, ``x.clamp_(0)`` raised Python's AttributeError, "Did you mean: 'clamp'?",
which invites ``x.clamp(0)`` written as a statement: a line that changes nothing. These
are the in-place names whose method a Tensor has and whose result keeps x's shape; the
others (``x.unsqueeze_(0)``, which changes x's shape) still get Python's error, because a
``__getattr__`` that could word it would slow every attribute read (see
:mod:`tinyffn.torch_methods`). :class:`~tinyffn.torch_methods.TorchMethods`, and so
``Tensor``, inherits this class.
"""
from __future__ import annotations

from typing import Any

from . import composed as C
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .backend import dtype_name


class InPlaceMethods:
    """``x.name_(*args)``: ``x.name(*args)`` stored into x (see the module docstring)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

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


def _replaced(x: Any, name: str, *args: Any) -> Any:
    """x takes the values of ``x.name(*args)``, under the rules of ``x -= y``; returns x."""
    from .promotion import kind_of      # promotion.py imports tensor.py, which imports this
    what = f"{name}_"
    needs_grad = [a for a in args if isinstance(a, _tensor.Tensor) and a.requires_grad]
    C.check_in_place(x, what, needs_grad[0] if needs_grad else None, f"x = x.{name}(...)")
    y = getattr(x, name)(*args)
    if y.dtype != x.dtype and kind_of(x.dtype, x.backend) == kind_of(y.dtype, x.backend):
        y = y.to(dtype=x.dtype)                 # float16 x.exp_(): stays float16
    if y.shape != x.shape or y.dtype != x.dtype:
        raise RuntimeError(
            f"{what}: x.{name}(...) has shape {y.shape} and dtype {dtype_name(y.dtype)}, but x "
            f"has shape {x.shape} and dtype {dtype_name(x.dtype)}; in place, x cannot change "
            f"either (PyTorch refuses this too): write x = x.{name}(...) for a new tensor")
    x.data = y.data
    return x
