"""PyTorch names that ported training scripts reach for: ``lerp`` (the moving average of
weights, ``ema_p.lerp_(p, 1 - decay)``), ``diag``, ``diagonal``, ``tile``,
``repeat_interleave``, ``argwhere``, ``is_tensor``, and ``x.detach_()``, each as a
function (``tinyffn.lerp(x, y, 0.1)``) and a Tensor method (``x.lerp(y, 0.1)``); and the
functions ``chunk``, ``split``, ``empty_like``, ``triu_indices`` and ``tril_indices``.

They are composed: ``lerp`` of sub, mul and add (and a ``where`` for a tensor weight),
``diag`` of one ``getitem`` (matrix to vector) or a ``where`` and a ``pad`` (vector to
matrix), ``diagonal`` of a ``permute`` and a ``getitem``, ``tile`` of ``repeat``,
``repeat_interleave`` of one ``index_select``, each in a frame of its name, so a drawing
shows what they are made of and the gradient follows from the primitives'. ``lerp_`` is in
:mod:`tinyffn.in_place` with the other in-place methods. :class:`ExtraMethods` is a base
class of ``Tensor`` (through ``TorchMethods``); this file imports nothing of tensor.py at
import time, because tensor.py imports it before its class exists.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import _is_int, is_real, sizes_arg, tensor_arg, type_name
from .backend import dtype_name
from .ops.shape import CheckedKey, GetItem


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tinyffn Tensor (a Parameter is one), as ``torch.is_tensor``."""
    return isinstance(obj, _tensor.Tensor)


def lerp(input, end, weight):
    """input + weight · (end - input): the point a fraction ``weight`` of the way from
    ``input`` to ``end``, as ``torch.lerp``. An exponential moving average of weights is
    ``ema.lerp_(p, 1 - decay)`` (see :meth:`~tinyffn.in_place.InPlaceMethods.lerp_`).

        d/d input = 1 - weight,    d/d end = weight,    d/d weight = end - input.

    Computed as PyTorch's: where abs(weight) < 0.5 as above, else as
    end - (end - input) · (1 - weight), so that a weight of 1 gives ``end`` exactly; a
    tensor weight picks per entry with a ``where``. (PyTorch's CPU kernel fuses each
    multiply-add, rounding once, so its last bit may differ.) ``end`` and ``weight`` (a number or a
    tensor) broadcast with ``input``; ``input`` must be floating-point (PyTorch refuses
    integers too). Two float dtypes meet as in ``+`` (PyTorch wants one dtype). A float16
    result is computed in float32 and rounded once, as PyTorch computes it (in float16,
    end - input overflows past 65504: lerp(-6e4, 6e4, 0.5) was -inf, not 0)."""
    x = _floating_tensor("lerp", "input", input)
    for name, v in (("end", end), ("weight", weight)):
        if not (isinstance(v, _tensor.Tensor) or is_real(v)) or isinstance(v, bool):
            raise TypeError(f"lerp: {name} must be a Tensor or a number, got {type_name(v)}")
        if isinstance(v, _tensor.Tensor):
            _floating_tensor("lerp", name, v)
    tensors = [v for v in (x, end, weight) if isinstance(v, _tensor.Tensor)]
    _check_broadcast("lerp", {n: v for n, v in zip(("input", "end", "weight"), (x, end, weight))
                              if isinstance(v, _tensor.Tensor)})
    half = all(dtype_name(v.dtype) == "float16" for v in [v for v in tensors if v.ndim] or tensors)
    with grad_mode.scope("function", "lerp"):
        if half:                            # float16 result: computed in float32 (cast nodes)
            x, end, weight = (v.to(dtype="float32") if isinstance(v, _tensor.Tensor) and
                              dtype_name(v.dtype) == "float16" else v for v in (x, end, weight))
        if not isinstance(weight, _tensor.Tensor):
            w = float(weight)
            y = x + w * (end - x) if abs(w) < 0.5 else end - (end - x) * (1 - w)
        else:
            from .composed import where     # composed.py imports tensor.py, which imports this
            y = where(weight.abs() < 0.5, x + weight * (end - x), end - (end - x) * (1 - weight))
        return y.to(dtype="float16") if half else y


