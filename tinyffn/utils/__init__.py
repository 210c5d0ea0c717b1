"""``tinyffn.utils``, as ``torch.utils``: :mod:`tinyffn.utils.data` (``TensorDataset``,
``DataLoader``), batches of tensors held in memory for a training loop, and
:mod:`tinyffn.utils.checkpoint`, activation checkpointing (memory for a rerun of the forward).

A package, as torch's, so that ``import tinyffn.utils.data`` and ``from tinyffn.utils.data
import DataLoader`` work as they do with torch.
"""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
