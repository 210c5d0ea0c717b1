"""``tinyffn.cuda``: PyTorch's ``torch.cuda`` names that a ported program calls.

``is_available()``, so that the line ``device = "cuda" if torch.cuda.is_available() else
"cpu"`` ports by its first word; ``manual_seed`` and ``manual_seed_all``, which seed
tinyffn's one generator (random numbers are drawn on the CPU and then moved, so there is
no GPU generator of its own); and ``synchronize()``, which waits for the GPU, as before
reading a clock around GPU work. Only :mod:`tinyffn.backend` touches CuPy.

PyTorch's ``torch.cuda.device_count()`` is left out on purpose: tinyffn computes on one
GPU (device ``"cuda"``, also written ``"cuda:0"``), so the number of GPUs a machine has
would not say which devices tinyffn can use.
"""
import sys
from typing import Any

from . import generators
from .arguments import _is_int
from .backend import cuda_available, get_backend

__all__ = ["is_available", "manual_seed", "manual_seed_all", "synchronize"]


def is_available() -> bool:
    """Whether CuPy is installed and can compute on a GPU: ``tinyffn.cuda_available()``."""
    return cuda_available()


def manual_seed(seed: int) -> None:
    """``tinyffn.manual_seed(seed)``, as ``torch.cuda.manual_seed``, without a GPU too.

    PyTorch's seeds the GPU's generator alone; tinyffn has one generator, on the CPU,
    whose numbers every device receives, so this seeds that one, for CPU draws as well.
    """
    generators.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """``manual_seed(seed)``: tinyffn uses one GPU (``torch.cuda.manual_seed_all``)."""
    generators.manual_seed(seed)


def synchronize(device: Any = None) -> None:
    """Wait until the GPU has finished every computation queued on it, as
    ``torch.cuda.synchronize()``: CuPy, like PyTorch, returns from an op before the GPU
    has run it, so time GPU work between two calls of this. ``device``: None, 0,
    ``"cuda"`` or ``"cuda:0"``. Without a usable GPU it raises the :class:`DeviceError`
    that says why (PyTorch raises there too)."""
    name = "cuda" if device is None else f"cuda:{device}" if _is_int(device) else device
    if str(name).split(":")[0].lower() != "cuda":
        raise ValueError(f"synchronize: waits for the GPU; device must be None, 0, 'cuda' "
                         f"or 'cuda:0', got {device!r}")
    get_backend(name).synchronize()


def __getattr__(name: str) -> Any:
    """The AttributeError for ``torch.cuda`` names a ported script reaches for and tinyffn
    leaves out on purpose says what to write instead (only a missing name comes here)."""
    hints = {
        "amp": "torch.cuda.amp is PyTorch's deprecated spelling of torch.amp: write "
               "tinyffn.amp.GradScaler('cuda', ...) and tinyffn.autocast('cuda', ...)",
        "is_bf16_supported": "tinyffn has no bfloat16 on any device (NumPy and CuPy have "
                             "none): choose float16 or float32",
        "device_count": "tinyffn computes on one GPU, device 'cuda' ('cuda:0'); ask "
                        "tinyffn.cuda.is_available() whether it can",
    }
    if name in hints:
        raise AttributeError(f"module 'tinyffn.cuda' has no attribute {name!r}: {hints[name]}")
    raise AttributeError(f"module 'tinyffn.cuda' has no attribute {name!r}", name=name,
                         obj=sys.modules[__name__])     # name, obj: Python's "Did you mean"
