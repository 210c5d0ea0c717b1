"""Modules: named parameters, layers, and the feed-forward block built from them.

A :class:`Module` is an object whose attributes are its :class:`Parameter` s and its
submodules; ``named_parameters()`` walks them and names each by its attribute path
(``w1.weight``), the names PyTorch gives the same structure, so ``state_dict()`` keys
match. Calling a module runs ``forward`` inside ``autograd.scope("module", ...)``: every
op it records remembers which module instance ran it, which is how the graph drawer
groups an FFN's graph into ``w1``, ``act`` and ``w2`` boxes.

The seed's block, for one position x in R^d (and position-wise for any leading axes)::

    FFN(x)      = W2 σ(W1 x + b1) + b2                 W1 (d_ff, d), W2 (d, d_ff)
    GatedFFN(x) = W2 (σ(W1 x) ⊙ W3 x)                  W1, W3 (d_ff, d), W2 (d, d_ff)

Everything is composed from :mod:`tinyffn.functional`; no module has its own backward.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Iterable, Iterator

from . import autograd
from . import functional as F
from .backend import dtype_name, get_backend
from .creation import generator, tensor
from .tensor import DEFAULT_FLOAT, Tensor, _is_int

FFN_ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "swish")
GATED_ACTIVATIONS = ("swish", "gelu")       # SwiGLU and GeGLU
FLOAT_DTYPES = ("float16", "float32", "float64")


class Parameter(Tensor):
    """A tensor a module learns: always a leaf with ``requires_grad=True``.

    Assigning one to a module attribute registers it (``self.weight = Parameter(...)``);
    ``named_parameters()`` then finds it, and its ``name`` is set to its attribute path
    within the outermost module it was assigned into (``w1.weight``), for graph labels.
    """

    __slots__ = ()

    def __init__(self, data: Tensor | Any):
        """``data``: a floating-point Tensor (its array is shared, not copied) or an array."""
        if isinstance(data, Tensor):
            super().__init__(data.data, requires_grad=True, _backend=data.backend)
        else:
            super().__init__(data, requires_grad=True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Module:
    """Base class of layers and models, as ``torch.nn.Module``.

    Subclasses call ``super().__init__()``, assign parameters and submodules as attributes,
    and define ``forward``. Attributes are found in assignment order, so parameters are
    listed (and saved) in the order the constructor creates them.
    """

    def __init__(self) -> None:
        self.training = True

    def __setattr__(self, name: str, value: Any) -> None:
        _check_assignment(self, name, value)
        # Name parameters by their path from here; the outermost assignment, made last
        # because modules are built inside out, leaves the full path (``w1.weight``).
        if isinstance(value, Parameter):
            value.name = name
        elif isinstance(value, Module):
            for path, p in value.named_parameters():
                p.name = f"{name}.{path}"
        elif isinstance(value, (list, tuple, dict)) and any(
                isinstance(v, (Module, Parameter))
                for v in (value.values() if isinstance(value, dict) else value)):
            raise TypeError(
                f"{type(self).__name__}.{name}: modules or parameters inside a "
                f"{type(value).__name__} are not registered, so parameters(), state_dict() "
                f"and optimizers would never see them; use nn.ModuleList([...]) (or "
                "nn.Sequential) for modules, and one attribute per Parameter")
        super().__setattr__(name, value)

    # -- running ---------------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, x)")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with autograd.scope("module", type(self).__name__, self):
            return self.forward(*args, **kwargs)

    def train(self, mode: bool = True) -> "Module":
        """Set ``training`` on this module and every submodule; returns self."""
        if not isinstance(mode, bool):
            raise TypeError(f"{type(self).__name__}.train: mode must be True or False, got "
                            f"{mode!r}; use .eval() for evaluation mode")
        for module in self.modules():
            module.training = mode
        return self

    def eval(self) -> "Module":
        """``train(False)``: evaluation mode (no module here behaves differently yet)."""
        return self.train(False)

    # -- the tree --------------------------------------------------------------------------
    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """(attribute name, submodule) for the direct submodules, in assignment order."""
        for name, value in vars(self).items():
            if isinstance(value, Module):
                yield name, value

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, prefix: str = "", remove_duplicate: bool = True
                      ) -> Iterator[tuple[str, "Module"]]:
        """(dotted path, module) for this module (path ``prefix``, "" by default) and every
        submodule, depth first in assignment order. A module reached twice (shared) is
        listed once, unless ``remove_duplicate=False``: then once per path, as
        ``state_dict`` needs."""
        stack, seen = [(prefix, self, ())], set()
        while stack:
            path, module, ancestors = stack.pop()
            if id(module) in ancestors:
                raise ValueError(f"{type(self).__name__}: module {path!r} contains itself; "
                                 "a module tree cannot have cycles")
            if remove_duplicate and id(module) in seen:
                continue
            seen.add(id(module))
            yield path, module
            children = [(f"{path}.{name}" if path else name, child, ancestors + (id(module),))
                        for name, child in module.named_children()]
            stack.extend(reversed(children))

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_parameters(self, prefix: str = "", remove_duplicate: bool = True
                         ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter): ``w1.weight``, ``w1.bias``, ...; a shared parameter
        once, unless ``remove_duplicate=False`` (then once per path, as in ``state_dict``)."""
        seen = set()
        for path, module in self.named_modules(prefix, remove_duplicate):
            for name, value in vars(module).items():
                if isinstance(value, Parameter) and (
                        not remove_duplicate or id(value) not in seen):
                    seen.add(id(value))
                    yield (f"{path}.{name}" if path else name), value

    def parameters(self) -> Iterator[Parameter]:
        for _, p in self.named_parameters():
            yield p

    def zero_grad(self) -> None:
        """Forget every parameter's gradient (set ``.grad`` to None, as PyTorch does)."""
        for p in self.parameters():
            p.grad = None

    # -- saving and loading ----------------------------------------------------------------
    def state_dict(self) -> dict[str, Tensor]:
        """A snapshot of the parameters: dotted name -> a copy of the values.

        A shared parameter appears under every path that reaches it, as in PyTorch, so
        keys carry over between the two. The copies do not change when training goes on
        (PyTorch's state_dict shares memory with the parameters instead; here a saved
        state stays saved).
        """
        return {name: Tensor(p.backend.xp.asarray(p.data, copy=True), _backend=p.backend)
                for name, p in self.named_parameters(remove_duplicate=False)}

    def load_state_dict(self, state_dict: Mapping, strict: bool = True) -> tuple[list, list]:
        """Copy values into the parameters, by name; returns (missing keys, unexpected keys).

        Values may be Tensors on any device, arrays or nested lists; they are copied to
        each parameter's device and dtype. Raises, changing nothing, on every missing or
        unexpected key (unless ``strict=False``) and on any value that does not fit its
        parameter (always).
        """
        owner = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"{owner}: expected a dict of name -> values (as state_dict() "
                            f"returns), got {type(state_dict).__name__}")
        params = dict(self.named_parameters(remove_duplicate=False))
        missing = [name for name in params if name not in state_dict]
        unexpected = [name for name in state_dict if name not in params]
        arrays, problems = {}, []
        for name, p in params.items():
            if name in state_dict:
                try:
                    arrays[name] = _array_like(p, state_dict[name])
                except (TypeError, ValueError) as e:
                    problems.append(f"{name}: {type(state_dict[name]).__name__} is not an "
                                    f"array of numbers ({e})")
                    continue
                if tuple(arrays[name].shape) != p.shape:
                    problems.append(f"size mismatch for {name}: the checkpoint has shape "
                                    f"{tuple(arrays[name].shape)}, the model has {p.shape}")
        keys = (strict and missing) or (strict and unexpected)
        if strict and missing:
            problems.append("missing key(s): " + ", ".join(missing))
        if strict and unexpected:
            problems.append("unexpected key(s): " + ", ".join(unexpected))
        if problems:
            raise RuntimeError(
                f"{owner}: the state does not fit this {type(self).__name__}:\n  "
                + "\n  ".join(problems) + "\n  (its keys are: " + ", ".join(params) + "; "
                "a state saved from a model built differently, e.g. another d_model or "
                "bias=False, does not fit"
                + ("; pass strict=False to skip missing/unexpected keys)" if keys else ")"))
        for name, array in arrays.items():
            params[name].data = array
        return missing, unexpected

    # -- devices and dtypes ----------------------------------------------------------------
    def to(self, device: Any = None, dtype: Any = None) -> "Module":
        """Move every parameter (and its gradient) to ``device`` and/or cast it to ``dtype``,
        in place: the Parameter objects stay the same, so an optimizer built on them still
        holds them. Returns self. Build optimizers after moving: their state is not moved.
        """
        if dtype is not None and dtype_name(dtype) not in FLOAT_DTYPES:
            raise TypeError(f"{type(self).__name__}.to: parameters must stay floating point; "
                            f"got dtype {dtype_name(dtype)}, use one of {', '.join(FLOAT_DTYPES)}")
        for p in self.parameters():
            target = p.backend if device is None else get_backend(device)
            p.data = _converted(p, target, dtype)
            if p.grad is not None:
                p.grad = Tensor(_converted(p.grad, target, dtype), _backend=target)
            p.backend = target
        return self

    # -- printing --------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The settings shown inside this module's parentheses (override in subclasses)."""
        return ""

    def __repr__(self) -> str:
        lines = [f"({name}): " + repr(child).replace("\n", "\n  ")
                 for name, child in self.named_children()]
        if not lines:
            return f"{type(self).__name__}({self.extra_repr()})"
        extra = [self.extra_repr()] if self.extra_repr() else []
        return f"{type(self).__name__}(\n  " + "\n  ".join(extra + lines) + "\n)"


