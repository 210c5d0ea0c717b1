"""PyTorch idioms that ported programs write and tinyffn once answered with Python's own
errors: the short dtype names (``tinyffn.long``), a tensor as an index (``d[i:i + 8]``),
``load_state_dict``'s named result, ``Parameter(t, requires_grad=False)`` and ``p.data =
t``, ``x.to(device, non_blocking=True)``, ``device("cuda", 0)``, ``F.softmax(x, -1,
dtype=...)``, ``tinyffn.cuda``'s seeds and ``synchronize``, ``x.clip`` and the in-place
forms (``x.clamp_``), ``grad(outputs=...)`` and ``backward(inputs=...)``, ``where(c)`` and
``nonzero``. Each against PyTorch 2.13's values written out, and live where torch is
installed.
"""
import operator
import subprocess
import sys

import numpy as np
import pytest

import tinyffn
from tinyffn import nn
import tinyffn.functional as F


# ----------------------------------------------------------------------------- dtype names
SHORT_DTYPES = {"long": "int64", "float": "float32", "double": "float64", "half": "float16",
                "int": "int32", "short": "int16"}       # str(torch.long) is "torch.int64", ...


def test_the_short_dtype_names_are_pytorchs():
    for short, full in SHORT_DTYPES.items():
        assert getattr(tinyffn, short) == np.dtype(full) == getattr(tinyffn, full)


def test_the_short_dtype_names_match_torch_live():
    torch = pytest.importorskip("torch")
    for short, full in SHORT_DTYPES.items():
        assert str(getattr(torch, short)) == f"torch.{full}"


def test_every_dtype_argument_takes_the_short_names(device):
    assert tinyffn.tensor([1.5, 2.0], dtype=tinyffn.long, device=device).tolist() == [1, 2]
    assert tinyffn.zeros(2, dtype=tinyffn.double, device=device).numpy().dtype == np.float64
    assert tinyffn.ones(2, device=device).to(tinyffn.long).numpy().dtype == np.int64
    assert tinyffn.ones(2, device=device).to(dtype=tinyffn.int).numpy().dtype == np.int32
    i = tinyffn.randint(0, 5, (3,), dtype=tinyffn.long, device=device)
    assert i.numpy().dtype == np.int64 and i.shape == (3,)
    assert tinyffn.arange(3, dtype=tinyffn.short, device=device).numpy().dtype == np.int16
    assert tinyffn.randn(2, dtype=tinyffn.float, device=device).numpy().dtype == np.float32
    if device != "strict":                       # the array API standard has no float16
        assert tinyffn.ones(2, device=device).half().dtype == tinyffn.half


def test_the_short_names_stay_out_of_import_star():
    namespace = {}
    exec("from tinyffn import *\nfound = float('1.5'), int('2')", namespace)
    assert namespace["found"] == (1.5, 2)        # Python's float and int stay
    assert not {"long", "float", "double", "half", "int", "short"} & set(tinyffn.__all__)
