"""PyTorch's copies, selections, grids, turns and sorted-position look-ups, each a function
and (where torch has one) a Tensor method: ``clone``, ``masked_select``, ``meshgrid``,
``fliplr``, ``flipud``, ``rot90``, ``searchsorted``, ``bucketize``.

``clone`` is the Clone primitive (the gradient passes through); ``masked_select`` a
broadcast and one ``getitem`` with the mask; ``meshgrid`` a reshape and an ``expand`` per
input; ``fliplr``, ``flipud`` and ``rot90`` of ``flip`` and ``transpose``: all
differentiable. ``searchsorted`` and ``bucketize`` return positions (int64, or int32 with
``out_int32``), with no gradient: each counts, per value, the entries of the sorted
sequence below it (at or below it with ``right``), NaN counted as larger than any number,
as PyTorch sorts it. :class:`SelectMethods` is a base class of ``Tensor`` (through
``TorchMethods``). A sequence that is not sorted is refused (PyTorch answers anything). With
NaN in the sequence the counts are NumPy's; PyTorch's binary search gives answers that
depend on where the NaN sit ([1, 2, 3, nan, nan, nan, nan] puts 0.5 at 7).
"""
from __future__ import annotations

import warnings

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import _is_int, is_real, tensor_arg, type_name
from .torch_names import _axis


def clone(input, *, memory_format=None):
    """A copy in new memory that stays in the graph (its gradient is the input's), as
    ``torch.clone``: the Clone primitive. ``memory_format``: tinyffn arrays have one
    layout, so only PyTorch's default, ``"preserve_format"`` (or None), is taken."""
    x = tensor_arg("clone", "input", input)
    if memory_format not in (None, "preserve_format") and \
            str(memory_format) != "torch.preserve_format":
        raise ValueError(f"clone: memory_format={memory_format!r} is not supported: tinyffn "
                         "arrays have one layout; leave it out (PyTorch's preserve_format)")
    return x.clone()


def masked_select(input, mask):
    """The entries of ``input`` where the bool ``mask`` holds, as a 1-D tensor in row-major
    order, as ``torch.masked_select``; the two broadcast together first. One ``getitem``:
    the gradient goes back to the entries chosen."""
    x, m = tensor_arg("masked_select", "input", input), tensor_arg("masked_select", "mask", mask)
    from .backend import dtype_name
    if dtype_name(m.dtype) != "bool":
        raise TypeError(f"masked_select: mask must be a bool tensor, got {dtype_name(m.dtype)} "
                        "(PyTorch refuses it too); write mask != 0")
    shape = _broadcast("masked_select", x.shape, m.shape)
    with grad_mode.scope("function", "masked_select"):
        x = x if x.shape == shape else x.expand(*shape)
        m = m if m.shape == shape else m.expand(*shape)
        return x[m]


