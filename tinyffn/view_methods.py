"""The Tensor methods that change a tensor's shape: ``reshape``, ``view``, ``transpose``,
``permute``, ``T``, ``expand``, ``squeeze``, ``flatten``, ``repeat``, ``split``, ...

``Tensor`` inherits them from :class:`ViewMethods`, so that tensor.py keeps the engine's
core (data, grad, backward, the operators). Each is one of four primitives of
:mod:`tinyffn.ops.shape` (``Reshape``, ``Transpose``, ``BroadcastTo``, ``GetItem``) or a
composition of them in composed.py, whose backward undoes the change (a reshape back, the
inverse permutation, a sum over the broadcast axes). What PyTorch makes a *view* of x,
sharing its memory, is marked as one (:func:`tinyffn.in_place.as_view`), so that a change
in place that PyTorch would pass on to x is refused here rather than lost.
"""
from __future__ import annotations

import warnings

from . import composed as C
from . import in_place as IP
from .arguments import _axis_list, _permutation, _transposition, sizes_arg
from .ops import shape as S


class ViewMethods:
    """The shape methods of :class:`tinyffn.Tensor` (see this module's docstring)."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    # -- the primitives: Reshape, Transpose, BroadcastTo, GetItem ----------------------------
    def reshape(self, *sizes, shape=None):
        """The same entries in a new shape: ``x.reshape(2, 3)``, ``x.reshape((2, 3))`` or, as
        PyTorch's, ``x.reshape(shape=(2, 3))``; one axis may be -1 (inferred)."""
        return IP.as_view(S.Reshape.apply(self, shape=sizes_arg("reshape", sizes, "shape", shape)),
                          "x.reshape(...) or x.view(...)", self)

    def transpose(self, *axes, dim0=None, dim1=None):
        """Reverse the axes (none given, as ``.T``), swap two (``transpose(-2, -1)``, or by
        PyTorch's names, ``transpose(dim0=-2, dim1=-1)``) or apply a full permutation of
        three or more (as NumPy)."""
        axes = _transposition(axes, self.shape, dim0, dim1)
        return IP.as_view(S.Transpose.apply(self, axes=axes), "x.T or x.transpose(...)", self)

    def permute(self, *axes, dims=None):
        """Reorder the axes: ``y.shape[i] = x.shape[axes[i]]`` (``torch.permute``), the axes
        by position or as ``dims=(...)``."""
        axes = _permutation(sizes_arg("permute", axes, "dims", dims), self.shape, "permute")
        return IP.as_view(S.Transpose.apply(self, axes=axes), "x.permute(...)", self)

    @property
    def T(self):
        """``transpose()``: a matrix's transpose. On 3 or more axes it reverses them all, as
        NumPy's does and PyTorch's (which warns): it warns too, since a batch of matrices
        (``q @ k.T``) wants ``x.mT``, the last two swapped."""
        if self.ndim > 2:
            warnings.warn(f"x.T on a tensor of shape {self.shape} reverses all {self.ndim} axes; "
                          "to transpose a batch of matrices write x.mT (the last two "
                          "swapped), to reverse the axes on purpose x.transpose()",
                          UserWarning, stacklevel=2)
        return self.transpose()

    def broadcast_to(self, *sizes, size=None):
        shape = sizes_arg("broadcast_to", sizes, "size", size)
        if -1 in shape:                     # keeps an axis's length, as in expand
            return C.expand(self, *shape)
        return IP.as_view(S.BroadcastTo.apply(self, shape=shape), "x.expand(...)", self)

    def __getitem__(self, key):
        key = S.normalize_key(key, self)
        y = S.GetItem.apply(self, key=key)
        if any(hasattr(k, "dtype") or isinstance(k, bool) for k in key):
            return y                    # index arrays: a copy in PyTorch too
        return IP.as_view(y, "x[key]", self)

    # -- PyTorch's names: each a reshape, transpose, broadcast_to or getitem ------------------
    @property
    def mT(self):
        """The last two axes swapped (a batch of matrices transposed), as ``torch.Tensor.mT``."""
        return self.transpose(-2, -1)

    def t(self):
        """A matrix's transpose, as ``torch.Tensor.t``: ``transpose()`` for at most 2 axes (a
        0-d or 1-d tensor as it is); more axes are refused, as in PyTorch."""
        if self.ndim > 2:
            raise ValueError(f"t: a tensor of shape {self.shape} has {self.ndim} axes, and "
                             "t() transposes at most 2; write x.mT (the last two swapped) "
                             "or x.transpose(d0, d1)")
        return self.transpose()

    def size(self, dim: int | None = None):
        """``shape``, or ``shape[dim]``, as ``torch.Tensor.size``."""
        return self.shape if dim is None else self.shape[_axis_list((dim,), self.ndim, "size")[0]]

    def dim(self) -> int:
        """``ndim``, as ``torch.Tensor.dim``."""
        return self.ndim

    def view(self, *sizes, size=None):
        """``reshape`` (``size=`` is PyTorch's name for the shape here): as tinyffn writes
        into no array in place, a view and a copy read the same (``torch.Tensor.view``
        shares memory)."""
        return self.reshape(sizes_arg("view", sizes, "size", size))

    def view_as(self, other): return self.view(other.shape)
    def reshape_as(self, other): return self.reshape(other.shape)
    def expand_as(self, other): return self.expand(*other.shape)

    def nelement(self) -> int:
        return self.numel()

    def unsqueeze(self, dim): return C.unsqueeze(self, dim)
    def squeeze(self, dim=None): return C.squeeze(self, dim)
    def flatten(self, start_dim=0, end_dim=-1): return C.flatten(self, start_dim, end_dim)

    def expand(self, *sizes, size=None, implicit=False):
        """``broadcast_to``, -1 keeping an axis's length, as ``torch.Tensor.expand``
        (``implicit``, PyTorch's mark for its tracer, changes nothing)."""
        return C.expand(self, *sizes_arg("expand", sizes, "size", size))

    def repeat(self, *sizes, repeats=None):
        """Tiled ``sizes[i]`` times along axis i (more sizes than axes add leading axes), as
        ``torch.Tensor.repeat`` (NumPy's ``tile``; PyTorch names the counts ``repeats=``):
        a ``reshape`` that puts a length-1 axis before each axis, an ``expand`` of those,
        and a ``reshape`` that merges each pair."""
        sizes = sizes_arg("repeat", sizes, "repeats", repeats)
        if len(sizes) < self.ndim or min(sizes, default=0) < 0:
            raise ValueError(f"repeat: needs a count >= 0 for each of x's {self.ndim} axes "
                             f"(shape {self.shape}; more counts add leading axes), got {sizes}")
        shape = (1,) * (len(sizes) - self.ndim) + tuple(self.shape)
        pairs = [v for n in shape for v in (1, n)]
        tiled = [v for s, n in zip(sizes, shape) for v in (s, n)]
        y = self.reshape(pairs).expand(*tiled).reshape([s * n for s, n in zip(sizes, shape)])
        return IP.as_view(y, None)       # a copy in PyTorch, its own to change

    def split(self, split_size, dim=0): return C.split(self, split_size, dim)
    def chunk(self, chunks, dim=0): return C.chunk(self, chunks, dim)
