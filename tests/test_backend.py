"""The backend module: device names, dtype names, the malloc setting."""
import platform

import numpy as np
import pytest

from tinyffn import backend


def test_device_names_normalise():
    assert backend.normalize_device("CPU") == "cpu"
    assert backend.normalize_device("cuda:0") == "cuda"
    with pytest.raises(backend.DeviceError, match="tinyffn uses one GPU"):
        backend.normalize_device("cuda:1")


def test_dtype_names_across_backends():
    strict = backend.get_backend("strict")
    assert backend.dtype_name(np.float32) == "float32"
    assert backend.dtype_name(strict.xp.float64) == "float64"
    assert strict.dtype("float32") == strict.xp.float32
    assert strict.is_floating(strict.xp.float32) and not strict.is_floating(strict.xp.int64)


def test_keep_freed_memory_respects_the_switch(monkeypatch):
    monkeypatch.setenv("TINYFFN_KEEP_FREED_MEMORY", "0")
    assert backend.keep_freed_memory() is False
    monkeypatch.delenv("TINYFFN_KEEP_FREED_MEMORY")
    on_glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert backend.keep_freed_memory() is on_glibc