def _check_assignment(module: Module, name: str, value: Any) -> None:
    """Refuse the assignments that would silently unregister a parameter or submodule."""
    if isinstance(value, (Module, Parameter)) and "training" not in vars(module):
        raise AttributeError(
            f"cannot assign {type(value).__name__} {name!r} before Module.__init__() has run: "
            f"call super().__init__() first in {type(module).__name__}.__init__")
    old = vars(module).get(name)
    for kind, fix in ((Parameter, "a Parameter (nn.Parameter(t)) or None, or set the "
                                  "values in place with .data = ..."),
                      (Module, "a Module or None")):
        if isinstance(old, kind) and value is not None and not isinstance(value, kind):
            raise TypeError(
                f"cannot assign a value of type {type(value).__name__} to "
                f"{type(module).__name__}.{name}, which holds a {kind.__name__}: "
                f"parameters(), state_dict() and optimizers would lose it; assign {fix}")


def _converted(t: Tensor, target: Any, dtype: Any) -> Any:
    """t's array on backend ``target``, cast to ``dtype`` if given (a new array)."""
    data = t.data if target is t.backend else target.from_numpy(t.numpy())
    if dtype is not None:
        data = target.xp.astype(data, target.dtype(dtype))
    return data


def _array_like(p: Parameter, value: Any) -> Any:
    """``value`` (a Tensor, array or nested list) as a fresh array on p's device, in p's dtype."""
    if isinstance(value, Tensor):
        value = value.data if value.backend is p.backend else value.numpy()
    elif value is None or isinstance(value, (str, bytes)):
        raise TypeError("expected a Tensor, an array or a nested list")
    return p.backend.xp.asarray(p.backend.asarray(value, p.dtype), copy=True)


