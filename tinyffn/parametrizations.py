"""``tinyffn.nn.utils.parametrizations``, as ``torch.nn.utils.parametrizations``: two
constraints on a layer's weight, each a parametrization (:mod:`tinyffn.parametrize`).

**Weight norm** (Salimans and Kingma, 2016) learns each output unit's weight vector as a
length g and a direction v: W = g · v / ‖v‖ (the norm over every axis but ``dim``), so
gradient steps can change the length and the direction separately. ``original0`` is g
(shape 1 on every axis but ``dim``), ``original1`` is v; both start from W.

**Spectral norm** (Miyato et al., 2018) divides W by its largest singular value σ, so
the layer stretches no input by more than 1 (a GAN discriminator's Lipschitz bound). σ
comes from power iteration: vectors u, v (buffers) with u ← normalize(W v) and v ←
normalize(Wᵀ u), one step per forward in training (15 when made); then σ = uᵀ W v. The
gradient flows through W in σ with u and v held fixed, as in PyTorch. A weight of more
than two axes is read as the matrix (size of ``dim``, the rest flattened).
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .functional_extra import normalize
from .module import Module
from .parametrize import register_parametrization
from .tensor import Tensor


def _norm_except_dim(v: Tensor, dim: Any) -> Tensor:
    """‖v‖ over every axis but ``dim`` (every axis, if dim is None), axes kept as 1."""
    if dim is None:
        return (v * v).sum().sqrt()
    axes = [a for a in range(v.ndim) if a != dim % v.ndim]
    return (v * v).sum(dim=axes, keepdim=True).sqrt() if axes else v.abs()


class _WeightNorm(Module):
    """W = g · v / ‖v‖ from (g, v); right_inverse: W -> (‖W‖, W)."""

    def __init__(self, dim: Any = 0):
        super().__init__()
        self.dim = -1 if dim is None else dim       # PyTorch stores None as -1

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        dim = None if self.dim == -1 else self.dim
        return weight_v * (weight_g / _norm_except_dim(weight_v, dim))

    def right_inverse(self, weight: Tensor) -> tuple:
        dim = None if self.dim == -1 else self.dim
        return _norm_except_dim(weight, dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalization of ``module.<name>``, as
    ``torch.nn.utils.parametrizations.weight_norm``: ``parametrizations.weight.original0``
    (g) and ``original1`` (v) are learned; ``dim=None`` takes one norm over the whole
    tensor. Returns the module."""
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


class _SpectralNorm(Module):
    """W / σ(W), σ by power iteration on buffers ``_u`` and ``_v`` (see the docstring)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12):
        super().__init__()
        if not isinstance(n_power_iterations, int) or n_power_iterations < 1:
            raise ValueError(f"spectral_norm: n_power_iterations must be a positive int, got "
                             f"{n_power_iterations!r}")
        self.dim = dim % weight.ndim if weight.ndim else 0
        self.eps, self.n_power_iterations = eps, n_power_iterations
        if weight.ndim > 1:
            from .creation import randn     # creation.py imports tensor.py, as this does
            h, w = self._matrix(weight).shape
            kw = dict(dtype=weight.dtype, device=weight.device)
            self.register_buffer("_u", normalize(randn(h, **kw), dim=0, eps=eps))
            self.register_buffer("_v", normalize(randn(w, **kw), dim=0, eps=eps))
            self._power_method(self._matrix(weight.detach()), 15)

    def _matrix(self, weight: Tensor) -> Tensor:
        """(size of dim, the rest flattened)."""
        if self.dim:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.shape[0], -1)

    def _power_method(self, w: Tensor, n: int) -> None:
        with grad_mode.no_grad():
            for _ in range(n):
                self._u = normalize(w @ self._v, dim=0, eps=self.eps)
                self._v = normalize(w.t() @ self._u, dim=0, eps=self.eps)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        w = self._matrix(weight)
        if self.training:
            self._power_method(w.detach(), self.n_power_iterations)
        sigma = (self._u * (w @ self._v)).sum()             # uᵀ W v, u and v constants
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Spectral normalization of ``module.<name>``, as
    ``torch.nn.utils.parametrizations.spectral_norm``: W / σ(W) (see the module
    docstring); ``dim`` the output axis, by default 1 for a transposed convolution and 0
    otherwise. Returns the module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"spectral_norm: {type(module).__name__} has no parameter or buffer "
                         f"{name!r}")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    return register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations,
                                                                dim, eps))


__all__ = ["weight_norm", "spectral_norm"]
