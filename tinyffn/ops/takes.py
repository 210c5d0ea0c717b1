"""x[key] for a key mixing index arrays with slices, ``...``, None and integers, computed
with the array API standard's operations alone: for a library that has only the
standard's indexing (the strict backend stands for one), which takes index arrays only
when every axis gets one.

NumPy's rule, which this follows: the index arrays (and the integers and True/False
among them) broadcast to one shape B, and B's axes form one block of the result. Where
the arrays sit together in the key, the block replaces their axes in place; where a
slice, ``...`` or None keeps them apart, it goes first. So, with x of shape (2, 3, 4) and
i of shape (5,):

    x[:, i]          (2, 5, 4)      the block in place of axis 1
    x[i, :, i]       (5, 3)         apart: the block first
    x[..., i]        (2, 3, 5)

Computed in three steps, each one the standard has: basic indexing (each array's axis
kept whole), a permute that brings the arrays' axes to the front and a reshape that joins
them into one, then one ``take`` of the flat positions (row-major, as ``ravel_multi_index``)
along it; a last permute puts the block in place. The gradient is the scatter-add of
``backend.index_add``, which reads the key as NumPy does.
"""
from __future__ import annotations

import math
from typing import Any


def getitem(xp: Any, x: Any, key: tuple) -> Any:
    """x[key] as NumPy computes it, with ``take`` for the index arrays (see the module)."""
    if not any(hasattr(k, "dtype") or isinstance(k, bool) for k in key):
        return x[key]                   # basic indexing: the standard has all of it
    basic, arrays, together = _split(xp, x.ndim, key)
    z = x[basic]                        # slices applied; an index array's axis kept whole
    axes = [axis for axis, _ in arrays]
    rest = [a for a in range(z.ndim) if a not in axes]
    block = xp.broadcast_arrays(*(i for _, i in arrays))        # each of shape B
    B, sizes = tuple(block[0].shape), [z.shape[a] for a in axes]
    flat = xp.zeros(B, dtype=xp.int64)  # the row-major position in the joined axes
    for i, n in zip(block, sizes):
        i = xp.astype(i, xp.int64)
        flat = flat * n + xp.where(i < 0, i + n, i)             # -1 is the last entry
    z = xp.permute_dims(z, axes + rest)                         # (*sizes, *rest)
    rest_shape = tuple(z.shape[len(axes):])
    z = xp.reshape(z, (math.prod(sizes),) + rest_shape)         # (prod(sizes), *rest)
    y = xp.take(z, xp.reshape(flat, (-1,)), axis=0)             # (prod(B), *rest)
    y = xp.reshape(y, B + rest_shape)                           # (*B, *rest)
    if not together:
        return y                        # apart in the key: the block first
    before = sum(a < axes[0] for a in rest)     # the axes that stay before the block
    order = [*range(len(B), len(B) + before), *range(len(B)), *range(len(B) + before, y.ndim)]
    return xp.permute_dims(y, order)                            # the block in place


def _split(xp: Any, ndim: int, key: tuple) -> tuple:
    """(the basic key, [(axis of the basic result, index array)], whether the advanced
    entries sit together in the key). An index array's place becomes ``slice(None)``;
    True/False becomes a new axis (None) indexed by [0] or [] (NumPy reads a 0-d mask as
    its nonzero indices); an integer stays basic: it removes its axis, and as a 0-d index
    it would broadcast to nothing."""
    def advanced(k):
        return hasattr(k, "dtype") or isinstance(k, (bool, int))

    spanned = ndim - sum(not (k is None or k is Ellipsis or isinstance(k, bool)) for k in key)
    basic, arrays, axis = [], [], 0     # axis: the next axis of the basic result
    for k in key:
        if hasattr(k, "dtype"):
            basic.append(slice(None))
            arrays.append((axis, k))
        elif isinstance(k, bool):
            basic.append(None)
            arrays.append((axis, xp.zeros((int(k),), dtype=xp.int64)))
        else:
            basic.append(k)
        if k is Ellipsis:
            axis += spanned
        elif not (isinstance(k, int) and not isinstance(k, bool)):
            axis += 1                   # a slice, None or an array's axis stays
    if not any(k is Ellipsis for k in basic):
        basic.append(Ellipsis)          # the standard wants the axes not named spelled out
    places = [p for p, k in enumerate(key) if advanced(k)]
    together = places[-1] - places[0] == len(places) - 1
    return tuple(basic), arrays, together