def diag(input, diagonal=0):
    """As ``torch.diag``: a vector v (n,) becomes the square matrix (n + |k|, n + |k|) with v
    on its ``diagonal`` k and zeros elsewhere; a matrix (rows, cols) gives the vector of its
    k-th diagonal, y[i] = x[i, i + k] (for k < 0, x[i - k, i]; empty where none lies
    inside). k = 0 is the main diagonal, k > 0 above it, k < 0 below.

    Matrix to vector: one ``getitem`` at the index pairs of the diagonal, so each entry
    read gets its gradient back and the others 0. Vector to matrix: ``where(eye, v, 0)``
    (the n x n matrix, v[j] where i = j) and a ``pad`` of |k| rows and columns that moves
    it onto diagonal k; its gradient is the diagonal of gy."""
    x = tensor_arg("diag", "input", input)
    if not _is_int(diagonal):
        raise TypeError(f"diag: diagonal must be an int, got {diagonal!r}")
    if x.ndim not in (1, 2):
        raise ValueError(f"diag: takes a vector (to make a matrix) or a matrix (to read a "
                         f"diagonal), got shape {x.shape} ({x.ndim}-D, as PyTorch refuses); "
                         "for a batch of matrices index x[..., i, i]")
    from .creation import arange    # creation.py imports tensor.py, which imports this
    k = int(diagonal)
    with grad_mode.scope("function", "diag"):
        if x.ndim == 2:
            rows, cols = x.shape
            length = max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))
            i = arange(length, device=x.device)                         # (length,)
            key = CheckedKey(((i + max(-k, 0)).data, (i + max(k, 0)).data))   # inside x
            return GetItem.apply(x, key=key)                            # (length,)
        from .composed import where
        from .functional_extra import pad
        n, a = x.shape[0], abs(k)
        i = arange(n, device=x.device)
        on_diagonal = i.reshape(n, 1) == i                              # (n, n) bool
        zero = False if dtype_name(x.dtype) == "bool" else 0
        y = where(on_diagonal, x, zero)                                 # (n, n)
        return pad(y, (a, 0, 0, a) if k >= 0 else (0, a, a, 0))         # (n + a, n + a)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Each vector of the last axis as a diagonal matrix, as ``torch.diag_embed``:
    x (..., n) -> y with two new axes of size n + |offset| at ``dim1`` (rows) and ``dim2``
    (columns) of the result, y[..., i, i + offset] = x[..., i] and zeros elsewhere (a
    diagonal Hessian or covariance from its diagonal). ``diag``'s vector case, batched:
    ``where(eye, x, 0)`` broadcast over the leading axes, a ``pad`` onto diagonal
    ``offset``, and a ``movedim`` when the axes are not the last two; its gradient is the
    diagonal of gy."""
    x = tensor_arg("diag_embed", "input", input)
    for name, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)):
        if not _is_int(v):
            raise TypeError(f"diag_embed: {name} must be an int, got {v!r}")
    if x.ndim < 1:
        raise ValueError("diag_embed: needs at least 1 axis (the diagonals), got a 0-d tensor")
    nd = x.ndim + 1                                                     # the result's rank
    a, b = (d + nd if -nd <= d < 0 else d for d in (dim1, dim2))
    if not (0 <= a < nd and 0 <= b < nd) or a == b:
        raise ValueError(f"diag_embed: dim1={dim1} and dim2={dim2} must be two different axes "
                         f"of the result, which has {nd}")
    from .creation import arange    # creation.py imports tensor.py, which imports this
    from .composed import where
    from .functional_extra import pad
    n, k = x.shape[-1], abs(int(offset))
    with grad_mode.scope("function", "diag_embed"):
        i = arange(n, device=x.device)
        on_diagonal = i.reshape(n, 1) == i                              # (n, n) bool
        zero = False if dtype_name(x.dtype) == "bool" else 0
        y = where(on_diagonal, x.unsqueeze(-2), zero)                   # (..., n, n)
        if k:
            y = pad(y, (k, 0, 0, k) if offset >= 0 else (0, k, k, 0))   # (..., n + k, n + k)
        return y if (a, b) == (nd - 2, nd - 1) else y.movedim((-2, -1), (a, b))


def _check_broadcast(op: str, named: dict) -> None:
    """The tensors' shapes must broadcast (each trailing axis equal or 1), else an error
    naming ``op`` and them all, not the first sub or mul inside that failed."""
    shapes = [tuple(t.shape) for t in named.values()]
    for sizes in zip(*(((1,) * (max(map(len, shapes)) - len(s)) + s) for s in shapes)):
        if len(set(sizes) - {1}) > 1:
            given = ", ".join(f"{name} {tuple(t.shape)}" for name, t in named.items())
            raise ValueError(f"{op}: shapes {given} cannot be broadcast together; each "
                             "trailing axis must match or be 1")


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the matrices in axes ``dim1`` and ``dim2``, as ``torch.diagonal``:
    y[..., i] = x[..., i, i + offset] (those two axes go, the diagonal becomes the last
    axis; offset > 0 above the main diagonal, < 0 below, empty where none lies inside).
    ``diag``'s matrix case for any rank: a ``permute`` that moves the two axes last, a
    ``reshape`` to one batch axis, one ``getitem`` at the (batch, row, column) triples (no
    ``...`` next to index arrays, which the array API refuses), and a ``reshape`` back, so
    each entry read gets its gradient back."""
    x = tensor_arg("diagonal", "input", input)
    if x.ndim < 2:
        raise ValueError(f"diagonal: needs at least 2 axes, got shape {x.shape}; for a "
                         "vector's diagonal matrix use tinyffn.diag(v)")
    for name, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)):
        if not _is_int(v):
            raise TypeError(f"diagonal: {name} must be an int, got {v!r}")
    a, b = (d + x.ndim if -x.ndim <= d < 0 else d for d in (dim1, dim2))
    if not (0 <= a < x.ndim and 0 <= b < x.ndim) or a == b:
        raise ValueError(f"diagonal: dim1={dim1} and dim2={dim2} must be two different axes "
                         f"of a tensor of shape {x.shape}")
    from .creation import arange    # creation.py imports tensor.py, which imports this
    k, rows, cols = int(offset), x.shape[a], x.shape[b]
    length = max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))
    rest = [d for d in range(x.ndim) if d not in (a, b)]
    batch = tuple(x.shape[d] for d in rest)
    with grad_mode.scope("function", "diagonal"):
        y = x.permute(*rest, a, b).reshape(math.prod(batch), rows, cols)  # (B, rows, cols)
        i = arange(length, device=x.device)                             # (length,)
        n = arange(y.shape[0], device=x.device).reshape(-1, 1)          # (B, 1)
        key = CheckedKey((n.data, (i + max(-k, 0)).data, (i + max(k, 0)).data))  # inside y
        y = GetItem.apply(y, key=key)                                   # (B, length)
        return y.reshape(*batch, length)                                # (..., length)


