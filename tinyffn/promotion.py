"""An op's arguments as tensors: numbers and arrays become constants, dtypes meet by
PyTorch's rules, and every tensor must be on one device.

:meth:`tinyffn.autograd.Function.apply` calls :func:`as_tensors` on every op call, so
``x * 2``, ``2 * x``, ``x * np_array`` and ``x_int64 * x_float32`` all reach the op's
``forward`` as arrays of one backend and, where PyTorch would, of one dtype.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import backend as backends
from .ops import elementwise as E
from .backend import DEFAULTS
from .tensor import Tensor


def as_tensors(args: tuple, fn: Any) -> tuple:
    """The positional arguments of an op (the Function ``fn``) as tensors on one backend.

    Python numbers and arrays become constant tensors on the device of the first tensor
    argument. A number takes that tensor's dtype when both are floating point (so ``x * 2``
    stays float32); next to tensors of several dtypes, the dtype they promote to (so a
    float32 and a float64 tensor meet ``0.1`` in float64, not rounded to float32 first,
    whatever their order). An array with axes keeps its own dtype and takes part in
    promotion (a float64 NumPy array makes the result float64).
    A number becomes a tensor once per (value, dtype, device), shared by every op that
    uses it (see :func:`_number`). Tensors of different dtypes meet by PyTorch's rules
    (see :func:`_promote`). Raises
    :class:`~tinyffn.backend.DeviceError` when the tensors are on two devices.
    """
    if len(args) == 1 and isinstance(args[0], Tensor):     # x.tanh(): nothing to do
        return args
    if len(args) == 2:      # x * y, x * 2, 2 * x: most op calls, answered here when the
        x, w = args         # number's constant exists and the two dtypes are one already
        if type(w) in (float, int) and isinstance(x, Tensor):
            w = _NUMBERS.get((type(w), w, x.data.dtype, x.backend.device), w)
        elif type(x) in (float, int) and isinstance(w, Tensor):
            x = _NUMBERS.get((type(x), x, w.data.dtype, w.backend.device), x)
        if isinstance(x, Tensor) and isinstance(w, Tensor) and x.backend is w.backend \
                and x.data.dtype is w.data.dtype:
            return x, w
    first, all_tensors = None, True
    for a in args:
        if not isinstance(a, Tensor):
            all_tensors = False
        elif first is None:
            first = a
        elif a.backend is not first.backend:
            backends.check_one_device(fn.op_name(), "inputs", first, a)
    if first is None:
        raise TypeError(f"{fn.op_name()}: needs at least one Tensor argument, got "
                        f"{', '.join(type(a).__name__ for a in args)}")
    if not all_tensors:
        be, dtype = first.backend, first.data.dtype
        if len(args) > 2:                           # two tensors or more may meet a number
            tensors = [a for a in args if isinstance(a, Tensor)]
            if any(t.data.dtype != dtype for t in tensors):
                dtype = _target(tensors, be, fn)[2]
        args = tuple([a if isinstance(a, Tensor) else _constant(a, be, dtype, fn) for a in args])
    if len(args) == 1 or len(args) == 2 and args[0].data.dtype is args[1].data.dtype:
        return args                                 # the common cases, kept fast
    return _promote(args, first.backend, fn)


def _promote(args: tuple, be: Any, fn: Any) -> tuple:
    """Tensors of different dtypes, brought to PyTorch's result dtype. NumPy's rules
    differ in two places, and either would carry float64 into a float32 graph:

    1. Kind: bool < integer < floating; the result has the highest kind among the
       inputs. An int64 tensor times a float32 one is float32 (NumPy: float64).
    2. Width: the widest dtype of that kind among the tensors *with axes*; a 0-d tensor
       decides only when no tensor with axes has that kind. A 0-d float64 tensor times a
       float32 matrix is float32, as a Python float would leave it (NumPy: float64);
       a 0-d float64 times an int matrix is float64.

    An input of a lower kind, or a wider 0-d one, is cast here: in the graph (``cast``)
    if it needs a gradient. A narrower input of the result's kind is left to the op, which
    widens it as it computes (float32 + float64 is float64, in both libraries).
    """
    if all(a.data.dtype == args[0].data.dtype for a in args):
        return args
    kinds, top, target = _target(args, be, fn)
    out = []
    for a, k in zip(args, kinds):
        if a.data.dtype == target or k == top and be.xp.result_type(a.data.dtype, target) == target:
            out.append(a)
        elif a.requires_grad:
            out.append(E.Cast.apply(a, dtype=target))
        else:
            cast = Tensor._wrap(be.xp.astype(a.data, target), be)
            cast.name = a.name                      # a drawing still calls it ``mask``
            out.append(cast)
    return tuple(out)


def _target(args: Any, be: Any, fn: Any) -> tuple:
    """(each tensor's kind, the highest kind, the result dtype) by the rules of :func:`_promote`."""
    kinds = [_kind(a.data.dtype, be, fn) for a in args]
    if 0 in kinds and getattr(fn, "bool_refused", None):   # x - mask: before mask is 0s and 1s
        raise TypeError(fn.bool_refused)
    top = max(kinds)
    deciding = ([a.data.dtype for a, k in zip(args, kinds) if k == top and a.ndim]
                or [a.data.dtype for a, k in zip(args, kinds) if k == top])
    return kinds, top, be.xp.result_type(*deciding)


def kind_of(dtype: Any, be: Any) -> int | None:
    """0 for bool, 1 for integers, 2 for floats: the order of PyTorch's type categories
    (None for anything else, such as complex). Remembered per backend and dtype: NumPy's
    ``isdtype`` costs microseconds, and every op on two dtypes asks (one table per backend,
    so that one library's dtypes are never compared with another's)."""
    kinds = _KINDS.get(be.device)
    if kinds is None:
        kinds = _KINDS[be.device] = {}
    kind = kinds.get(dtype, _UNKNOWN)
    if kind is _UNKNOWN:
        kind = kinds[dtype] = (2 if dtype in be.float_dtypes
                               else 0 if be.xp.isdtype(dtype, "bool")
                               else 1 if be.xp.isdtype(dtype, "integral") else None)
    return kind


_KINDS: dict = {}                       # device -> {dtype: kind}
_UNKNOWN = object()


def _kind(dtype: Any, be: Any, fn: Any) -> int:
    """:func:`kind_of`, for an op ``fn``'s operand. Anything else (complex) is refused:
    ranked below float, it would be cast to float and lose its imaginary part without a
    word."""
    kind = kind_of(dtype, be)
    if kind is not None:
        return kind
    raise TypeError(f"{fn.op_name()}: tinyffn computes with float, integer and bool "
                    f"tensors, not {backends.dtype_name(dtype)}")


def _constant(a: Any, be: Any, dtype: Any, fn: Any) -> Tensor:
    """A number or array argument of op ``fn`` as a constant tensor on backend ``be``.

    A number, NumPy's included (``np.float64(2)``, a 0-d array), takes the tensor's dtype,
    as in PyTorch. An array with axes keeps its dtype and takes part in the promotion; a
    list is read as :func:`tinyffn.tensor` reads it, Python floats in the default float dtype.
    """
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return _number(a, be, dtype, fn)
    if getattr(a, "ndim", None) == 0 and _holds_a_number(a):
        # a NumPy scalar or 0-d array; a 0-d array of another backend (a getitem's 0-d
        # gradient under create_graph) crosses to NumPy first: array_api_strict's arrays
        # have no .item(), and CuPy's would sync there all the same
        if not isinstance(a, (np.ndarray, np.generic)):
            a = backends.backend_of_array(a).to_numpy(a)
        return _number(a.item(), be, dtype, fn)
    if a is None or isinstance(a, (str, bytes)):
        raise TypeError(f"{fn.op_name()}: cannot use an argument of type {type(a).__name__}; "
                        "pass a Tensor, a number or an array of numbers")
    if isinstance(a, (list, tuple)):
        check_no_tensors(fn.op_name(), a)
    try:
        from_list = isinstance(a, (list, tuple))
        if from_list:
            a = np.asarray(a)
            a = a.astype(DEFAULTS.float) if a.dtype == np.float64 else a
        array = be.asarray(a)
        if not from_list:   # the caller's array (or a view of one: a torch tensor, a
            # memoryview) is copied: the graph may save it, and a[...] = v must not move grads
            array = be.xp.asarray(array, copy=True)
        return Tensor._wrap(array, be)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{fn.op_name()}: cannot use an argument of type "
                        f"{type(a).__name__} ({e})") from e


