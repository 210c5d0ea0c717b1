"""Parameter groups, as PyTorch's: how an optimizer's ``params`` become groups, and the
:class:`ParamGroup` each entry of ``opt.param_groups`` is.

``SGD(model.parameters(), lr=0.1)`` makes one group; ``SGD([{"params": decay,
"weight_decay": 0.1}, {"params": no_decay}], lr=0.1)`` makes two, and a setting a group
leaves out takes the constructor's value (``opt.defaults``). The checks here are those of
PyTorch's ``add_param_group`` and more: each parameter is a floating-point leaf in one
group only, and parameters come in an order (a set is refused), as ``state_dict`` numbers
them by it. The optimizers themselves are in :mod:`tinyffn.optim`.

Keys beyond the settings that learning-rate schedulers store, as PyTorch's, may join a
group: ``initial_lr``, the lr a schedule starts from, which a scheduler stores with
``group.setdefault("initial_lr", group["lr"])`` (:mod:`tinyffn.lr_scheduler`), and
OneCycleLR's ``max_lr``, ``min_lr``, ``max_momentum`` and ``base_momentum``. They are
saved and loaded with the settings, so a schedule resumes from the optimizer's
``state_dict``, but they are not settings: ``update`` never receives them.
"""
from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any, Iterator

from .arguments import type_name
from .backend import dtype_name
from .tensor import Tensor

# in a group beside the settings; see the docstring
SCHEDULE_KEYS = ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")
EMPTY = ("{owner}: got an empty parameter list; pass model.parameters() (a generator is "
         "consumed once: create it for this optimizer)")


def ordered(owner: str, params: Any) -> list:
    """``params`` as a list; a set is refused: its order changes from run to run, and
    ``state_dict`` numbers the parameters by their order."""
    if isinstance(params, (set, frozenset)):
        raise TypeError(f"{owner}: the parameters are a set, whose order changes from run to "
                        "run (state_dict numbers them in order); pass a list")
    return list(params)


def checked_group(optimizer: Any, owner: str, group: Any) -> "ParamGroup":
    """``{"params": [...], "lr": 0.01}`` as the optimizer's next :class:`ParamGroup`, its
    settings completed from ``optimizer.defaults`` and checked; ``owner`` starts errors."""
    name, i = type(optimizer).__name__, len(optimizer.param_groups)
    if not isinstance(group, Mapping):
        raise TypeError(f"{owner}: a parameter group is a dict such as {{'params': "
                        f"[w, b], 'lr': 0.01}}, got {type_name(group)}")
    if "params" not in group:
        raise ValueError(f"{owner}: the group has no 'params' (it has {', '.join(group)}); "
                         "give each group its parameters: {'params': [w, b], ...}")
    for key in group:
        if key != "params" and key not in optimizer.defaults and key not in SCHEDULE_KEYS:
            raise KeyError(f"{owner}: {key!r} is not a setting of {name}; its settings "
                           f"are {', '.join(optimizer.defaults)}")
    params = group["params"]
    params = [params] if isinstance(params, Tensor) else ordered(owner, params)
    if not params:
        raise ValueError(EMPTY.format(owner=owner))
    seen = {id(p): (k, j) for k, g in enumerate(optimizer.param_groups)
            for j, p in enumerate(g["params"])}
    for j, p in enumerate(params):
        _check_parameter(owner, j, p)
        if id(p) in seen:                       # step() would update it twice
            k, first = seen[id(p)]
            raise ValueError(
                f"{owner}: parameter {j} is parameter {first} again; pass each parameter "
                "once (model.parameters() lists a shared one once)" if k == i else
                f"{owner}: parameter {j} is parameter {first} of param_groups[{k}]; some "
                "parameters appear in more than one parameter group: put each in one group")
        seen[id(p)] = (i, j)
    settings = {k: v for k, v in group.items() if k != "params"}
    settings = optimizer.check_settings(owner, {**optimizer.defaults, **settings})
    return ParamGroup(optimizer, i, params, settings)


def _check_parameter(owner: str, j: int, p: Any) -> None:
    if not isinstance(p, Tensor):
        raise TypeError(f"{owner}: parameter {j} is not a tinyffn tensor (got "
                        f"{type_name(p)}); pass a tinyffn model's parameters()")
    if not p.is_leaf:
        raise ValueError(f"{owner}: parameter {j} was computed by {p.grad_fn.name}; "
                         "an optimizer updates leaves (a module's parameters), "
                         "which is where backward leaves the gradients")
    if not p.backend.is_floating(p.dtype):
        raise TypeError(f"{owner}: parameter {j} is {dtype_name(p.dtype)}; an optimizer "
                        "steps floating-point tensors (make it with dtype='float32')")


class ParamGroup(MutableMapping):
    """``opt.param_groups[i]``, as in PyTorch: ``"params"``, the group's parameters, and
    its settings (``"lr"``, ...), which ``step`` passes to ``update`` for those parameters.

    Writing a setting (``group["lr"] = 0.01``, ``group["betas"] = (0.9, 0.99)``) changes
    this group only, after the optimizer's ``check_settings``; ``update`` checks its
    settings together (``nesterov=False, momentum=0.0`` in one call). A change of what the
    optimizer keeps per parameter (Adam's ``amsgrad``) is refused once the group's
    parameters have state. Keys cannot be added or removed, but for those a learning-rate
    scheduler adds (``initial_lr``, ...; see the module docstring); the parameters are fixed.
    """

    def __init__(self, optimizer: Any, index: int, params: list, settings: dict):
        self._optimizer, self._index = optimizer, index
        self._params, self._settings = params, settings

    def __getitem__(self, key: str) -> Any:
        return self._params if key == "params" else self._settings[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.update({key: value})

    def update(self, other: Any = (), /, **changes: Any) -> None:
        opt, changes = self._optimizer, {**dict(other), **changes}
        same = changes.get("params")
        if same is not None and len(same) == len(self._params) and all(
                p is q for p, q in zip(same, self._params)):
            del changes["params"]                   # group.update(dict(group)): unchanged
        name = f"{type(opt).__name__}.param_groups[{self._index}]"
        for key in changes:
            if key not in self._settings and key not in SCHEDULE_KEYS:
                raise KeyError(f"{name}: {key!r} is not a setting of this optimizer; its "
                               f"settings are {', '.join(self._settings)}" + (
                                   " (the parameters are fixed: make a new optimizer, or "
                                   "add a group with add_param_group)"
                                   if key == "params" else ""))
        checked = opt.check_settings(opt._owner(self._index), {**self._settings, **changes})
        before, after = set(opt.state_keys(self._settings)), set(opt.state_keys(checked))
        if before != after and any(opt.state.get(p) for p in self._params):
            said = ", ".join(f"{k}={v!r}" for k, v in changes.items())
            raise ValueError(f"{name}: {said} changes what the optimizer keeps per parameter "
                             f"({sorted(before)} -> {sorted(after)}); "
                             "set it before the first step(), or make a new optimizer")
        self._settings = checked

    def __delitem__(self, key: str) -> None:
        raise TypeError(f"{type(self._optimizer).__name__}.param_groups[{self._index}]: "
                        f"settings cannot be removed (tried {key!r})")

    def __iter__(self) -> Iterator[str]:
        return iter(["params", *self._settings])

    def __len__(self) -> int:
        return 1 + len(self._settings)

    def __repr__(self) -> str:
        return repr(dict(self))
