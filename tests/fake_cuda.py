"""A stand-in GPU, to rehearse the GPU tests on a machine that has none.

    TINYFFN_FAKE_CUDA=1 python -m pytest -m cuda        (tests/conftest.py installs it)

Device ``"cuda"`` becomes NumPy seen through ``array_api_compat.numpy``, the sibling of
the ``array_api_compat.cupy`` namespace the real CUDA backend computes with. The tests
parametrised over ``device`` then run their ``cuda`` case: its device arguments, moves
(``.cuda()``, ``.to``, ``map_location``), device-mixing errors, dtypes and tolerances.
A test that would fail on a GPU for a reason of its own (a tensor made by
``tinyffn.tensor`` or ``zeros`` without ``device=``, a file's device assumed to be the
CPU) fails here first, before scarce GPU time is spent on it; two such tests were found
this way.

It proves nothing about CuPy: the arrays are NumPy's, so CuPy's own kernels, rounding,
sorting and synchronisation are not exercised. Two CuPy behaviours that differ from NumPy
in kind, not in rounding, are imitated, so code that relies on NumPy's behaviour fails
here: ``cupy.linalg.cholesky`` does not raise on a matrix that is not positive-definite
(unless inside ``cupyx.errstate(linalg="raise")``, the backend's ``raising_linalg``) and
returns a factor cuSOLVER leaves unspecified, here one that looks valid; ``inv`` and
``solve`` of a singular matrix do not raise either (here they return NaN); and
``cupyx.scipy.special``'s ``i0e``/``i1e`` are ``exp(-|x|) * i0(x)`` (CuPy 13's
definition), NaN or 0 where I0 overflows, and its ``digamma`` (so ``polygamma(0, .)``) is
-inf at -0.0, where SciPy's is +inf; its ``k0e``/``k1e`` are ``exp(x) * k0(x)``, and it
has no ``airy``. And where array_api_compat wraps CuPy differently from NumPy, the
stand-in has CuPy's wrapper: its ``clip`` writes each bound through a boolean mask and its
``sign`` sets NaN through one (CuPy's sign gives 0 there), and on a GPU every boolean mask
reads its count back from the device, a wait that NumPy and array_api_strict do not make;
the stand-in counts them in :data:`HOST_READS`. Nor can it tell a CPU array from a GPU
one: while a cuda case runs, every NumPy array counts as a "cuda" one (below), so
``Tensor(np_array)`` or ``Parameter(np_array)`` without ``device=`` is "cuda" here and
CPU on a GPU, and an optimizer state or op result left on the CPU passes here. Only a
run on a GPU (``benchmarks/gpu_check.sh``) says the CUDA backend works.

How: the ``cuda`` backend factory returns the NumPy backend under the name ``cuda``, and
while a test's parameters include ``"cuda"``, a NumPy array's owner is that backend
(``backend_of_array``, also where optim.py and naming.py imported it by name).
"""
import collections
import contextlib
import dataclasses
import types

import numpy as np
import pytest
from scipy import special as scipy_special

from tinyffn import backend as B

_IN_A_CUDA_TEST = {"now": False}
_real_backend_of_array = B.backend_of_array


_RAISING_LINALG = {"now": False}


@contextlib.contextmanager
def _raising_linalg():
    """``cupyx.errstate(linalg="raise")``: CuPy's linalg checks cuSOLVER's info and raises."""
    before, _RAISING_LINALG["now"] = _RAISING_LINALG["now"], True
    try:
        yield
    finally:
        _RAISING_LINALG["now"] = before


def _cupy_like_cholesky(a):
    """``cupy.linalg.cholesky``: NumPy's, raising LinAlgError only under
    :func:`_raising_linalg`; otherwise a matrix that is not positive-definite gets an
    unspecified factor, here the worst case: its lower triangle with a positive diagonal."""
    if _RAISING_LINALG["now"]:
        return np.linalg.cholesky(a)
    n = a.shape[-1]
    flat = np.reshape(a, (-1, n, n))
    out = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            out[i] = np.tril(m)
            np.fill_diagonal(out[i], np.abs(np.diagonal(m)) + 1)
    return np.reshape(out, a.shape)


def _cupy_like_inverse(fn):
    """``cupy.linalg.inv`` / ``solve``: NumPy's, raising LinAlgError on a singular matrix
    only under :func:`_raising_linalg`; otherwise NaN, of the shape of the last argument
    (cuSOLVER divides by its zero pivot)."""
    def unchecked(*args):
        try:
            return fn(*args)
        except np.linalg.LinAlgError:
            if _RAISING_LINALG["now"]:
                raise
            return np.full_like(args[-1], np.nan)
    return unchecked