def _holds_a_number(a: Any) -> bool:
    """Whether the 0-d ``a`` holds an integer or a float (not a bool, not complex): by its
    dtype's name, which array_api_strict's dtypes have and their NumPy ``kind`` not."""
    try:
        name = backends.dtype_name(a.dtype)
    except (AttributeError, TypeError):
        return False
    return name.startswith(("int", "uint", "float"))


def check_no_tensors(op: str, a: list | tuple) -> None:
    """Refuse a list or tuple of tensors as an operand: NumPy would stack them into one
    constant, outside the graph, and ``x * x.max(1)`` (a (values, indices) pair) would
    multiply by both, with no gradient and no error. Nested lists are looked into."""
    if not _holds_tensor(a):
        return
    if getattr(a, "_fields", None) == ("values", "indices"):     # composed.ValuesIndices
        raise TypeError(f"{op}: an operand is the pair (values, indices) from "
                        f"{getattr(a, 'made_by', 'x.max(dim)')}; use its .values")
    raise TypeError(f"{op}: an operand is a {type(a).__name__} of tensors, which would be "
                    "stacked outside the graph; stack them first, tinyffn.stack(tensors)")


def _holds_tensor(a: list | tuple) -> bool:
    return any(isinstance(v, Tensor) or isinstance(v, (list, tuple)) and _holds_tensor(v)
               for v in a)


