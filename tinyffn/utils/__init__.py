"""``tinyffn.utils``, as ``torch.utils``: :mod:`tinyffn.utils.data` (``TensorDataset``,
``DataLoader``, the samplers and the datasets that combine others), batches for a training
loop (the last two from ``sampler.py`` and ``dataset.py`` beside it), and
:mod:`tinyffn.utils.checkpoint`, activation checkpointing (memory for a rerun of the forward).

A package, as torch's, so that ``import tinyffn.utils.data`` and ``from tinyffn.utils.data
import DataLoader`` work as they do with torch.
"""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
