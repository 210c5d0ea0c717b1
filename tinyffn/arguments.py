"""How methods read their axis, dim and shape arguments: NumPy's names or PyTorch's.

``x.sum(axis=1, keepdims=True)`` and ``x.sum(dim=1, keepdim=True)`` mean the same, and so
do ``x.view(2, 3)``, ``x.view((2, 3))`` and ``x.view(size=(2, 3))`` (:func:`sizes_arg`); each
function here turns what a caller wrote into the one form the ops take (non-negative
axes, a tuple of ints for a shape), or raises an error naming the op. The layers' number
arguments (LayerNorm's ``normalized_shape`` and ``eps``, dropout's ``p``, PyTorch's
``inplace``) are checked here too, once for the function and its module, and the
learning-rate schedulers' step counts and factors.
"""
from __future__ import annotations

import math
import numbers
import operator
from typing import Any, Callable

import numpy as np


def type_name(value: Any) -> str:
    """``list``, ``Tensor``, ``numpy.ndarray``, ``torch.Tensor``: a value's type as an
    error should name it. Python's and tinyffn's own types go by their names; any other
    with its module, so PyTorch's Tensor is not taken for tinyffn's."""
    cls = type(value)
    own = cls.__module__ == "builtins" or cls.__module__.split(".")[0] == "tinyffn"
    return cls.__qualname__ if own else f"{cls.__module__}.{cls.__qualname__}"


def single_of_sequence(op: str, name: str, value: Any) -> Any:
    """PyTorch's ``grad`` takes sequences (``[y]``, ``grad_outputs=[g]`` or ``[None]``): the
    one tensor, array or None in a list or tuple is that value. More are refused: ``op``
    has one output. (A list of numbers stays a list: it is an array's data.)"""
    if isinstance(value, (list, tuple)) and (
            not value or any(v is None or hasattr(v, "shape") for v in value)):
        if len(value) != 1:
            raise TypeError(f"{op}: takes one output, with one grad_output; got {len(value)} "
                            f"tensors as {name}. Sum the outputs into one scalar first, or "
                            f"call {op} once per output")
        return value[0]
    return value


def grad_inputs(op: str, inputs: Any) -> tuple:
    """``inputs`` of ``grad`` and ``backward(inputs=...)``: tensors that require grad, as a
    tuple (one Tensor is one input)."""
    from .tensor import Tensor          # at call time: tensor.py imports this module
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not inputs:
        raise RuntimeError(f"{op}: inputs is empty; pass the tensors to differentiate for")
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError(f"{op}: input {i} ({type_name(t)}) does not require grad, so "
                               "it has no gradient; pass tensors made with requires_grad=True "
                               "(or computed from one)")
    return inputs


def _numpy_names(op: str, axis: Any, keepdims: bool, dim: Any, keepdim: bool | None):
    """(axis, keepdims) from NumPy's names or PyTorch's (dim, keepdim), not both.

    Each name keeps its library's meaning where the two differ: ``axis=()`` reduces no
    axis, as in NumPy; ``dim=()`` reduces them all, as in PyTorch.
    """
    axis = either_name(op, "axis", axis, None, "dim", dim)
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        axis = None
    keepdims = either_name(op, "keepdims", keepdims, False, "keepdim", keepdim)
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"{op}: keepdims must be True or False, got {keepdims!r}")
    return axis, bool(keepdims)


def either_name(op: str, numpy_name: str, value: Any, default: Any,
                torch_name: str, torch_value: Any) -> Any:
    """An argument given by its NumPy name or its PyTorch name (None: not given)."""
    if torch_value is None:
        return value
    if value is not default and (default is None or value != default):
        raise TypeError(f"{op}: pass {numpy_name} or {torch_name} (the same thing), not both")
    return torch_value


def _axes(axis: Any, ndim: int, op: str) -> tuple | None:
    """None, an int or a sequence of ints -> None or a sorted tuple of non-negative axes.

    A 0-d tensor takes axis 0 or -1, as in PyTorch, and has nothing to reduce.
    """
    if axis is None:
        return None
    axes = (axis,) if _is_int(axis) else tuple(axis) if isinstance(axis, (tuple, list)) else None
    if axes is None or not all(_is_int(a) for a in axes):
        raise TypeError(f"{op}: axis must be None, an int or a tuple of ints, got {axis!r}")
    if ndim == 0:
        if not all(a in (0, -1) for a in axes):
            raise ValueError(f"{op}: a 0-d tensor takes axis 0 or -1 (there is nothing to "
                             f"reduce), got {axis!r}")
        return ()
    return tuple(sorted(_axis_list(axes, ndim, op)))


def _axis_list(axes: tuple, ndim: int, op: str) -> tuple:
    """Axes in [-ndim, ndim) -> the same axes in [0, ndim), each named once."""
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{op}: axis {a} is out of range for a tensor with {ndim} dimensions")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: axes {axes!r} name the same axis twice")
    return tuple(out)


