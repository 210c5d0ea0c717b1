"""Modules that hold modules, as ``torch.nn``'s: ``Sequential``, ``ModuleList``, ``ModuleDict``.

A container's children are its attributes, like any module's, so ``named_parameters()``
names their parameters by the child's name: ``0.weight`` in a ``Sequential`` or a
``ModuleList``, ``experts.relu.w1.weight`` for the key "relu" of a ``ModuleDict``
assigned as ``experts``. That is what PyTorch calls them, so ``state_dict`` keys match,
and the graph drawer frames each call by the same path. Every child is checked as it
comes in (:func:`_check_child`): a Module, not one that holds the container, under a
name that could be an attribute. Import them from :mod:`tinyffn.nn` (``nn.ModuleDict``).
"""
from __future__ import annotations

from collections.abc import Iterable as IterableABC, Mapping
from typing import Any, Iterable, Iterator

from .arguments import position, type_name
from .module import Module, _indented, submodules
from .module_api import path_of, set_path
from .tensor import Tensor


def _check_child(container: Module, item: str, name: Any, module: Any) -> None:
    """Refuse a child that is no Module, holds ``container`` (a cycle), or whose name could
    not be an attribute path part: not a string, empty, with a '.', or taken by an
    attribute that is not a child (``forward``, ``training``). ``item`` starts the error."""
    if not isinstance(module, Module):
        raise TypeError(f"{item} is not a tinyffn Module (got {type_name(module)}); wrap "
                        "functions in a Module subclass")
    if any(m is container for m in module.modules()):
        raise ValueError(f"{item} contains this {type(container).__name__}; a module tree "
                         "cannot have cycles")
    if not isinstance(name, str) or not name or "." in name or (
            hasattr(container, name) and name not in dict(submodules(container))):
        raise ValueError(f"{item} cannot be named {name!r}: a child's name is a non-empty "
                         "string without '.' (which joins the parts of a path, "
                         "experts.relu.w1.weight) that no attribute or method has")


def _keeping_labels(modules: list, build: Any) -> Module:
    """``build()``, a new container of modules from ``modules``, which leaves their
    tensors' labels as they were: a slice or a sum is a new top-level module, and graph
    labels keep the paths of the model the modules are in."""
    inside = [m for top in modules if isinstance(top, Module)     # build() refuses the
              for m in top.modules()]                              # rest clearly
    paths = [(m, path_of(m)) for m in inside]
    labels = [(t, t.name) for m in inside for t in [*m.parameters(False), *m.buffers(False)]]
    part = build()
    for m, path in paths:
        set_path(m, path)
    for t, label in labels:
        t.name = label
    return part


def _check_sequential(other: Any, op: str) -> None:
    """PyTorch's ``seq + other`` and ``seq += other`` take only a Sequential."""
    if not isinstance(other, Sequential):
        raise ValueError(f"Sequential {op} {type_name(other)}: add operator supports only "
                         "objects of Sequential class, as PyTorch's; wrap the modules, "
                         "nn.Sequential(*modules), or call extend(modules)")


