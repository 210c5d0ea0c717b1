"""``tinyffn.cuda.is_available()``, as ``torch.cuda.is_available()``, so that the line
``device = "cuda" if torch.cuda.is_available() else "cpu"`` ports by its first word.

It is :func:`tinyffn.cuda_available` under PyTorch's name; only :mod:`tinyffn.backend`
touches CuPy. PyTorch's ``torch.cuda.device_count()`` is left out on purpose: tinyffn
computes on one GPU (device ``"cuda"``, also written ``"cuda:0"``), so the number of GPUs
a machine has would not say which devices tinyffn can use.
"""
from .backend import cuda_available

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether CuPy is installed and can compute on a GPU: ``tinyffn.cuda_available()``."""
    return cuda_available()
