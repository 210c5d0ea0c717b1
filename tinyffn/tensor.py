"""``Tensor``: an array, the gradient it receives, and the op that made it.

A tensor wraps one array of its backend (``.data``: NumPy on ``"cpu"``, CuPy on
``"cuda"``). Tensors that require a gradient and were produced by an op remember that op
in ``.grad_fn`` (a :class:`tinyffn.autograd.Context`); following ``grad_fn.parents`` back
from a result visits its whole computation graph. Operators (``+ - * / ** @``) and the
methods below call the primitives in :mod:`tinyffn.ops`; most are one line, so this file
reads as the engine's table of contents. The rest is in the base classes: the shape
methods and ``x[key]`` (``reshape``, ``view``, ``transpose``, ``permute``, ``expand``,
``squeeze``, ...) in :class:`tinyffn.view_methods.ViewMethods`; PyTorch's other names for
the same things (``x.float()``, ``x.cpu()``, ``x.add(y)``, ``x.norm()``) and its in-place
methods (``x.zero_()``) in :class:`tinyffn.torch_methods.TorchMethods`.
"""
from __future__ import annotations

import copy
import math
import numbers
import warnings
from typing import Any

import numpy as np

from . import autograd, hooks, op_checks
from . import backend as backends
from . import comparisons as K
from . import composed as C
from . import in_place as IP
from .arguments import either_name, is_real, type_name
from .ops import elementwise as E
from .ops import linalg as L
from .ops import reduce as R
from .torch_integers import IntegerMethods
from .torch_methods import TorchMethods
from .view_methods import ViewMethods