# ----------------------------------------------------------------------------- containers
class _Container(Module):
    """Submodules held in order and named "0", "1", ... as in PyTorch (state_dict keys
    ``0.weight``); indexed, counted and iterated like a list."""

    def __init__(self, modules: Iterable[Module] = ()):
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module: Module) -> "_Container":
        """Add ``module`` at the end (named by its position); returns self."""
        if not isinstance(module, Module):
            raise TypeError(f"{type(self).__name__}: item {len(self)} is a "
                            f"{type(module).__name__}, not a Module; wrap functions in a "
                            "Module subclass")
        setattr(self, str(len(self)), module)
        return self

    def __getitem__(self, i: int | slice) -> Module:
        """The i-th module, or for a slice a container of the same kind holding those
        modules (``model[:2]``, the first two layers, as in PyTorch)."""
        children = list(self.children())
        return self._of(children[i]) if isinstance(i, slice) else children[i]

    @classmethod
    def _of(cls, modules: list) -> "_Container":
        return cls(modules)

    def __len__(self) -> int:
        return sum(1 for _ in self.children())

    def __iter__(self) -> Iterator[Module]:
        return self.children()


class Sequential(_Container):
    """y = f_n(... f_2(f_1(x))): apply modules one after another, as in
    ``Sequential(Linear(2, 8), ReLU(), Linear(8, 1))``, whose shapes chain (..., 2) -> (..., 1).
    """

    def __init__(self, *modules: Module):
        super().__init__(modules)

    @classmethod
    def _of(cls, modules: list) -> "Sequential":
        return cls(*modules)

    def forward(self, x: Tensor) -> Tensor:
        for module in self.children():
            x = module(x)
        return x


