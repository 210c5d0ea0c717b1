"""Shared fixtures: every test that takes ``device`` runs once per available backend.

* ``cpu``: NumPy.
* ``strict``: array-api-strict on the CPU, which rejects any call outside the array API
  standard, so NumPy-only code in an op fails here even on a machine without a GPU. For
  the tests it also refuses ``np.asarray(array)``, as CuPy does (see below).
* ``cuda``: CuPy; skipped unless a GPU is usable (enable on a GPU machine, nothing to set).
  With ``TINYFFN_FAKE_CUDA=1`` it is a stand-in made of NumPy instead, to rehearse the
  GPU tests' own logic without a GPU (tests/fake_cuda.py; it proves nothing about CuPy).
"""
import os
import zlib

import numpy as np
import pytest

import tinyffn

if os.environ.get("TINYFFN_FAKE_CUDA") == "1":
    import fake_cuda
    fake_cuda.install()
    _cuda_case = fake_cuda._cuda_case       # its autouse fixture, found here by pytest

DEVICES = [
    "cpu",
    "strict",
    pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
        not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not available")]),
]


def _refuse_implicit_numpy_conversion():
    """CuPy raises TypeError on ``np.asarray(gpu_array)``: a copy to the host must be asked
    for (``.numpy()``). array_api_strict lets it through on the CPU, so code that works on
    the strict backend could still fail on a GPU. For the test session, its arrays refuse
    it too (``__array__`` and, which NumPy tries first on Python 3.12, ``__buffer__``);
    tinyffn's own crossings use DLPack (``np.from_dlpack``), which both libraries allow."""
    try:
        from array_api_strict._array_object import Array
    except ImportError:
        return

    def refuse(self, *args, **kwargs):
        raise TypeError("implicit conversion of an array_api_strict array to NumPy; CuPy "
                        "refuses this for GPU arrays: convert explicitly (Tensor.numpy(), "
                        "Backend.to_numpy)")
    Array.__array__ = refuse
    if hasattr(Array, "__buffer__"):
        Array.__buffer__ = refuse


_refuse_implicit_numpy_conversion()


@pytest.fixture(params=DEVICES)
def device(request):
    """A device name; the test runs once on each backend."""
    return request.param


@pytest.fixture(autouse=True)
def _seeded(request):
    """Every test starts from the same random state: tinyffn's generator, and a file's
    module-level NumPy generator (``rng`` or ``RNG``), drawn anew from the test's own id,
    so a test's data do not depend on which tests ran before it in its worker (with -n 2
    that order changes from run to run)."""
    tinyffn.manual_seed(0)
    for name in ("rng", "RNG"):
        if isinstance(getattr(request.module, name, None), np.random.Generator):
            setattr(request.module, name,
                    np.random.default_rng(zlib.crc32(request.node.nodeid.encode())))
