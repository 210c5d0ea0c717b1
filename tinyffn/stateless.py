"""``nn.utils.stateless``: where ``functional_call`` lived before ``torch.func`` (PyTorch
1.12 and 1.13). Deprecated since PyTorch 2.0, with a FutureWarning, in favour of
:func:`tinyffn.func.functional_call`, which it calls: a module run with other tensors as
its parameters and buffers (MAML's inner step).
"""
from __future__ import annotations

import warnings
from typing import Any

from . import func
from .module import Module

__all__ = ["functional_call"]


def functional_call(module: Module, parameters_and_buffers: Any, args: Any = None,
                    kwargs: Any = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """:func:`tinyffn.func.functional_call` under its old name, as
    ``torch.nn.utils.stateless.functional_call`` (deprecated: warns)."""
    warnings.warn("nn.utils.stateless.functional_call is deprecated as of PyTorch 2.0; use "
                  "tinyffn.func.functional_call instead, a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return func.functional_call(module, parameters_and_buffers, args, kwargs,
                                tie_weights=tie_weights, strict=strict)