class ModuleList(_Container):
    """A list of submodules that registers them, as ``torch.nn.ModuleList``: a stack of
    blocks is ``self.blocks = ModuleList(FFN(d) for _ in range(n))``, looped over in the
    owner's forward. A plain list would hide their parameters from ``parameters()``, so a
    Module refuses one."""

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("ModuleList is a container, not a layer: loop over it in the "
                        "owner's forward (for block in self.blocks: x = block(x))")


# ----------------------------------------------------------------------------- layers
class Linear(Module):
    """y = x W^T + b, W (out_features, in_features), b (out_features,).

    Initialised as PyTorch does: ``kaiming_uniform_(W, a=sqrt(5))`` has gain
    sqrt(2 / (1 + a^2)) = sqrt(1/3) and bound sqrt(3) · gain / sqrt(in) = 1/sqrt(in), so
    W ~ U(-1/sqrt(in), 1/sqrt(in)), and b ~ U(-1/sqrt(in), 1/sqrt(in)). The numbers are
    drawn from :func:`tinyffn.creation.generator` (seed with :func:`tinyffn.manual_seed`),
    W first and then b, so a seed gives the same layer on every device (though not the
    same numbers as PyTorch, whose generator differs).

    ``fused=True`` runs it as one node (:class:`tinyffn.ops.linalg.Linear`) instead of
    transpose, matmul and add. Shapes: x (..., in_features) -> y (..., out_features).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype: Any = None, device: Any = None, fused: bool = False):
        super().__init__()
        _check_size("Linear", "in_features", in_features)
        _check_size("Linear", "out_features", out_features)
        self.in_features = in_features
        self.out_features = out_features
        self.fused = fused
        bound = 1 / math.sqrt(in_features)
        self.weight = Parameter(_uniform((out_features, in_features), bound, dtype, device))
        self.bias = Parameter(_uniform((out_features,), bound, dtype, device)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias, fused=self.fused)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}" + (", fused=True" if self.fused else ""))


def _uniform(shape: tuple, bound: float, dtype: Any, device: Any) -> Tensor:
    values = generator().uniform(-bound, bound, size=shape)
    return tensor(values, dtype=dtype or DEFAULT_FLOAT, device=device or "cpu")


def _check_size(owner: str, name: str, n: Any) -> None:
    """A width or count: a positive integer (NumPy's integers too), never a bool or float."""
    if not _is_int(n) or n < 1:
        raise ValueError(f"{owner}: {name} must be a positive integer, got {n!r}")


class ReLU(Module):
    """y = max(x, 0), elementwise (:func:`tinyffn.functional.relu`).    Shape preserved."""

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class GELU(Module):
    """y = x Φ(x), exact or with GPT-2's tanh approximation (:func:`tinyffn.functional.gelu`).

    Elementwise: shape preserved.
    """

    def __init__(self, approximate: str = "none", fused: bool = False):
        super().__init__()
        F._check_approximate("GELU", approximate)
        self.approximate, self.fused = approximate, fused

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, approximate=self.approximate, fused=self.fused)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}" + (", fused=True" if self.fused else "")


