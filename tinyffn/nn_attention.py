"""``torch.nn.attention``'s kernel choice, ``sdpa_kernel`` and ``SDPBackend``, as a no-op.

PyTorch has several kernels for ``scaled_dot_product_attention``; its fused ones (flash,
memory-efficient) have no double backward, so a program that differentiates gradients
through attention (a Hessian-vector product of a transformer's loss, a gradient penalty)
asks for the plain one::

    with sdpa_kernel(SDPBackend.MATH):
        g = torch.autograd.grad(loss_fn(), params, create_graph=True)

tinyffn has one way only, the MATH one: softmax(Q K^T / sqrt(E)) V composed from
primitives, which every backward, create_graph included, differentiates. So the context
manager checks its argument and changes nothing, and such a program runs unchanged.
"""
from __future__ import annotations

import contextlib
import enum
from typing import Any, Iterator

from .arguments import type_name

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """PyTorch's names for its attention kernels, with its numbers; tinyffn computes every
    one of them the MATH way."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    # an IntEnum prints and formats as its number (Python 3.11); PyTorch's shows its name
    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


@contextlib.contextmanager
def sdpa_kernel(backends: Any, set_priority: bool = False) -> Iterator[dict]:
    """``with sdpa_kernel(SDPBackend.MATH):`` (or a list of backends), as
    ``torch.nn.attention.sdpa_kernel``; a no-op, as tinyffn's attention has one
    implementation, the MATH one, differentiable any number of times. It yields ``{}``, as
    PyTorch's.

    ``backends`` is checked as PyTorch 2.13 checks it: one ``SDPBackend``, or a *list* of
    them; a tuple, a set or any other value is refused (PyTorch raises AssertionError
    "Backend must be an instance of SDPBackend or a list of SDPBackend instances"; here a
    TypeError with those words). A list entry that is no member is refused too, where
    PyTorch takes the list and leaves every kernel disabled, so that its attention fails
    later with "No available kernel"."""
    if not isinstance(backends, (list, SDPBackend)):
        hint = (f"; write a list, [{', '.join(map(str, backends))}]"
                if isinstance(backends, tuple) and backends
                and all(isinstance(b, SDPBackend) for b in backends) else "")
        raise TypeError(f"sdpa_kernel: backends must be an instance of SDPBackend or a list "
                        f"of SDPBackend instances, as in PyTorch, e.g. SDPBackend.MATH; got "
                        f"{type_name(backends)}{hint}")
    for b in [backends] if isinstance(backends, SDPBackend) else backends:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"sdpa_kernel: the list must hold SDPBackend members, e.g. "
                            f"[SDPBackend.MATH]; got {type_name(b)} (PyTorch would disable "
                            "every kernel, and its attention would fail)")
    yield {}
