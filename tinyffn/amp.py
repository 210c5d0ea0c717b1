"""Mixed precision, as ``torch.amp``: :class:`autocast` and :class:`GradScaler`.

**autocast.** Inside ``with tinyffn.autocast("cuda"):`` each op runs in the dtype its kind
needs: the matrix products in float16 (half the bytes to move, and a GPU's tensor cores),
the ops whose range or sums float16 cannot hold (exp, log, pow, sums, softmax, layer_norm,
the losses) in float32, and every other op in the dtype of its inputs. The parameters stay
float32. A Linear's float32 weight reaches its matmul through a cast node in the graph,
whose backward casts the gradient back, so ``w.grad`` is float32 like ``w``.

The lists are PyTorch's for CUDA (its "Autocast Op Reference"), under tinyffn's names.
PyTorch casts at an op's entry, and its kernels decide how they compute inside. Here a
composed function (``F.layer_norm``: a dozen primitives) casts at each primitive it
runs, so the rule reads the enclosing calls (``grad_mode.scope``):

1. inside a function listed as float32 (``F.layer_norm``, ``F.softmax``,
   ``F.cross_entropy``), every primitive runs in float32, however deep, as PyTorch's
   kernels for them compute: also the softmax inside an attention;
2. else inside a function listed as float16 (``F.linear``, ``F.conv1d``,
   ``F.scaled_dot_product_attention``), every primitive runs in float16;
3. a function PyTorch computes as one kernel and does not list (``gelu``, ``silu``,
   ``dropout``, ...) runs as its inputs come, even where its composition here uses a
   listed primitive (tanh GELU's x³ is a pow);
4. elsewhere the primitive's own list decides: ``a @ b`` in float16, ``x.exp()``,
   ``x ** 2`` and ``x.sum()`` in float32.

An input is cast if it is a tensor on the region's device, of float16 or float32:
float64 ops run in float64, as in PyTorch. A weight's float16 copy is made once per
region and shared by its uses; an explicit ``dtype`` (``F.softmax(x, -1, dtype=...)``)
wins; ``dot`` promotes mixed inputs; ``F.binary_cross_entropy`` is refused in a "cuda"
region: :mod:`tinyffn.amp_casts` says how, as PyTorch does each. Wrap the forward pass
and the loss, not the backward pass, as PyTorch advises. The dtype is float16 on both
devices: NumPy and CuPy have no bfloat16 (PyTorch's CPU default). On the CPU float16 is
slower than float32 (NumPy's float16 matrix product is not BLAS's); it is there to learn
from.

**GradScaler.** A float16 gradient below 2^-25 (3e-8, half of float16's smallest
positive number, 2^-24) rounds to 0, and one below 2^-14 keeps few digits. The scaler
multiplies the loss by S (2^16 at first) before backward, so every gradient is S times
larger while in float16, then divides the float32 gradients by S before the optimizer
uses them. If any of them is inf or NaN, S was too large: the step is skipped and S
halves. After ``growth_interval`` good steps in a row, S doubles.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import warnings
from typing import Any

from .backend import cuda_available, dtype_name, normalize_device
from .grad_mode import STATE, no_grad
from .arguments import type_name
from .ops.elementwise import Cast, Div
from .tensor import Tensor
from .amp_casts import cached_cast, clear_cache

__all__ = ["autocast", "GradScaler", "is_autocast_enabled", "get_autocast_dtype"]

# PyTorch's CUDA lists, restricted to the functions and primitives tinyffn has: name ->
# "float16" (the region's dtype), "float32", or None (the inputs run as they come)
FUNCTIONS = {
    **dict.fromkeys(["linear", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d",
                     "prelu", "addmm", "baddbmm", "einsum", "scaled_dot_product_attention"],
                    "float16"),
    **dict.fromkeys(["softmax", "log_softmax", "softmin", "softplus", "logsumexp",
                     "layer_norm", "rms_norm", "group_norm", "norm", "normalize", "cumprod",
                     "cosine_similarity", "cdist", "pdist", "cross_entropy", "nll_loss",
                     "l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "kl_div",
                     "poisson_nll_loss", "binary_cross_entropy_with_logits",
                     "soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss",
                     "cosine_embedding_loss", "multi_margin_loss", "multilabel_margin_loss",
                     "triplet_margin_loss", "expm1", "sinh", "cosh",
                     "binary_cross_entropy"], "float32"),   # PyTorch's CPU list; CUDA: refused
    **dict.fromkeys(["gelu", "silu", "swish", "mish", "logsigmoid", "hardswish",
                     "hardsigmoid", "softsign", "tanhshrink", "dropout", "var_mean",
                     "std_mean", "sqrt", "lerp"], None),
}
PRIMITIVES = {
    **dict.fromkeys(["matmul", "linear"], "float16"),
    **dict.fromkeys(["exp", "log", "log1p", "log2", "log10", "pow", "sum", "prod", "cumsum",
                     "erfinv"], "float32"),
}
_DEVICE_TYPES = ("cpu", "cuda")

_REGIONS: list = []     # the entered autocast regions, innermost last
_ACTIVE: dict = {}      # device type -> the dtype its matrix products run in, while enabled


def _kind(cls: Any, args: tuple = ()) -> str | None:
    """``"float16"``, ``"float32"`` or None (leave the inputs as they are) for the op
    ``cls`` run now, by the rules in the module docstring."""
    kinds = {FUNCTIONS[f.name] for f in STATE.scope
             if f.kind == "function" and f.name in FUNCTIONS}
    if not kinds:
        if cls is Div and isinstance(args[0], (int, float)):    # 1 / x: PyTorch lists
            return "float32"                                    # __rtruediv__, reciprocal
        return PRIMITIVES.get(cls.op_name())
    return "float32" if "float32" in kinds else "float16" if "float16" in kinds else None


def in_float32_function(device_type: str) -> bool:
    """Whether the ops run now on a tensor of ``device_type`` are inside a function autocast
    runs in float32: there a float16 input's result stays float32 (``F.softmax`` of float16
    logits is float32, as in PyTorch), where outside autocast it is rounded back to float16.
    A region of another device type leaves the tensor alone (a CPU tensor in a 'cuda' one)."""
    return device_type in _ACTIVE and _kind(Cast) == "float32"   # no primitive list holds cast


def autocast_inputs(op: Any, args: tuple) -> tuple:
    """The inputs of the op ``op`` (a Function class) as autocast runs it;
    ``Function.apply`` calls this while a region is entered (``STATE.autocast``)."""
    if op is Cast:                     # the casts autocast makes are not cast again
        return args
    kind = _kind(op, args)
    if kind is None:
        return args
    out, cache = [], _REGIONS[-1][3].cache_enabled      # the innermost region's, as torch
    for a in args:
        if isinstance(a, Tensor) and a.device.type in _ACTIVE:
            name = dtype_name(a.dtype)
            cast = cached_cast(a, "float16", cache) if kind == "float16" and name == "float32" \
                else a.float() if kind == "float32" and name == "float16" else a
            if cast is not a and cast.grad_fn is None and a.name is not None:
                cast.name = f"{a.name} (cast)"  # no node records this cast: a's name
            a = cast
        out.append(a)
    return tuple(out)


def _refresh() -> None:
    """``_ACTIVE`` and ``STATE.autocast`` from the innermost region of each device type."""
    _ACTIVE.clear()
    for device_type in _DEVICE_TYPES:
        inner = next((r for r in reversed(_REGIONS) if r[0] == device_type), None)
        if inner is not None and inner[2]:
            _ACTIVE[device_type] = inner[1]
    STATE.autocast = autocast_inputs if _ACTIVE else None
    if not _REGIONS:            # the outermost region left: its float16 copies go, as torch's
        clear_cache()


def entered_regions() -> tuple:
    """The autocast regions entered now, outermost first (for :func:`regions_restored`)."""
    return tuple(_REGIONS)


@contextlib.contextmanager
def regions_restored(regions: tuple) -> Any:
    """Run a block in ``regions`` (from :func:`entered_regions`) in place of the regions
    entered now: ``utils.checkpoint`` reruns a block in backward, outside any region, in
    the autocast state of its forward, as PyTorch's checkpoint records and restores it."""
    saved = _REGIONS[:]
    _REGIONS[:] = regions
    _refresh()
    try:
        yield
    finally:
        _REGIONS[:] = saved
        _refresh()