def _is_int(a: Any) -> bool:
    """A Python or NumPy integer, but not a bool (``axis=True`` is a mistake, not axis 1)."""
    return isinstance(a, (int, np.integer)) and not isinstance(a, bool)


def _shape_arg(shape: tuple, what: str) -> tuple:
    """Accept f(2, 3) and f((2, 3)) alike; a one-element integer tensor is a size, as in
    PyTorch (``zeros(n)``, ``x.view(n, -1)`` with ``n = lengths.max()``)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not all(_is_int(n) for n in shape):
        shape = tuple(operator.index(n) if _is_tensor(n) else n for n in shape)
    if not all(_is_int(n) for n in shape):
        raise TypeError(f"{what}: expected integers, got {shape}")
    return tuple(int(n) for n in shape)


def sizes_arg(op: str, given: tuple, name: str, value: Any) -> tuple:
    """Sizes (or axes) taken as PyTorch's Tensor methods and factories take them: by
    position, ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``, or as one sequence by name,
    ``x.reshape(shape=(2, 3))``, ``zeros(size=(2, 3))``. ``given`` is what came by position,
    ``name`` PyTorch's keyword and ``value`` what came by it (None: nothing). Both at once,
    or one number by name, is a TypeError naming ``op``, as PyTorch's."""
    if value is None:
        return _shape_arg(given, op)
    if given:
        raise TypeError(f"{op}: {name} is given twice, by position {given} and as "
                        f"{name}={value!r}; give it once")
    return _size_sequence(op, name, value)


def _size_sequence(op: str, name: str, value: Any) -> tuple:
    """Sizes by name: a tuple or list of ints; one int is refused, as in PyTorch
    (``full(2, 3)`` could mean either number as the size)."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{op}: {name} must be a tuple or list of ints, such as (2, 3), got "
                        f"{value!r}")
    return _shape_arg((value,), op)


def _is_tensor(v: Any) -> bool:
    from .tensor import Tensor                  # (tensor.py imports this module)
    return isinstance(v, Tensor)


def _one_number(v: Any) -> Any:
    """A 0-d tensor as its Python number, as PyTorch's number arguments take one
    (``arange(lengths.max())``); anything else as it is."""
    return v.item() if _is_tensor(v) and v.ndim == 0 else v


def _transposition(axes: tuple, shape: tuple, dim0: Any = None, dim1: Any = None) -> tuple:
    """``transpose``'s arguments as a permutation: none reverses the axes, two are swapped
    (``torch.transpose``; by name too, ``dim0=0, dim1=1``, or the second alone,
    ``transpose(0, dim1=1)``, as PyTorch takes them), three or more are the permutation
    itself (``numpy.transpose``)."""
    if dim0 is not None or dim1 is not None:   # by name, as PyTorch's: positions first
        named = [dim0, dim1]
        for i, given in enumerate(axes[:2]):
            if named[i] is not None:
                raise TypeError(f"transpose: dim{i} is given twice, by position ({given!r}) "
                                f"and as dim{i}={named[i]!r}; give it once")
            named[i] = given
        if len(axes) > 2 or None in named:
            raise TypeError(f"transpose: give dim0 and dim1, by position or by name, got "
                            f"{len(axes)} by position, dim0={dim0!r} and dim1={dim1!r}")
        axes = tuple(named)
    ndim = len(shape)
    if not axes:
        return tuple(reversed(range(ndim)))
    axes = _shape_arg(axes, "transpose")
    if len(axes) != 2:
        return _permutation(axes, shape, "transpose")
    a, b = (_axis_list((d,), max(ndim, 1), "transpose")[0] for d in axes)
    perm = list(range(ndim))
    if a != b:                                  # the same axis twice: nothing moves
        perm[a], perm[b] = perm[b], perm[a]
    return tuple(perm)


def _permutation(axes: tuple, shape: tuple, op: str) -> tuple:
    """Every axis of a tensor of ``shape``, each once, in a new order."""
    axes = _axis_list(_shape_arg(axes, op), len(shape), op)
    if len(axes) != len(shape):
        raise ValueError(f"{op}: a tensor of shape {shape} needs all {len(shape)} axes in "
                         f"some order, got {len(axes)}: {axes}")
    return axes


def normalized_shape_arg(owner: str, normalized_shape: Any) -> tuple:
    """LayerNorm's ``normalized_shape`` (an int, or a sequence of ints as PyTorch takes it:
    the sizes of the last axes) as a non-empty tuple of positive ints."""
    shape = (normalized_shape,) if _is_int(normalized_shape) else normalized_shape
    try:
        shape = tuple(shape)
    except TypeError:
        shape = ()
    if not shape or not all(_is_int(n) and n > 0 for n in shape):
        raise ValueError(f"{owner}: normalized_shape must be a positive int or a non-empty "
                         f"sequence of them (the sizes of the last axes), got "
                         f"{normalized_shape!r}")
    return tuple(int(n) for n in shape)


def is_real(value: Any) -> bool:
    """A Python or NumPy real number, but not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_positive(owner: str, name: str, value: Any, why: str) -> None:
    if not (is_real(value) and 0 < value < math.inf):
        raise ValueError(f"{owner}: {name} must be a positive, finite number ({why}), got "
                         f"{value!r}")


