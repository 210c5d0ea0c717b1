"""``F.affine_grid`` and ``F.grid_sample``, as PyTorch's: the two halves of a spatial
transformer (Jaderberg et al., 2015), which learns where to look in an image.

``affine_grid(theta, size)`` gives, for each output pixel, the point of the input it
reads: the output's pixel centres in normalized coordinates (-1 is the left/top edge, 1
the right/bottom one) mapped by the affine matrix theta (N, 2, 3), or (N, 3, 4) for
volumes. ``grid_sample(input, grid)`` reads the input at those points: each point (x, y)
in [-1, 1] is unnormalized to pixel coordinates,

    ix = ((x + 1) · W - 1) / 2            (align_corners=True: (x + 1) / 2 · (W - 1))

and, with mode 'bilinear', the four pixels around it are blended with weights
(1 - fx)(1 - fy), fx(1 - fy), (1 - fx)fy, fx·fy, f the fractional parts (eight pixels
and trilinear weights for a volume); 'nearest' takes the nearest pixel. Points outside
read zeros (``padding_mode='zeros'``), the nearest edge pixel ('border') or the image
reflected at its edges ('reflection').

Everything is composed: the weights are tinyffn ops on the grid, and each pixel read a
``gather``, so the gradient reaches the input (each pixel gets its weight times gy) and
the grid (gy times the slope of the blend: how the output moves with the point), and
through ``affine_grid`` the matrix theta, which is what a spatial transformer learns.
"""
from __future__ import annotations

import itertools
import math
from typing import Any

from . import grad_mode
from .arguments import check_choice, tensor_arg
from .backend import dtype_name
from .composed import where
from .creation import arange, stack
from .more_functions import fmod
from .tensor import Tensor

