"""Joining tensors: ``cat`` along an existing axis (one primitive, :class:`~tinyffn.ops.Concat`)
and ``stack`` along a new one (composed: ``unsqueeze``, then ``cat``), as ``torch.cat`` and
``torch.stack``. Also importable from :mod:`tinyffn.creation`, where they began.
"""
from __future__ import annotations

from typing import Any, Sequence

from . import grad_mode
from .arguments import _axis_list, _is_int, either_name
from .tensor import Tensor
from .ops.shape import Concat     # after tensor, which the ops import at call time


def cat(tensors: Sequence[Tensor], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """The tensors joined end to end along an existing ``axis`` (PyTorch's ``dim``), as
    ``torch.cat`` and ``numpy.concatenate``: (2, 3) and (4, 3) along axis 0 give (6, 3).

    One primitive, :class:`~tinyffn.ops.Concat`; dtypes are promoted as for any op.
    """
    tensors = _tensor_list("cat", tensors)
    ndim = tensors[0].ndim
    if ndim == 0 or any(t.ndim != ndim for t in tensors):
        shapes = ", ".join(str(t.shape) for t in tensors)
        raise ValueError(f"cat: the tensors must have the same number of axes, at least one, "
                         f"got shapes {shapes}; stack() joins 0-d tensors along a new axis")
    (axis,) = _axis_list((either_name("cat", "axis", axis, 0, "dim", dim),), ndim, "cat")
    return Concat.apply(*tensors, axis=axis)


def stack(tensors: Sequence[Tensor], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """The tensors, all of one shape, joined along a new ``axis`` (PyTorch's ``dim``), as
    ``torch.stack``: three of shape (2, 3) along axis 0 give (3, 2, 3).

    Composed: each tensor gets a new axis of length 1 (``unsqueeze``), then :func:`cat`.
    """
    tensors = _tensor_list("stack", tensors)
    if any(t.shape != tensors[0].shape for t in tensors):
        raise ValueError("stack: the tensors must all have one shape, got "
                         + ", ".join(str(t.shape) for t in tensors))
    axis = either_name("stack", "axis", axis, 0, "dim", dim)
    if not _is_int(axis) or not -tensors[0].ndim - 1 <= axis <= tensors[0].ndim:
        raise ValueError(f"stack: axis must be an integer in [{-tensors[0].ndim - 1}, "
                         f"{tensors[0].ndim}] for tensors of shape {tensors[0].shape}, "
                         f"got {axis!r}")
    axis %= tensors[0].ndim + 1
    with grad_mode.scope("function", "stack"):
        return cat([t.unsqueeze(axis) for t in tensors], axis)


def _tensor_list(op: str, tensors: Any) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}: pass a list or tuple of tensors, got {type(tensors).__name__}")
    if not tensors:
        raise ValueError(f"{op}: got no tensors to join")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: item {i} is not a Tensor (got {type(t).__name__}); make "
                            "it one with tinyffn.tensor(...)")
    return list(tensors)
