"""Making tensors: from data (``tensor``), filled (``zeros``, ``ones``, ``full``, ``eye``),
random (``randn``, ``rand``, ``randint``, from a ``generator=`` or the one ``manual_seed``
seeds: see generators.py), ``arange`` and ``linspace``, as PyTorch's factory functions; the
``*_like`` ones take another tensor's shape, dtype and device; ``from_numpy`` copies an
array, keeping its dtype. Joining them (``cat``, ``stack``) is in joining.py.

Every function here returns a new leaf :class:`~tinyffn.tensor.Tensor`. Constant fills
(``zeros``, ``ones``, ``full``), ``eye``, ``linspace`` and integer ``arange`` are made on
the device itself; the rest with NumPy on the CPU, then moved, so a seed gives the same
numbers on every backend (and a float ``arange`` has NumPy's points).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import backend as backends
from .arguments import _is_int, _one_number, _size_sequence, is_real, sizes_arg, type_name
from .backend import DEFAULTS
from .default_dtype import list_dtype
from .generators import generator as _generator
from .tensor import Tensor


def tensor(data: Any, dtype: Any = None, device: Any = "cpu", requires_grad: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (a number, nested list or array).

    Floating-point Python data becomes the default float dtype (float32 unless
    :func:`tinyffn.set_default_dtype` changed it) unless ``dtype`` says otherwise; arrays
    (NumPy's, PyTorch's) and NumPy scalars (``np.float64(0.5)``) keep their dtype;
    integers become int64; a list mixing them promotes as PyTorch's does (``list_dtype``).
    """
    be = backends.get_backend(device)
    native = data.data if isinstance(data, Tensor) else data
    if be.device != "cpu" and isinstance(native, be.array_type):
        # already this device's array: copied there, not through the host (on a GPU a
        # round trip through NumPy waits for the GPU and copies twice over the bus)
        target = native.dtype if dtype is None else be.dtype(dtype)
        return Tensor(be.xp.asarray(native, dtype=target, copy=True),
                      requires_grad=requires_grad, _backend=be)
    if isinstance(data, Tensor):
        data = data.numpy()
    elif hasattr(data, "detach") and getattr(data, "requires_grad", False):
        data = data.detach()                        # a torch parameter: its values
    else:
        data = backends.numpy_or_native(data)       # a CuPy array: copied to NumPy first
    if dtype is None and isinstance(data, (list, tuple)):
        dtype = list_dtype(data)                    # [np.float32(1), 2]: float32, as PyTorch
    try:
        array = np.array(data, dtype=None if dtype is None else np.dtype(backends.dtype_name(dtype)))
    except ValueError as e:
        raise ValueError(f"tensor(): cannot make an array from this data ({e}); nested lists "
                         "must be rectangular, every row of the same length") from e
    # ints past int64: NumPy makes uint64, or float64 beside small ones
    past_int64 = dtype is None and not hasattr(data, "dtype") and (
        array.dtype.kind == "u" or array.dtype.kind == "f" and not _holds_float(data))
    if past_int64 or array.dtype.kind not in "biufc":   # bool, int, uint, float, complex
        if past_int64 or any(isinstance(v, int) for v in np.ravel(array).tolist()):
            raise OverflowError("tensor(): an integer is too large for int64; pass it as a "
                                "float (e.g. 2.0 ** 70) if that is what you mean")
        example = next((v for v in np.ravel(array).tolist()
                        if not isinstance(v, (bool, int, float, complex))), np.ravel(array)[0])
        raise TypeError(f"tensor(): data must be numbers, not {type(example).__name__}")
    array = backends.native_byte_order(array)       # '>f4' from a file: float32 here
    if dtype is None and array.dtype == np.float64 and not hasattr(data, "dtype"):
        array = array.astype(DEFAULTS.float)        # Python floats; arrays keep their dtype
    return Tensor(be.from_numpy(array), requires_grad=requires_grad, _backend=be)