class Swish(Module):
    """y = x sigmoid(beta x), elementwise (:func:`tinyffn.functional.swish`); beta = 1 is SiLU.

    Shape preserved.
    """

    def __init__(self, beta: float = 1.0, fused: bool = False):
        super().__init__()
        self.beta, self.fused = beta, fused

    def forward(self, x: Tensor) -> Tensor:
        return F.swish(x, beta=self.beta, fused=self.fused)

    def extra_repr(self) -> str:
        return f"beta={self.beta}" + (", fused=True" if self.fused else "")


class SiLU(Module):
    """y = x sigmoid(x), elementwise (:func:`tinyffn.functional.silu`).    Shape preserved."""

    def __init__(self, fused: bool = False):
        super().__init__()
        self.fused = fused

    def forward(self, x: Tensor) -> Tensor:
        return F.silu(x, fused=self.fused)

    def extra_repr(self) -> str:
        return "fused=True" if self.fused else ""


def _activation(owner: str, name: str, valid: tuple, fused: bool = False) -> Module:
    """The activation module called ``name``, one of ``valid`` (``fused``: one-node form)."""
    if name not in valid:
        raise ValueError(f"{owner}: unknown activation {name!r}; choose one of "
                         f"{', '.join(repr(v) for v in valid)}")
    if name == "relu":
        return ReLU()
    if name == "gelu":
        return GELU(fused=fused)
    if name == "gelu_tanh":
        return GELU(approximate="tanh", fused=fused)
    return Swish(fused=fused)


def _check_width(owner: str, x: Any, d_model: int) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{owner}: the input must be a Tensor, got {type(x).__name__}; wrap "
                        "arrays with tinyffn.tensor(...)")
    if x.ndim == 0 or x.shape[-1] != d_model:
        raise ValueError(f"{owner}: input of shape {x.shape} must end in d_model={d_model}, "
                         f"the width this block was built for: pass (..., {d_model})")


# ----------------------------------------------------------------------------- the FFN
class FFN(Module):
    """The position-wise feed-forward block of the seed: FFN(x) = W2 σ(W1 x + b1) + b2.

    Submodules: ``w1`` = Linear(d_model, d_ff), ``act`` = σ, ``w2`` = Linear(d_ff, d_model).
    ``d_ff`` defaults to 4 · d_model. With biases it has 2·d·d_ff + d_ff + d parameters
    (8d² + 5d at d_ff = 4d) and its forward costs 4·T·d·d_ff FLOPs in matmuls (16·T·d²).

    ``activation``: "relu" (AIAYN), "gelu" (BERT, exact), "gelu_tanh" (GPT-2), "swish"
    (SiLU). ``fused=True`` runs each Linear and the GELU/Swish as one node each
    (:mod:`tinyffn.ops.linalg`, :mod:`tinyffn.ops.activations`): faster, less memory,
    the same numbers, less to see in the graph. Shapes: x (..., d_model) -> y
    (..., d_model); the same weights act on every position and no position sees another.
    """

    def __init__(self, d_model: int, d_ff: int | None = None, activation: str = "relu",
                 bias: bool = True, dtype: Any = None, device: Any = None,
                 fused: bool = False):
        super().__init__()
        _check_size("FFN", "d_model", d_model)
        d_ff = 4 * d_model if d_ff is None else d_ff
        _check_size("FFN", "d_ff", d_ff)
        act = _activation("FFN", activation, FFN_ACTIVATIONS, fused)
        self.d_model, self.d_ff, self.activation = d_model, d_ff, activation
        self.w1 = Linear(d_model, d_ff, bias=bias, dtype=dtype, device=device, fused=fused)
        self.act = act
        self.w2 = Linear(d_ff, d_model, bias=bias, dtype=dtype, device=device, fused=fused)

    def forward(self, x: Tensor) -> Tensor:
        _check_width("FFN", x, self.d_model)
        h = self.act(self.w1(x))                        # (..., d) -> (..., d_ff)
        return self.w2(h)                               # (..., d_ff) -> (..., d)


