"""PyTorch's top-level names for the decompositions of :mod:`tinyffn.linalg`: ``det``,
``slogdet`` and ``inverse`` (aliases of ``linalg.det``, ``linalg.slogdet``, ``linalg.inv``),
and the older ``svd(input, some=True, compute_uv=True)``, which returns V, not Vh.
"""
from __future__ import annotations

from typing import NamedTuple

from . import linalg
from .tensor import Tensor


class SVDLegacyResult(NamedTuple):
    U: Tensor
    S: Tensor
    V: Tensor


def det(input):
    """The determinant of each square matrix, as ``torch.det`` (``linalg.det``)."""
    return linalg.det(input)


def slogdet(input):
    """(sign, logabsdet), as ``torch.slogdet`` (``linalg.slogdet``)."""
    return linalg.slogdet(input)


def inverse(input):
    """A^{-1}, as ``torch.inverse`` (``linalg.inv``); a singular A raises
    ``linalg.LinAlgError``."""
    return linalg.inv(input)


def svd(input, some=True, compute_uv=True):
    """input = U diag(S) V^T, as ``torch.svd``: a named tuple (U, S, V) with V, not
    ``linalg.svd``'s Vh; ``some=True`` gives the reduced U (..., m, k) and V (..., n, k),
    ``some=False`` the full ones. With ``compute_uv=False``, U (..., m, m) and V (..., n, n)
    are zeros (``some`` has no effect), as PyTorch's, and S is ``linalg.svdvals``."""
    if not compute_uv:
        S = linalg.svdvals(input)
        m, n = input.shape[-2:]
        batch = input.shape[:-2]
        return SVDLegacyResult(input.new_zeros(*batch, m, m), S, input.new_zeros(*batch, n, n))
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return SVDLegacyResult(U, S, Vh.mT)


__all__ = ["det", "slogdet", "inverse", "svd"]
