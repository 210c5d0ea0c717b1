"""PyTorch's top-level names for what tinyffn has elsewhere (``torch.selu`` is
``F.selu``, ``torch.t`` is ``x.t()``), with their top-level argument orders where those
differ (``torch.embedding(weight, indices)``, ``torch.dropout(input, p, train)``), and
the window functions of signal processing (``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``), made with NumPy as
constants, as PyTorch's require no gradient.

A window of length N is w[n], n = 0 .. N - 1, of the symmetric window of length N + 1
(periodic, the default: the first N points of one period, as an FFT frame wants) or of
length N (``periodic=False``):

    hann:     0.5 - 0.5 cos(2πn / M)                        (M = N or N - 1)
    hamming:  α - β cos(2πn / M)                            (α = 0.54, β = 0.46)
    blackman: 0.42 - 0.5 cos(2πn / M) + 0.08 cos(4πn / M)
    bartlett: 1 - |2n / M - 1|
    kaiser:   I0(β √(1 - (2n / M - 1)²)) / I0(β)
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import functional as F
from .arguments import _is_int, tensor_arg
from .backend import DEFAULTS
from .creation import tensor
from .tensor import Tensor


# ----------------------------------------------------------------------------- aliases
def t(input: Tensor) -> Tensor:
    """``input.t()``: a matrix transposed (a vector or a number as it is)."""
    return tensor_arg("t", "input", input).t()


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same values, out of the graph."""
    return tensor_arg("detach", "input", input).detach()


