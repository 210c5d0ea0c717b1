"""tinyffn: a from-scratch autograd engine for learning how a transformer's FFN computes and learns.

Start reading at :mod:`tinyffn.tensor` (the Tensor), then :mod:`tinyffn.autograd`
(Function and the backward walk; its switches, such as no_grad, are in
:mod:`tinyffn.grad_mode`), then :mod:`tinyffn.ops` (the primitives).
"""
import numpy as _np

# creation and tensor first: tensor imports autograd and the ops, which refer back to it
# at call time.
from .creation import (arange, cat, manual_seed, ones, ones_like, rand, randn, stack, tensor,
                       zeros, zeros_like)
from .tensor import Tensor
from .composed import where
from . import ops
from .autograd import Context, Function, grad
from .grad_mode import (AnomalyError, detect_anomaly, enable_grad, is_grad_enabled,
                        keep_intermediates, no_grad, set_grad_enabled)
from .backend import DeviceError, cuda_available
from .flops import FlopCounter
from .gradcheck import GradcheckError, gradcheck
# the FFN family, built on the engine above: composed ops, modules, optimizers, counts
from . import functional, nn, optim, accounting
# seeing the engine work: graph drawings and a step-by-step backward
from .graphviz import draw_graph, to_dot
from .stepper import BackwardStep, backward_steps, iter_backward

# PyTorch's dtype names (torch.float32, ...) for NumPy's dtypes, which every dtype= takes, as
# do names ("float32"): tensor(..., dtype=tinyffn.float64), x.to(tinyffn.float16).
float16, float32, float64 = _np.dtype("float16"), _np.dtype("float32"), _np.dtype("float64")
int8, int16, int32, int64 = (_np.dtype(f"int{bits}") for bits in (8, 16, 32, 64))
uint8, bool = _np.dtype("uint8"), _np.dtype("bool")   # torch.bool; kept out of __all__, so
#                                                       that `import *` leaves Python's bool

__version__ = "0.1.0"

__all__ = [
    "Tensor", "tensor", "zeros", "ones", "zeros_like", "ones_like", "randn", "rand", "arange",
    "manual_seed", "cat", "stack", "where",
    "Function", "Context", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "detect_anomaly",
    "AnomalyError", "keep_intermediates", "grad", "iter_backward", "BackwardStep",
    "gradcheck", "GradcheckError", "FlopCounter", "cuda_available", "DeviceError", "ops",
    "functional", "nn", "optim", "accounting",
    "draw_graph", "to_dot", "backward_steps",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
]
