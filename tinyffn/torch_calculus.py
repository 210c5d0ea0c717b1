"""PyTorch's integrals of sampled values: ``trapezoid`` (and its older name ``trapz``) and
``cumulative_trapezoid``, the trapezoidal rule along one axis, as a script reaches for to
integrate a learning-rate schedule or the area under a curve.

For samples y_0, ..., y_{n−1} at points x_0, ..., x_{n−1} (or spaced ``dx`` apart),

    ∫ y dx ≈ Σ_k (x_{k+1} − x_k) (y_k + y_{k+1}) / 2,

and the cumulative form keeps the n − 1 partial sums. Both are composed of ``narrow``,
sub, add, mul, ``sum`` (or ``cumsum``) and a division by 2, inside a frame of their name,
so their gradients follow from those: ∂/∂y_k is (x_{k+1} − x_{k−1}) / 2 inside and half
the one gap at either end, and x gets its own (PyTorch's are the same sums).
"""
from __future__ import annotations

from . import grad_mode
from .arguments import is_real, tensor_arg, type_name


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim``, as ``torch.trapezoid``: Σ (x_{k+1} − x_k)
    (y_k + y_{k+1}) / 2 with the sample points ``x`` (1-D, one per sample, or a tensor that
    broadcasts with y), or Σ dx (y_k + y_{k+1}) / 2 with a spacing ``dx`` (1 when neither
    is given). y's shape without ``dim``; 0 for fewer than two samples. Integer samples
    give the default float, as PyTorch's."""
    return _trapezoid("trapezoid", y, x, dx, dim, cumulative=False)


def trapz(y, x=None, *, dx=None, dim=-1):
    """:func:`trapezoid` under its older name, as ``torch.trapz``."""
    return _trapezoid("trapz", y, x, dx, dim, cumulative=False)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal rule along ``dim``, as ``torch.cumulative_trapezoid``:
    entry k is :func:`trapezoid` of samples 0 to k + 1, so ``dim`` has n − 1 entries."""
    return _trapezoid("cumulative_trapezoid", y, x, dx, dim, cumulative=True)


def _trapezoid(op: str, y, x, dx, dim, cumulative: bool):
    from .sorting import _dim       # sorting.py imports tensor.py, which imports this
    y = tensor_arg(op, "y", y)
    if not y.ndim:
        raise ValueError(f"{op}: y is 0-d; it needs an axis of samples to integrate along "
                         "(PyTorch refuses it too)")
    if x is not None and dx is not None:
        raise TypeError(f"{op}: takes the sample points x or the spacing dx, not both")
    if dx is not None and (not is_real(dx) or isinstance(dx, bool)):
        raise TypeError(f"{op}: dx must be a number, got {type_name(dx)}")
    axis = _dim(op, dim, y.ndim)
    n = y.shape[axis]
    if x is not None:
        if is_real(x) and not hasattr(x, "ndim"):   # trapezoid(y, 0.5): a spacing meant
            raise TypeError(f"{op}: x is the sample points, a Tensor, got the number {x!r}; "
                            f"for a spacing write dx={x!r} (PyTorch takes it by name too)")
        tensor_arg(op, "x", x)
        if x.ndim == 1:
            if x.shape[0] != n:
                raise ValueError(f"{op}: x has {x.shape[0]} points, but y {n} samples along "
                                 f"dim {dim} (shape {y.shape}); one x value per sample")
            x = x.reshape(tuple(n if a == axis else 1 for a in range(y.ndim)))
        elif x.ndim > y.ndim or x.shape[axis - y.ndim] != n or not _broadcasts(x, y):
            raise ValueError(f"{op}: x of shape {x.shape} does not give one point per sample "
                             f"of y of shape {y.shape} along dim {dim}; give a 1-D x, or one "
                             "that broadcasts with y")
    with grad_mode.scope("function", op):
        if n < 2:                   # no interval: 0 (an empty axis for the cumulative form)
            zero = y.narrow(axis, 0, 0) if cumulative else y.sum(axis) * 0
            return zero if zero.backend.is_floating(zero.dtype) else zero.to(
                dtype=zero.backend.default_float())
        pairs = y.narrow(axis, 0, n - 1) + y.narrow(axis, 1, n - 1)     # y_k + y_{k+1}
        if x is not None:
            k = axis - y.ndim                                           # x may have fewer axes
            pairs = (x.narrow(k, 1, n - 1) - x.narrow(k, 0, n - 1)) * pairs
        elif dx is not None:
            pairs = pairs * dx
        total = pairs.cumsum(axis) if cumulative else pairs.sum(axis)
        return total / 2


def _broadcasts(x, y) -> bool:
    """Whether x's shape broadcasts with y's (else the error would be mul's, on the
    shapes of the slices)."""
    from .torch_shapes import _broadcast_shape      # torch_shapes.py imports more than this
    try:
        _broadcast_shape("trapezoid", (x.shape, y.shape))
    except ValueError:
        return False
    return True


__all__ = ["trapezoid", "trapz", "cumulative_trapezoid"]
