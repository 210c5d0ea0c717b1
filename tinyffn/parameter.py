"""``Parameter``: a tensor a module learns, as ``torch.nn.Parameter``.

A Parameter is a Tensor that is always a leaf and requires grad by default; assigning one
to a module attribute registers it (:mod:`tinyffn.module`). It differs from a Tensor in
one more way, as PyTorch's: ``p.data = t`` takes a Tensor, whose array p then shares.
"""
from __future__ import annotations

from typing import Any

from . import module_state
from .tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor a module learns: always a leaf, with ``requires_grad=True`` unless made
    with ``requires_grad=False`` (a frozen weight, as PyTorch's).

    Assigning one to a module attribute registers it (``self.weight = Parameter(...)``);
    ``named_parameters()`` then finds it, and its ``name`` is set to its attribute path
    within the outermost module it was assigned into (``w1.weight``), for graph labels.
    """

    __slots__ = ()

    def __init__(self, data: Tensor | Any, requires_grad: bool = True):
        """``data``: a Tensor (its array is shared, not copied) or an array; floating point
        when ``requires_grad``."""
        if isinstance(data, Tensor):
            super().__init__(data.data, requires_grad=requires_grad, _backend=data.backend)
        else:
            super().__init__(data, requires_grad=requires_grad)

    # A Parameter's data is a property, so that ``p.data = t`` takes a Tensor, as in
    # PyTorch. A plain Tensor's stays a slot: every op reads it, and a property would make
    # each read several times slower.
    @property
    def data(self) -> Any:
        """The array, as a Tensor's. ``p.data = t`` (a Tensor) gives p t's array, shared, and
        with it t's dtype, shape and device, as PyTorch's does; p stays the same object (an
        optimizer still holds it) and keeps its ``requires_grad``. ``p.data = array`` stores
        the array."""
        return _DATA.__get__(self)

    @data.setter
    def data(self, value: Any) -> None:
        if isinstance(value, Tensor):
            module_state.check_new_data(self, value)
            self.backend, value = value.backend, value.data
        _DATA.__set__(self, value)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __getstate__(self):
        """Pickles and deep copies leave ``.grad`` behind, as PyTorch's: a
        ``copy.deepcopy(model)`` has no stale gradients for a new optimizer to step on."""
        d, slots = super().__getstate__()
        return d, {**slots, "_grad": None}


_DATA = Tensor.data                 # the slot that holds a Tensor's array