_BY_NAME = "pass mode, padding_mode and align_corners by name"


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of an affine map, as ``F.affine_grid``: theta (N, 2, 3) and size
    (N, C, H, W) -> (N, H, W, 2), each output pixel's point (x, y) = theta @ (x_out,
    y_out, 1) in normalized coordinates; theta (N, 3, 4) and (N, C, D, H, W) -> (N, D, H,
    W, 3). The output's pixel centres are (2i + 1) / W - 1 (align_corners=True: the
    corners at ±1, linspace(-1, 1, W)). Differentiable in theta."""
    t = tensor_arg("affine_grid", "theta", theta)
    size = tuple(int(s) for s in size)
    n = len(size) - 2
    if n not in (2, 3) or t.ndim != 3 or t.shape != (size[0], n, n + 1):
        raise ValueError(f"affine_grid: theta must be (N, 2, 3) for a size (N, C, H, W), or "
                         f"(N, 3, 4) for (N, C, D, H, W); got theta {t.shape}, size {size}")
    if not t.backend.is_floating(t.dtype):
        raise TypeError(f"affine_grid: theta must be floating point, got {dtype_name(t.dtype)}")
    with grad_mode.scope("function", "affine_grid"):
        # the output's points (x, y[, z], 1): x along W (the last axis), y along H, z along D
        axes = [_centres(L, bool(align_corners), t) for L in reversed(size[2:])]   # x, y, z
        shape = size[2:]                                            # (H, W) or (D, H, W)
        points = [a.reshape(*[L if d == n - 1 - k else 1 for d, L in enumerate(shape)])
                  .expand(*shape) for k, a in enumerate(axes)]
        base = stack(points + [points[0] * 0 + 1], dim=-1)         # (*shape, n + 1)
        grid = base.reshape(1, -1, n + 1) @ t.transpose(1, 2)        # (N, ΠS, n)
        return grid.reshape(size[0], *shape, n)


def _centres(L: int, align_corners: bool, like: Tensor) -> Tensor:
    i = arange(L, dtype=dtype_name(like.dtype), device=like.device)
    if align_corners:
        return i * (2 / (L - 1)) - 1 if L > 1 else i * 0
    return (2 * i + 1) / L - 1


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``input`` read at the points of ``grid``, as ``F.grid_sample`` (see the module
    docstring): input (N, C, H, W) and grid (N, H_out, W_out, 2) of (x, y) in [-1, 1] ->
    (N, C, H_out, W_out); input (N, C, D, H, W) and grid (N, D_out, H_out, W_out, 3) ->
    (N, C, D_out, H_out, W_out). ``mode`` 'bilinear' (trilinear for volumes) or
    'nearest' (a point halfway rounds to even, as PyTorch's); ``padding_mode`` 'zeros',
    'border' or 'reflection'; ``align_corners`` None is False. Gradients: input's, and
    the grid's in bilinear mode (0 in nearest mode, and where a border clamps the point).
    A NaN point reads as PyTorch's in nearest mode, and NaN (or 0 outside) in bilinear."""
    check_choice("grid_sample", "mode", mode, ("bilinear", "nearest"), _BY_NAME)
    check_choice("grid_sample", "padding_mode", padding_mode, ("zeros", "border", "reflection"),
                 _BY_NAME)
    x, g = tensor_arg("grid_sample", "input", input), tensor_arg("grid_sample", "grid", grid)
    n = x.ndim - 2
    if n not in (2, 3) or g.ndim != x.ndim or g.shape[0] != x.shape[0] or g.shape[-1] != n:
        raise ValueError(f"grid_sample: input (N, C, H, W) takes a grid (N, H_out, W_out, 2), "
                         f"input (N, C, D, H, W) a grid (N, D_out, H_out, W_out, 3); got input "
                         f"{x.shape}, grid {g.shape}")
    if not x.backend.is_floating(x.dtype) or g.dtype != x.dtype:
        raise TypeError(f"grid_sample: input and grid must share one floating dtype, got "
                        f"{dtype_name(x.dtype)} and {dtype_name(g.dtype)}")
    N, C, S, out = x.shape[0], x.shape[1], x.shape[2:], g.shape[1:-1]
    from .sorting import _gathered      # sorting.py's imports lead back here
    with grad_mode.scope("function", "grid_sample"):
        # each axis' pixel coordinate, the last axis (x, along W) first, as the grid holds them
        coords = [_source(g[..., k], S[n - 1 - k], padding_mode, bool(align_corners))
                  for k in range(n)]
        taps = [_taps(c, mode) for c in coords]           # per axis: [(index, weight), ...]
        flat = x.reshape(N, C, -1)
        strides = [math.prod(S[n - k:]) for k in range(n)]     # x: 1, y: W, z: H·W
        y = None
        for corner in itertools.product(*taps):            # 4 (or 8) neighbours; 1 if nearest
            index, weight, inside = 0, None, None
            for k, (i, w) in enumerate(corner):
                L = S[n - 1 - k]
                ok = (i >= 0) & (i <= L - 1)
                inside = ok if inside is None else inside & ok
                # a NaN point reads pixel 0 (with a weight NaN, or 0 outside the image):
                # its index must fit, as the gather below does not check it
                index = index + i.nan_to_num(0.0).clamp(0, L - 1).long() * strides[k]
                weight = w if weight is None else weight * w
            if padding_mode == "zeros":                      # a pixel outside reads 0
                weight = where(inside, weight, 0.0)
            # a clamped index fits: gathered unchecked (a check reads back from the device)
            read = _gathered(flat, 2, index.reshape(N, 1, -1).expand(N, C, -1))  # (N, C, Πout)
            term = read * weight.reshape(N, 1, -1)
            y = term if y is None else y + term
        return y.reshape(N, C, *out)


def _source(g: Tensor, L: int, padding_mode: str, align_corners: bool) -> Tensor:
    """Normalized coordinates -> pixel coordinates along an axis of L pixels, with the
    padding mode's clamp or reflection (as PyTorch's grid_sampler_compute_source_index)."""
    ix = (g + 1) / 2 * (L - 1) if align_corners else ((g + 1) * L - 1) / 2
    if padding_mode == "border":
        return ix.clamp(0, L - 1)
    if padding_mode == "reflection":
        low, high = (0, 2 * (L - 1)) if align_corners else (-1, 2 * L - 1)   # twice the edges
        if low == high:
            return ix * 0
        span = (high - low) / 2
        d = (ix - low / 2).abs()
        flips = (d.detach() / span).floor()
        extra = fmod(d, span)
        ix = where(fmod(flips, 2) == 0, extra + low / 2, span - extra + low / 2)
        return ix.clamp(0, L - 1)
    return ix


def _taps(ix: Tensor, mode: str) -> list:
    """The pixels a coordinate reads and their weights: the nearest, weighted 1, or
    floor(ix) and floor(ix) + 1 weighted 1 - f and f, f = ix - floor(ix). The nearest
    pixel's weight is 1 written as sign(ix) · 0 + 1: a function of ix whose derivative is
    0, so the grid is in the graph and its gradient is zeros, as PyTorch's (the output is
    piecewise constant in the grid), not None."""
    if mode == "nearest":
        return [(ix.detach().round(), ix.sign() * 0 + 1)]
    i0 = ix.detach().floor()
    f = ix - i0
    return [(i0, 1 - f), (i0 + 1, f)]


__all__ = ["affine_grid", "grid_sample"]
