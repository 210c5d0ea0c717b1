"""The one module that knows which array library holds a tensor's data.

All op code in tinyffn asks for ``xp``, an *array namespace* in the sense of the
Python array API standard (https://data-apis.org/array-api/), and calls only the
standard's functions on it: ``xp.exp``, ``xp.matmul``, ``xp.sum(x, axis=..., keepdims=...)``,
``xp.permute_dims`` and so on. Three backends provide such a namespace:

=========  =============================  ================================================
device     namespace                      used for
=========  =============================  ================================================
"cpu"      ``numpy`` (2.x)                everyday work; the default
"cuda"     ``array_api_compat.cupy``      NVIDIA GPUs (install the ``cuda12``/``cuda13`` extra)
"strict"   ``array_api_strict``           tests only: a CPU namespace that refuses every call
                                          outside the standard, so a NumPy-only call hiding
                                          in op code fails on the CPU, long before a GPU run
=========  =============================  ================================================

The standard lacks six things an autograd engine needs; each backend supplies them:
``erf`` (the Gauss error function, for GELU), ``special`` (SciPy's special functions:
lgamma, digamma, erfc, ...), ``index_add`` (scatter-add, the backward of
indexing), ``index_put`` (assignment through index arrays, for ``x[idx] = value``),
``fmod`` (the exact remainder that ``%`` and ``//`` are built on) and conversion to and
from NumPy.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

DEVICES = ("cpu", "cuda", "strict")


class DeviceError(RuntimeError):
    """A device that is unknown, unavailable, or mixed with another in one op."""


def check_one_device(op: str, what: str, a: Any, b: Any) -> None:
    """Tensors ``a`` and ``b`` (``what``: "inputs", "operands", ...) must be on one device."""
    if a.backend is not b.backend:
        raise DeviceError(f"{op}: {what} are on different devices ({a.device} and "
                          f"{b.device}); move them to one device with .to(device) first")


class device(str):
    """A device's name, with ``torch.device``'s attributes: ``x.device.type`` is ``"cpu"``,
    ``"cuda"`` or ``"strict"``, ``x.device.index`` is 0 on the GPU (tinyffn uses one) and
    None elsewhere. A ``str`` as well, so ``x.device == "cpu"`` holds, where PyTorch would
    say False (compare ``.type`` there). ``device("cuda:0")`` and ``device("cuda", 0)`` are
    ``"cuda"``: ``index`` may be 0 or None, as tinyffn has one device of each type."""

    def __new__(cls, type: Any = "cpu", index: Any = None):
        if index is not None:
            if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
                raise TypeError(f"device: index must be an int, got {index!r}")
            if ":" in str(type):
                raise DeviceError(f"device({type!r}, {index}): the type names an index "
                                  "already; pass one or the other, as in PyTorch")
            if index != 0:
                raise DeviceError(f"device({type!r}, {index}): tinyffn has one device of each "
                                  f"type, index 0; pass device({type!r}) or index 0")
        return super().__new__(cls, normalize_device(type))

    @property
    def type(self) -> str:
        return str(self)

    @property
    def index(self) -> int | None:
        return 0 if self == "cuda" else None


@dataclass(frozen=True)
class Backend:
    """What the engine needs from one array library.

    Attributes:
        device: the device tensors report, a :class:`device` (``"cpu"``, ``"cuda"``,
            ``"strict"``).
        xp: the array-API namespace op code computes with.
        array_type: the class of arrays this backend owns.
        erf: elementwise error function, ``erf(x) = 2/sqrt(pi) * int_0^x exp(-t^2) dt``,
            in the dtype of a floating-point x.
        special: ``special(name)`` is ``scipy.special.<name>`` (``cupyx.scipy.special`` on
            the GPU, a NumPy round trip on strict), answering in the dtype of its last
            argument x: float32 stays float32, float16 computes in float32, rounded once.
        index_add: ``index_add(gx, key, gy)`` adds ``gy`` into ``gx[key]`` in place,
            accumulating repeated indices (``numpy.add.at`` semantics).
        index_put: ``index_put(a, key, v)`` writes ``v`` into ``a[key]`` in place, as
            NumPy's ``a[key] = v`` (for ``x[key] = value``; a repeated index takes the
            last value in NumPy, any one of them in CuPy, as in PyTorch on a GPU).
        fmod: C's ``fmod(x, w)`` elementwise for floating x and w of one dtype: x - w
            trunc(x / w), exact (the standard has only ``remainder``, which CuPy computes
            as x - floor(x / w) w, rounding).
        to_numpy: a NumPy copy of an array of this backend.
        from_numpy: an array of this backend holding a NumPy array's values.
        synchronize: wait until the device has finished the work queued on it (a GPU runs
            it while Python goes on); nothing to wait for on the CPU.
        raising_linalg: a context inside which ``xp.linalg`` raises LinAlgError on a
            failed factorization, as NumPy's always does: CuPy's checks cuSOLVER's info
            only inside ``cupyx.errstate(linalg="raise")`` (a host sync), else returns
            what cuSOLVER left, unspecified.
    """

    device: str
    xp: Any
    array_type: type
    erf: Callable[[Any], Any]
    special: Callable[[str], Callable]
    index_add: Callable[[Any, Any, Any], None]
    index_put: Callable[[Any, Any, Any], None]
    fmod: Callable[[Any, Any], Any]
    to_numpy: Callable[[Any], np.ndarray]
    from_numpy: Callable[[np.ndarray], Any]
    synchronize: Callable[[], None]
    raising_linalg: Callable[[], Any]

    def __reduce__(self):
        """Pickled (and deep-copied) as its device name: the copy is this same backend, so
        a copied tensor still counts as being on this device."""
        return (get_backend, (self.device,))

    def asarray(self, data: Any, dtype: Any = None) -> Any:
        """``data`` (a NumPy array, nested list or scalar) as an array of this backend."""
        if isinstance(data, self.array_type):
            if dtype is None or data.dtype == self.dtype(dtype):
                return data
            return self.xp.astype(data, self.dtype(dtype))
        return self.from_numpy(np.asarray(data, dtype=None if dtype is None else dtype_name(dtype)))

    def is_floating(self, dtype: Any) -> bool:
        """True for real floating dtypes (float16/32/64) of this backend."""
        return dtype_name(dtype) in _FLOAT_NAMES

    @functools.cached_property
    def float_dtypes(self) -> frozenset:
        """This backend's real floating dtype objects: ``y.dtype in be.float_dtypes`` is
        :meth:`is_floating` for an array's own dtype, at the cost of one hash (every op
        asks it). The strict backend has no float16, as the array API standard has none."""
        return frozenset(self.dtype(name) for name in _FLOAT_NAMES
                         if self.device != "strict" or hasattr(self.xp, name))

    def dtype(self, dtype: Any) -> Any:
        """This backend's dtype for a NumPy dtype, a dtype name, or a dtype of this backend."""
        if self.device != "strict":
            return np.dtype(dtype)
        name = dtype_name(dtype)
        if not hasattr(self.xp, name):          # x.half(): float16, which the standard lacks
            raise TypeError(f"the strict backend has no {name}, as the array API standard has "
                            "none; use float32 or float64 there, or the cpu device")
        return getattr(self.xp, name)

    def default_float(self) -> Any:
        """This backend's dtype for :data:`DEFAULTS`.float, the default float dtype."""
        return self.dtype(DEFAULTS.float)