_NUMBERS: dict = {}     # (type, value, dtype, device) -> its constant tensor
MAX_NUMBERS = 4096      # emptied when full: a bound, should a loop make ever new numbers


def _number(a: int | float, be: Any, dtype: Any, fn: Any) -> Tensor:
    """The constant tensor of the Python number ``a`` next to a tensor of ``dtype``, for op
    ``fn``.

    Made once per (type, value, dtype, device) and then shared, since the 2 in ``x * 2``
    inside a loop is the same constant every time: that saves making (and keeping in the
    graph) a new 0-d array per op, on a GPU a copy from the host each (``abs`` adds 0.0,
    once per parameter in ``clip_grad_norm_``). Constants are never modified by any op. A
    float zero is keyed by its sign's name (:func:`_key`), as ``-0.0 == 0.0`` would make
    the two one key. The graph drawer draws a constant once per use, so sharing never shows.

    A number that float16 holds only as inf, 0 or a subnormal is not shared either, and
    multiplying or dividing by it is refused (see :func:`_check_float16_scale`); nor is an
    integer divided by, whose constant is float (true division).

    Next to a float16 tensor the number is rounded to float16, as PyTorch rounds it for
    ``x + a``; for ``x * a`` and ``x / a`` PyTorch keeps it in float32 and rounds the
    product once, so there the two differ in the last bit on about a third of the
    entries (``x * 0.1``: 658 of 2,001 measured), tinyffn rounding twice.
    """
    key = _key(a, dtype, be)
    t = _NUMBERS.get(key)
    if t is not None:
        return t
    own = number_dtype(a, dtype, be)    # int tensor * 0.5: a constant of the default float,
    if own != dtype:                    # the int tensor cast to it; mask + 2 counts: 3
        dtype = own
    elif isinstance(a, int) and be.xp.isdtype(dtype, "integral"):
        if fn.op_name() == "div":     # true division gives floats: int8 / 300 is 1/300, as
            return Tensor._wrap(be.xp.asarray(a, dtype=be.default_float()), be)  # PyTorch
        _check_int_fits(a, be.xp.iinfo(dtype), fn)
    if backends.dtype_name(dtype) == "float16" and not _float16_holds(a):
        _check_float16_scale(a, fn)
        return Tensor._wrap(be.xp.asarray(a, dtype=dtype), be)
    t = Tensor._wrap(be.xp.asarray(a, dtype=dtype), be)
    if len(_NUMBERS) >= MAX_NUMBERS:
        _NUMBERS.clear()
    _NUMBERS[key] = t
    return t


def _key(a: int | float, dtype: Any, be: Any) -> tuple:
    """The key of number ``a``'s constant in ``_NUMBERS``: (type, value, dtype, device),
    where a float zero's value is the name of its sign, "0.0" or "-0.0", since the two
    zeros are equal (one key) but differ (1 / -0.0 is -inf). The two-argument shortcut of
    :func:`as_tensors` looks up the number itself, so it never finds a zero: a zero
    comes here, which finds it."""
    if a == 0 and isinstance(a, float):
        return (float, "-0.0" if math.copysign(1.0, a) < 0 else "0.0", dtype, be.device)
    return (type(a), a, dtype, be.device)