class Tensor(ViewMethods, TorchMethods, IntegerMethods):
    """An n-dimensional array that can take part in automatic differentiation.

    Create tensors with :func:`tinyffn.tensor`, :func:`zeros`, :func:`randn`, ...; the
    constructor below is the engine's (``data`` must already be an array of the backend).

    Attributes:
        data: the backend array (``numpy.ndarray`` on the CPU, ``cupy.ndarray`` on the GPU).
        grad: after ``backward()``, a Tensor holding dL/d(self) for leaf tensors, else None
            (with a warning for a computed tensor, as in PyTorch: see ``retain_grad``).
            Its array is the leaf's own: writing into it changes no other gradient.
        requires_grad: whether ops on this tensor are recorded for backward.
        grad_fn: the op context that produced this tensor (None for leaves).
        name: an optional label shown in graphs (parameters get their module path).
    """

    # _view, set only on what PyTorch would make a view (see in_place.as_view), is read
    # with getattr
    __slots__ = ("data", "_grad", "_requires_grad", "grad_fn", "backend", "name", "_retains_grad",
                 "_hooks", "_view", "__weakref__")

    def __init__(self, data: Any, requires_grad: bool = False, *, _backend: Any = None,
                 _ctx: Any = None, name: str | None = None):
        self.data = data = backends.native_byte_order(data)     # as tensor() gives
        self.backend = _backend if _backend is not None else backends.backend_of_array(data)
        if requires_grad:
            _check_can_require_grad(self.backend, data.dtype)
        self._requires_grad = bool(requires_grad)      # np.True_ or 1 as True, as requires_grad_
        self._grad = None
        self.grad_fn = _ctx
        self.name = name
        self._retains_grad = False
        self._hooks = None                  # a leaf's gradient hooks (see hooks.py)

    @classmethod
    def _wrap(cls, data: Any, backend: Any, requires_grad: bool = False, ctx: Any = None) -> "Tensor":
        """The engine's constructor for op results: no checks, as every op calls it."""
        t = object.__new__(cls)
        t.data, t.backend, t._requires_grad, t.grad_fn = data, backend, requires_grad, ctx
        t._grad = t.name = t._hooks = None
        t._retains_grad = False
        return t

    # -- what it is ----------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> Any:
        return self.data.dtype

    @property
    def device(self) -> str:
        return self.backend.device

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def numel(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        """The slices ``self[0], self[1], ...`` along the first axis, each recorded as an op."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str: return C.tensor_repr(self)

    def __getstate__(self):
        """Pickles and deep copies keep every slot but ``_view``: they share no tensor's
        memory, in PyTorch either, so they may change in place (see in_place.as_view).
        (``copy.copy`` comes here too; PyTorch's shares the memory, which tinyffn's cannot.)
        A pickled result of an op comes back a leaf, its values without their graph
        (``grad_fn`` None), as PyTorch's does."""
        slots = {k: getattr(self, k) for k in Tensor.__slots__[:-2] if hasattr(self, k)}
        return getattr(self, "__dict__", None), {**slots, "grad_fn": None}

    def __deepcopy__(self, memo: dict):
        """As the pickle (:meth:`__getstate__`), but refused for a result of an op, as
        PyTorch refuses it: a copy of its graph could not be backpropagated into, and a
        copy without it would silently stop being what it was computed from."""
        if self.grad_fn is not None:
            raise RuntimeError(
                f"deepcopy: this tensor is the result of {self.grad_fn.fn.op_name()}, not a "
                "leaf; only leaves can be deep-copied, as in PyTorch. Copy its values "
                "(x.detach().clone()), or drop it from what you copy (a module attribute "
                "holding a tensor of the last forward, say)")
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        attributes, slots = copy.deepcopy(self.__getstate__(), memo)
        for name, value in {**(attributes or {}), **slots}.items():
            setattr(new, name, value)
        return new

    # -- conversion ----------------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy copy of the data (copied from the GPU if needed), also of a tensor that
        requires grad: what PyTorch's gives with ``force=True``, which changes nothing here."""
        return self.backend.to_numpy(self.data)

    def item(self) -> float | int | bool:
        """The value of a one-element tensor as a Python number."""
        if self.numel() != 1:
            raise ValueError(f"item(): the tensor has {self.numel()} elements (shape "
                             f"{self.shape}); only one-element tensors convert to a number")
        return self.numpy().reshape(()).item()

    def tolist(self) -> Any:
        return self.numpy().tolist()

    def __bool__(self) -> bool:
        """``if t:`` for a one-element tensor; ambiguous, so an error, for more elements."""
        if self.numel() != 1:
            raise ValueError(f"bool(): the truth value of a tensor with {self.numel()} elements "
                             f"(shape {self.shape}) is ambiguous; reduce it first, e.g. "
                             "(x > 0).max() for 'any', or compare a one-element tensor")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __format__(self, spec: str) -> str: return C.format_value(self, spec)

    # NumPy operands defer to the Tensor: np_array + t calls t.__radd__ and records the op,
    # instead of NumPy building an object array of 0-d tensors.
    __array_ufunc__ = None

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """``np.asarray(t)`` for a CPU tensor (matplotlib uses it); elsewhere, say .numpy().

        As in PyTorch it shares the tensor's memory unless NumPy asks for a copy (or another
        dtype), but read-only: a graph may have saved the array. ``numpy()`` copies.
        """
        if self.device != "cpu":
            raise TypeError(f"cannot convert a tensor on {self.device!r} to a NumPy array "
                            "implicitly; call .numpy(), which copies it to the CPU")
        out = np.array(self.data, dtype=dtype, copy=copy)
        if out is self.data:
            out = out.view()
            out.flags.writeable = False
        return out

    def clone(self) -> "Tensor":
        """A copy in new memory, still in the graph (gradient passed through)."""
        return E.Clone.apply(self)

    def detach(self) -> "Tensor":
        """The same data as a new leaf that does not require grad.

        It shares the array but, unlike PyTorch's, is a snapshot of the values: ``x -= 1``
        and an optimizer step give ``x`` a new array (``in_place.in_place``); the detached
        tensor keeps the old one. So are views (``x[0]``) and ``numpy()``, of a ``.grad``
        too: backward and ``zero_grad`` give the ``.grad`` Tensor a new array.
        """
        return IP.as_view(Tensor(self.data, _backend=self.backend), "x.detach()", self)

    # -- autograd ------------------------------------------------------------------------
    def backward(self, grad: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, *, gradient: Any = None, inputs: Any = None) -> None:
        """Accumulate d(self)/d(leaf) into ``leaf.grad`` for every leaf that requires grad
        (only into the tensors ``inputs`` lists, if given, as PyTorch's).

        ``grad`` (PyTorch's ``gradient``) is dL/d(self): required unless ``self`` has one
        element (then 1). Without ``retain_graph`` the arrays saved for backward are freed
        as the walk passes them. ``create_graph``: see :mod:`tinyffn.higher_order`.
        """
        grad = either_name("backward", "grad", grad, None, "gradient", gradient)
        autograd.backward(self, grad, retain_graph, inputs, create_graph)

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor too (leaves always keep theirs). Refused,
        as in PyTorch, if backward never reaches self."""
        if not self.requires_grad:
            raise RuntimeError("retain_grad: this tensor does not require grad, so it never "
                               "gets a gradient (made under no_grad, or from no leaf that "
                               "requires grad)")
        self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        """Whether a computed tensor keeps ``.grad`` (False for a leaf, as in PyTorch)."""
        return self._retains_grad and self.grad_fn is not None

    def register_hook(self, hook):
        """Call ``hook(grad)`` when backward has computed dL/d(self); a Tensor it returns
        replaces the gradient. Returns a handle whose ``remove()`` unregisters it (hooks.py)."""
        return hooks.register_grad_hook(self, hook)

    def _accumulate_grad(self, g: Any) -> None:
        if isinstance(g, Tensor):   # create_graph: recorded, with its graph
            self._grad = E.Clone.apply(g) if self._grad is None else self._grad + g
            return
        if self._grad is not None and self._grad.grad_fn is not None:
            # a .grad recorded by create_graph: its array is its node's output, so a plain
            # backward adds out of place (g a constant) rather than give it another array
            self._grad = self._grad + Tensor(g, _backend=self.backend)
            return
        if self._grad is None:
            # a copy: g may be a gradient another leaf also gets (the inputs of an add
            # get the same array), a read-only broadcast view, or the caller's own array
            self._grad = Tensor(self.backend.xp.asarray(g, copy=True), _backend=self.backend)
        else:
            # the same Tensor (g = x.grad sees every later backward, as in PyTorch) with
            # a new array: no array anyone else holds is written into
            self._grad.data = op_checks.summed(self.backend, self._grad.data, g)

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, requires_grad: bool) -> None:
        self.requires_grad_(requires_grad)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set ``requires_grad`` (also what ``x.requires_grad = ...`` does), as in PyTorch:
        only a floating-point tensor can require a gradient (an integer one would get its
        gradient truncated), and a computed tensor cannot stop requiring one."""
        if requires_grad:
            _check_can_require_grad(self.backend, self.dtype)
        elif self.grad_fn is not None:
            raise RuntimeError(f"requires_grad_(False): this tensor was computed by "
                               f"{self.grad_fn.name}, and only a leaf's flag can "
                               "change; use .detach() for a copy outside the graph")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> "Tensor | None":
        # backward stores into _grad (_accumulate_grad), so this check costs it nothing
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed: "
                f"this tensor was computed by {self.grad_fn.name}, and backward() keeps no "
                ".grad for it. Call .retain_grad() on it before backward() to keep one, or "
                "read the .grad of a leaf (a parameter, or an input made with "
                "requires_grad=True)", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, g: "Tensor | None") -> None:
        """``x.grad = g`` checked as PyTorch checks it: a Tensor of x's shape, dtype and
        device, or None."""
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"grad: assign a Tensor or None, got {type(g).__name__}")
            if g.backend is not self.backend or g.shape != self.shape or g.dtype != self.dtype:
                raise RuntimeError(
                    f"grad: assigned a {backends.dtype_name(g.dtype)} gradient of shape "
                    f"{g.shape} on {g.device} to a {backends.dtype_name(self.dtype)} tensor of "
                    f"shape {self.shape} on {self.device}; a gradient must match its tensor")
        self._grad = g

    # -- arithmetic (Python numbers allowed on either side) ----------------------------------
    def __add__(self, other): return E.Add.apply(self, other)
    def __radd__(self, other): return E.Add.apply(other, self)
    def __sub__(self, other): return E.Sub.apply(self, other)
    def __rsub__(self, other): return E.Sub.apply(other, self)
    def __mul__(self, other): return E.Mul.apply(self, other)
    def __rmul__(self, other): return E.Mul.apply(other, self)
    def __truediv__(self, other): return E.Div.apply(self, other)
    def __rtruediv__(self, other): return E.Div.apply(other, self)
    def __neg__(self): return E.Neg.apply(self)
    def __matmul__(self, other): return L.MatMul.apply(self, other)
    def __rmatmul__(self, other): return L.MatMul.apply(other, self)

    def __pow__(self, p):
        if not is_real(p):
            raise TypeError(f"pow: the exponent must be a number (x ** 2.0), got "
                            f"{type_name(p)}; for a tensor or array exponent write "
                            "exp(p * log(x)) instead")
        # NumPy's float64(1.5) would make the result float64: use the plain Python number
        return E.Pow.apply(self, p=int(p) if isinstance(p, numbers.Integral) else float(p))

    def pow(self, exponent): return self ** exponent

    # -- in place: x -= lr * g inside no_grad(), as in a hand-written PyTorch update loop ----
    def __iadd__(self, other): return IP.in_place(self, E.Add, other, "+=")
    def __isub__(self, other): return IP.in_place(self, E.Sub, other, "-=")
    def __imul__(self, other): return IP.in_place(self, E.Mul, other, "*=")
    def __itruediv__(self, other): return IP.in_place(self, E.Div, other, "/=")

    def __rpow__(self, base): return C.rpow(base, self)

    # -- elementwise functions -------------------------------------------------------------
    def exp(self): return E.Exp.apply(self)
    def log(self): return E.Log.apply(self)
    def tanh(self): return E.Tanh.apply(self)
    def sigmoid(self): return E.Sigmoid.apply(self)
    def erf(self): return E.Erf.apply(self)
    def relu(self): return E.ReLU.apply(self)
    def maximum(self, other): return E.Maximum.apply(self, other)

    # composed of the primitives above (composed.py), each in a frame of its name
    def sqrt(self): return C.sqrt(self)
    def abs(self): return C.absolute(self)
    __abs__ = abs
    def minimum(self, other): return C.minimum(self, other)
    def clamp(self, min=None, max=None): return C.clamp(self, min, max)
    def where(self, condition, other): return C.where(condition, self, other)
    def masked_fill(self, mask, value): return C.masked_fill(self, mask, value)

    # -- reductions ----------------------------------------------------------------------
    # Each takes NumPy's names (axis, keepdims) or PyTorch's (dim, keepdim). Positional
    # arguments are PyTorch's for max and min, whose results differ by the names.
    # sum and mean: the Sum and Mean primitives; C.reduced reads the names and dtype=
    def sum(self, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
        return C.reduced(R.Sum, "sum", self, axis, keepdims, dim, keepdim, dtype)

    def mean(self, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
        return C.reduced(R.Mean, "mean", self, axis, keepdims, dim, keepdim, dtype)

    def max(self, dim=None, keepdim=None, *, axis=None, keepdims=False, other=None):
        """The maximum; over ``dim`` (by name or position, or NumPy's name ``axis``, which
        PyTorch also takes) the pair ``(values, indices)``, as ``torch.max(x, dim)``: ``v, i
        = x.max(1)``, the gradient going to the indices returned, as torch's. :meth:`amax`
        gives the values alone, over any axes; ties share its gradient. With a tensor,
        ``x.max(y)`` or ``x.max(other=y)``, the elementwise :meth:`maximum`, as torch's."""
        return C.MaxResult.over("max", self, dim, keepdim, axis, keepdims, other)

    def amax(self, dim=None, keepdim=None, *, axis=None, keepdims=False):
        return C.amax(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def amin(self, dim=None, keepdim=None, *, axis=None, keepdims=False):
        return C.amin(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def min(self, dim=None, keepdim=None, *, axis=None, keepdims=False, other=None):
        """The minimum, as :meth:`max` the maximum: ``(values, indices)`` over ``dim``."""
        return C.MaxResult.over("min", self, dim, keepdim, axis, keepdims, other)

    def argmin(self, axis: int | None = None, keepdims: bool = False, *,
               dim: int | None = None, keepdim: bool | None = None) -> "Tensor":
        """Indices of the minima, as :meth:`argmax` those of the maxima."""
        return C.arg_extreme(self, "argmin", axis, keepdims, dim, keepdim)

    def argmax(self, axis: int | None = None, keepdims: bool = False, *,
               dim: int | None = None, keepdim: bool | None = None) -> "Tensor":
        """Indices of the maxima along ``axis`` (of the flattened tensor when None), as
        ``numpy.argmax`` and ``torch.argmax``; the first one on ties. Not differentiable."""
        return C.arg_extreme(self, "argmax", axis, keepdims, dim, keepdim)

    # -- shape: reshape, transpose, permute, T, x[key], view, expand, ... are in the base
    # class ViewMethods (view_methods.py), each a Reshape, Transpose, BroadcastTo or GetItem

    # -- comparisons and bitwise logic: not differentiable, outside any graph ----------------
    __hash__ = object.__hash__  # tensors are graph nodes: hashed by identity

    def __eq__(self, other): return K.compare(self, other, "equal")
    def __ne__(self, other): return K.compare(self, other, "not_equal")
    def __lt__(self, other): return K.compare(self, other, "less")
    def __le__(self, other): return K.compare(self, other, "less_equal")
    def __gt__(self, other): return K.compare(self, other, "greater")
    def __ge__(self, other): return K.compare(self, other, "greater_equal")
    def __invert__(self): return K.invert(self)
    def __and__(self, other): return K.bitwise(self, other, "bitwise_and")
    def __or__(self, other): return K.bitwise(self, other, "bitwise_or")
    def __xor__(self, other): return K.bitwise(self, other, "bitwise_xor")
    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__


# ----------------------------------------------------------------------------- helpers
def _check_can_require_grad(be: Any, dtype: Any) -> None:
    if not be.is_floating(dtype):
        raise TypeError(f"only floating-point tensors can require gradients, but this one has "
                        f"dtype {backends.dtype_name(dtype)}; create it with dtype='float32' "
                        "or 'float64'")


# ----------------------------------------------------------------------------- arguments
# How an op's arguments become tensors is promotion.py's subject. It makes Tensors, so it
# is imported here, once the class exists; autograd calls it as tensor.as_tensors.
from .promotion import as_tensors  # noqa: E402

__all__ = ["Tensor", "as_tensors"]