def _dtype_of(op: str, dtype: Any) -> str:
    try:
        name = "float16" if dtype is None else dtype if isinstance(dtype, str) \
            else dtype_name(dtype)
    except TypeError:                   # not a dtype at all
        name = None
    if name != "float16":
        why = "NumPy and CuPy have no bfloat16, PyTorch's other choice" \
            if "bfloat16" in str(dtype) else "float32 is what runs outside a region"
        raise ValueError(f"{op}: dtype must be float16 (tinyffn.float16), got {dtype!r}; "
                         f"{why}")
    return name


class autocast(contextlib.ContextDecorator):
    """``with tinyffn.autocast("cuda"):`` (or as a decorator): run the ops inside in mixed
    precision (see the module docstring), as ``torch.autocast``.

    ``device_type``: ``"cuda"`` or ``"cpu"``; only tensors on that device are cast.
    ``dtype``: float16, the only one (also the default on the CPU, where PyTorch's is
    bfloat16). ``enabled=False`` turns autocast off inside an enclosing region of the same
    device type. ``cache_enabled=False``: each use of a weight casts it anew (None: as
    the region entered when this one is made, else True; see :mod:`tinyffn.amp_casts`).
    ``"cuda"`` without a usable GPU warns and is disabled, as in PyTorch. Like
    :func:`~tinyffn.no_grad`, a region holds for the whole process, every
    thread (``torch.autocast`` holds for the calling thread only).
    """

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"autocast: device_type must be a string, 'cuda' or 'cpu', got "
                             f"{type_name(device_type)}")
        if device_type not in _DEVICE_TYPES:
            why = "a device type has no index: tinyffn uses one GPU" if ":" in device_type \
                else "the test-only 'strict' backend has no float16" \
                if device_type == "strict" else "tinyffn's devices are 'cpu' and 'cuda'"
            raise ValueError(f"autocast: device_type {device_type!r} is not supported; use "
                             f"'cuda' or 'cpu' ({why})")
        for flag, value in (("enabled", enabled), ("cache_enabled", cache_enabled)):
            if not isinstance(value, bool) and (flag == "enabled" or value is not None):
                raise TypeError(f"autocast: {flag} must be True or False, got {value!r}")
        self.cache_enabled = _REGIONS[-1][3].cache_enabled if cache_enabled is None \
            and _REGIONS else cache_enabled is not False
        self.device, self.fast_dtype = device_type, _dtype_of("autocast", dtype)
        self._enabled = enabled
        if enabled and device_type == "cuda" and not cuda_available():
            warnings.warn("autocast: device_type 'cuda', but no GPU is usable here; autocast "
                          "is disabled (use autocast('cpu') for tensors on the CPU)",
                          UserWarning, stacklevel=2)
            self._enabled = False

    def __call__(self, fn: Any) -> Any:
        """As a decorator: each call of ``fn`` runs in the region. Not a generator
        function: its body would run after the call has returned and the region is left."""
        if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
            kind = "generator" if inspect.isgeneratorfunction(fn) else "coroutine"
            raise TypeError(f"autocast: cannot decorate the {kind} function {fn.__name__}: "
                            "its body runs later, after the call has returned and the "
                            "region is left; write `with tinyffn.autocast("
                            f"{self.device!r}):` inside its body instead")
        return super().__call__(fn)

    def __enter__(self) -> autocast:
        _REGIONS.append((self.device, self.fast_dtype, self._enabled, self))
        _refresh()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        # its own entry, the last one: regions left out of order (by hand) leave the rest
        del _REGIONS[max(i for i, r in enumerate(_REGIONS) if r[3] is self)]
        _refresh()


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether ops on ``device_type`` are autocast here, as ``torch.is_autocast_enabled``."""
    return normalize_device(device_type) in _ACTIVE


def get_autocast_dtype(device_type: str = "cuda") -> Any:
    """The dtype autocast runs ``device_type``'s matrix products in: ``tinyffn.float16``."""
    from . import float16           # at call time: tinyffn/__init__.py defines it
    normalize_device(device_type)
    return float16


