"""Similarities and distances between vectors, as PyTorch names them: the cosine of the
angle between rows (``F.cosine_similarity``, how an analysis compares an FFN's value
vectors, the columns of W2), the distance between paired rows (``F.pairwise_distance``)
and every distance between two sets of rows (``tinyffn.cdist``).

Composed: each is a norm (:func:`tinyffn.linalg.vector_norm`) of broadcast differences or
of rows divided by their norms, in a frame of its name, so the graph shows what it is
made of and the gradient follows from the primitives' (0 where a norm is 0, as
PyTorch's). :mod:`tinyffn.functional` re-exports the first two, :mod:`tinyffn` all three.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import grad_mode
from .arguments import _is_int, is_real, tensor_arg
from .backend import dtype_name
from .linalg import vector_norm


def _floats(op: str, **tensors: Any) -> list:
    for name, x in tensors.items():
        tensor_arg(op, name, x)
        if not x.backend.is_floating(x.dtype):
            raise TypeError(f"{op}: {name} has dtype {dtype_name(x.dtype)}; {op} needs "
                            "floating-point tensors, as in PyTorch: call x.float() first")
    return list(tensors.values())


def _broadcast(op: str, shape1: tuple, shape2: tuple) -> tuple:
    try:
        return np.broadcast_shapes(shape1, shape2)
    except ValueError:
        raise ValueError(f"{op}: shapes {shape1} and {shape2} cannot be broadcast "
                         "together; each trailing axis must match or be 1") from None


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cos θ = x1 · x2 / (‖x1‖ ‖x2‖) along ``dim``, as ``F.cosine_similarity``: x1 and x2
    broadcast (``cosine_similarity(w.unsqueeze(1), w.unsqueeze(0), dim=-1)``, the (n, n)
    table of every pair of rows of w), and ``dim`` goes. Computed as PyTorch 2's: each
    tensor divided by its norm, then the products summed, so the result stays in [-1, 1]
    up to rounding. Each norm is raised to ``eps`` where it is smaller, outside the graph
    (as PyTorch's clamp runs under no_grad), so a zero row gives 0 and its gradient is
    that of x / eps."""
    x1, x2 = _floats("cosine_similarity", x1=x1, x2=x2)
    shape = _broadcast("cosine_similarity", x1.shape, x2.shape)
    if not _is_int(dim) or not -len(shape) <= dim < len(shape):
        raise ValueError(f"cosine_similarity: dim must be an axis of the broadcast shape "
                         f"{shape}, got {dim!r}")
    if not is_real(eps) or eps < 0:
        raise ValueError(f"cosine_similarity: eps must be a number >= 0, got {eps!r}")
    with grad_mode.scope("function", "cosine_similarity"):
        if x1.shape != shape:
            x1 = x1.expand(*shape)          # as PyTorch: the norms of the broadcast tensors
        if x2.shape != shape:
            x2 = x2.expand(*shape)
        units = []
        for x in (x1, x2):
            n = vector_norm(x, 2, dim, True)                            # (..., 1, ...)
            with grad_mode.no_grad():
                raised = n.clamp(min=eps) - n                           # 0 unless n < eps
            units.append(x / (n + raised))
        return (units[0] * units[1]).sum(axis=dim)                      # dim goes


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """‖x1 - x2 + eps‖_p along the last axis, as ``F.pairwise_distance``: the distance
    between each pair of rows (x1 and x2 broadcast); ``eps`` keeps the gradient of a zero
    difference finite. ``p`` as :func:`tinyffn.linalg.vector_norm`'s ``ord``."""
    x1, x2 = _floats("pairwise_distance", x1=x1, x2=x2)
    _broadcast("pairwise_distance", x1.shape, x2.shape)
    if not is_real(eps):
        raise TypeError(f"pairwise_distance: eps must be a number, got {eps!r}")
    with grad_mode.scope("function", "pairwise_distance"):
        return vector_norm(x1 - x2 + float(eps), p, -1, keepdim)


_COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                  "donot_use_mm_for_euclid_dist")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Every p-norm distance between the rows of x1 (..., P, M) and of x2 (..., R, M): the
    (..., P, R) table d[i, j] = ‖x1[i] - x2[j]‖_p, as ``torch.cdist`` (leading axes
    broadcast; p ≥ 0, inf included, 0 counting the entries that differ).

    Computed from the differences, (..., P, 1, M) - (..., 1, R, M), in memory P·R·M. For
    p = 2 with more than 25 rows PyTorch's default ``compute_mode`` uses instead
    sqrt(‖a‖² + ‖b‖² - 2 a·b), a matrix product: faster, but its rounding shows (cdist(x,
    x) has 5e-4, not 0, on its diagonal for 64 rows of norm ~1); tinyffn takes the
    differences in every mode, so where the modes differ its values are the exact ones
    rounded once. The gradient of a zero distance is 0, as PyTorch's."""
    x1, x2 = _floats("cdist", x1=x1, x2=x2)
    if x1.ndim < 2 or x2.ndim < 2:
        raise ValueError(f"cdist: x1 and x2 must have at least 2 axes, (..., rows, M); got "
                         f"shapes {x1.shape} and {x2.shape}; for two vectors use "
                         "pairwise_distance")
    if x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"cdist: x1 {x1.shape} and x2 {x2.shape} must have rows of the same "
                         f"length M (their last axes)")
    if not is_real(p) or isinstance(p, bool) or p < 0:
        raise ValueError(f"cdist: p must be a number >= 0 (inf included), got {p!r}")
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"cdist: compute_mode must be one of {_COMPUTE_MODES}, got "
                         f"{compute_mode!r}")
    _broadcast("cdist (the leading axes)", x1.shape[:-2], x2.shape[:-2])
    with grad_mode.scope("function", "cdist"):
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)             # (..., P, R, M)
        return vector_norm(diff, p, -1)                        # (..., P, R)


def pdist(input, p=2):
    """The p-norm distances between every pair of rows i < j of ``input`` (N, M), in the
    order of ``triu_indices(N, N, 1)``, as ``F.pdist``: shape (N (N − 1) / 2,), the upper
    triangle of ``cdist(input, input)`` without its diagonal. The gradient of a zero
    distance is 0, as PyTorch's."""
    from .torch_extras import triu_indices
    (x,) = _floats("pdist", input=input)
    if x.ndim != 2:
        raise ValueError(f"pdist: input must be a matrix (N, M) of N rows, got shape {x.shape}")
    if not is_real(p) or isinstance(p, bool) or p < 0:
        raise ValueError(f"pdist: p must be a number >= 0 (inf included), got {p!r}")
    i, j = triu_indices(x.shape[0], x.shape[0], 1, device=x.device)     # (2, K) as two (K,)
    from .more_functions import _index_selected   # it imports linalg.py, as this does
    with grad_mode.scope("function", "pdist"):    # i, j made in [0, N): not checked again
        diff = _index_selected(x, 0, i) - _index_selected(x, 0, j)        # (K, M)
        return vector_norm(diff, p, -1)                                   # (K,)


__all__ = ["cosine_similarity", "pairwise_distance", "cdist", "pdist"]