def _broadcast(op: str, a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    if any(p != q and 1 not in (p, q) for p, q in zip(a, b)):
        raise ValueError(f"{op}: shapes {a} and {b} cannot be broadcast together; each "
                         "trailing axis must match or be 1")
    return tuple(max(p, q) if 0 not in (p, q) else 0 for p, q in zip(a, b))


def meshgrid(*tensors, indexing=None):
    """The coordinate grids of 1-D (or 0-d) tensors of lengths n1, n2, ..., as
    ``torch.meshgrid``: a tuple of tensors of shape (n1, n2, ...), the k-th holding
    tensors[k] along axis k. ``indexing="xy"`` swaps the first two axes, (n2, n1, ...), as
    NumPy's default; "ij" is PyTorch's default, which, left out, PyTorch 2.13 warns will
    be required (a UserWarning here too). A reshape and an ``expand`` each: the gradient
    of a grid sums back onto its tensor."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise ValueError("meshgrid: needs at least one tensor")
    tensors = tuple(tensor_arg("meshgrid", f"tensors[{i}]", t) for i, t in enumerate(tensors))
    if indexing is None:
        warnings.warn("meshgrid: pass indexing='ij' (the default, PyTorch's) or 'xy' (NumPy's); "
                      "PyTorch 2.13 warns that it will be required", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    for i, t in enumerate(tensors):
        if t.ndim > 1:
            raise ValueError(f"meshgrid: tensors[{i}] has shape {t.shape}; each must be 1-D "
                             "or 0-d")
        if t.dtype != tensors[0].dtype or t.device != tensors[0].device:
            raise TypeError(f"meshgrid: tensors[{i}] is {t.dtype} on {t.device}, tensors[0] "
                            f"{tensors[0].dtype} on {tensors[0].device}; all must have one "
                            "dtype and device, as in PyTorch")
    sizes = [t.numel() for t in tensors]
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        axes[0], axes[1] = 1, 0                 # x along the columns, y along the rows
    shape = [0] * len(tensors)
    for k, a in enumerate(axes):
        shape[a] = sizes[k]
    with grad_mode.scope("function", "meshgrid"):
        grids = []
        for t, a in zip(tensors, axes):
            one = [1] * len(tensors)
            one[a] = -1
            grids.append(t.reshape(*one).expand(*shape))
        return tuple(grids)


def fliplr(input):
    """Columns in reverse order (axis 1), as ``torch.fliplr``: ``flip(input, 1)``; needs at
    least 2 axes, as PyTorch."""
    x = tensor_arg("fliplr", "input", input)
    if x.ndim < 2:
        raise ValueError(f"fliplr: needs a tensor of at least 2 axes, got shape {x.shape}; "
                         "for a vector use flip(x, 0)")
    with grad_mode.scope("function", "fliplr"):
        return x.flip(1)


def flipud(input):
    """Rows in reverse order (axis 0), as ``torch.flipud``: ``flip(input, 0)``."""
    x = tensor_arg("flipud", "input", input)
    if x.ndim < 1:
        raise ValueError("flipud: needs a tensor of at least 1 axis, got a 0-d tensor")
    with grad_mode.scope("function", "flipud"):
        return x.flip(0)


def rot90(input, k=1, dims=(0, 1)):
    """The plane of axes ``dims`` turned ``k`` quarter turns from the first axis toward the
    second, as ``torch.rot90``: k = 1 is flip(dims[1]) then a transpose of the two axes,
    k = 2 a flip of both, k = 3 a transpose then flip(dims[1]); k counts mod 4."""
    x = tensor_arg("rot90", "input", input)
    if not _is_int(k):
        raise TypeError(f"rot90: k must be an int, got {k!r}")
    if not isinstance(dims, (tuple, list)) or len(dims) != 2 or not all(map(_is_int, dims)):
        raise ValueError(f"rot90: dims must be two axes, got {dims!r}")
    if x.ndim < 2:
        raise ValueError(f"rot90: needs a tensor of at least 2 axes, got shape {x.shape}")
    a, b = (_axis("rot90", d, x.ndim, "dims") for d in dims)
    if a == b:
        raise ValueError(f"rot90: dims must be two different axes, got {tuple(dims)}")
    order = list(range(x.ndim))
    order[a], order[b] = b, a
    with grad_mode.scope("function", "rot90"):
        k %= 4
        if k == 0:
            return x.clone()
        if k == 2:
            return x.flip(a, b)
        return x.flip(b).permute(*order) if k == 1 else x.permute(*order).flip(b)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each value of ``input`` would go in ``sorted_sequence`` to keep it sorted, as
    ``torch.searchsorted``: the count of entries below the value (``right=True`` or
    ``side="right"``: at or below it). ``sorted_sequence`` 1-D, or (..., m) with ``input``
    (..., k) of the same leading axes, one sequence per row. A number gives a 0-d tensor.
    int64 (int32 with ``out_int32``); no gradient. O(m · k) memory: a comparison table."""
    s = tensor_arg("searchsorted", "sorted_sequence", sorted_sequence)
    if sorter is not None:
        raise ValueError("searchsorted: sorter is not supported; pass the sorted sequence, "
                         "s[sorter]")
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted: right=True and side='left' disagree (PyTorch "
                             "refuses this too)")
        right = side == "right"
    return _positions("searchsorted", s, input, right, out_int32, "sorted_sequence")


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value of ``input`` among the 1-D sorted ``boundaries``, as
    ``torch.bucketize``: i with boundaries[i-1] < x <= boundaries[i] (``right=True``:
    boundaries[i-1] <= x < boundaries[i]), so ``searchsorted(boundaries, input)`` with
    ``right``. int64 (int32 with ``out_int32``); no gradient."""
    b = tensor_arg("bucketize", "boundaries", boundaries)
    if b.ndim != 1:
        raise ValueError(f"bucketize: boundaries must be 1-D, got shape {b.shape}; for one "
                         "sequence per row use searchsorted")
    return _positions("bucketize", b, input, right, out_int32, "boundaries")


def _positions(op: str, s, v, right: bool, out_int32: bool, name: str):
    from .creation import tensor
    number = not isinstance(v, _tensor.Tensor)
    if number and not is_real(v):
        raise TypeError(f"{op}: input must be a tinyffn Tensor or a number, got {type_name(v)}")
    if s.ndim == 0:
        raise ValueError(f"{op}: {name} must have at least 1 axis, got a 0-d tensor")
    if number:                  # 1.5 against integers stays 1.5 (dtype=s.dtype made it 1)
        exact = s.backend.is_floating(s.dtype) or _is_int(v)
        v = tensor(v, dtype=s.dtype if exact else None, device=s.device)
    if s.ndim > 1 and (v.ndim != s.ndim or v.shape[:-1] != s.shape[:-1]):
        raise ValueError(f"{op}: {name} of shape {s.shape} holds one sequence per row, so "
                         f"input must have shape {s.shape[:-1]} + (k,), got {v.shape}")
    with grad_mode.no_grad():
        s, v = s.detach(), v.detach()
        # one read to the host (on a GPU a wait), which PyTorch does not make: its answer
        # for an unsorted sequence is undefined, ours would be a count, silently wrong
        if s.shape[-1] > 1 and (s[..., 1:] < s[..., :-1]).any().item():
            raise ValueError(f"{op}: {name} of shape {s.shape} is not sorted along its last "
                             "axis (an entry is smaller than the one before it); sort it "
                             "first with .sort(), as PyTorch's answer there is undefined")
        col = v.unsqueeze(-1)                                   # (..., k, 1)
        row = s.unsqueeze(-2) if s.ndim > 1 else s              # (..., 1, m) or (m,)
        nan_v = col.isnan() if col.backend.is_floating(col.dtype) else None
        if right:                                   # s <= v, NaN the largest: NaN v counts all
            below = row <= col if nan_v is None else (row <= col) | nan_v
        else:                                       # s < v: a NaN v counts every number
            below = row < col if nan_v is None else (row < col) | (nan_v & ~row.isnan())
        y = below.sum(-1, dtype="int32" if out_int32 else "int64")
    return y


class SelectMethods:
    """The Tensor methods of the functions above that PyTorch has (``clone`` is Tensor's
    own; ``meshgrid``, ``searchsorted`` and ``bucketize`` are functions only, as there)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def masked_select(self, mask): return masked_select(self, mask)
    def fliplr(self): return fliplr(self)
    def flipud(self): return flipud(self)
    def rot90(self, k=1, dims=(0, 1)): return rot90(self, k, dims)


__all__ = ["clone", "masked_select", "meshgrid", "fliplr", "flipud", "rot90", "searchsorted",
           "bucketize", "SelectMethods"]