# ----------------------------------------------------------------------------- GradScaler
_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """Loss scaling for float16 training, as ``torch.amp.GradScaler``::

        scaler = tinyffn.amp.GradScaler("cuda")
        with tinyffn.autocast("cuda"):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()   # every gradient S times larger
        scaler.step(optimizer)          # unscales; skips the step if one is inf or NaN
        scaler.update()                 # S halves after a skip, doubles after
                                        # growth_interval good steps

    Call ``scaler.unscale_(optimizer)`` before clipping gradients, so the clip sees their
    true size. ``enabled=False`` makes every method a pass-through (``scale`` returns the
    loss, ``step`` calls ``optimizer.step()``). ``device="cuda"`` without a usable GPU
    warns and disables the scaler, as in PyTorch; pass ``"cpu"`` for the CPU.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        self.device = normalize_device(device)
        if enabled and self.device == "cuda" and not cuda_available():
            warnings.warn("GradScaler: device 'cuda', but no GPU is usable here; the scaler "
                          "is disabled (pass device='cpu' for the CPU)", UserWarning,
                          stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)
        if not (isinstance(init_scale, (int, float)) and math.isfinite(init_scale)
                and init_scale > 0):
            raise ValueError(f"GradScaler: init_scale must be a finite number > 0, got "
                             f"{init_scale!r}")
        self.set_growth_factor(growth_factor)
        self.set_backoff_factor(backoff_factor)
        self.set_growth_interval(growth_interval)
        self._scale = float(init_scale)
        self._growth_tracker = 0
        self._per_optimizer: dict = {}      # id(optimizer) -> {"stage", "found_inf"}

    # -- the three calls of a step ----------------------------------------------------------
    def scale(self, outputs: Any) -> Any:
        """``outputs`` times the scale: a tensor, or a list or tuple of them (nested). A
        float16 tensor is cast to float32 first (a node in the graph)."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):         # a float16 loss (a mean under autocast) is
            if dtype_name(outputs.dtype) == "float16":      # scaled in float32: S = 2^16
                outputs = outputs.float()                   # is past float16's 65,504
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise TypeError(f"GradScaler.scale: outputs must be a tensor or a list or tuple of "
                        f"tensors, got {type_name(outputs)}")

    def unscale_(self, optimizer: Any) -> None:
        """Divide the gradients of ``optimizer``'s parameters by the scale, in place, and
        note whether any is inf or NaN. At most once per optimizer between updates."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("GradScaler.unscale_: already called on this optimizer since "
                               "the last update(); call it once per step")
        if state["stage"] == _STEPPED:
            raise RuntimeError("GradScaler.unscale_: called after step(); unscale before "
                               "stepping (step() unscales by itself if you have not)")
        grads = [p.grad for group in optimizer.param_groups for p in group["params"]
                 if p.grad is not None]
        for g in grads:
            if dtype_name(g.dtype) == "float16":
                raise ValueError("GradScaler.unscale_: the gradients are float16: keep the "
                                 "parameters float32 and let autocast make float16 copies "
                                 "(do not call model.half() when training with autocast)")
        inv_scale = 1.0 / self._scale       # a power of 2 for the default factors: exact
        found_inf = None
        with no_grad():
            for g in grads:
                g *= inv_scale      # in place: the .grad tensors stay the same objects
                bad = g.isfinite().logical_not().any()
                found_inf = bad if found_inf is None else found_inf.logical_or(bad)
        # one read from the device, for all the gradients
        state["found_inf"] = found_inf is not None and bool(found_inf)
        state["has_grads"] = bool(grads)
        state["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step(*args, **kwargs)`` on unscaled gradients, unless one of them is
        inf or NaN: then the step is skipped (returns None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs or args:
            raise RuntimeError("GradScaler.step: a closure is not supported while the scaler "
                               "is enabled (as in PyTorch); compute the loss before step()")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("GradScaler.step: already called on this optimizer since the "
                               "last update(); call update() once per step")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if not state["has_grads"]:
            raise RuntimeError("GradScaler.step: no parameter of the optimizer has a gradient; "
                               "call scaler.scale(loss).backward() first")
        result = None if state["found_inf"] else optimizer.step(**kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """The scale for the next step: ``new_scale`` if given; else halved
        (``backoff_factor``) if a step this round found inf or NaN, doubled
        (``growth_factor``) after ``growth_interval`` good steps in a row."""
        if not self._enabled:
            return
        if new_scale is not None:
            value = float(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"GradScaler.update: new_scale must be a finite number > 0, "
                                 f"got {new_scale!r}")
            self._scale = value
        else:
            stepped = [s for s in self._per_optimizer.values() if s["stage"] != _READY]
            if not stepped:
                raise RuntimeError("GradScaler.update: no optimizer was unscaled or stepped "
                                   "since the last update(); call scaler.step(optimizer) first")
            if any(s["found_inf"] for s in stepped):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer.clear()

    def _state(self, optimizer: Any) -> dict:
        if not hasattr(optimizer, "param_groups"):
            raise TypeError(f"GradScaler: expected an optimizer (with param_groups), got "
                            f"{type_name(optimizer)}")
        return self._per_optimizer.setdefault(
            id(optimizer), {"stage": _READY, "found_inf": False, "has_grads": False})

    # -- settings and state, as PyTorch names them -------------------------------------------
    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def is_enabled(self) -> bool:
        return self._enabled

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        if not (isinstance(new_factor, (int, float)) and new_factor > 1.0):
            raise ValueError(f"GradScaler: growth_factor must be > 1.0, got {new_factor!r}")
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        if not (isinstance(new_factor, (int, float)) and 0.0 < new_factor < 1.0):
            raise ValueError(f"GradScaler: backoff_factor must be in (0, 1), got "
                             f"{new_factor!r}")
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        if isinstance(new_interval, bool) or not isinstance(new_interval, int) \
                or new_interval < 1:
            raise ValueError(f"GradScaler: growth_interval must be an int >= 1, got "
                             f"{new_interval!r}")
        self._growth_interval = new_interval

    def state_dict(self) -> dict:
        """PyTorch's keys: ``scale``, ``growth_factor``, ``backoff_factor``,
        ``growth_interval``, ``_growth_tracker``; empty when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore :meth:`state_dict` (also a ``torch.amp.GradScaler``'s, as floats)."""
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("GradScaler.load_state_dict: the state dict is empty, probably "
                               "saved from a disabled GradScaler")
        value = state_dict["scale"]
        self._scale = float(value.item() if hasattr(value, "item") else value)
        self.set_growth_factor(float(state_dict["growth_factor"]))
        self.set_backoff_factor(float(state_dict["backoff_factor"]))
        self.set_growth_interval(int(state_dict["growth_interval"]))
        tracker = state_dict["_growth_tracker"]
        self._growth_tracker = int(tracker.item() if hasattr(tracker, "item") else tracker)
