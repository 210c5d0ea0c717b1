"""Parameters held in a list or a dict, as ``torch.nn``'s ``ParameterList`` and ``ParameterDict``.

A model with one weight per head or per expert keeps them in one of these, not in a plain
list (which a Module refuses: its parameters would be invisible). Each parameter is an
attribute of the container, named "0", "1", ... or by its key, like any module's, so
``named_parameters()`` gives ``heads.0`` or ``experts.relu``, the names PyTorch gives, and
``state_dict``, ``load_state_dict``, ``to()``, optimizers, ``requires_grad_``, copies and
``tinyffn.save`` see them with no code of their own. A plain Tensor put in is wrapped as a
Parameter that shares its array (``Parameter(t)``, as PyTorch's), and labelled with its path
in the model for the graph drawer. Import them from :mod:`tinyffn.nn` (``nn.ParameterList``).
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable as IterableABC, Mapping
from typing import Any, Callable, Iterable, Iterator

from .arguments import position, type_name
from .backend import dtype_name
from .module import Module, Parameter
from .module_api import _check_name
from .tensor import Tensor


def _as_parameter(owner: str, value: Any) -> Parameter:
    """``value`` as a Parameter: a Parameter as it is, a Tensor wrapped (sharing its array,
    requires_grad=True, as PyTorch's ``Parameter(t)``). PyTorch also holds other objects
    (None, numbers, modules) in these containers; tinyffn refuses them, so that every
    entry is a parameter ``parameters()`` finds."""
    if isinstance(value, Parameter):
        return value
    if isinstance(value, Tensor):
        return Parameter(value)
    raise TypeError(f"{owner}: expected a Parameter or a Tensor (wrapped as a Parameter), got "
                    f"{type_name(value)}; make it a tensor first (tinyffn.tensor(...)), or keep "
                    "other values in an attribute of the owner")


def _keeping_labels(params: Iterable[Parameter], build: Callable[[], Any]) -> Any:
    """``build()``, a new container of ``params`` (shared, not copied), which leaves their
    labels as they were: a slice or a copy is a new top-level container, and graph labels
    keep the paths of the model the parameters are in."""
    labels = [(p, p.name) for p in params if isinstance(p, Parameter)]
    out = build()
    for p, label in labels:
        p.name = label
    return out


class _ParameterContainer(Module):
    """What both containers share: the entries are the own parameters ``_named()`` lists,
    PyTorch's repr, and no forward."""

    def _named(self) -> list[tuple[str, Parameter]]:
        raise NotImplementedError

    def extra_repr(self) -> str:
        """One line per parameter, as PyTorch's: ``  (0): Parameter containing: [float32 of
        size 3x4]`` (its dtype name is tinyffn's), `` (cuda:0)`` after the size on a GPU."""
        lines = []
        for key, p in self._named():
            size = "x".join(str(n) for n in p.shape)
            device = "" if str(p.device) == "cpu" else f" ({p.device})"
            lines.append(f"  ({key}): Parameter containing: [{dtype_name(p.dtype)} of size "
                         f"{size}{device}]")
        return "\n".join(lines)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        name = type(self).__name__
        raise RuntimeError(f"{name} should not be called: it holds parameters for the owner's "
                           f"forward to use (self.heads[i], self.experts['relu'])")


class ParameterList(_ParameterContainer):
    """A list of parameters that registers them, as ``torch.nn.ParameterList``: one weight
    per head, ``self.heads = ParameterList(Parameter(randn(d, d)) for _ in range(h))``,
    named "0", "1", ... (``heads.0`` in ``state_dict``). As PyTorch's: ``append``,
    ``extend``, ``+=``, ``len``, iteration, ``pl[i]``, ``pl[a:b]`` (a new ParameterList
    of the same parameters), ``pl[i] = value`` (replaced in its place). Like PyTorch's,
    it has no ``insert``, ``pop`` or ``del``: the numbers are the names in ``state_dict``.

    ``values``: an iterable of Parameters or Tensors (wrapped as Parameters).
    """

    def __init__(self, values: Iterable | None = None):
        super().__init__()
        if values is not None:
            self.extend(values)

    def _named(self) -> list[tuple[str, Parameter]]:
        return [(name, p) for name, p in vars(self).items()
                if name.isdigit() and isinstance(p, Parameter)]

    def _index(self, i: Any, op: str) -> str:
        """``i`` as the name of an entry: an int within range, from the end if negative."""
        return str(position(f"ParameterList{op}", i, len(self), "parameters",
                            also=" (or a slice, to read)"))

    def __getitem__(self, i: int | slice) -> Parameter | "ParameterList":
        if isinstance(i, slice):
            picked = [p for _, p in self._named()][i]
            return _keeping_labels(picked, lambda: ParameterList(picked))
        return getattr(self, self._index(i, "[i]"))

    def __setitem__(self, i: int, value: Any) -> None:
        """Replace the i-th parameter, under its name (a Tensor is wrapped)."""
        name = self._index(i, "[i] = value")
        setattr(self, name, _as_parameter(f"ParameterList[{i}] = value", value))

    def append(self, value: Any) -> "ParameterList":
        """Add ``value`` at the end, named by its position; returns self."""
        p = _as_parameter(f"ParameterList.append: item {len(self)}", value)
        setattr(self, str(len(self)), p)             # labelled with the model's path
        return self

    def extend(self, values: Iterable) -> "ParameterList":
        """Append each of ``values`` in order; returns self. A Tensor is one value, not an
        iterable of rows (PyTorch refuses it the same way)."""
        if not isinstance(values, IterableABC) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            f"{type_name(values)}; to add one parameter, use append(p)")
        values = list(values)                        # pl.extend(pl) adds its entries once
        for j, value in enumerate(values):           # all checked before any is added
            _as_parameter(f"ParameterList.extend: item {j}", value)
        for value in values:
            self.append(value)
        return self

    def __iadd__(self, values: Iterable) -> "ParameterList":
        return self.extend(values)

    def __len__(self) -> int:
        return len(self._named())

    def __iter__(self) -> Iterator[Parameter]:
        return iter([p for _, p in self._named()])

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]


