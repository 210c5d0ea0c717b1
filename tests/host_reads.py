"""Counting the strict backend's reads from the device to the host, for the tests that
pin how many a forward, a backward or a training step makes.

On a GPU each read (``bool(x)``, ``int(x)``, ``x.item()``, ``tolist``, ``nonzero``, a
bool-mask index, a copy to NumPy) waits for the queued kernels to finish: the Python
thread stalls until the GPU catches up. array_api_strict, unlike NumPy, lets these be
wrapped; the op code is the same on every backend, so the strict backend's count is the
count on CuPy, except where array_api_compat wraps CuPy differently: its CuPy ``clip``
and ``sign`` go through boolean masks, a read each on a GPU, so op code uses neither (the
GPU stand-in, fake_cuda.py, has those wrappers and counts their reads: test_backend.py).
"""
import collections
import contextlib

import pytest

from tinyffn.backend import get_backend


@contextlib.contextmanager
def counting_host_reads():
    """A Counter of the strict backend's reads to the host while the block runs, by kind:
    ``scalar`` (``bool``, ``int``, ``float``, ``index`` of an array), ``array`` (the
    backend's ``to_numpy``: ``tolist``, ``item``, ``numpy``), ``nonzero``, and ``bool
    mask`` (an index whose result's size depends on the data). The op code's own NumPy
    round trips (scatter-add, erf) call ``np.from_dlpack`` directly, as CuPy needs none,
    so they are not counted::

        with counting_host_reads() as reads:
            y = x.index_select(0, idx)
        assert dict(reads) == {"scalar": 1}
    """
    array_api_strict = pytest.importorskip("array_api_strict")
    from array_api_strict._array_object import Array
    reads = collections.Counter()

    def counted(kind, fn):
        def wrapper(*args, **kwargs):
            reads[kind] += 1
            return fn(*args, **kwargs)
        return wrapper

    getitem = Array.__getitem__

    def masked_getitem(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, Array) and k.dtype == array_api_strict.bool for k in keys):
            reads["bool mask"] += 1
        return getitem(self, key)

    with pytest.MonkeyPatch.context() as patch:
        for name in ("__bool__", "__int__", "__float__", "__index__"):
            patch.setattr(Array, name, counted("scalar", getattr(Array, name)))
        patch.setattr(array_api_strict, "nonzero", counted("nonzero", array_api_strict.nonzero))
        patch.setattr(Array, "__getitem__", masked_getitem)
        strict = get_backend("strict")                  # a frozen dataclass: set in its dict
        patch.setitem(vars(strict), "to_numpy", counted("array", strict.to_numpy))
        yield reads