def tile(input, dims):
    """``input`` repeated ``dims[i]`` times along axis i, as ``torch.tile``: ``x.repeat``,
    with ones put before ``dims`` when it names fewer axes than x has (``tile(x, (2,))``
    of a matrix repeats its columns; ``repeat`` would refuse it)."""
    x = tensor_arg("tile", "input", input)
    if _is_int(dims):
        dims = (dims,)
    if not isinstance(dims, (tuple, list)) or not all(_is_int(d) for d in dims):
        raise TypeError(f"tile: dims must be a tuple of ints, got {dims!r}")
    return x.repeat(*(1,) * (x.ndim - len(dims)), *dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each entry (each slice along ``dim``) repeated ``repeats`` times in place, as
    ``torch.repeat_interleave``: [1, 2] with 2 is [1, 1, 2, 2], where ``repeat`` gives
    [1, 2, 1, 2]. ``repeats``: an int, or an integer tensor of one count per slice (or of
    one count). ``dim`` None works on the flattened tensor. ``repeat_interleave(counts)``
    alone gives 0, 1, ... each repeated its count (PyTorch's form). One ``index_select``,
    so a slice's copies add their gradients. ``output_size``, if given, must be the length
    of the result (PyTorch's check)."""
    x = tensor_arg("repeat_interleave", "input", input)
    from .creation import arange    # creation.py imports tensor.py, which imports this
    if repeats is None:             # repeat_interleave(counts): the indices, each counted
        if dim is not None:
            raise TypeError("repeat_interleave: with one tensor (the counts), dim is not taken")
        return repeat_interleave(arange(x.numel(), device=x.device), x.reshape(-1),
                                 output_size=output_size)
    if dim is None:
        x, dim = x.reshape(-1), 0
    if not _is_int(dim) or not -max(x.ndim, 1) <= dim < max(x.ndim, 1):
        raise ValueError(f"repeat_interleave: dim must be an axis of shape {x.shape}, got "
                         f"{dim!r}")
    if x.ndim == 0:
        x = x.reshape(1)
    dim = int(dim) % x.ndim
    n = x.shape[dim]
    if isinstance(repeats, _tensor.Tensor):
        if repeats.ndim > 1 or repeats.backend.is_floating(repeats.dtype) or \
                dtype_name(repeats.dtype) == "bool":
            raise TypeError(f"repeat_interleave: repeats must be an int or a 0-d or 1-D "
                            f"integer tensor, got {dtype_name(repeats.dtype)} of shape "
                            f"{repeats.shape}")
        counts = [int(c) for c in repeats.reshape(-1).tolist()]
    elif _is_int(repeats) and not isinstance(repeats, bool):
        counts = [int(repeats)]
    else:
        raise TypeError(f"repeat_interleave: repeats must be an int or an integer tensor, "
                        f"got {type_name(repeats)}")
    if len(counts) == 1:
        counts = counts * n
    if len(counts) != n:
        raise ValueError(f"repeat_interleave: repeats must have one count per slice along "
                         f"dim {dim}: {n}, got {len(counts)}")
    if any(c < 0 for c in counts):
        raise ValueError(f"repeat_interleave: repeats must be >= 0, got {min(counts)}")
    if output_size is not None and output_size != sum(counts):
        raise ValueError(f"repeat_interleave: output_size={output_size!r}, but the repeats "
                         f"add up to {sum(counts)}")
    index = _tensor.Tensor(x.backend.from_numpy(np.repeat(np.arange(n), counts)),
                           _backend=x.backend)                           # (sum(counts),)
    from .more_functions import _index_selected   # it imports tensor.py, which imports this
    with grad_mode.scope("function", "repeat_interleave"):
        return _index_selected(x, dim, index)       # made in [0, n): not checked again


def chunk(input, chunks, dim=0):
    """``input.chunk(chunks, dim)``, as ``torch.chunk``: ``chunks`` slices along ``dim``."""
    return tensor_arg("chunk", "input", input).chunk(chunks, dim)


def split(tensor, split_size_or_sections, dim=0):
    """``tensor.split(split_size_or_sections, dim)``, as ``torch.split``."""
    return tensor_arg("split", "tensor", tensor).split(split_size_or_sections, dim)


def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    """``zeros_like``, as ``tinyffn.empty`` is ``zeros``: PyTorch's ``empty_like`` leaves the
    memory uninitialised, to be overwritten (``inv = empty_like(p); inv[p] = arange(n)``)."""
    from .creation import zeros_like    # creation.py imports tensor.py, which imports this
    return zeros_like(tensor_arg("empty_like", "input", input), dtype=dtype, device=device,
                      requires_grad=requires_grad)


def triu_indices(row, col, offset=0, *, dtype=None, device="cpu"):
    """The (row, column) indices of the entries of a ``row`` x ``col`` matrix on or above
    diagonal ``offset``, as ``torch.triu_indices``: a (2, n) int64 tensor, row by row
    (``scores[..., i, j]`` with ``i, j = triu_indices(T, T, 1)`` picks what a causal
    mask hides). ``tril_indices``: on or below it."""
    return _triangle_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device)


def tril_indices(row, col, offset=0, *, dtype=None, device="cpu"):
    """The indices on or below diagonal ``offset``, as ``torch.tril_indices``: see
    :func:`triu_indices`."""
    return _triangle_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device)


def _triangle_indices(op: str, numpy_fn, row, col, offset, dtype, device):
    for name, v in (("row", row), ("col", col), ("offset", offset)):
        if not _is_int(v) or isinstance(v, bool) or name != "offset" and v < 0:
            raise ValueError(f"{op}: {name} must be an int{' >= 0' if name != 'offset' else ''}"
                             f", got {v!r}")
    from .creation import tensor    # creation.py imports tensor.py, which imports this
    rows, cols = numpy_fn(int(row), int(offset), int(col))
    return tensor(np.stack([rows, cols]).astype(np.int64), dtype=dtype or "int64",
                  device=device)


def argwhere(input):
    """The indices of the nonzero entries, one row each, as ``torch.argwhere``:
    ``tinyffn.nonzero(input)``, (n, ndim) int64."""
    from .torch_functions import nonzero    # torch_functions.py imports tensor.py
    return nonzero(tensor_arg("argwhere", "input", input))



def _floating_tensor(op: str, name: str, value: Any):
    x = tensor_arg(op, name, value)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: {name} has dtype {dtype_name(x.dtype)}; {op} computes in "
                        "floating point (PyTorch refuses integers too): cast with x.float()")
    return x