class ParameterDict(_ParameterContainer):
    """A dict of parameters that registers them, as ``torch.nn.ParameterDict``: each is
    named by its key (``experts.relu`` in ``state_dict``). A key is a string without "."
    that no attribute has (``"keys"``, ``"training"`` are taken), as PyTorch's.

    ``parameters``: a dict, an ``OrderedDict``, a ParameterDict or (key, value) pairs.
    As in PyTorch, a plain dict's keys are taken in sorted order (``{"b": .., "a": ..}``
    gives ``a`` then ``b``); an ``OrderedDict``, a ParameterDict or pairs keep theirs.
    Replacing a key keeps its place; a new key goes last.
    """

    def __init__(self, parameters: Mapping | Iterable | None = None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def _named(self) -> list[tuple[str, Parameter]]:
        return [(name, p) for name, p in vars(self).items() if isinstance(p, Parameter)]

    def _key(self, key: Any, op: str) -> str:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict{op}: a key must be a string (it names the "
                            f"parameter, as in experts.relu), got {type_name(key)} {key!r}; "
                            f"use str({key!r})")
        return key

    def __getitem__(self, key: str) -> Parameter:
        if self._key(key, "[key]") not in self:
            raise KeyError(f"ParameterDict has no parameter under {key!r}; its keys are "
                           f"{list(self.keys())}")
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        """Put ``value`` (a Tensor is wrapped) under ``key``; a key it has keeps its place."""
        owner = f"ParameterDict[{key!r}] = value"
        _check_name(self, owner, "parameter", self._key(key, "[key] = value"), Parameter)
        setattr(self, key, _as_parameter(owner, value))

    def __delitem__(self, key: str) -> None:
        self[key]                                   # a missing key: the KeyError above
        delattr(self, key)

    def __contains__(self, key: Any) -> bool:
        return isinstance(key, str) and isinstance(vars(self).get(key), Parameter)

    def __len__(self) -> int:
        return len(self._named())

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.keys()))

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self.keys()))

    def keys(self):
        """The keys, in order (a snapshot: ``dict_keys``)."""
        return dict(self._named()).keys()

    def items(self):
        """(key, parameter) pairs, in order."""
        return dict(self._named()).items()

    def values(self):
        """The parameters, in order."""
        return dict(self._named()).values()

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]``, or ``default`` for a key it has not."""
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any = None) -> Parameter:
        """``self[key]``, after putting ``default`` there if the key is new."""
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str) -> Parameter:
        """Remove the parameter under ``key`` and return it."""
        p = self[key]
        del self[key]
        return p

    def popitem(self) -> tuple[str, Parameter]:
        """Remove the last (key, parameter) pair and return it."""
        if not len(self):
            raise KeyError("ParameterDict.popitem(): the ParameterDict is empty")
        key = list(self.keys())[-1]
        return key, self.pop(key)

    def clear(self) -> None:
        """Remove every parameter."""
        for key in list(self.keys()):
            del self[key]

    def copy(self) -> "ParameterDict":
        """A new ParameterDict of the same parameters (shared, not copied), in order."""
        pairs = list(self.items())
        return _keeping_labels(self.values(), lambda: ParameterDict(OrderedDict(pairs)))

    def update(self, parameters: Mapping | Iterable) -> None:
        """Put each (key, value) of ``parameters`` in, as ``self[key] = value``: from an
        ``OrderedDict``, a ParameterDict or pairs in their order, from a plain dict (or
        other mapping) in sorted key order, as PyTorch's. Every pair is checked before
        any is put in."""
        pairs = _pairs(parameters)
        for key, value in pairs:
            owner = f"ParameterDict.update: [{key!r}]"
            _check_name(self, owner, "parameter", self._key(key, ".update"), Parameter)
            _as_parameter(owner, value)
        for key, value in pairs:
            self[key] = value

    def __or__(self, other: Mapping | Iterable) -> "ParameterDict":
        """``a | b``: a new ParameterDict of a's parameters, then b's (shared, not copied;
        b's win on a common key), as PyTorch's."""
        pairs = _pairs(other)
        return _keeping_labels([*self.values(), *(v for _, v in pairs)],
                               lambda: _joined([*self.items()], pairs))

    def __ror__(self, other: Mapping | Iterable) -> "ParameterDict":
        """``b | a`` for a dict b: b's parameters, then a's."""
        pairs = _pairs(other)
        return _keeping_labels([*self.values(), *(v for _, v in pairs)],
                               lambda: _joined(pairs, [*self.items()]))

    def __ior__(self, other: Mapping | Iterable) -> "ParameterDict":
        """``a |= b``: ``a.update(b)``; returns a."""
        self.update(other)
        return self


def _joined(first: list, then: list) -> ParameterDict:
    """A ParameterDict of the pairs ``first``, then ``then`` (which win on a common key)."""
    out = ParameterDict(first)
    out.update(then)
    return out


def _pairs(parameters: Any) -> list[tuple[Any, Any]]:
    """The (key, value) pairs of ``parameters``, in the order ``update`` puts them in."""
    if isinstance(parameters, (OrderedDict, ParameterDict)):
        return list(parameters.items())
    if isinstance(parameters, Mapping):
        return sorted(parameters.items(), key=lambda pair: _sort_key(pair[0]))
    if not isinstance(parameters, IterableABC) or isinstance(parameters, (str, Tensor)):
        raise TypeError("ParameterDict.update should be called with a dict or an iterable "
                        f"of (key, value) pairs, but got {type_name(parameters)}")
    pairs = list(parameters)
    for j, pair in enumerate(pairs):
        if not isinstance(pair, IterableABC) or isinstance(pair, (str, Tensor)):
            raise TypeError(f"ParameterDict.update: element #{j} should be a (key, value) "
                            f"pair, got {type_name(pair)}")
        if len(pair := tuple(pair)) != 2:
            raise ValueError(f"ParameterDict.update: element #{j} has length {len(pair)}; 2 "
                             "is required (key, value)")
        pairs[j] = pair
    return pairs


def _sort_key(key: Any) -> tuple:
    """Sorted order for a dict's keys, strings first, so that a non-string key reaches
    ``_key``'s error rather than failing the sort."""
    return (0, key) if isinstance(key, str) else (1, id(key))