def _holds_float(data: Any) -> bool:
    """Whether nested lists hold a float ([1, 2 ** 63] holds none)."""
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif isinstance(v, (float, np.floating)) or getattr(v, "dtype", None) is not None:
            return True
    return False


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, as ``torch.as_tensor``: a Tensor itself when its dtype and
    device are those asked for (else ``data.to(device, dtype)``: a dtype change is a
    recorded cast, as PyTorch's keeps the graph), anything else :func:`tensor` of it.

    PyTorch avoids a copy where it can (a NumPy array's memory is shared); tinyffn copies
    other data, as :func:`from_numpy` says why: a tensor never shares an array with you.
    """
    if isinstance(data, Tensor):
        return data.to(device, dtype)
    return tensor(data, dtype=dtype, device="cpu" if device is None else device)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A CPU tensor of a NumPy array's values, in its dtype, as ``torch.from_numpy``, but a
    copy, where PyTorch's shares the array's memory: tinyffn never writes into an array
    (``x -= y`` gives x a new one), so sharing would hold one way only, and a write into
    the array would change values a graph had saved, unnoticed (PyTorch's version
    counters catch that). ``tensor(ndarray)`` makes the same tensor."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a NumPy array, got {type_name(ndarray)}; "
                        "for other data use tinyffn.tensor(...)")
    if ndarray.dtype.kind not in "biuf" or ndarray.dtype.kind == "f" and \
            backends.dtype_name(ndarray.dtype) not in backends.FLOAT_DTYPES:
        raise TypeError(f"from_numpy: tinyffn computes with bool, integer and float16/32/64 "
                        f"arrays, not {ndarray.dtype}; convert it first (a.astype(np.float32))")
    return tensor(ndarray)


def _filled(values: np.ndarray, dtype, device, requires_grad) -> Tensor:
    """A leaf holding a NumPy array's ``values`` in ``dtype``, copied to the device: random
    draws are made on the host, so that a seed gives the same numbers on every device, and
    a float ``arange``'s points are NumPy's to the last bit. A bool array (a mask of draws,
    bernoulli's) crosses as bools, one byte an entry, and is cast on the device."""
    be = backends.get_backend(device)
    name = backends.dtype_name(dtype or DEFAULTS.float)
    if values.dtype == np.bool_:
        return _leaf_in(be, be.from_numpy(values), name, requires_grad)  # 0 and 1: exact
    array = values.astype(name, copy=False)
    return Tensor(be.from_numpy(array), requires_grad=requires_grad, _backend=be)


def _leaf_in(be: Any, array: Any, name: str, requires_grad: bool) -> Tensor:
    """A leaf holding ``array`` (already on ``be``'s device) cast there to dtype ``name``."""
    if backends.dtype_name(array.dtype) != name:
        array = be.xp.astype(array, be.dtype(name))
    return Tensor(array, requires_grad=requires_grad, _backend=be)


def _full_on_device(shape: tuple, fill: Any, dtype, device, requires_grad) -> Tensor:
    """A leaf of ``shape`` holding ``fill`` everywhere, made where it lives: on a GPU by
    the GPU (a NumPy array made on the host and copied would cross the bus, 512 MB for
    one (8192, 16384) float32 buffer)."""
    be = backends.get_backend(device)
    name = backends.dtype_name(dtype or DEFAULTS.float)
    kind = np.dtype(name).kind          # the standard's full takes a Python number of its kind
    value = bool(fill) if kind == "b" else int(fill) if kind in "iu" else float(fill)
    array = be.xp.full(tuple(shape), value, dtype=be.dtype(name))
    return Tensor(array, requires_grad=requires_grad, _backend=be)


def zeros(*shape, size=None, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    """A leaf tensor of the given shape filled with 0, in the default float dtype
    (float32, see :func:`tinyffn.set_default_dtype`) unless ``dtype`` says otherwise.

    ``zeros(2, 3)``, ``zeros((2, 3))`` and PyTorch's ``zeros(size=(2, 3))`` all give
    shape (2, 3); so for ``ones``, ``randn`` and ``rand``.
    """
    return _full_on_device(sizes_arg("zeros", shape, "size", size), 0, dtype, device, requires_grad)


def empty(*shape, size=None, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    """A leaf tensor of the given shape, as ``torch.empty``: PyTorch leaves its memory
    uninitialised (whatever was there), to be overwritten; tinyffn fills it with 0, as
    :func:`zeros` (a garbage value could not help, and a test would not repeat)."""
    return zeros(*shape, size=size, dtype=dtype, device=device, requires_grad=requires_grad)


def ones(*shape, size=None, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    """A leaf tensor of the given shape filled with 1 (the default float dtype
    unless ``dtype`` says otherwise)."""
    return _full_on_device(sizes_arg("ones", shape, "size", size), 1, dtype, device, requires_grad)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``zeros`` of ``input``'s shape, and of its dtype and device unless given (a leaf)."""
    return _like("zeros_like", zeros, input, dtype, device, requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``ones`` of ``input``'s shape, and of its dtype and device unless given (a leaf)."""
    return _like("ones_like", ones, input, dtype, device, requires_grad)


def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: Any = "cpu",
         requires_grad: bool = False) -> Tensor:
    """A leaf tensor of shape ``size`` (a tuple or list) filled with ``fill_value``, as
    ``torch.full``: ``full((T, T), float("-inf"))``. Unless ``dtype`` says otherwise, the
    value's, as PyTorch reads it: bool for a Python bool, int64 for an integer (NumPy's
    too), the default float dtype for a float (and for NumPy's bool_).

    A value the dtype cannot hold is refused: one out of its range (as PyTorch refuses
    it), and a fraction for an integer dtype (which PyTorch truncates in silence).
    """
    shape = _size_sequence("full", "size", size)
    if dtype is None:                   # a value that is not a number: _full says so
        dtype = "bool" if isinstance(fill_value, bool) else \
            "int64" if _is_int(fill_value) else DEFAULTS.float
    return _full("full", shape, fill_value, dtype, device, requires_grad)


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """``full`` of ``input``'s shape, and of its dtype and device unless given (a leaf),
    as ``torch.full_like``; a fraction into an integer tensor's dtype is refused."""
    _check_like("full_like", input)
    return _full("full_like", input.shape, fill_value, dtype or backends.dtype_name(input.dtype),
                 device or input.device, requires_grad)


def _full(op: str, shape: tuple, fill_value: Any, dtype: Any, device: Any,
          requires_grad: bool) -> Tensor:
    _check_number(op, "fill_value", fill_value)
    _check_fits(op, "fill_value", fill_value, dtype)
    return _full_on_device(shape, fill_value, dtype, device, requires_grad)


def _check_number(op: str, name: str, value: Any) -> None:
    if not (isinstance(value, (bool, np.bool_)) or is_real(value)):
        raise TypeError(f"{op}: {name} must be a number (a bool, an int or a float), got "
                        f"{type_name(value)}" + ("; for a one-element tensor pass t.item()"
                                                 if isinstance(value, Tensor) else ""))


def _check_fits(op: str, name: str, value: Any, dtype: Any) -> None:
    """``value`` as an entry of ``dtype``: a whole number in range for an integer dtype, a
    finite number a float dtype does not round to inf; anything for bool (its truth)."""
    if isinstance(value, np.generic):   # np.float16(2) <= 3.4e38 casts the bound to float16:
        value = value.item()            # an overflow warning; a Python number compares exactly
    target = backends.dtype_name(dtype)
    kind = np.dtype(target).kind
    if kind in "iu":
        if not (math.isfinite(value) and value == int(value)):
            raise TypeError(f"{op}: {name} {value!r} is not a whole number, and the dtype is "
                            f"{target} (PyTorch truncates it in silence); pass a whole "
                            "number, or a float dtype")
        low, high = int(np.iinfo(target).min), int(np.iinfo(target).max)
    else:                               # float: its largest finite number; bool: any
        high = float(np.finfo(target).max) if kind == "f" else math.inf
        low = -high
    if math.isfinite(value) and not low <= value <= high:
        raise ValueError(f"{op}: {name} {value!r} does not fit in {target} ({low} to "
                         f"{high}); pass a wider dtype")


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = "cpu",
        requires_grad: bool = False) -> Tensor:
    """The identity matrix, (n, n), or (n, m) with ones on the main diagonal, as
    ``torch.eye``; the default float dtype unless ``dtype`` says otherwise."""
    for name, v in (("n", n), ("m", m)):
        if v is not None and not (_is_int(v) and v >= 0):
            raise (ValueError if _is_int(v) else TypeError)(
                f"eye: {name} must be an integer >= 0 (a number of rows or columns), got {v!r}")
    be = backends.get_backend(device)
    name = backends.dtype_name(dtype or DEFAULTS.float)
    y = be.xp.eye(n, n if m is None else m, dtype=be.dtype(name))   # made on the device
    return Tensor(y, requires_grad=requires_grad, _backend=be)


def _like(name: str, make: Any, t: Tensor, dtype, device, requires_grad,
          generator: Any = None) -> Tensor:
    _check_like(name, t)
    dtype = dtype or backends.dtype_name(t.dtype)
    if make in (randn, rand):
        _check_sample_dtype(name, dtype, device or t.device)
        return make(t.shape, generator=generator, dtype=dtype, device=device or t.device,
                    requires_grad=requires_grad)
    return make(t.shape, dtype=dtype, device=device or t.device, requires_grad=requires_grad)


def _check_like(name: str, t: Any) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}: needs a tinyffn Tensor, got {type_name(t)}; wrap it with "
                        "tinyffn.tensor(...)")


def randn(*shape, size=None, generator=None, dtype=None, device="cpu",
          requires_grad=False) -> Tensor:
    """A leaf tensor of the given shape of standard normal samples N(0, 1).

    Drawn from ``generator`` (a :class:`tinyffn.Generator`), else from the one
    :func:`manual_seed` seeds.
    """
    shape = sizes_arg("randn", shape, "size", size)
    _check_sample_dtype("randn", dtype, device)
    rng = _generator(generator, "randn")
    return _filled(rng.standard_normal(shape), dtype, device, requires_grad)


def rand(*shape, size=None, generator=None, dtype=None, device="cpu",
         requires_grad=False) -> Tensor:
    """A leaf tensor of the given shape of uniform samples on [0, 1) (as :func:`randn`)."""
    shape = sizes_arg("rand", shape, "size", size)
    _check_sample_dtype("rand", dtype, device)
    return _filled(_generator(generator, "rand").random(shape), dtype, device, requires_grad)


def randn_like(input: Tensor, *, generator: Any = None, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """``randn`` of ``input``'s shape, and of its dtype and device unless given, as
    ``torch.randn_like``: an integer tensor needs a float ``dtype``."""
    return _like("randn_like", randn, input, dtype, device, requires_grad, generator)


def rand_like(input: Tensor, *, generator: Any = None, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """``rand`` of ``input``'s shape, and of its dtype and device unless given."""
    return _like("rand_like", rand, input, dtype, device, requires_grad, generator)


def randint(low: int = 0, high: int | None = None, size: Sequence[int] | None = None, *,
            generator: Any = None, dtype: Any = None, device: Any = "cpu",
            requires_grad: bool = False) -> Tensor:
    """Integers drawn uniformly from [low, high), of shape ``size``, as ``torch.randint``:
    ``randint(high, size)`` or ``randint(low, high, size)``; int64 unless ``dtype`` says
    otherwise. Drawn as :func:`randn` draws. A float dtype holds the draws within the
    integers it holds exactly (|n| <= 2^24 for float32, 2^11 for float16), as for
    ``randint_like`` and ``random_``; PyTorch warns past them (float16: refuses)."""
    if size is None:                    # randint(high, size): two given by position
        low, high, size = 0, low, high
    elif high is None:                  # randint(high, size=...)
        low, high = 0, low
    if not (_is_int(low) and _is_int(high)):
        raise TypeError(f"randint: low and high must be integers, got {low!r} and {high!r}")
    shape = _size_sequence("randint", "size", size)  # first: randint(0, 3) lacks a size
    if low >= high:
        raise ValueError(f"randint: low must be below high (values are drawn from [low, "
                         f"high)), got low={low}, high={high}")
    dtype = dtype or "int64"
    for name, v in (("low", low), ("high - 1 =", high - 1)):
        _check_fits("randint", name, v, dtype)
    if np.dtype(backends.dtype_name(dtype)).kind == "f":     # past 2^24, float32 rounds
        from .random_sampling import _integer_range          # (it imports this module)
        _integer_range("randint", backends.dtype_name(dtype), low, high)
    rng = _generator(generator, "randint")
    return _filled(rng.integers(low, high, size=shape), dtype, device, requires_grad)


def _check_sample_dtype(name: str, dtype: Any, device: Any) -> None:
    """Random samples are real numbers: an integer dtype would truncate N(0, 1) to mostly 0."""
    if dtype is not None and not backends.get_backend(device).is_floating(dtype):
        raise TypeError(f"{name}: samples need a floating dtype (float16, float32 or float64), "
                        f"got {backends.dtype_name(dtype)}; cast afterwards if you need another")


def arange(start: float | None = None, end: float | None = None, step: float = 1, *,
           dtype: Any = None, device: Any = "cpu", requires_grad: bool = False) -> Tensor:
    """start, start + step, ... up to but not including ``end``, shape (n,), as
    ``torch.arange``; ``arange(n)`` is 0, 1, ..., n - 1 (row indices, class targets).

    int64 when every argument is an integer, else the default float dtype, unless ``dtype``
    says otherwise.
    """
    start, end, step = (_one_number(v) for v in (start, end, step))
    if start is None and end is None:
        raise TypeError("arange: give the end, arange(n) or arange(end=n), as in PyTorch")
    if end is None:
        start, end = 0, start
    elif start is None:                         # arange(end=n), PyTorch's keyword
        start = 0
    for name, v in (("start", start), ("end", end), ("step", step)):
        if not (is_real(v) and math.isfinite(v)):
            raise TypeError(f"arange: {name} must be a finite number, got {v!r}")
    if step == 0 or (end - start) * step < 0:
        raise ValueError(f"arange: no values from {start} to {end} in steps of {step}; "
                         "the step must be nonzero and point from start towards end")
    integers = all(_is_int(v) for v in (start, end, step))
    dtype = dtype or ("int64" if integers else DEFAULTS.float)
    whole = all(float(v).is_integer() for v in (start, end, step))
    if not whole and np.dtype(backends.dtype_name(dtype)).kind in "iub":
        raise TypeError(f"arange: start={start!r}, end={end!r}, step={step!r} are not all whole "
                        f"numbers, and the dtype is {backends.dtype_name(dtype)} (PyTorch "
                        "truncates them, or refuses a step that truncates to 0); pass whole "
                        "numbers, or make a float arange and cast it")
    name = backends.dtype_name(dtype)
    if integers and np.dtype(name).kind in "iu" and \
            np.iinfo(name).min <= min(start, end) and max(start, end) <= np.iinfo(name).max:
        be = backends.get_backend(device)   # integers: exact on the device, no host copy
        return Tensor(be.xp.arange(start, end, step, dtype=be.dtype(name)),
                      requires_grad=requires_grad, _backend=be)
    return _filled(np.arange(start, end, step), dtype, device, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = "cpu",
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included, shape
    (steps,), as ``torch.linspace``: ``linspace(-3, 3, 7)`` is -3, -2, ..., 3. The default
    float dtype unless ``dtype`` says otherwise. Made on the device, in float64 and rounded
    once, as NumPy's: a float32 value is the exact one rounded (all but 4 of 139,639 checked),
    where PyTorch's float32 kernel, with a float32 step, is off by up to 1.2 units in the last
    place of max(|start|, |end|) and differs from it in about 3 entries of 10."""
    for name, v in (("start", start), ("end", end)):
        if not (is_real(v) and math.isfinite(v)):
            raise TypeError(f"linspace: {name} must be a finite number, got {v!r}")
    if not _is_int(steps) or steps < 0:
        raise ValueError(f"linspace: steps must be an integer >= 0 (the number of values), "
                         f"got {steps!r}")
    be = backends.get_backend(device)
    y = be.xp.linspace(float(start), float(end), steps, dtype=be.dtype("float64"))  # (steps,)
    return _leaf_in(be, y, backends.dtype_name(dtype or DEFAULTS.float), requires_grad)


# ----------------------------------------------------------------------------- joining


from .joining import cat, stack  # noqa: E402
_JOINING = (cat, stack)     # joining.py's, importable from here too, as before the split