def negative(input: Tensor) -> Tensor:
    """``-input``, as ``torch.negative`` (``torch.neg``)."""
    return -tensor_arg("negative", "input", input)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``F.embedding(indices, weight)`` with torch's top-level order, weight first;
    ``padding_idx=-1`` means none here, as in ``torch.embedding`` (F.embedding's -1 is the
    last row). ``scale_grad_by_freq`` as F.embedding's; ``sparse=True`` is refused."""
    return F.embedding(indices, weight, padding_idx=None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.dropout(input, p, training=train)``, with torch's top-level arguments."""
    return F.dropout(input, p, training=train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.alpha_dropout(input, p, training=train)``."""
    return F.alpha_dropout(input, p, training=train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.feature_alpha_dropout(input, p, training=train)``."""
    return F.feature_alpha_dropout(input, p, training=train)


def selu(input: Tensor) -> Tensor:
    """``F.selu(input)``."""
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.celu(input, alpha)``."""
    return F.celu(input, alpha)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``F.prelu(input, weight)``."""
    return F.prelu(input, weight)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False) -> Tensor:
    """``F.rrelu(input, lower, upper, training)``."""
    return F.rrelu(input, lower, upper, training)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``F.hardshrink(input, lambd)``."""
    return F.hardshrink(input, lambd)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``F.threshold(input, threshold, value)``: value where input <= threshold."""
    return F.threshold(input, threshold, value)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``F.rms_norm(input, normalized_shape, weight, eps)``."""
    return F.rms_norm(input, normalized_shape, weight, eps)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """``F.conv3d``."""
    return F.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1) -> Tensor:
    """``F.conv_transpose3d``."""
    return F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor:
    """``F.max_pool3d`` (stride () or None: the kernel size, as torch's)."""
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False) -> tuple:
    """``F.max_pool1d_with_indices``: the maxima and their positions."""
    return F.max_pool1d_with_indices(input, kernel_size, stride or None, padding, dilation,
                                     ceil_mode)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """``F.adaptive_avg_pool1d``."""
    return F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple:
    """``F.adaptive_max_pool1d`` with its indices: torch's top-level one returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """``F.pdist(input, p)``: the distances between the rows, each pair once."""
    return F.pdist(input, p)


def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """``torch.outer``'s older name: input[i] · vec2[j]."""
    from . import outer                 # tinyffn/__init__.py imports this file
    return outer(input, vec2)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """``linalg.multi_dot(matrices)``, PyTorch's older name, with its warning that it is
    deprecated."""
    from .linalg import multi_dot       # linalg.py imports tensor.py, as this does
    warnings.warn("chain_matmul is deprecated (in PyTorch too) and will be removed; use "
                  "linalg.multi_dot, which takes a list of two or more tensors", UserWarning,
                  stacklevel=2)
    return multi_dot(list(matrices))


def rsub(input: Tensor, other: Any, alpha: float = 1) -> Tensor:
    """other - alpha · input, as ``torch.rsub`` (``sub`` with the operands swapped)."""
    from .torch_operators import sub    # torch_operators imports this package's tensor.py
    return sub(other, tensor_arg("rsub", "input", input), alpha=alpha)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    """A 0-d tensor of the number s, of the default float dtype unless ``dtype`` says
    otherwise (a bool or an int too, as ``torch.scalar_tensor``: ``scalar_tensor(3)`` is
    3.0)."""
    return tensor(float(s), dtype=dtype or DEFAULTS.float, device=device or "cpu",
                  requires_grad=requires_grad)


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have the same shape."""
    return tuple(tensor_arg("is_same_size", "input", input).shape) == tuple(
        tensor_arg("is_same_size", "other", other).shape)


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The coordinates of flat (row-major) indices in a tensor of ``shape``, one int64
    tensor per axis, as ``torch.unravel_index`` (NumPy's, with negative indices counting
    from the end as in PyTorch)."""
    i = indices if isinstance(indices, Tensor) else tensor(indices)
    shape = (shape,) if _is_int(shape) else tuple(int(n) for n in shape)
    size = math.prod(shape)
    values = np.asarray(i.numpy(), dtype=np.int64)                      # one read
    if not np.issubdtype(i.numpy().dtype, np.integer):
        raise TypeError(f"unravel_index: indices must be integers, got {i.dtype}")
    if values.size and ((values < -size) | (values >= size)).any():
        raise ValueError(f"unravel_index: an index is out of range for a tensor of shape "
                         f"{shape} ({size} entries): indices must lie in [{-size}, {size})")
    coords = np.unravel_index(values % size if size else values, shape)
    return tuple(tensor(c, dtype="int64", device=i.device) for c in coords)


# ----------------------------------------------------------------------------- windows
def _window(op: str, N: Any, periodic: bool, f: Any, dtype: Any, device: Any,
            requires_grad: bool) -> Tensor:
    """f(n, M) for n = 0 .. N - 1, M = N (periodic) or N - 1; 1 for N = 1, empty for 0."""
    if not _is_int(N) or N < 0:
        raise ValueError(f"{op}: window_length must be a non-negative int, got {N!r}")
    if N <= 1:
        values = np.ones(N)
    else:
        values = f(np.arange(N, dtype=np.float64), N if periodic else N - 1)
    return tensor(values, dtype=dtype or DEFAULTS.float, device=device or "cpu",
                  requires_grad=requires_grad)


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Hann window, 0.5 - 0.5 cos(2πn / M) (see the module docstring)."""
    return _window("hann_window", window_length, periodic,
                   lambda n, M: 0.5 - 0.5 * np.cos(2 * np.pi * n / M), dtype, device,
                   requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, device: Any = None,
                   requires_grad: bool = False) -> Tensor:
    """The Hamming window, α - β cos(2πn / M)."""
    return _window("hamming_window", window_length, periodic,
                   lambda n, M: alpha - beta * np.cos(2 * np.pi * n / M), dtype, device,
                   requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Blackman window, 0.42 - 0.5 cos(2πn / M) + 0.08 cos(4πn / M)."""
    return _window("blackman_window", window_length, periodic,
                   lambda n, M: 0.42 - 0.5 * np.cos(2 * np.pi * n / M)
                   + 0.08 * np.cos(4 * np.pi * n / M), dtype, device, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Bartlett (triangular) window, 1 - |2n / M - 1|."""
    return _window("bartlett_window", window_length, periodic,
                   lambda n, M: 1 - np.abs(2 * n / M - 1), dtype, device, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Kaiser window, I0(β √(1 - (2n / M - 1)²)) / I0(β), I0 the modified Bessel
    function of order 0."""
    return _window("kaiser_window", window_length, periodic,
                   lambda n, M: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / M - 1) ** 2, 0, 1)))
                   / np.i0(beta), dtype, device, requires_grad)


__all__ = ["t", "detach", "negative", "embedding", "dropout", "alpha_dropout",
           "feature_alpha_dropout", "selu", "celu", "prelu", "rrelu", "hardshrink",
           "threshold", "rms_norm", "conv3d", "conv_transpose3d", "max_pool3d",
           "max_pool1d_with_indices", "adaptive_avg_pool1d", "adaptive_max_pool1d", "pdist", "ger", "chain_matmul", "rsub", "scalar_tensor",
           "is_same_size", "unravel_index", "hann_window", "hamming_window",
           "blackman_window", "bartlett_window", "kaiser_window"]