# the numbers a learning-rate scheduler takes (tinyffn.lr_scheduler)
def _whole(owner: str, name: str, value: Any, why: str) -> int:
    """A count of steps: a whole number >= 1."""
    if not _is_int(value):
        raise TypeError(f"{owner}: {name} must be a whole number of steps ({why}), got "
                        f"{value!r}" + (f"; pass int({value!r})" if is_real(value) else ""))
    if value < 1:
        raise ValueError(f"{owner}: {name} must be >= 1 ({why}), got {value}")
    return int(value)


def _number(owner: str, name: str, value: Any, ok: Callable, wanted: str, why: str) -> float:
    """A setting that must be a real number for which ``ok`` holds, as a Python float."""
    if not (is_real(value) and ok(value)):
        raise ValueError(f"{owner}: {name} must be a number {wanted} ({why}), got {value!r}")
    return float(value)


def _count(owner: str, name: str, value: Any, why: str) -> int:
    """A number of steps that may be 0: a whole number >= 0."""
    if not _is_int(value) or value < 0:
        raise ValueError(f"{owner}: {name} must be a whole number >= 0 ({why}), got "
                         f"{value!r}")
    return int(value)


def check_probability(owner: str, p: Any) -> None:
    if not (is_real(p) and 0 <= p <= 1):
        raise ValueError(f"{owner}: the probability p must be a number in [0, 1] (the "
                         f"fraction of elements zeroed), got {p!r}")


def check_inplace(op: str, inplace: Any) -> None:
    """PyTorch's ``inplace=True`` overwrites the input to save memory. tinyffn records no
    in-place ops (a tensor autograd saved must keep its values), so only a false value
    (False, or None and 0 as PyTorch reads them), which gives the same result in a new
    tensor, is accepted; True is refused, not faked."""
    if inplace:
        raise ValueError(f"{op}: inplace={inplace!r} is not supported: tinyffn never "
                         "overwrites a tensor that autograd may need; leave inplace out "
                         "(the result is the same, in a new tensor)")


def check_axis(op: str, x: Any, axis: Any) -> int:
    """One axis of the tensor ``x`` (softmax's), an int in [-n, n), n = max(ndim, 1): a
    0-d tensor has one axis to softmax over, as in PyTorch."""
    n = max(x.ndim, 1)
    if not _is_int(axis) or not -n <= axis < n:
        raise ValueError(f"{op}: axis {axis!r} is out of range for an input of shape "
                         f"{x.shape}; use an integer in [{-n}, {n - 1}]")
    return axis


def check_choice(op: str, name: str, value: Any, valid: tuple, not_a_string: str) -> None:
    """A string option (a loss's ``reduction``) among ``valid``; ``not_a_string`` says
    what a non-string in its place usually is."""
    if not isinstance(value, str):
        raise TypeError(f"{op}: {name} must be one of {', '.join(map(repr, valid))}, "
                        f"got a {type_name(value)}; {not_a_string}")
    if value not in valid:
        raise ValueError(f"{op}: unknown {name}={value!r}; use one of "
                         f"{', '.join(map(repr, valid))}")


def tensor_arg(op: str, name: str, value: Any) -> Any:
    """``value``, which must be a tinyffn Tensor: the argument ``name`` of ``op``
    (``torch.diag([1, 2])`` is an error in PyTorch too)."""
    from .tensor import Tensor      # tensor.py imports this module
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: {name} must be a tinyffn Tensor, got {type_name(value)}; "
                        "wrap it with tinyffn.tensor(...)")
    return value


def position(owner: str, i: Any, n: int, what: str, *, also: str = "",
             end: bool = False) -> int:
    """``i`` as a position from 0 in a container of ``n`` ``what`` (modules, parameters):
    an int in [-n, n), or [-n, n] with ``end`` (where ``insert`` may put one), negatives
    counted from the end; else an error that ``owner`` starts (``also``: what else the
    index may be, for the TypeError)."""
    if not _is_int(i):
        raise TypeError(f"{owner}: the index must be an int{also}, got {type_name(i)}")
    if not -n <= i < n + end:
        raise IndexError(f"{owner}: index {i} is out of range for {n} {what}"
                         + (f" (from {-n} to {n})" if end else ""))
    return int(i) + n if i < 0 else int(i)