def _digamma_as_cupy(x):
    """``cupyx.scipy.special.digamma`` (CuPy 13, Cephes's psi): -inf at -0.0 as at +0.0
    (its ``x == 0`` test), where SciPy and PyTorch give +inf."""
    return np.where(x == 0, -np.inf, scipy_special.digamma(x)).astype(x.dtype)


def _polygamma_as_cupy(n, x):
    """``cupyx.scipy.special.polygamma``: ``where(n == 0, digamma(x), ...)``, CuPy's digamma."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.where(n == 0, _digamma_as_cupy(x), scipy_special.polygamma(n, x))


def _scaled_bessel_as_cupy(i):
    """``cupyx.scipy.special.i0e`` (``i1e``): ``exp(-abs(x)) * i0(x)``, in x's dtype."""
    def scaled(x):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.exp(-np.abs(x)) * i(x)
    return scaled


def _scaled_k_as_cupy(k):
    """``cupyx.scipy.special.k0e`` (``k1e``): ``exp(x) * k0(x)``, inf or NaN past x = 709."""
    def scaled(x):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.exp(x) * k(x)
    return scaled


# The reads from the device that CuPy would make and NumPy does not, by kind: "bool mask"
# (an index or an assignment through a boolean mask: CuPy counts the mask's True entries
# on the device and reads the count back, _prepare_mask_indexing_single)
HOST_READS: collections.Counter = collections.Counter()


def _clip_as_cupy(x, /, min=None, max=None):
    """array_api_compat's ``clip`` for CuPy (its generic one; NumPy gets np.clip): x
    copied, then per bound ``out[mask] = bound[mask]``, two boolean-mask reads on a GPU."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in (x, min, max) if v is not None))
    out = np.array(np.broadcast_to(x, shape), copy=True)
    for bound, beyond in ((min, np.less), (max, np.greater)):
        if bound is not None:
            b = np.broadcast_to(np.asarray(bound, dtype=x.dtype), shape)
            mask = beyond(out, b) | np.isnan(b)
            HOST_READS["bool mask"] += 2                  # b[mask], then out[mask] = ...
            out[mask] = b[mask]
    return out[()]


def _sign_as_cupy(x):
    """array_api_compat's ``sign`` for CuPy: CuPy's sign (0 at NaN), then, for a float x,
    ``out[isnan(x)] = nan``: one boolean-mask read on a GPU."""
    out = np.array(np.sign(x))
    if np.issubdtype(out.dtype, np.floating):
        HOST_READS["bool mask"] += 1
        out[np.isnan(x)] = np.nan
    return out[()]


class _Namespace(types.ModuleType):
    """A module's names, some replaced."""

    def __init__(self, base, **replaced):
        super().__init__(base.__name__)
        self._base = base
        self.__dict__.update(replaced)

    def __getattr__(self, name):
        return getattr(self._base, name)


def _fake_cuda_backend():
    from array_api_compat import numpy as compat_numpy
    xp = _Namespace(compat_numpy, clip=_clip_as_cupy, sign=_sign_as_cupy, linalg=_Namespace(
        compat_numpy.linalg, cholesky=_cupy_like_cholesky,
        inv=_cupy_like_inverse(compat_numpy.linalg.inv),
        solve=_cupy_like_inverse(compat_numpy.linalg.solve)))
    special = _Namespace(scipy_special, i0e=_scaled_bessel_as_cupy(scipy_special.i0),
                         i1e=_scaled_bessel_as_cupy(scipy_special.i1),
                         digamma=_digamma_as_cupy, polygamma=_polygamma_as_cupy,
                         k0e=_scaled_k_as_cupy(scipy_special.k0),
                         k1e=_scaled_k_as_cupy(scipy_special.k1), airy=None)
    return dataclasses.replace(B._numpy_backend(), device=B.device("cuda"), xp=xp,
                               special=lambda name: B._special(special, name),
                               raising_linalg=_raising_linalg)


def _backend_of_array(x):
    if _IN_A_CUDA_TEST["now"] and isinstance(x, (np.ndarray, np.generic)):
        return B._backend("cuda")
    return _real_backend_of_array(x)


def install() -> None:
    """Make device "cuda" the stand-in (before anything asks whether a GPU is usable)."""
    import tinyffn.naming
    import tinyffn.optim
    B._FACTORIES["cuda"] = _fake_cuda_backend
    B._backend.cache_clear()
    for module in (B, tinyffn.optim, tinyffn.naming):
        module.backend_of_array = _backend_of_array


@pytest.fixture(autouse=True)
def _cuda_case(request):
    """Whether the running test is a ``cuda`` case (its parameters hold "cuda")."""
    spec = getattr(request.node, "callspec", None)
    _IN_A_CUDA_TEST["now"] = spec is not None and "cuda" in map(str, spec.params.values())
    yield
    _IN_A_CUDA_TEST["now"] = False