class _Container(Module):
    """Submodules held in order and named "0", "1", ... as in PyTorch (state_dict keys
    ``0.weight``); indexed, counted and iterated like a list."""

    def __init__(self, modules: Iterable[Module] = ()):
        super().__init__()
        self.extend(modules)

    def append(self, module: Module) -> "_Container":
        """Add ``module`` at the end (named by its position); returns self."""
        return self._add(str(len(self)), module)

    def extend(self, modules: Iterable[Module]) -> "_Container":
        """Append each of ``modules``, in order; returns self. ``c.extend(c)`` (``c += c``)
        appends c's modules once, as a list's (PyTorch's fails, with them half added)."""
        if not isinstance(modules, IterableABC):
            raise TypeError(f"{type(self).__name__}.extend should be called with an "
                            f"iterable, but got {type_name(modules)}; to add one module, "
                            "use append(module)")
        for module in list(modules):                # before the first append changes them
            self.append(module)
        return self

    def _add(self, name: Any, module: Module) -> "_Container":
        """Register ``module`` as the child ``name``, after the checks of both."""
        item = f"{type(self).__name__}: item {len(self)}"
        if isinstance(name, str) and name in dict(submodules(self)):
            raise ValueError(f"{item} cannot be named {name!r}: a child has that name (a "
                             "slice keeps its children's names, as in PyTorch). Name the new "
                             "child yourself, Sequential(OrderedDict(...)), or rebuild the "
                             f"container: {type(self).__name__}(*old, module)")
        _check_child(self, item, name, module)
        setattr(self, name, module)                # labelled with the model's path
        return self

    def __getitem__(self, i: int | slice) -> Module:
        """The i-th module, or for a slice a container of the same kind holding those
        modules (``model[:2]``, the first two layers, as in PyTorch)."""
        named = list(submodules(self))
        if not isinstance(i, slice):
            return named[i][1]
        return _keeping_labels([self], lambda: self._of(named[i]))

    def __setitem__(self, i: int, module: Module) -> None:
        """Replace the i-th module in its place and under its name, as PyTorch's: a new
        head, ``model[-1] = Linear(d, 10)``."""
        named = list(submodules(self))
        i = position(f"{type(self).__name__}[{i!r}] = module", i, len(named), "modules",
                     also=" (a slice is not assigned; build a new container)")
        name = named[i][0]
        _check_child(self, f"{type(self).__name__}[{i}]", name, module)
        setattr(self, name, module)

    @classmethod
    def _of(cls, named: list) -> "_Container":
        """A container of the same kind holding the (name, module) pairs ``named``."""
        return cls(module for _, module in named)

    def insert(self, index: int, module: Module) -> "_Container":
        """Put ``module`` at position ``index`` (0 to len, or from the end if negative, as
        ``list.insert``), the modules from there on moving up one ("1" becomes "2"), as
        PyTorch's; returns self. The children must be numbered "0", "1", ... (not named)."""
        owner = f"{type(self).__name__}.insert"
        n = len(self)
        index = position(owner, index, n, "modules", end=True)
        if index == n:                              # at the end: nothing moves
            return self.append(module)
        names = [name for name, _ in submodules(self)]
        if names != [str(j) for j in range(n)]:
            raise ValueError(f"{owner}: the children are named {names}, not numbered 0 to "
                             f"{n - 1}, so there are no numbers to move up (PyTorch fails "
                             "here too); rebuild it: Sequential(OrderedDict([...])) with "
                             "the new module in place")
        _check_child(self, f"{owner}: the module", str(index), module)
        modules = list(self)
        modules.insert(index, module)
        self._renumber(modules)
        return self

    def __delitem__(self, i: int | slice) -> None:
        """``del c[i]``, ``del c[a:b]``: remove those modules; the rest are numbered anew,
        "0", "1", ..., in order, as PyTorch's (a Sequential's named children too)."""
        modules = list(self)
        gone = range(len(modules))[i] if isinstance(i, slice) else [self._position(i, "del")]
        self._renumber([m for j, m in enumerate(modules) if j not in gone])

    def pop(self, key: int | slice = -1) -> Module:
        """Remove the module at ``key`` (the last by default) and return it, as PyTorch's
        (whose ``key`` has no default); a slice gives a container of them, as ``c[key]``.
        The rest are numbered anew, as by ``del``."""
        if not isinstance(key, slice):
            self._position(key, "pop")
        module = self[key]
        del self[key]
        return module

    def _position(self, i: Any, op: str) -> int:
        """``i`` as a position from 0, checked: an int within range."""
        return position(f"{type(self).__name__}.{op}", i, len(self), "modules",
                        also=" or a slice")

    def _renumber(self, modules: list) -> None:
        """Make ``modules`` the children, named "0", "1", ... in order; the labels keep
        the model's path (``blocks.1.weight`` after ``blocks.pop(0)``)."""
        for name, _ in list(submodules(self)):
            delattr(self, name)
        for j, module in enumerate(modules):
            setattr(self, str(j), module)

    def __len__(self) -> int:
        return sum(1 for _ in submodules(self))

    def __iter__(self) -> Iterator[Module]:
        return (module for _, module in submodules(self))


class Sequential(_Container):
    """y = f_n(... f_2(f_1(x))): apply modules one after another, as in
    ``Sequential(Linear(2, 8), ReLU(), Linear(8, 1))``, whose shapes chain (..., 2) -> (..., 1).

    As in PyTorch, the children may be named: ``Sequential(OrderedDict([("w1", Linear(2,
    8)), ("act", ReLU()), ...]))`` gives state_dict keys ``w1.weight``; a slice keeps them.
    """

    def __init__(self, *modules: Module):
        if len(modules) == 1 and isinstance(modules[0], Mapping):
            super().__init__()
            for name, module in modules[0].items():
                self._add(name, module)
        else:
            super().__init__(modules)

    @classmethod
    def _of(cls, named: list) -> "Sequential":
        return cls(dict(named))                     # torch's slice keeps the children's names

    def __add__(self, other: "Sequential") -> "Sequential":
        """``seq + other``: a new Sequential of this one's modules, then ``other``'s
        (shared, not copied), numbered "0", "1", ..., as PyTorch's; ``other`` must be a
        Sequential."""
        _check_sequential(other, "+")
        return _keeping_labels([self, other], lambda: Sequential(*self, *other))

    def __iadd__(self, other: "Sequential") -> "Sequential":
        """``seq += other``: ``seq.extend(other)``, ``other`` a Sequential, as PyTorch's."""
        _check_sequential(other, "+=")
        return self.extend(other)

    def forward(self, x: Tensor) -> Tensor:
        for _, module in submodules(self):
            x = module(x)
        return x


