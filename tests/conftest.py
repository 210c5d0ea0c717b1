"""Shared fixtures: every test that takes ``device`` runs once per available backend.

* ``cpu``: NumPy.
* ``strict``: array-api-strict on the CPU, which rejects any call outside the array API
  standard, so NumPy-only code in an op fails here even on a machine without a GPU.
* ``cuda``: CuPy; skipped unless a GPU is usable (enable on a GPU machine, nothing to set).
"""
import pytest

import tinyffn

DEVICES = [
    "cpu",
    "strict",
    pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
        not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not available")]),
]


@pytest.fixture(params=DEVICES)
def device(request):
    """A device name; the test runs once on each backend."""
    return request.param


@pytest.fixture(autouse=True)
def _seeded():
    """Every test starts from the same random state."""
    tinyffn.manual_seed(0)
