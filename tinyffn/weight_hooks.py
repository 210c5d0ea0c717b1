"""The older ``nn.utils.weight_norm`` and ``nn.utils.spectral_norm``, as PyTorch's: the
same two constraints as :mod:`tinyffn.parametrizations`, made with a forward pre-hook
instead of a parametrization, so that scripts and checkpoints written for them load.

The parameter ``weight`` is replaced by the tensors it is computed from, and before every
forward the hook recomputes ``module.weight``, a plain attribute (neither a parameter
nor a buffer, not in the state_dict), from them:

* **weight norm** (deprecated in PyTorch, with a FutureWarning): parameters ``weight_g``
  (the length, ‖v‖ over every axis but ``dim``) and ``weight_v`` (the direction), and
  W = g · v / ‖v‖. ``dim=None`` takes one norm over the whole tensor, and so does
  ``dim=-1``, as in PyTorch (it stores None as -1).
* **spectral norm**: the parameter ``weight_orig`` (the same Parameter object: an
  optimizer holding it keeps working) and buffers ``weight_u``, ``weight_v``; in training
  each forward first takes ``n_power_iterations`` steps of power iteration,
  v ← normalize(Wᵀ u), u ← normalize(W v) (v first: the parametrization's order is u
  first), written into the buffers; then W / σ with σ = uᵀ W v, u and v held fixed in
  the gradient. In eval mode the buffers are used as they are.

Between forwards ``module.weight`` is the value of the last one (or of the
registration), as in PyTorch: reading it does not recompute it. ``remove_weight_norm``
and ``remove_spectral_norm`` turn the current value back into a plain Parameter. PyTorch's
spectral norm also converts checkpoints saved before its version 1 (2018) as it loads
them; tinyffn does not read those.
"""
from __future__ import annotations

import warnings
from typing import Any

from .creation import randn
from .functional_extra import normalize
from .grad_mode import no_grad
from .module import Module, Parameter
from .parametrizations import _norm_except_dim
from .tensor import Tensor

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "SpectralNorm", "spectral_norm",
           "remove_spectral_norm"]


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm` on ``module.<name>``."""

    def __init__(self, name: str, dim: int | None):
        self.name = name
        self.dim = -1 if dim is None else dim       # -1: one norm of the whole tensor

    def _norm(self, v: Tensor) -> Tensor:
        """‖v‖ over every axis but ``dim``; over all of them for -1, as PyTorch reads it
        (``dim=None`` is stored as -1, so -1 cannot mean the last axis)."""
        return _norm_except_dim(v, None if self.dim == -1 else self.dim)

    def compute_weight(self, module: Module) -> Tensor:
        """W = g · v / ‖v‖ from ``<name>_g`` and ``<name>_v``, recorded in the graph."""
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / self._norm(v))

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> "WeightNorm":
        """Replace the Parameter ``module.<name>`` by ``<name>_g`` and ``<name>_v`` (both
        from its value) and register the hook."""
        warnings.warn("`nn.utils.weight_norm` is deprecated in favor of "
                      "`nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        _check_free(module, name, "weight_norm", WeightNorm)
        fn = WeightNorm(name, dim)
        weight = _parameter(module, name, "weight_norm")
        delattr(module, name)
        setattr(module, name + "_g", Parameter(fn._norm(weight.detach())))
        setattr(module, name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """``module.<name>`` a Parameter again, holding the current W."""
        weight = self.compute_weight(module)
        for suffix in ("", "_g", "_v"):
            delattr(module, self.name + suffix)
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalization of ``module.<name>`` by a forward pre-hook, as
    ``torch.nn.utils.weight_norm`` (deprecated: a FutureWarning; the parametrization
    ``nn.utils.parametrizations.weight_norm`` is the current form). Returns the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`weight_norm`: ``module.<name>`` a plain Parameter holding the current W."""
    _remove_hook(module, name, WeightNorm, "weight_norm")
    return module


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm` on ``module.<name>``."""

    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12):
        if not isinstance(n_power_iterations, int) or n_power_iterations <= 0:
            raise ValueError(f"spectral_norm: expected n_power_iterations to be a positive "
                             f"int, but got n_power_iterations={n_power_iterations!r}")
        self.name, self.dim = name, dim
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix (size of ``dim``, the rest flattened)."""
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.shape[0], -1)                      # (h, w)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """W / σ, σ = uᵀ W v, after ``n_power_iterations`` steps written into the buffers
        ``<name>_u``, ``<name>_v`` if ``do_power_iteration``."""
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        w = self.reshape_weight_to_matrix(weight)                       # (h, w)
        if do_power_iteration:
            with no_grad():
                m = w.detach()
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(m.t() @ u, dim=0, eps=self.eps))   # (w,)
                    u.copy_(normalize(m @ v, dim=0, eps=self.eps))       # (h,)
            # σ's own copies, as PyTorch's (whose steps write into the buffers in place);
            # tinyffn's copy_ gives a buffer a new array, so an earlier graph's u, v
            # would stay as they were even without them
            u, v = u.clone(), v.clone()
        sigma = (u * (w @ v)).sum()                                     # uᵀ W v
        return weight / sigma

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> "SpectralNorm":
        """Rename the Parameter ``module.<name>`` to ``<name>_orig``, add the buffers
        ``<name>_u`` and ``<name>_v`` (random unit vectors) and register the hook."""
        _check_free(module, name, "spectral_norm", SpectralNorm)
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = _parameter(module, name, "spectral_norm")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            kw = dict(dtype=weight.dtype, device=weight.device)
            u = normalize(randn(h, **kw), dim=0, eps=eps)
            v = normalize(randn(w, **kw), dim=0, eps=eps)
        delattr(module, name)
        setattr(module, name + "_orig", weight)
        setattr(module, name, weight.detach())           # until the first forward
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """``module.<name>`` a Parameter again, holding the current W / σ."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Spectral normalization of ``module.<name>`` by a forward pre-hook, as
    ``torch.nn.utils.spectral_norm`` (module docstring); ``dim`` the output axis, by
    default 1 for a transposed convolution and 0 otherwise. Returns the module."""
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`spectral_norm`: ``module.<name>`` a plain Parameter holding W / σ."""
    _remove_hook(module, name, SpectralNorm, "spectral_norm")
    return module


def _parameter(module: Module, name: str, op: str) -> Parameter:
    weight = getattr(module, name, None)
    if not isinstance(weight, Parameter):
        raise ValueError(f"{op}: {type(module).__name__}.{name} is "
                         f"{'missing' if weight is None else type(weight).__name__}, not a "
                         f"Parameter; give the name of one of its parameters "
                         f"({', '.join(n for n, _ in module.named_parameters(recurse=False))})")
    return weight


def _hooks(module: Module, kind: type, name: str) -> list:
    """The keys of the module's forward pre-hooks that are ``kind`` hooks on ``name``."""
    return [k for k, (fn, _) in (module._forward_pre_hooks or {}).items()
            if isinstance(fn, kind) and fn.name == name]


def _check_free(module: Module, name: str, op: str, kind: type) -> None:
    if _hooks(module, kind, name):
        raise RuntimeError(f"{op}: cannot register two {op} hooks on the same parameter "
                           f"{name!r} of {type(module).__name__}")


def _remove_hook(module: Module, name: str, kind: type, op: str) -> None:
    keys = _hooks(module, kind, name)
    if not keys:
        raise ValueError(f"{op} of {name!r} not found in {type(module).__name__}")
    module._forward_pre_hooks[keys[0]][0].remove(module)
    del module._forward_pre_hooks[keys[0]]