class _Defaults:
    """The default float dtype's name (``"float32"`` until :func:`tinyffn.set_default_dtype`
    changes it). One instance, :data:`DEFAULTS`: whatever makes a float without being told
    which dtype (``tensor(1.5)``, ``zeros(3)``, ``int_tensor / 2``, ``nn.Linear``) reads
    ``DEFAULTS.float`` when it runs, never a copy taken at import."""

    __slots__ = ("float",)

    def __init__(self):
        self.float = "float32"


DEFAULTS = _Defaults()
FLOAT_DTYPES = ("float16", "float32", "float64")   # the dtypes tinyffn computes gradients in
_FLOAT_NAMES = frozenset(FLOAT_DTYPES)


def dtype_name(dtype: Any) -> str:
    """``"float32"`` for ``numpy.float32``, ``"float32"``, or array_api_strict's float32."""
    strict_dtype = getattr(dtype, "_np_dtype", None)  # array_api_strict wraps a NumPy dtype
    return strict_dtype.name if strict_dtype is not None else _numpy_dtype_name(dtype)


@functools.lru_cache(maxsize=64)
def _numpy_dtype_name(dtype: Any) -> str:
    return np.dtype(dtype).name


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep freed memory for reuse instead of returning it to the OS.

    An FFN step allocates and frees the same few (T, d_ff) arrays every step. By default
    glibc hands blocks that large back to the OS (munmap, or trimming the heap) and the
    next step faults every page in again: about 1,600 page faults and 30% of a ReLU step
    at (T, d) = (512, 256) on a 2-core machine (getrusage's count, around a step). Keeping
    the memory makes the step reuse warm pages, as PyTorch's CPU runs do. The cost: the
    process keeps its peak memory until it exits. Called when the CPU backend is first
    used; set the environment variable ``TINYFFN_KEEP_FREED_MEMORY=0`` to leave malloc
    alone. Returns True if the setting was applied (glibc only).
    """
    if os.environ.get("TINYFFN_KEEP_FREED_MEMORY", "1") == "0":
        return False
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3            # from glibc's <malloc.h>
    return bool(libc.mallopt(m_mmap_threshold, 1 << 30)) and \
        bool(libc.mallopt(m_trim_threshold, (1 << 31) - 1))


# The float32 erf: x P(x^2) / Q(x^2) on x clamped to [-4, 4] (beyond, erf is ±1 in float32),
# with the coefficients of Eigen's fast float32 erf. SciPy's float32 erf costs about 15 ns
# per element here, most of an exact-GELU FFN step's time outside the matrix products.
ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
         -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
         -1.60960333262415e-02)                            # odd numerator, x^13 ... x^1
ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
         -7.37332916720468e-03, -1.42647390514189e-02)      # even denominator, x^8 ... x^0
ERF_BLOCK = 1 << 15     # elements per block: four float64 buffers of it stay in L2 cache


def erf_float32(x: np.ndarray) -> np.ndarray:
    """erf of a float32 array, within 2 units in the last place of the true value.

    The rational approximation above, evaluated in float64 (in float32 its rounding errors
    reach 7 ulp) one block at a time, in place in four reused buffers, so that its twenty
    passes run from cache instead of memory: about 3x faster than ``scipy.special.erf``
    on float32 (2048 x 2048: 20 ms against 63 ms). Measured against SciPy's float64 erf
    on 2 million points: at most 1.6 ulp (9.5e-8). NaN stays NaN, erf(±inf) = ±1.
    """
    out = np.empty(x.shape, dtype=np.float32)
    flat_x, flat_out = np.ravel(x), out.reshape(-1)
    n = flat_x.size
    xc, x2, p, q = (np.empty(min(n, ERF_BLOCK)) for _ in range(4))
    for start in range(0, n, ERF_BLOCK):
        m = min(ERF_BLOCK, n - start)
        xs, x2s, ps, qs = xc[:m], x2[:m], p[:m], q[:m]
        np.clip(flat_x[start:start + m], -4.0, 4.0, out=xs)
        np.multiply(xs, xs, out=x2s)
        np.multiply(x2s, ERF_P[0], out=ps)              # Horner's rule, in place
        for c in ERF_P[1:-1]:
            ps += c
            ps *= x2s
        ps += ERF_P[-1]
        ps *= xs
        np.multiply(x2s, ERF_Q[0], out=qs)
        for c in ERF_Q[1:-1]:
            qs += c
            qs *= x2s
        qs += ERF_Q[-1]
        np.divide(ps, qs, out=flat_out[start:start + m])
    return out


def _scipy_special():
    from scipy import special
    return special


def _numpy_erf(x: np.ndarray) -> np.ndarray:
    """erf for NumPy arrays, in x's float dtype.

    float32: :func:`erf_float32`; float16: the same, rounded to float16 (SciPy has no
    float16 erf and would answer in float64); everything else: SciPy's erf.
    """
    from scipy import special

    if x.dtype == np.float32:
        return erf_float32(x)
    if x.dtype == np.float16:
        return erf_float32(x.astype(np.float32)).astype(np.float16)
    return special.erf(x)


def _special(module: Any, name: str) -> Callable:
    """``module.<name>`` in the float dtype of its last argument (SciPy answers float16 in
    float64, polygamma of float32 in float64; CuPy's float16 comes back wider). erfinv of
    float32 is computed in float64 and rounded: SciPy's float32 erfinv is up to 2.9 ulps
    off (PyTorch's 0.5)."""
    fn = getattr(module, name, None)
    if fn is None:      # CuPy 13 has no airy
        raise NotImplementedError(f"{module.__name__} has no {name}")

    def in_dtype_of_x(*args):
        dtype = args[-1].dtype
        if dtype == "float16" or (dtype == "float32" and name == "erfinv"):
            args = [a.astype("float64" if dtype == "float32" else "float32") for a in args]
        return _each(fn(*args), lambda v: v.astype(dtype, copy=False))   # airy: 4 arrays
    return in_dtype_of_x


def _each(y: Any, f: Callable) -> Any:
    return tuple(map(f, y)) if isinstance(y, tuple) else f(y)


def _assign(a, key, v):
    a[key] = v


# the dtypes whose CUDA atomicAdd cupyx.scatter_add has a kernel for (CuPy 13)
_ATOMIC_ADD_DTYPES = ("int32", "uint32", "uint64", "float16", "float32", "float64")


def _scatter_add_any_dtype(scatter_add, a, key, v) -> None:
    """``scatter_add(a, key, v)`` (``cupyx.scatter_add``: a[key] += v, repeats adding up) for
    every dtype, where CuPy refuses all but :data:`_ATOMIC_ADD_DTYPES`: int64, the dtype of
    counts and of index_add on integer tensors, is added as uint64 (two's complement: the
    same bits, wrapping as int64 does); the narrow integers and bool in int32, then cast
    back (wrapping as an int8 add wraps; bool: nonzero is True)."""
    name = a.dtype.name
    if name in _ATOMIC_ADD_DTYPES:
        scatter_add(a, key, v)
    elif name == "int64":
        scatter_add(a.view("uint64"), key, v.astype("int64").view("uint64"))
    else:
        wide = a.astype("int32")
        scatter_add(wide, key, v.astype("int32"))
        a[...] = wide.astype(a.dtype)


def _numpy_backend() -> Backend:
    keep_freed_memory()

    def index_add(gx, key, gy):
        if not any(isinstance(k, np.ndarray) for k in key):
            gx[key] += gy               # basic slicing names each element once: no repeats
            return
        if gy.ndim > 32:                # np.add.at crashes the interpreter there (NumPy 2.4)
            raise ValueError(f"getitem: the gradient has {gy.ndim} axes, and NumPy's add.at "
                             "scatters into at most 32; index in steps with fewer axes")
        np.add.at(gx, key, gy)

    return Backend(
        device=device("cpu"),
        xp=np,
        array_type=np.ndarray,
        erf=_numpy_erf,
        special=lambda name: _special(_scipy_special(), name),
        index_add=index_add,
        index_put=_assign,
        fmod=np.fmod,
        to_numpy=lambda x: np.array(x, copy=True),
        from_numpy=np.asarray,
        synchronize=lambda: None,       # every NumPy call has finished when it returns
        raising_linalg=contextlib.nullcontext,
    )


def _cupy_backend() -> Backend:
    """CuPy on the GPU, once it is known to compute there; else a DeviceError saying why."""
    try:
        import cupy
        import cupyx
        import cupyx.scipy.special as cupy_special
        from array_api_compat import cupy as xp
    except ImportError as e:
        missing = "array-api-compat (CuPy's array-API namespace)" \
            if getattr(e, "name", "") == "array_api_compat" else "CuPy"
        raise DeviceError(
            f"device 'cuda' needs {missing}: install tinyffn with the extra matching your "
            "CUDA toolkit, from the repository: `pip install -e \".[cuda12]\"` or "
            "`pip install -e \".[cuda13]\"` "
            f"(import failed: {e})"
        ) from e
    try:
        n_gpus = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError as e:
        raise DeviceError(f"device 'cuda': CuPy is installed but no GPU is usable ({e})") from e
    if n_gpus == 0:
        raise DeviceError("device 'cuda': CuPy is installed but this machine has no GPU")
    try:   # seeing a GPU is not using it: one taken by another process (exclusive mode)
        cupy.zeros(1).sum().item()       # or a broken toolkit fails here, not in an op
    except Exception as e:  # CuPy's runtime, driver, compiler and memory errors share no base
        raise DeviceError(f"device 'cuda': CuPy sees {n_gpus} GPU(s) but cannot compute on "
                          f"them ({type(e).__name__}: {e})") from e

    def index_add(gx, key, gy):
        _scatter_add_any_dtype(cupyx.scatter_add, gx, key, gy)

    def erf(x):
        y = cupy_special.erf(x)                 # float16 comes back wider: round it back
        return y.astype(x.dtype) if x.dtype == cupy.float16 else y

    return Backend(
        device=device("cuda"),
        xp=xp,
        array_type=cupy.ndarray,
        erf=erf,
        special=lambda name: _special(cupy_special, name),
        index_add=index_add,
        index_put=_assign,
        fmod=cupy.fmod,
        to_numpy=cupy.asnumpy,
        from_numpy=cupy.asarray,
        synchronize=cupy.cuda.runtime.deviceSynchronize,
        raising_linalg=lambda: cupyx.errstate(linalg="raise"),
    )


def _strict_backend() -> Backend:
    try:
        import array_api_strict as xp
    except ImportError as e:
        raise DeviceError(
            "device 'strict' is the test-only array-API backend: "
            "from the repository, `pip install -e \".[test]\"` installs array-api-strict"
        ) from e
    # array_api_strict has no erf, fmod, scatter-add or assignment through index arrays
    # (the standard's __setitem__ takes ints, slices and one bool mask): go through NumPy.
    # This keeps the op code honest (it only sees the standard namespace) while these four
    # helpers, which CuPy provides natively, stay correct. Arrays cross to NumPy by DLPack, the
    # standard's interchange, never np.asarray: CuPy refuses that implicit conversion, and
    # the test suite makes array_api_strict refuse it too (tests/conftest.py).
    def to_numpy(x):
        return np.from_dlpack(x).copy()

    def erf(x):
        return xp.asarray(_numpy_erf(np.from_dlpack(x)))

    def special(name):
        fn = _special(_scipy_special(), name)
        return lambda *args: _each(fn(*(np.from_dlpack(a) for a in args)), xp.asarray)

    def fmod(x, w):
        return xp.asarray(np.fmod(np.from_dlpack(x), np.from_dlpack(w)))

    def index_add(gx, key, gy):
        key = tuple(np.from_dlpack(k) if hasattr(k, "__array_namespace__") else k for k in key)
        g = np.from_dlpack(gx).copy()
        np.add.at(g, key, np.from_dlpack(gy))
        gx[...] = xp.asarray(g)

    def index_put(a, key, v):
        key = tuple(np.from_dlpack(k) if hasattr(k, "__array_namespace__") else k for k in key)
        g = np.from_dlpack(a).copy()
        g[key] = np.from_dlpack(v)
        a[...] = xp.asarray(g)

    return Backend(
        device=device("strict"),
        xp=xp,
        array_type=type(xp.asarray(0.0)),
        erf=erf,
        special=special,
        index_add=index_add,
        index_put=index_put,
        fmod=fmod,
        to_numpy=to_numpy,
        from_numpy=xp.asarray,
        synchronize=lambda: None,
        raising_linalg=contextlib.nullcontext,
    )


_FACTORIES = {"cpu": _numpy_backend, "cuda": _cupy_backend, "strict": _strict_backend}


def device_and_dtype(device: Any, dtype: Any) -> tuple:
    """``.to``'s arguments: a dtype given in the device's place, ``x.to(np.float64)`` as
    PyTorch's ``x.to(torch.float64)``, moves there; a tensor there, ``x.to(y)``, stands for
    its device and dtype. A name (``"float64"``) stays a device, refused with a hint."""
    from .tensor import Tensor          # at call time: tensor.py imports this module
    if isinstance(dtype, bool):         # PyTorch's x.to(torch.float64, True): non_blocking
        raise TypeError(f"to: got {dtype} for dtype; after a dtype or a tensor, PyTorch reads "
                        "it as non_blocking (and a second one as copy): pass them by name, "
                        "x.to(dtype, non_blocking=True)")
    if dtype is None and isinstance(device, Tensor):
        return device.device, device.dtype
    if dtype is None and (isinstance(device, (np.dtype, type)) or hasattr(device, "_np_dtype")):
        return None, device             # a dtype or a class (np.float64, float): no device is one
    return device, dtype


def normalize_device(device: Any) -> str:
    """``"cpu"``, ``"cuda"``, ``"cuda:0"`` or ``"strict"`` -> the canonical device name."""
    name = str(device).lower()
    if name.startswith("cuda:"):
        if name != "cuda:0":
            raise DeviceError(f"device {device!r}: tinyffn uses one GPU; pass 'cuda' or 'cuda:0'")
        name = "cuda"
    if name not in _FACTORIES:
        hint = ""
        try:
            hint = f" ({np.dtype(name).name} is a dtype: pass dtype={name!r})"
        except TypeError:
            if name.startswith("torch."):
                hint = f" ({name} is PyTorch's dtype: pass NumPy's, such as np.{name[6:]})"
        raise DeviceError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}"
                          + hint)
    return name


@functools.lru_cache(maxsize=None)
def _backend(name: str) -> Backend:
    return _FACTORIES[name]()


def get_backend(device: Any = "cpu") -> Backend:
    """The :class:`Backend` for a device name; raises :class:`DeviceError` if unusable."""
    return _backend(normalize_device(device))


def native_byte_order(array: Any) -> Any:
    """A NumPy array in this machine's byte order: a '>f4' one (np.load of a file written
    big-endian) becomes float32, as every op's result is; any other array as it is."""
    dtype = getattr(array, "dtype", None)
    if isinstance(dtype, np.dtype) and not dtype.isnative:
        return array.astype(dtype.newbyteorder("="))
    return array


def backend_of_array(x: Any) -> Backend:
    """The backend owning array ``x``, judged by the package that defines its type."""
    if isinstance(x, (np.ndarray, np.generic)):
        return _backend("cpu")
    package = type(x).__module__.split(".")[0]
    name = {"cupy": "cuda", "array_api_strict": "strict"}.get(package)
    if name is None:
        raise DeviceError(f"tinyffn cannot hold an array of type {type(x).__name__} "
                          f"(from {package}); pass a NumPy or CuPy array, or build the "
                          "tensor with tinyffn.tensor(...), which also takes lists and numbers")
    return _backend(name)


def numpy_or_native(data: Any) -> Any:
    """``data`` unchanged, unless it is an array of another library tinyffn knows (CuPy,
    array_api_strict): then a NumPy copy of it, for :func:`tinyffn.tensor` to read."""
    if isinstance(data, (np.ndarray, np.generic)):
        return data
    if hasattr(data, "__array_namespace__") or type(data).__module__.split(".")[0] == "cupy":
        return backend_of_array(data).to_numpy(data)
    return data


def _is_loaded(name: str) -> bool:
    try:
        _backend(name)
    except DeviceError:
        return False
    return True


def cuda_available() -> bool:
    """True if CuPy is installed and can compute on a GPU (see :func:`_cupy_backend`)."""
    return _is_loaded("cuda")