class ModuleList(_Container):
    """A list of submodules that registers them, as ``torch.nn.ModuleList``: a stack of
    blocks is ``self.blocks = ModuleList(FFN(d) for _ in range(n))``, looped over in the
    owner's forward. A plain list would hide their parameters from ``parameters()``, so a
    Module refuses one."""

    def insert(self, index: int, module: Module) -> None:
        """As ``Sequential.insert``, but returns None, as PyTorch's ModuleList.insert does.
        That one fails on a negative index and leaves a gap in the numbering past the
        end; here a negative index counts from the end, as a list's, and past the end is
        an IndexError."""
        super().insert(index, module)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        """``blocks + other``: a new ModuleList of these modules, then ``other``'s (any
        iterable of modules; shared, not copied), numbered "0", "1", ..., as PyTorch's."""
        if not isinstance(other, IterableABC):
            raise TypeError(f"ModuleList + {type_name(other)}: expected an iterable of "
                            "modules (a ModuleList, a Sequential or a list)")
        others = list(other)
        return _keeping_labels([self, *others], lambda: ModuleList([*self, *others]))

    def __iadd__(self, other: Iterable[Module]) -> "ModuleList":
        """``blocks += other``: ``blocks.extend(other)``, as PyTorch's."""
        return self.extend(other)

    def __repr__(self) -> str:
        """PyTorch's: a run of children that print alike shows once, as ``(0-5): 6 x
        FFN(...)``, so a stack of identical blocks reads in a few lines."""
        name = type(self).__name__              # PyTorch's self._get_name(): a subclass's
        if not len(self):
            return f"{name}()"
        runs: list[list] = []                   # [first index, last index, repr]
        for i, child in enumerate(self):
            text = repr(child)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [_indented(f"({a}): {text}" if a == b else f"({a}-{b}): {b - a + 1} x {text}")
                 for a, b, text in runs]
        return f"{name}(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("ModuleList is a container, not a layer: loop over it in the "
                        "owner's forward (for block in self.blocks: x = block(x))")


class ModuleDict(Module):
    """A dict of submodules that registers them, as ``torch.nn.ModuleDict``: each child is
    named by its key, so ``self.experts = ModuleDict({"relu": FFN(d), "gelu": FFN(d,
    activation="gelu")})`` has parameters ``experts.relu.w1.weight``, ... Keys keep their
    insertion order; assigning to a key it has replaces that module in its place.

    ``modules``: a dict (or ModuleDict) or an iterable of (key, module) pairs.
    """

    def __init__(self, modules: Mapping | Iterable | None = None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        if key not in self:
            raise KeyError(f"ModuleDict has no module under {key!r}; its keys are "
                           f"{list(self.keys())}")
        return getattr(self, key)

    def __setitem__(self, key: str, module: Module) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ModuleDict: a key must be a string (it names the child, as in "
                            f"experts.relu.w1.weight), got {type_name(key)} {key!r}; use "
                            f"str({key!r})")
        _check_child(self, f"ModuleDict[{key!r}]", key, module)
        setattr(self, key, module)

    def __delitem__(self, key: str) -> None:
        self[key]                                   # a missing key: the KeyError above
        delattr(self, key)

    def __contains__(self, key: Any) -> bool:
        return isinstance(key, str) and key in dict(submodules(self))

    def __len__(self) -> int:
        return sum(1 for _ in submodules(self))

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.keys()))

    def keys(self):
        """The keys, in order (a snapshot: ``dict_keys``)."""
        return dict(submodules(self)).keys()

    def items(self):
        """(key, module) pairs, in order."""
        return dict(submodules(self)).items()

    def values(self):
        """The modules, in order."""
        return dict(submodules(self)).values()

    def update(self, modules: Mapping | Iterable) -> None:
        """Add (or replace) modules from a dict, a ModuleDict or an iterable of (key,
        module) pairs, in their order, as PyTorch's."""
        if isinstance(modules, (Mapping, ModuleDict)):
            pairs = list(modules.items())
        elif isinstance(modules, IterableABC) and not isinstance(modules, (str, Module)):
            pairs = [tuple(pair) if isinstance(pair, IterableABC) and
                     not isinstance(pair, (str, Module)) else pair for pair in modules]
        else:
            raise TypeError("ModuleDict.update: expected a dict or an iterable of (key, "
                            f"module) pairs, got {type_name(modules)}")
        for j, pair in enumerate(pairs):
            if not isinstance(pair, tuple):
                raise TypeError(f"ModuleDict.update: element {j} must be a (key, module) "
                                f"pair, got {type_name(pair)}")
            if len(pair) != 2:
                raise ValueError(f"ModuleDict.update: element {j} must be a (key, module) "
                                 f"pair, got {len(pair)} items")
        for key, module in pairs:
            self[key] = module

    def pop(self, key: str) -> Module:
        """Remove the module under ``key`` and return it."""
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        """Remove every module."""
        for key in list(self.keys()):
            del self[key]

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("ModuleDict is a container, not a layer: call the modules inside it "
                        "in the owner's forward (self.experts['relu'](x), or for name, "
                        "expert in self.experts.items(): ...)")