class ExtraMethods:
    """The Tensor methods of the functions above, ``detach_``, ``pin_memory`` and
    ``is_pinned``."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def lerp(self, end, weight): return lerp(self, end, weight)
    def diag(self, diagonal=0): return diag(self, diagonal)
    def diagonal(self, offset=0, dim1=0, dim2=1): return diagonal(self, offset, dim1, dim2)
    def diag_embed(self, offset=0, dim1=-2, dim2=-1): return diag_embed(self, offset, dim1, dim2)

    def tile(self, *sizes, dims=None):
        """``tinyffn.tile(self, dims)``: ``x.tile(2, 2)``, ``x.tile((2, 2))`` or
        ``x.tile(dims=(2, 2))``."""
        return tile(self, sizes_arg("tile", sizes, "dims", dims))

    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        return repeat_interleave(self, repeats, dim, output_size=output_size)

    def argwhere(self): return argwhere(self)

    def new_empty(self, *shape, size=None, dtype=None, device=None, requires_grad=False):
        """``new_zeros``, as ``empty_like`` is ``zeros_like``: self's dtype and device."""
        return self.new_zeros(*shape, size=size, dtype=dtype, device=device,
                              requires_grad=requires_grad)

    def detach_(self):
        """Make this tensor a leaf that does not require grad, as ``torch.Tensor.detach_``:
        it keeps its values and stops being the output of the op that made it
        (``grad_fn`` None), so a backward from what is computed from it next stops here.
        Graphs already built through it still reach its op, also where they saved it
        (PyTorch's backward refuses that: "Trying to use a saved tensor that has been
        detached in-place"). Returns self.

        Refused, as PyTorch refuses it, on a view of a living tensor (a slice, a reshape,
        a transpose: see :func:`tinyffn.in_place.as_view`): write ``x = x.detach()``, a
        new tensor, instead; ``x.detach().detach_()`` is allowed. Refused for the
        engine's shared constants (the 2 in ``x * 2``)."""
        from .promotion import is_shared_constant  # promotion.py imports tensor.py
        made_by, bases = getattr(self, "_view", None) or (None, ())
        if made_by not in (None, "x.detach()", "model.state_dict()") and any(
                base() is not None for base in bases):
            raise RuntimeError(f"detach_: x was made from another tensor by {made_by}, a view "
                               "of it in PyTorch, which cannot detach views in place (nor "
                               "can tinyffn); write x = x.detach() for a new tensor")
        if is_shared_constant(self):
            raise RuntimeError("detach_: x is a shared constant of the graph (the 2 in "
                               "x * 2); it cannot change")
        if self.grad_fn is not None:
            self.grad_fn._output = None     # the op's node no longer has self as its result
        self.grad_fn, self._requires_grad, self._retains_grad = None, False, False
        return self

    def pin_memory(self):
        """self, for nanoGPT's ``x.pin_memory().to(device, non_blocking=True)``: PyTorch
        copies a CPU tensor to page-locked memory, which the GPU reads faster and in the
        background; tinyffn's copies to the GPU are complete when ``to`` returns, so there is
        nothing to gain, as ``DataLoader(pin_memory=True)`` changes nothing. PyTorch refuses
        it on a machine without a GPU, which this allows. Refused, as PyTorch refuses it,
        for a tensor on the GPU."""
        if self.device == "cuda":
            raise RuntimeError(f"pin_memory: the tensor is on {self.device}; only CPU tensors "
                               "can be pinned (PyTorch's rule): call it before .to('cuda')")
        return self

    def is_pinned(self) -> bool:
        """False: tinyffn never page-locks memory (see :meth:`pin_memory`)."""
        return False


__all__ = ["is_tensor", "lerp", "diag", "diagonal", "diag_embed", "tile", "repeat_interleave", "chunk", "split",
           "empty_like", "triu_indices", "tril_indices", "argwhere", "ExtraMethods"]
