"""``tinyffn.utils``, as ``torch.utils``: its one submodule, :mod:`tinyffn.utils.data`
(``TensorDataset``, ``DataLoader``), batches of tensors held in memory for a training loop.

A package, as torch's, so that ``import tinyffn.utils.data`` and ``from tinyffn.utils.data
import DataLoader`` work as they do with torch.
"""
from . import data

__all__ = ["data"]
