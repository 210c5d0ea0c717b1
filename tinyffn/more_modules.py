"""Three small modules ported notebooks build models from, each calling a function of its
name, as ``torch.nn``'s: ``Unflatten`` (:func:`tinyffn.unflatten`, the inverse of
``nn.Flatten``), ``CosineSimilarity`` and ``PairwiseDistance`` (:mod:`tinyffn.distances`).
Reached as ``tinyffn.nn.Unflatten``, ...; they hold no parameters.
"""
from __future__ import annotations

from .arguments import _is_int
from .distances import cosine_similarity, pairwise_distance
from .module import Module
from .tensor import Tensor


class Unflatten(Module):
    """Axis ``dim`` split into axes of ``unflattened_size``, as ``torch.nn.Unflatten``:
    (B, T·d) with Unflatten(1, (T, d)) becomes (B, T, d). One ``reshape``."""

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        if not _is_int(dim) or isinstance(dim, bool):
            raise TypeError(f"Unflatten: dim must be an int (an axis), got {dim!r}")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                _is_int(n) and not isinstance(n, bool) for n in unflattened_size):
            raise TypeError("Unflatten: unflattened_size must be a tuple or list of ints, "
                            f"got {unflattened_size!r}")
        self.dim, self.unflattened_size = dim, unflattened_size    # printed as given, as torch

    def forward(self, x: Tensor) -> Tensor:
        return x.unflatten(self.dim, tuple(self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class CosineSimilarity(Module):
    """cos(x1, x2) along ``dim``, as ``torch.nn.CosineSimilarity``
    (:func:`tinyffn.cosine_similarity`; each norm clamped to at least ``eps``)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """‖x1 − x2 + eps‖_p along the last axis, as ``torch.nn.PairwiseDistance``
    (:func:`tinyffn.pairwise_distance`)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim        # torch's attribute names

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


__all__ = ["Unflatten", "CosineSimilarity", "PairwiseDistance"]
