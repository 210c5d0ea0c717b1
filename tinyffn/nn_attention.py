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
def sdpa_kernel(backends: Any, set_priority: bool = False) -> Iterator[None]:
    """``with sdpa_kernel(SDPBackend.MATH):`` (or a list of backends), as
    ``torch.nn.attention.sdpa_kernel``; a no-op, as tinyffn's attention has one
    implementation, the MATH one, differentiable any number of times."""
    chosen = list(backends) if isinstance(backends, (list, tuple)) else [backends]
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"sdpa_kernel: backends must be SDPBackend members (or a list of "
                            f"them), e.g. SDPBackend.MATH; got {type_name(b)}")
    yield
