"""``set_default_dtype`` and ``get_default_dtype``: the float dtype of what is made without one
(and ``set_float32_matmul_precision``, PyTorch's switch for faster float32 products, which
tinyffn records and never needs).

``tensor(1.5)``, ``tensor([1, 2.5])``, ``zeros``/``ones``/``empty``/``randn``/``rand``,
``full`` with a float, ``arange`` with a float argument, ``linspace``, ``eye``, an integer
tensor meeting a Python float (``int_tensor * 2.5``), an integer result that cannot stay
an integer (``int_tensor / int_tensor``, ``exp``, ``sqrt``), and the parameters of the
modules (``nn.Linear``, ``nn.LayerNorm``, ``nn.Embedding``, ...) built without ``dtype=``
all take the default float dtype, float32 unless set otherwise. Arrays (``np.float32``
ones, tensors) keep their dtype, as in PyTorch. The setting is one field,
:data:`tinyffn.backend.DEFAULTS`.float, read when each of those runs; like PyTorch's it is
process-wide, and a test that changes it should set it back::

    tinyffn.set_default_dtype(tinyffn.float64)     # float64 from here on, as in GP code
    tinyffn.tensor([1, 2.5]).dtype                 # float64
    tinyffn.set_default_dtype(tinyffn.float32)     # back to the default
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .arguments import check_choice
from .backend import DEFAULTS, FLOAT_DTYPES, dtype_name


def set_default_dtype(d: Any) -> None:
    """Make ``d`` the default float dtype, as ``torch.set_default_dtype``.

    ``d`` is a floating dtype as ``dtype=`` takes it everywhere: ``tinyffn.float64``,
    ``"float64"`` or ``np.float64`` (PyTorch takes only its dtype objects). float16, float32
    and float64 are accepted; an integer or complex dtype raises TypeError, as in PyTorch
    (which also takes bfloat16, a dtype tinyffn does not have)."""
    try:
        if d is None:                   # np.dtype(None) is float64
            raise TypeError("None is not a dtype")
        name = dtype_name(d)
    except TypeError as e:
        raise TypeError(f"set_default_dtype: expected a floating dtype such as tinyffn.float64 "
                        f"or 'float64', got {d!r}") from e
    if name not in FLOAT_DTYPES:
        raise TypeError(f"set_default_dtype: only floating dtypes can be the default, "
                        f"{', '.join(FLOAT_DTYPES)}; got {name}")
    if name != DEFAULTS.float:
        from . import promotion         # its shared constants (the 0.5 in int_tensor * 0.5)
        promotion.forget_numbers()      # were made in the old default
        DEFAULTS.float = name


def get_default_dtype() -> np.dtype:
    """The default float dtype, as ``torch.get_default_dtype``: ``tinyffn.float32`` unless
    :func:`set_default_dtype` changed it (a NumPy dtype, as ``x.dtype`` is)."""
    return np.dtype(DEFAULTS.float)


_MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = ["highest"]         # a list, so that the setter needs no `global`


def set_float32_matmul_precision(precision: str) -> None:
    """Record how precise float32 matrix products must be, as
    ``torch.set_float32_matmul_precision``, which training scripts call first thing
    (``"high"`` in Karpathy's build-nanogpt): ``"highest"`` (float32 throughout, the
    default), ``"high"`` or ``"medium"``, which *allow* TensorFloat32 or bfloat16 products
    where fast ones exist. tinyffn has none (NumPy and CuPy multiply float32 in float32),
    so every setting gives the ``"highest"`` results, as PyTorch's do on hardware without
    TF32 (CuPy multiplies in TF32 only if ``CUPY_TF32=1`` is set in the environment,
    whatever this says). Anything else raises; PyTorch warns and keeps the old setting."""
    check_choice("set_float32_matmul_precision", "precision", precision, _MATMUL_PRECISIONS,
                 "the setting is a name, lower case, as PyTorch's")
    _matmul_precision[0] = precision


def get_float32_matmul_precision() -> str:
    """The setting :func:`set_float32_matmul_precision` recorded, ``"highest"`` until
    then, as ``torch.get_float32_matmul_precision``."""
    return _matmul_precision[0]


__all__ = ["set_default_dtype", "get_default_dtype", "set_float32_matmul_precision",
           "get_float32_matmul_precision"]


def list_dtype(data: Any) -> Any:
    """The dtype ``torch.tensor`` infers for a list or tuple that holds NumPy numbers
    (``[np.float32(1), 2]``), else None (pure Python numbers: NumPy's reading, then the
    default float, is PyTorch's already).

    PyTorch promotes the elements' types one by one: a Python bool is bool, an int
    int64, a float the default float dtype, a NumPy scalar or array its own dtype; a
    float beats any integer and an integer any bool, whatever their widths, and two of
    one kind meet as NumPy's ``promote_types`` says. So ``[np.float32(1), 2]`` is
    float32, which NumPy's own reading (float64) is not.
    """
    dtypes, has_numpy = set(), False
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, (np.generic, np.ndarray)) and v.dtype.kind in "biuf":
            dtypes.add(v.dtype)         # first: np.float64 is a Python float too
            has_numpy = True
        elif isinstance(v, bool):
            dtypes.add(np.dtype(bool))
        elif isinstance(v, int):
            dtypes.add(np.dtype(np.int64))
        elif isinstance(v, float):
            dtypes.add(np.dtype(DEFAULTS.float))
        else:
            return None                 # complex, strings, other arrays: NumPy's reading
    if not has_numpy:
        return None
    kind = max(dtypes, key=lambda d: "biuf".index(d.kind) if d.kind != "u" else 1).kind
    kind = "iu" if kind in "iu" else kind
    result = None
    for d in dtypes:
        if d.kind in kind:
            result = d if result is None else np.promote_types(result, d)
    return result
