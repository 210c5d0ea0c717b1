"""``Module``: the bookkeeping under every layer, as ``torch.nn.Module``.

A :class:`Module` is an object whose attributes are its :class:`Parameter` s and its
submodules; ``named_parameters()`` walks them and names each by its attribute path
(``w1.weight``), the names PyTorch gives the same structure, so ``state_dict()`` keys
match. A buffer (``register_buffer``) is state that is not learned, such as a running
mean or a mask: saved, loaded and moved with the parameters, never trained. Calling a
module runs ``forward`` inside ``grad_mode.scope("module", ...)``: every op it records
remembers which module instance ran it, which is how the graph drawer groups an FFN's
graph into ``w1``, ``act`` and ``w2`` boxes. What ``state_dict``, ``load_state_dict`` and
``to`` do to each tensor is in :mod:`tinyffn.module_state`; :class:`Parameter` in
:mod:`tinyffn.parameter`; the methods that reach parts by a name in a string
(``add_module``, ``get_submodule``, ...) in :mod:`tinyffn.module_api`, a base class. The
containers (``Sequential``, ``ModuleList``, ``ModuleDict``) are in
:mod:`tinyffn.containers`, the layers in :mod:`tinyffn.nn`, which is where to import all
of these from (``nn.Module``).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Iterator

from . import grad_mode, hooks, module_state
from .arguments import _is_int, type_name
from .module_api import ModuleAPI, path_of, relabel
from .module_state import zero_grads
from .parameter import Parameter
from .tensor import Tensor


class Module(ModuleAPI):
    """Base class of layers and models, as ``torch.nn.Module``.

    Subclasses call ``super().__init__()``, assign parameters and submodules as attributes,
    register buffers, and define ``forward``. Parameters are listed (and saved) module by
    module, depth first: a module's own parameters in assignment order, then its
    submodules'. A buffer is an attribute too; ``_buffer_names`` says which attributes are
    buffers, and whether ``state_dict`` saves them (persistent). ``add_module``,
    ``get_submodule`` and the other methods by name are ModuleAPI's (module_api.py).
    """

    def __init__(self) -> None:
        self.training = True
        self._buffer_names: dict[str, bool] = {}     # buffer name -> persistent

    def __setattr__(self, name: str, value: Any) -> None:
        _check_assignment(self, name, value)
        # Name tensors by their path in the model (module_api's "Labels"): the outermost
        # assignment, made last as modules are built inside out, leaves the full path.
        prefix = path_of(self)                       # self's own path: "blocks.0."
        if isinstance(value, Parameter) or (
                isinstance(value, Tensor) and name in vars(self).get("_buffer_names", ())):
            value.name = prefix + name
        elif isinstance(value, Module):
            relabel(value, f"{prefix}{name}.")
        elif isinstance(value, (list, tuple, dict)) and any(
                isinstance(v, (Module, Parameter))
                for v in (value.values() if isinstance(value, dict) else value)):
            raise TypeError(
                f"{type(self).__name__}.{name}: modules or parameters inside a "
                f"{type(value).__name__} are not registered, so parameters(), state_dict() "
                f"and optimizers would never see them; use nn.ModuleList([...]) (or "
                "nn.Sequential) for modules, nn.ModuleDict({...}) for a dict of them, "
                "nn.ParameterList([...]) or nn.ParameterDict({...}) for parameters")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        super().__delattr__(name)
        vars(self).get("_buffer_names", {}).pop(name, None)    # del self.mask: no buffer

    # -- running ---------------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, x)")

    # hooks.py's registries (id -> function), made on first use; None on the class, so that a
    # subclass that forgets super().__init__() still runs
    _forward_pre_hooks = _forward_hooks = _backward_pre_hooks = _backward_hooks = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with grad_mode.scope("module", type(self).__name__, self):
            if self._forward_pre_hooks:
                args, kwargs = hooks.run_forward_pre_hooks(self, args, kwargs)
            bw = (self._backward_hooks or self._backward_pre_hooks) and hooks.BackwardHook(self)
            args = bw.setup_input_hook(args) if bw else args
            y = self.forward(*args, **kwargs)
            if self._forward_hooks:
                y = hooks.run_forward_hooks(self, args, kwargs, y)
            return bw.setup_output_hook(y) if bw else y

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> hooks.RemovableHandle:
        """Call ``hook(module, args)`` before each ``forward``; a tuple (or one value) it
        returns replaces the positional arguments. ``prepend``, ``with_kwargs``: as
        PyTorch's (hooks.py). Each ``register_*`` returns a handle: ``.remove()`` it."""
        return hooks.register_forward_pre_hook(self, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False) -> hooks.RemovableHandle:
        """Call ``hook(module, args, output)`` after each ``forward``; a value it returns
        replaces the output (``ffn.act``'s hook sees the hidden activations); ``prepend``,
        ``with_kwargs`` as PyTorch's."""
        return hooks.register_forward_hook(self, hook, prepend, with_kwargs)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> Any:
        """``hook(module, grad_output)``, in backward: see hooks.BackwardHook."""
        return hooks.register_full_backward_pre_hook(self, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> Any:
        """``hook(module, grad_input, grad_output)``, in backward (ditto)."""
        return hooks.register_full_backward_hook(self, hook, prepend)

    def train(self, mode: bool = True) -> "Module":
        """Set ``training`` on this module and every submodule; returns self."""
        if not isinstance(mode, bool):
            raise TypeError(f"{type(self).__name__}.train: mode must be True or False, got "
                            f"{mode!r}; use .eval() for evaluation mode")
        for module in self.modules():
            module.training = mode
        return self

    def eval(self) -> "Module":
        """``train(False)``: evaluation mode (of tinyffn's modules, only Dropout changes)."""
        return self.train(False)

    # -- the tree --------------------------------------------------------------------------
    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """(attribute name, submodule) for the direct submodules, in assignment order; one
        held under two names is listed once, under the first, as in PyTorch (every name:
        :func:`submodules`)."""
        seen = set()
        for name, child in submodules(self):
            if id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        """(dotted path, module) for this module (path ``prefix``, "" by default) and every
        submodule, depth first in assignment order. A module reached twice (shared) is
        listed once, unless ``remove_duplicate=False``: then once per path, as
        ``state_dict`` needs. ``memo``, as PyTorch's: a set of modules to leave out (with
        what is below them), which each one listed joins (if remove_duplicate)."""
        stack, seen = [(prefix, self, ())], set()    # ids: __eq__ may make one unhashable
        while stack:
            path, module, ancestors = stack.pop()
            if id(module) in ancestors:
                raise ValueError(f"{type(self).__name__}: module {path!r} contains itself; "
                                 "a module tree cannot have cycles")
            if id(module) in seen or memo and module in memo:
                continue
            if remove_duplicate:
                seen.add(id(module))
                if memo is not None:
                    memo.add(module)
            yield path, module
            children = [(f"{path}.{name}" if path else name, child, ancestors + (id(module),))
                        for name, child in submodules(module)]
            stack.extend(reversed(children))

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter): ``w1.weight``, ``w1.bias``, ...; a shared parameter
        once, unless ``remove_duplicate=False`` (then once per path, as in ``state_dict``).
        With ``recurse=False``, only this module's own parameters (PyTorch's arguments)."""
        return self._named_tensors(_own_parameters, prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True
                        ) -> None:
        """Make ``tensor`` the buffer ``name``: module state that is not a parameter (a
        running mean, a mask, a step count), as PyTorch's. It is the attribute
        ``self.<name>``; ``state_dict`` saves it after this module's parameters unless
        ``persistent=False``; ``to()`` moves it, and casts it only if it is floating point;
        ``parameters()`` and optimizers never see it. Assigning ``self.<name> = t`` later
        replaces it; ``None`` leaves the name registered with nothing saved."""
        owner = f"{type(self).__name__}.register_buffer"
        if "training" not in vars(self):
            raise AttributeError(f"{owner}: cannot register buffer {name!r} before "
                                 "Module.__init__() has run: call super().__init__() first in "
                                 f"{type(self).__name__}.__init__")
        if not isinstance(name, str):
            raise TypeError(f"{owner}: a buffer's name must be a string, got {type_name(name)}")
        if not name or "." in name:
            raise ValueError(f"{owner}: {name!r} cannot name a buffer: a name is a non-empty "
                             "string without '.' (the '.' joins the names of a path, "
                             "norm.running_mean)")
        if name not in self._buffer_names and hasattr(self, name):
            old = getattr(self, name)
            what = ("a parameter" if isinstance(old, Parameter) else
                    "a submodule" if isinstance(old, Module) else
                    "an attribute" if name in vars(self) else "a method or class attribute")
            raise ValueError(f"{owner}: {type(self).__name__}.{name} is already {what}; give "
                             "the buffer another name (or del the attribute first)")
        if isinstance(tensor, Parameter):
            raise TypeError(f"{owner}: {name!r} is a Parameter, which a module learns; a "
                            f"buffer is not learned. Assign it as an attribute (self.{name} = "
                            "nn.Parameter(t)) to train it, or register a plain tensor "
                            "(t.detach()) as a buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"{owner}: buffer {name!r} must be a tinyffn Tensor or None, got "
                            f"{type_name(tensor)}; wrap it with tinyffn.tensor(...)")
        self._buffer_names[name] = bool(persistent)
        setattr(self, name, tensor)

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) for every buffer that is not None, persistent or not,
        module by module as ``named_parameters``: ``norm.running_mean``, ..."""
        return self._named_tensors(_own_buffers, prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, t in self.named_buffers(recurse=recurse):
            yield t

    def _named_tensors(self, own: Callable, prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, tensor) for the tensors ``own(module)`` lists in each module."""
        seen = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for path, module in modules:
            for name, value in own(module):
                if not remove_duplicate or id(value) not in seen:
                    seen.add(id(value))
                    yield (f"{path}.{name}" if path else name), value

    def apply(self, fn: Callable[["Module"], Any]) -> "Module":
        """Call ``fn(module)`` on every submodule and then on this module, children before
        their parent, in PyTorch's order: ``model.apply(init_weights)`` is how nanoGPT
        initialises its layers (with :mod:`tinyffn.init`). A module shared by two parents
        is visited under each, as in PyTorch. Returns self."""
        for _ in self.named_modules(remove_duplicate=False):
            pass                            # refuses a tree that contains itself
        order, stack = [], [self]
        while stack:                        # each module, then its children last to first
            module = stack.pop()
            order.append(module)
            stack.extend(module.children())  # one held under two names: once, as torch
        for module in reversed(order):      # reversed: children first to last, then parent
            fn(module)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (see :func:`tinyffn.module_state.zero_grads`)."""
        zero_grads(self.parameters(), set_to_none)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Freeze (False) or unfreeze every parameter, as PyTorch's: a frozen parameter
        gets no ``.grad``, and optimizers skip it. Returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    # -- saving and loading ----------------------------------------------------------------
    def state_dict(self, *, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """A snapshot of the parameters and persistent buffers: dotted name -> a copy of
        the values, module by module, each module's parameters before its buffers (PyTorch's
        order), then what ``get_extra_state`` returns, if its class defines one.

        A shared parameter appears under every path that reaches it, as in PyTorch, so
        keys carry over between the two. The copies do not change when training goes on
        (PyTorch's state_dict shares memory with the parameters instead; here a saved
        state stays saved), and for that reason refuse a change in place, which in PyTorch
        would change the model (``sd["w"].zero_()``); a pickled or copied one takes it.
        As PyTorch's: ``keep_vars=True`` gives the Parameters and buffers themselves,
        ``prefix`` starts every key, and a dict ``destination`` is filled and returned.
        """
        return module_state.state_dict(self, destination, prefix, keep_vars)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True,
                        assign: bool = False) -> tuple[list, list]:
        """Copy values into the parameters and persistent buffers, by name; returns
        (missing keys, unexpected keys), a named tuple with PyTorch's names for them
        (``.missing_keys``, ``.unexpected_keys``: :class:`module_state.IncompatibleKeys`).

        Values may be Tensors on any device, arrays or nested lists; they are copied to
        each tensor's device and dtype. Raises, changing nothing, on every missing or
        unexpected key (unless ``strict=False``) and on any value that does not fit its
        tensor (always). ``assign=True``, as PyTorch's: each Tensor given becomes the
        module's (a Parameter, keeping requires_grad, where it replaces one), in its own
        dtype and device, shapes checked; build optimizers after.
        """
        return module_state.load_state_dict(self, state_dict, strict, assign)

    # -- devices and dtypes ----------------------------------------------------------------
    def to(self, device: Any = None, dtype: Any = None, non_blocking: bool = False) -> "Module":
        """Move every parameter (and its gradient) and buffer to ``device`` and/or cast it to
        ``dtype``, in place: the Parameter objects stay the same, so an optimizer built on
        them still holds them. Returns self. Build optimizers after moving: their state is
        not moved. A dtype may take the device's place, as in PyTorch: ``model.to(np.float64)``.
        Integer and boolean buffers keep their dtype (a step count stays a count), as PyTorch's.
        ``non_blocking`` is ignored, as in ``Tensor.to``.
        """
        return module_state.to(self, device, dtype)

    def cuda(self, device: Any = None) -> "Module":
        """``to("cuda")`` (``device``: None, 0 or ``"cuda:0"``), as PyTorch's; returns self."""
        return self.to("cuda" if device is None else f"cuda:{device}" if _is_int(device)
                       else device)

    def cpu(self) -> "Module":
        """``to("cpu")``, as PyTorch's; returns self."""
        return self.to("cpu")

    def float(self) -> "Module":
        return self.to(dtype="float32")

    def double(self) -> "Module":
        return self.to(dtype="float64")

    def half(self) -> "Module":
        return self.to(dtype="float16")

    # -- printing --------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The settings shown inside this module's parentheses (override in subclasses)."""
        return ""

    def __repr__(self) -> str:
        """PyTorch's layout: a one-line extra_repr and no children inside the parentheses,
        else one line each (extra_repr's lines first), indented."""
        extra = self.extra_repr().split("\n") if self.extra_repr() else []
        lines = [f"({name}): " + _indented(repr(child)) for name, child in submodules(self)]
        if not lines and len(extra) <= 1:
            return f"{type(self).__name__}({''.join(extra)})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(extra + lines) + "\n)"