def number_dtype(a: bool | int | float, dtype: Any, be: Any) -> Any:
    """The dtype of a Python number ``a`` beside a tensor of ``dtype``, as PyTorch's
    promotion gives: a number of a higher kind than the tensor's takes the default dtype of
    its kind (a float: the default float; an int beside bools: int64), else the tensor's
    dtype (``int8_tensor + 1000`` stays int8, ``float16_tensor * 0.1`` float16)."""
    if isinstance(a, float) and not be.is_floating(dtype):
        return be.default_float()
    if isinstance(a, int) and not isinstance(a, bool) and be.xp.isdtype(dtype, "bool"):
        return be.dtype("int64")
    return dtype


def result_dtype(tensors: list, numbers: list, be: Any, fn: Any) -> Any:
    """The dtype an op on ``tensors`` and Python ``numbers`` computes in, by the rules of
    :func:`_promote` and :func:`number_dtype` (``torch.result_type``): the tensors' dtype,
    then each number in turn beside it (numbers alone start from bool)."""
    dtype = _target(tensors, be, fn)[2] if tensors else be.dtype("bool")
    for a in numbers:
        dtype = number_dtype(a, dtype, be)
    return dtype


def forget_numbers() -> None:
    """Drop the shared constants: :func:`tinyffn.set_default_dtype` calls it, since the 0.5
    of ``int_tensor * 0.5`` was made in the default float dtype of its time."""
    _NUMBERS.clear()


def _check_int_fits(a: int, info: Any, fn: Any) -> None:
    """An integer tensor meets a Python int outside its dtype's range (``uint8 + (-1)``):
    NumPy raises an error that names no op, CuPy may wrap around, PyTorch wraps."""
    if not info.min <= a <= info.max:
        raise OverflowError(f"{fn.op_name()}: the number {a} does not fit in "
                            f"{backends.dtype_name(info.dtype)} "
                            f"({info.min} to {info.max}); cast the tensor to a wider dtype "
                            "first, x.to(dtype='int64')")


FLOAT16_ROUNDS_TO_INF = 65520.0        # 65504 (the largest float16) + half its spacing
FLOAT16_SMALLEST_NORMAL = 2.0 ** -14   # ≈ 6.1e-5; below, fewer digits (subnormals), then 0


def _float16_holds(a: int | float) -> bool:
    """Does float16 hold the number ``a`` to its full precision (or is ``a`` 0, inf, NaN)?"""
    return a == 0 or not math.isfinite(a) or \
        FLOAT16_SMALLEST_NORMAL <= abs(a) < FLOAT16_ROUNDS_TO_INF


def _check_float16_scale(a: int | float, fn: Any) -> None:
    """``x * a`` and ``x / a`` with a number ``a`` that float16 holds only as inf, 0 or a
    subnormal of a few digits: PyTorch computes them in float32 and rounds once
    (``x * 65536``, a loss scale, is finite there), where a float16 constant would give
    inf, NaN (0 · inf), 0, or ``x * 1e-7`` 19% off. Refused with the float32 spelling,
    rather than answered differently. ``x + a`` and the comparisons round the number to
    float16 in PyTorch too, and go on."""
    if fn.op_name() in ("mul", "div"):
        rounded = float(np.float16(a)) if abs(a) < FLOAT16_ROUNDS_TO_INF else math.inf
        became = ("inf" if rounded == math.inf else "0" if rounded == 0 else
                  f"{rounded:.4g}, a subnormal with few digits,")
        raise ValueError(f"{fn.op_name()}: the number {a!r} is {became} in float16 (its "
                         "normal numbers run from 6.1e-05 to 65504), so a float16 tensor "
                         "scaled by it would be wrong; compute in float32, as PyTorch does: "
                         "x.to(dtype='float32'), the op, then .to(dtype='float16')")


def is_shared_constant(t: Tensor) -> bool:
    """True for one of the shared number constants (the 2 in ``x * 2``), which no op and no
    in-place operator may change."""
    return any(c is t for c in _NUMBERS.values())
