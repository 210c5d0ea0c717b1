"""``tinyffn.save`` and ``tinyffn.load``: checkpoints, as ``torch.save`` and ``torch.load``.

    tinyffn.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
    checkpoint = tinyffn.load(path)      # weights_only=True: tensors and plain data only

**The format.** A file is one pickle (protocol 4) of the object saved, in which every
Tensor is written as a call to this module's :func:`_rebuild_tensor` with its values as
bytes (C order, little-endian), its dtype's name, shape and device, whether it requires
a gradient, whether it is a Parameter, and its ``name`` (a graph label, often None).

Why pickle: a checkpoint is a tree of dicts, lists, tuples, numbers and strings around
the tensors (an optimizer's ``param_groups``, a step count), and pickle writes that tree
and reads it back exactly, as it does for ``torch.save``; an ``.npz`` file holds arrays
only, and the tree would need a format of its own. Why tensors as bytes: pickle's own
way with a Tensor (``pickle.dumps(x)``) writes the whole object, its graph and its
backend's array included, and a CuPy array needs CuPy to read back. As values and a
device name, a GPU tensor's file loads on a machine without a GPU
(``map_location="cpu"``), and the reader needs no class, only one function of this module.

As in PyTorch, a tensor saved is its values, ``requires_grad`` and, for a Parameter, its
class: not its ``.grad``, nor its graph (a computed tensor loads as a leaf). Each tensor
is written with its own copy of the values, so a view and its base load as two tensors
that share nothing (PyTorch keeps their shared storage). The same object saved twice
(``[w, w]``) loads as one object, which pickle's memo does. ``pickletools.dis`` shows a
file opcode by opcode. PyTorch's files are zip archives, which ``load`` refuses with a
way round; ``torch.load`` cannot read this format either.

**Loading is safe by default.** Unpickling calls whatever a file names, so a pickle from
someone else is a program. ``load`` with ``weights_only=True`` (PyTorch's default since
2.6) uses an unpickler that resolves only the names in ``SAFE_GLOBALS``: the types pickle
writes by name (OrderedDict, Counter, complex, bytearray; dict, list, tuple, set, str,
bytes, int, float, bool and None need no name), NumPy's arrays, scalars and dtypes,
tinyffn's ``device`` and the tensor function. Any other name is refused with an
UnpicklingError before anything is called; pickle's other instructions only build
containers, or set the state of an object one of these names made, to values of these
kinds. NumPy's names are not NumPy's own objects: ``numpy.ndarray`` cannot be called
(with a file's shape, buffer and offset it would read and write any memory), the
functions that rebuild arrays and scalars refuse object dtypes, whose bytes are pointers,
and ``numpy.dtype`` gives only NumPy's own plain dtypes, which no later instruction of
the file can change (another dtype's fields and size can be rewritten after an array
uses it). PyTorch leaves NumPy's functions off its list, as it cannot vouch for code it does
not own; tinyffn computes with NumPy, and a checkpoint may well hold an array.
``weights_only=False`` lifts the restriction, for files you trust: a whole model pickled,
or a file written by ``pickle.dump``. Plain ``pickle.load`` reads this format too, with
that same full trust.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import io
import math
import os
import pickle
from typing import Any

import numpy as np

from .backend import DEVICES, DeviceError, device, get_backend, normalize_device
from .module import Parameter
from .tensor import Tensor

PROTOCOL = 4
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")

# What a file may call under weights_only=True. The NumPy names are the ones pickle
# protocols 4 and 5 write for arrays, scalars and dtypes under NumPy 2.x (protocol 5 writes
# a contiguous array as _frombuffer, others as _reconstruct), as a find_class that records
# its arguments shows; tests/test_serialization.py checks that each one is needed.
#
# None of NumPy's callables is handed out as it is: np.ndarray(shape, dtype, buffer, offset)
# called by a file could lay an object dtype (pointers) over bytes the file chose, or read
# and write outside its buffer. A file's ``numpy.ndarray`` is a marker that cannot be
# called, and the three functions arrays are rebuilt by refuse object dtypes.
class _NdarrayMarker:
    """What ``numpy.ndarray`` stands for in a file: the class ``_reconstruct`` makes."""

    def __call__(self, *args: Any) -> None:
        raise pickle.UnpicklingError("tinyffn.load: the file calls numpy.ndarray(...) "
                                     "itself, which weights_only=True does not run: arrays "
                                     "are rebuilt by NumPy's own pickle functions")


_NDARRAY = _NdarrayMarker()


def _dtype(spec: Any, align: Any = False, copy: Any = False) -> np.dtype:
    """``numpy.dtype(spec)``, not a structured one, and as NumPy's own where it has one
    (``copy``, which NumPy's pickles ask for, is ignored): pickle's BUILD could otherwise
    rewrite the fields and size of a copy after an array uses it. BUILD on a dtype is
    checked too (:meth:`_Unpickler.load_build`). An object array's entries are unpickled as
    any object is; its bytes are never read as pointers (see :func:`_no_objects`)."""
    d = np.dtype(spec)
    if not (d.kind in "biufcOUS" and d.isnative and d.names is None and d.subdtype is None):
        raise pickle.UnpicklingError(f"tinyffn.load: the file makes the NumPy dtype {spec!r}; "
                                     "weights_only=True loads arrays of numbers, bools, "
                                     "strings and bytes only (not of Python objects, dates or "
                                     "records); pass weights_only=False for a file you trust")
    return d


def _no_objects(dtype: Any) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise pickle.UnpicklingError("tinyffn.load: the file holds a NumPy array of Python "
                                     "objects, which weights_only=True does not load")
    return dtype


def _reconstruct(subtype: Any, shape: Any, dtype: Any) -> np.ndarray:
    if subtype is not _NDARRAY:
        raise pickle.UnpicklingError(f"tinyffn.load: the file rebuilds an array of class "
                                     f"{subtype!r}; weights_only=True loads numpy.ndarray only")
    return np._core.multiarray._reconstruct(np.ndarray, shape, _no_objects(dtype))


def _frombuffer(buffer: Any, dtype: Any, shape: Any, order: Any) -> np.ndarray:
    return np._core.numeric._frombuffer(buffer, _no_objects(dtype), shape, order)


def _scalar(dtype: Any, *data: Any) -> Any:
    return np._core.multiarray.scalar(_no_objects(dtype), *data)


SAFE_GLOBALS = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "builtins.complex": complex,
    "builtins.bytearray": bytearray,
    "numpy.dtype": _dtype,
    "numpy.ndarray": _NDARRAY,
    "numpy._core.multiarray._reconstruct": _reconstruct,
    "numpy._core.multiarray.scalar": _scalar,                           # np.float64(1.5)
    "numpy._core.numeric._frombuffer": _frombuffer,
    "tinyffn.backend.device": device,
}


def save(obj: Any, f: Any) -> None:
    """Write ``obj`` (a state_dict, a dict of them, a tensor, any picklable object) to
    ``f``, a path (str or os.PathLike) or a binary file object opened for writing, as
    ``torch.save``. Tensors on any device are written as their values (see the module's
    docstring)."""
    with _opened(f, "wb", "save") as file:
        _TensorPickler(file, protocol=PROTOCOL).dump(obj)


def load(f: Any, map_location: Any = None, *, weights_only: bool = True) -> Any:
    """Read back what :func:`save` wrote to ``f`` (a path or a binary file object), as
    ``torch.load``.

    Each tensor comes back with its dtype, shape, values (bit for bit), ``requires_grad``
    and class (Tensor or Parameter) on the device it was saved from, or on
    ``map_location``: a device (``"cpu"``, ``"cuda"``, ``"strict"``, a ``tinyffn.device``)
    for every tensor, or a dict from saved device to device (``{"cuda": "cpu"}``). A
    device this machine cannot use (``"cuda"`` without a GPU) raises a DeviceError.
    ``weights_only=True`` loads tensors, containers, numbers, strings and NumPy arrays
    only, and refuses anything else unread; pass False only for a file you trust. By name
    only: PyTorch's third slot is ``pickle_module``, which tinyffn does not take.
    """
    devices = _device_map(map_location)
    with _opened(f, "rb", "load") as file:
        _refuse_zip(file)
        return _Unpickler(file, devices, weights_only).load()


def _rebuild_tensor(data: bytes, dtype: str, shape: tuple, saved_on: str, requires_grad: bool,
                    parameter: bool, name: str | None, devices: dict | None = None) -> Tensor:
    """The Tensor a file describes. This function's name and arguments are the file format:
    a change keeps it and adds another (as PyTorch's ``_rebuild_tensor_v2``)."""
    if not (isinstance(data, bytes) and dtype in DTYPES and isinstance(shape, tuple)
            and all(type(n) is int and n >= 0 for n in shape)
            and (name is None or isinstance(name, str))):
        raise pickle.UnpicklingError(
            "tinyffn.load: the file is damaged or not written by tinyffn.save: a tensor's "
            f"dtype {dtype!r}, shape {shape!r} or name {name!r} is not one tinyffn writes")
    little_endian = np.dtype(dtype).newbyteorder("<")
    if math.prod(shape) * little_endian.itemsize != len(data):
        raise pickle.UnpicklingError(
            f"tinyffn.load: the file is damaged: a {dtype} tensor of shape {shape} needs "
            f"{math.prod(shape) * little_endian.itemsize} bytes, the file holds {len(data)}")
    array = np.frombuffer(data, little_endian).astype(dtype).reshape(shape)  # a writable copy
    target = (devices or {}).get(saved_on, saved_on)
    try:
        backend = get_backend(target)
    except DeviceError as e:
        raise DeviceError(f"tinyffn.load: a tensor saved on {saved_on!r} is to load onto "
                          f"{target!r}, which this machine cannot use ({e}); pass "
                          "map_location='cpu' to load every tensor onto the CPU") from e
    x = Tensor(backend.from_numpy(array), requires_grad=requires_grad, _backend=backend)
    if parameter:                           # as torch.save(p) loads a Parameter
        x = Parameter(x)
        x.requires_grad_(requires_grad)     # a frozen Parameter stays frozen
    x.name = name
    return x


def _reduce_tensor(x: Tensor) -> tuple:
    """How a tensor is pickled: a call to :func:`_rebuild_tensor` with its values."""
    a = x.numpy()                           # a NumPy copy, from any device
    if a.dtype.name not in DTYPES:
        raise TypeError(f"tinyffn.save: cannot save a tensor of dtype {a.dtype.name}; "
                        f"convert it to one of {', '.join(DTYPES)}")
    data = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()   # C order
    return _rebuild_tensor, (data, a.dtype.name, a.shape, str(x.device), x.requires_grad,
                             isinstance(x, Parameter), x.name)


class _TensorPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        """Tensors (Parameters too) as :func:`_reduce_tensor` says; the rest as pickle does."""
        return _reduce_tensor(obj) if isinstance(obj, Tensor) else NotImplemented


class _Unpickler(pickle._Unpickler):
    """An unpickler whose tensors go to ``devices``; with ``weights_only``, it resolves
    only the names in ``SAFE_GLOBALS`` (the recipe "Restricting Globals" of Python's
    pickle documentation). Every name a file calls passes through ``find_class``. It is
    pickle's Python unpickler, whose instructions can be replaced (BUILD, below); the
    arrays' bytes are single instructions, so it is not much slower."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def load_build(self) -> None:
        """BUILD sets the state of the object below it. On a NumPy dtype, with
        ``weights_only``, only the dtype's own state passes (a no-op): a file's '>f4'
        (big-endian) would otherwise be read as '<f4' without a word, and a dtype's fields
        or size could be rewritten."""
        state, obj = self.stack[-1], self.stack[-2]
        if not (self.weights_only and isinstance(obj, np.dtype)):
            return super().load_build()
        if state != obj.__reduce__()[2]:
            raise pickle.UnpicklingError(
                f"tinyffn.load: the file gives the NumPy dtype {obj} the state {state!r}: "
                "another byte order (a big-endian array) or other fields, which "
                "weights_only=True does not load; convert such arrays before saving, "
                "a.astype(a.dtype.newbyteorder('='))")
        self.stack.pop()

    dispatch[pickle.BUILD[0]] = load_build

    def __init__(self, file: Any, devices: dict, weights_only: bool):
        super().__init__(file)
        self.devices, self.weights_only = devices, weights_only

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "_rebuild_tensor"):
            return functools.partial(_rebuild_tensor, devices=self.devices)
        if not self.weights_only:
            return super().find_class(module, name)
        if f"{module}.{name}" in SAFE_GLOBALS:
            return SAFE_GLOBALS[f"{module}.{name}"]
        hint = ("; a whole model or optimizer is such an object, and so is a tensor pickled "
                "by pickle.dump rather than tinyffn.save (save state_dict()s instead)"
                if module.startswith("tinyffn") else "")
        raise pickle.UnpicklingError(
            f"tinyffn.load: the file calls {module}.{name}, which weights_only=True does not "
            "load: it loads tensors, dicts, lists, tuples, sets, numbers, strings, bytes, "
            f"None, NumPy arrays of numbers or strings{hint}. If you trust the file's source, "
            "tinyffn.load(f, weights_only=False) loads it, and runs whatever code the file "
            "names: never pass False for a file from an unknown source (as torch.load says)")


def _device_map(map_location: Any) -> dict:
    """``map_location`` as a dict from saved device to the device to load onto."""
    if map_location is None:
        return {}
    try:
        if isinstance(map_location, str):       # a tinyffn.device is a str
            return dict.fromkeys(DEVICES, normalize_device(map_location))
        if isinstance(map_location, dict):
            return {normalize_device(k): normalize_device(v) for k, v in map_location.items()}
    except DeviceError as e:
        raise DeviceError(f"tinyffn.load: map_location: {e}") from e
    raise TypeError(f"tinyffn.load: map_location must be None, a device (\"cpu\", \"cuda\", "
                    "\"strict\", a tinyffn.device) or a dict from saved device to device "
                    f"({{'cuda': 'cpu'}}), got {type(map_location).__name__}; PyTorch's "
                    "function form, map_location(storage, location), has no equivalent here")


@contextlib.contextmanager
def _opened(f: Any, mode: str, owner: str):
    """``f`` opened in ``mode`` ("rb"/"wb") if it is a path, else ``f`` itself, checked."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as file:
            yield file
        return
    method = "write" if mode == "wb" else "read"
    if not hasattr(f, method) or isinstance(f, io.TextIOBase):
        what = "a text file" if isinstance(f, io.TextIOBase) else type(f).__name__
        raise TypeError(f"tinyffn.{owner}: f must be a path (str or os.PathLike) or a binary "
                        f"file object with .{method}(), got {what}; open files in binary "
                        f"mode: open(path, {mode!r})")
    yield f


def _refuse_zip(file: Any) -> None:
    """A zip archive is what torch.save writes (PyTorch 1.6 and later): say so, and how on."""
    if not getattr(file, "seekable", lambda: False)():
        return
    start = file.tell()
    head = file.read(4)
    file.seek(start)
    if head == b"PK\x03\x04":
        raise pickle.UnpicklingError(
            "tinyffn.load: this file is a zip archive, as torch.save writes; tinyffn cannot "
            "read PyTorch's files. Where PyTorch is installed, load it there and pass its "
            "state dict to tinyffn: model.load_state_dict(torch.load(path)) takes torch "
            "tensors; or save the values from PyTorch as NumPy arrays, pickle.dump({k: "
            "v.numpy() for k, v in state_dict.items()}, file), which tinyffn.load reads")