def gated_d_ff(d_model: int, multiple_of: int = 1) -> int:
    """LLaMA's hidden width for a gated FFN: ⌊(2/3)·4d⌋, rounded up to a multiple_of.

    The floor comes first, as in LLaMA's ``int(2 * hidden_dim / 3)``. Three matrices of d × d_ff cost 3·d·d_ff parameters; d_ff = (2/3)·4d makes that 8d²,
    the plain FFN's count. LLaMA-7B: d = 4096, multiple_of = 256 -> 11008.
    """
    _check_size("gated_d_ff", "d_model", d_model)
    _check_size("gated_d_ff", "multiple_of", multiple_of)
    hidden = (2 * 4 * d_model) // 3
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


class GatedFFN(Module):
    """The gated FFN of LLaMA and PaLM (Shazeer 2020): y = W2 (σ(W1 x) ⊙ W3 x).

    σ = Swish gives SwiGLU, σ = GELU gives GeGLU. Submodules ``w1``, ``w2``, ``w3`` (named
    and ordered as in LLaMA's code, so state_dict keys match) and ``act``:
    W1, W3 (d_ff, d) expand, W2 (d, d_ff) contracts. ``d_ff`` defaults to
    :func:`gated_d_ff` (d_model, multiple_of), which keeps 3·d·d_ff near the plain FFN's
    8d². Biases are off by default, as in LLaMA. ``fused=True``: one-node Linears and
    activation.

    Shapes: x (..., d_model) -> y (..., d_model), position-wise.
    """

    def __init__(self, d_model: int, d_ff: int | None = None, activation: str = "swish",
                 bias: bool = False, multiple_of: int = 1, dtype: Any = None,
                 device: Any = None, fused: bool = False):
        super().__init__()
        _check_size("GatedFFN", "d_model", d_model)
        _check_size("GatedFFN", "multiple_of", multiple_of)
        if d_ff is not None and multiple_of != 1:
            raise ValueError(f"GatedFFN: got both d_ff={d_ff} and multiple_of={multiple_of}; "
                             "multiple_of only rounds the default width, so pass one of them")
        d_ff = gated_d_ff(d_model, multiple_of) if d_ff is None else d_ff
        _check_size("GatedFFN", "d_ff", d_ff)
        act = _activation("GatedFFN", activation, GATED_ACTIVATIONS, fused)
        self.d_model, self.d_ff, self.activation = d_model, d_ff, activation
        self.w1 = Linear(d_model, d_ff, bias=bias, dtype=dtype, device=device, fused=fused)
        self.w2 = Linear(d_ff, d_model, bias=bias, dtype=dtype, device=device, fused=fused)
        self.w3 = Linear(d_model, d_ff, bias=bias, dtype=dtype, device=device, fused=fused)
        self.act = act

    def forward(self, x: Tensor) -> Tensor:
        _check_width("GatedFFN", x, self.d_model)
        gate = self.act(self.w1(x))                     # (..., d) -> (..., d_ff)
        up = self.w3(x)                                 # (..., d) -> (..., d_ff)
        return self.w2(gate * up)                       # (..., d_ff) -> (..., d)
