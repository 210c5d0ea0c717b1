"""PyTorch's integrals of sampled values: ``trapezoid`` (and its older name ``trapz``) and
``cumulative_trapezoid``, the trapezoidal rule along one axis, as a script reaches for to
integrate a learning-rate schedule or the area under a curve.

For samples y_0, ..., y_{n−1} at points x_0, ..., x_{n−1} (or spaced ``dx`` apart),

    ∫ y dx ≈ Σ_k (x_{k+1} − x_k) (y_k + y_{k+1}) / 2,

and the cumulative form keeps the n − 1 partial sums. Both are composed of ``narrow``,
sub, add, mul, ``sum`` (or ``cumsum``) and a division by 2, inside a frame of their name,
so their gradients follow from those: ∂/∂y_k is (x_{k+1} − x_{k−1}) / 2 inside and half
the one gap at either end, and x gets its own (PyTorch's are the same sums).

``gradient`` goes the other way: the derivative of sampled values along each axis, by
central differences inside and one-sided ones at the two ends (NumPy's ``np.gradient``).
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


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of ``input``'s samples along each axis in ``dim`` (every axis when
    None), as ``torch.gradient``: a tuple of tensors of input's shape, one per axis.

    With a spacing h (a number, or one per axis): inside, (f_{k+1} − f_{k−1}) / 2h; at the
    ends (f_1 − f_0) / h and (f_{n−1} − f_{n−2}) / h, or, with ``edge_order=2``, the
    second-order (−3 f_0 + 4 f_1 − f_2) / 2h and (f_{n−3} − 4 f_{n−2} + 3 f_{n−1}) / 2h.
    With coordinates (a 1-D tensor per axis, one per sample, in a list), the second-order
    central difference for uneven gaps, h_l = x_k − x_{k−1}, h_r = x_{k+1} − x_k:
    f'_k ≈ (−h_r / (h_l (h_l + h_r))) f_{k−1} + ((h_r − h_l) / (h_l h_r)) f_k
    + (h_l / (h_r (h_l + h_r))) f_{k+1}, and its one- and two-sided forms at the ends
    (NumPy's and PyTorch's formulas). Each axis needs at least ``edge_order`` + 1 samples.
    Integer samples give the default float. Composed of ``narrow``, sub, mul, div and
    ``cat``, so f (and the coordinates) get gradients."""
    from .creation import cat
    from .sorting import _dim
    from .tensor import Tensor
    op = "gradient"
    f = tensor_arg(op, "input", input)
    if edge_order not in (1, 2) or isinstance(edge_order, bool):
        raise ValueError(f"{op}: edge_order must be 1 or 2, got {edge_order!r} (PyTorch "
                         "supports only these)")
    dims = tuple(range(f.ndim)) if dim is None else (dim,) if not isinstance(
        dim, (list, tuple)) else tuple(dim)
    axes = tuple(_dim(op, d, f.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: dim {dim!r} names an axis twice")
    if isinstance(spacing, Tensor):
        raise TypeError(f"{op}: spacing is a tensor; put coordinates in a list, one 1-D "
                        "tensor per axis in dim (spacing=[x]), as PyTorch takes them")
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(axes):
            raise ValueError(f"{op}: spacing has {len(spacing)} entries, but there are "
                             f"{len(axes)} axes to differentiate (dim={dim!r}, input of "
                             f"shape {f.shape}); give one spacing per axis, or one number")
        steps = list(spacing)
    else:
        steps = [spacing] * len(axes)
    if not f.backend.is_floating(f.dtype):
        f = f.to(dtype=f.backend.default_float())
    out = []
    for axis, h in zip(axes, steps):
        n = f.shape[axis]
        if n < edge_order + 1:
            raise ValueError(f"{op}: input of shape {f.shape} has {n} sample(s) along dim "
                             f"{axis}; edge_order={edge_order} needs at least "
                             f"{edge_order + 1} (PyTorch refuses it too)")
        if isinstance(h, Tensor):
            if h.ndim != 1 or h.shape[0] != n:
                raise ValueError(f"{op}: the coordinates for dim {axis} have shape {h.shape}; "
                                 f"they must be 1-D with one per sample ({n})")
            h = h.reshape(tuple(n if a == axis else 1 for a in range(f.ndim)))
        elif not is_real(h) or isinstance(h, bool):
            raise TypeError(f"{op}: each spacing must be a number or a 1-D tensor of "
                            f"coordinates, got {type_name(h)}")
        with grad_mode.scope("function", op):
            out.append(cat(_ends_and_inside(f, axis, n, h, edge_order), axis))
    return tuple(out)


def _ends_and_inside(f, axis: int, n: int, h, edge_order: int) -> list:
    """[first, inside, last] of the derivative along ``axis``; h a number or coordinates."""
    def s(start, length=1):                     # samples start .. start + length − 1
        return f.narrow(axis, start, length)
    if is_real(h):
        inside = (s(2, n - 2) - s(0, n - 2)) / h / 2
        if edge_order == 1:
            return [(s(1) - s(0)) / h, inside, (s(n - 1) - s(n - 2)) / h]
        return [(s(0) * -1.5 + s(1) * 2 - s(2) * 0.5) / h, inside,
                (s(n - 3) * 0.5 - s(n - 2) * 2 + s(n - 1) * 1.5) / h]
    gap = h.narrow(axis, 1, n - 1) - h.narrow(axis, 0, n - 1)   # x_{k+1} − x_k, n − 1 of them
    hl, hr = gap.narrow(axis, 0, n - 2), gap.narrow(axis, 1, n - 2)
    inside = (s(0, n - 2) * (-hr / (hl * (hl + hr))) + s(1, n - 2) * ((hr - hl) / (hl * hr))
              + s(2, n - 2) * (hl / (hr * (hl + hr))))
    g0, g1 = gap.narrow(axis, 0, 1), gap.narrow(axis, n - 2, 1)    # the first and last gaps
    if edge_order == 1:
        return [(s(1) - s(0)) / g0, inside, (s(n - 1) - s(n - 2)) / g1]
    a1, b1 = g0, gap.narrow(axis, 1, 1)                             # first two gaps
    a2, b2 = gap.narrow(axis, n - 3, 1), g1                         # last two
    first = (s(0) * (-(2 * a1 + b1) / (a1 * (a1 + b1))) + s(1) * ((a1 + b1) / (a1 * b1))
             + s(2) * (-a1 / (b1 * (a1 + b1))))
    last = (s(n - 3) * (b2 / (a2 * (a2 + b2))) + s(n - 2) * (-(a2 + b2) / (a2 * b2))
            + s(n - 1) * ((2 * b2 + a2) / (b2 * (a2 + b2))))
    return [first, inside, last]


__all__ = ["trapezoid", "trapz", "cumulative_trapezoid", "gradient"]