def _indented(text: str) -> str:
    """Lines after the first two spaces in, blank ones left empty, as torch's _addindent."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [f"  {line}" if line.strip() else "" for line in rest])


def submodules(module: Module) -> Iterator[tuple[str, Module]]:
    """(name, submodule) under every name that holds one: what a container counts, indexes
    and runs (``Sequential(a, a)`` applies a twice), and the paths state_dict saves."""
    return ((name, v) for name, v in vars(module).items() if isinstance(v, Module))


def _check_assignment(module: Module, name: str, value: Any) -> None:
    """Refuse the assignments that would silently unregister a parameter, submodule or
    buffer."""
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
                f"cannot assign a value of type {type_name(value)} to "
                f"{type(module).__name__}.{name}, which holds a {kind.__name__}: "
                f"parameters(), state_dict() and optimizers would lose it; assign {fix}")
    if name in vars(module).get("_buffer_names", ()) and value is not None and (
            not isinstance(value, Tensor) or isinstance(value, Parameter)):
        fix = (f"a buffer is not learned: to make it a parameter, del the buffer first (del "
               f"module.{name})") if isinstance(value, Parameter) else \
            "assign a tinyffn Tensor or None"
        raise TypeError(f"cannot assign a value of type {type_name(value)} to "
                        f"{type(module).__name__}.{name}, which is a buffer "
                        f"(register_buffer); {fix}")


def _own_parameters(module: Module) -> list[tuple[str, Parameter]]:
    """(attribute name, parameter) for the module's own parameters, in assignment order."""
    return [(name, v) for name, v in vars(module).items() if isinstance(v, Parameter)]


def _own_buffers(module: Module, persistent: bool = False) -> list[tuple[str, Tensor]]:
    """(name, buffer) for the module's own buffers that are not None, in registration
    order; with ``persistent=True``, only those ``state_dict`` saves."""
    return [(name, vars(module)[name])
            for name, keep in vars(module).get("_buffer_names", {}).items()
            if vars(module)[name] is not None and (keep or not persistent)]

