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
sorting and synchronisation are not exercised. Nor can it tell a CPU array from a GPU
one: while a cuda case runs, every NumPy array counts as a "cuda" one (below), so
``Tensor(np_array)`` or ``Parameter(np_array)`` without ``device=`` is "cuda" here and
CPU on a GPU, and an optimizer state or op result left on the CPU passes here. Only a
run on a GPU (``benchmarks/gpu_check.sh``) says the CUDA backend works.

How: the ``cuda`` backend factory returns the NumPy backend under the name ``cuda``, and
while a test's parameters include ``"cuda"``, a NumPy array's owner is that backend
(``backend_of_array``, also where optim.py and naming.py imported it by name).
"""
import dataclasses

import numpy as np
import pytest

from tinyffn import backend as B

_IN_A_CUDA_TEST = {"now": False}
_real_backend_of_array = B.backend_of_array


def _fake_cuda_backend():
    from array_api_compat import numpy as compat_numpy
    return dataclasses.replace(B._numpy_backend(), device=B.device("cuda"), xp=compat_numpy)


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
