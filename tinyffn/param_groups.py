"""Parameter groups, as PyTorch's: how an optimizer's ``params`` become groups, and the
:class:`ParamGroup` each entry of ``opt.param_groups`` is.

``SGD(model.parameters(), lr=0.1)`` makes one group; ``SGD([{"params": decay,
"weight_decay": 0.1}, {"params": no_decay}], lr=0.1)`` makes two, and a setting a group
leaves out takes the constructor's value (``opt.defaults``). The checks here are those of
PyTorch's ``add_param_group`` and more: each parameter is a floating-point leaf in one
group only, and parameters come in an order (a set is refused), as ``state_dict`` numbers
them by it. The optimizers themselves are in :mod:`tinyffn.optim`.

Parameters may come with names, as ``model.named_parameters()`` gives them: ``AdamW(
model.named_parameters(), lr=1e-3)`` keeps the names in the group as ``"param_names"``,
as PyTorch (2.6 and later) does, and ``state_dict`` saves them; every group has names or
none does. They label the parameters and change nothing in a step.

Keys beyond the settings that learning-rate schedulers store, as PyTorch's, may join a
group: ``initial_lr``, the lr a schedule starts from, which a scheduler stores with
``group.setdefault("initial_lr", group["lr"])`` (:mod:`tinyffn.lr_scheduler`), and
OneCycleLR's ``max_lr``, ``min_lr``, ``max_momentum`` and ``base_momentum``, and SWALR's
``swa_lr`` (:mod:`tinyffn.swa_utils`). They are
saved and loaded with the settings, so a schedule resumes from the optimizer's
``state_dict``, but they are not settings: ``update`` never receives them.

Any other key is the user's own label, kept as PyTorch keeps it (``{"params": decay,
"name": "decay"}``, read back for logging as ``group["name"]``): saved and loaded with
the group, shown in its repr, never passed to ``update``. Two kinds of key are refused
instead, because there a label would be a silent mistake: a setting of another optimizer
(SGD given Adam's ``betas`` would ignore them) and a near-miss of one of this optimizer's
settings (``weight_decy``), which includes a setting in capitals (``LR``) or under the name
other libraries give it (Keras's ``learning_rate``, ``epsilon``, ``beta_1``: ``OTHER_NAMES``).
"""
from __future__ import annotations

import difflib
from collections.abc import Mapping, MutableMapping
from typing import Any, Iterator

from .arguments import type_name
from .backend import dtype_name
from .tensor import Tensor

# in a group beside the settings; see the docstring
SCHEDULE_KEYS = ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum",
                 "swa_lr")
NAMES = "param_names"               # the parameters' names, if they came with them
EMPTY = ("{owner}: got an empty parameter list; pass model.parameters() (a generator is "
         "consumed once: create it for this optimizer)")
# The settings of PyTorch's optimizers (torch.optim 2.13, every class's defaults; a test
# compares them with torch's where it is installed) and of tinyffn's. A group key that is
# one of these but not a setting of this optimizer is refused, not kept as a label.
OPTIMIZER_SETTINGS = frozenset((
    "adjust_lr_fn", "alpha", "amsgrad", "beta2_decay", "betas", "capturable", "centered", "d",
    "dampening", "decoupled_weight_decay", "differentiable", "eps", "etas", "foreach",
    "fused", "history_size", "initial_accumulator_value", "lambd", "line_search_fn", "lr",
    "lr_decay", "max_eval", "max_iter", "maximize", "momentum", "momentum_decay",
    "nesterov", "ns_coefficients", "ns_steps", "rho", "step_sizes", "t0",
    "tolerance_change", "tolerance_grad", "weight_decay"))
# What Keras, Optax and fastai call some of these settings: code ported from them that
# writes {"params": ps, "learning_rate": 1e-4} means the lr, which a label would ignore.
OTHER_NAMES = {"learning_rate": "lr", "epsilon": "eps", "beta1": "betas", "beta_1": "betas",
               "beta2": "betas", "beta_2": "betas", "b1": "betas", "b2": "betas",
               "wd": "weight_decay"}


def refused_label(optimizer: Any, key: str) -> str | None:
    """Why ``key``, which is no setting of ``optimizer``, may not be kept as a label (see
    the module docstring), or None when it may: the end of a KeyError's message."""
    if not isinstance(key, str):
        return f"a group's keys are strings, got {key!r}"
    name = type(optimizer).__name__
    plain = key.lower().replace("-", "_")           # LR, Weight-Decay: the same setting
    meant = OTHER_NAMES.get(plain, plain)
    if meant not in optimizer.defaults and meant in OPTIMIZER_SETTINGS:
        return (f"{key!r} is another optimizer's setting" + (
            f" ({meant!r})" if meant != key else "") + f", which {name} would ignore; "
            "choose the optimizer that has it")
    near = [meant] if meant in optimizer.defaults else difflib.get_close_matches(
        plain, [*optimizer.defaults, *SCHEDULE_KEYS], n=1, cutoff=0.8)
    if near:
        return (f"did you mean {near[0]!r}? (a key that is not a setting is kept as a "
                "label, but this one looks like a misspelt setting" + (
                    f"; {key!r} is its name in other libraries" if plain in OTHER_NAMES
                    else "") + ")")
    return None


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
        if key not in ("params", NAMES) and key not in optimizer.defaults and \
                key not in SCHEDULE_KEYS and (why := refused_label(optimizer, key)):
            raise KeyError(f"{owner}: {key!r} is not a setting of {name}; its settings "
                           f"are {', '.join(optimizer.defaults)}; {why}")
    params = group["params"]
    params = [params] if isinstance(params, Tensor) else ordered(owner, params)
    if not params:
        raise ValueError(EMPTY.format(owner=owner))
    params, names = _split_names(owner, params, group.get(NAMES))
    if optimizer.param_groups and (names is None) != (NAMES not in optimizer.param_groups[0]):
        mine, theirs = ("without", "with") if names is None else ("with", "without")
        raise ValueError(f"{owner}: this group's parameters come {mine} names, the other "
                         f"groups' {theirs}; give every group names (named_parameters()) or "
                         "none, as PyTorch asks")
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
    settings = {k: v for k, v in group.items() if k not in ("params", NAMES)}
    settings = optimizer.check_settings(owner, {**optimizer.defaults, **settings})
    return ParamGroup(optimizer, i, params, settings, names)


def _split_names(owner: str, params: list, names: Any) -> tuple[list, list | None]:
    """(name, parameter) pairs, as ``named_parameters()`` gives, split into the parameters
    and their names; plain parameters keep the group's ``"param_names"``, if it has one."""
    pairs = [isinstance(p, tuple) for p in params]
    if any(pairs):
        if not all(pairs) or names is not None:
            raise ValueError(f"{owner}: some parameters come as (name, parameter) pairs and "
                             "some do not" + (" (or names twice: in pairs and in "
                                              "'param_names')" if all(pairs) else "")
                             + "; pass all with names (named_parameters()) or none")
        for j, pair in enumerate(params):
            if len(pair) != 2 or not isinstance(pair[0], str):
                raise TypeError(f"{owner}: parameter {j} is a tuple, but not a pair (name, "
                                "parameter) as named_parameters() gives")
        names, params = [name for name, _ in params], [p for _, p in params]
    return params, None if names is None else checked_names(owner, names, len(params))


def checked_names(owner: str, names: Any, n: int) -> list:
    """A group's ``"param_names"``: a list of ``n`` strings, one per parameter."""
    if isinstance(names, str) or not isinstance(names, (list, tuple)) or len(names) != n \
            or not all(isinstance(name, str) for name in names):
        raise ValueError(f"{owner}: 'param_names' must be a list of {n} strings, one per "
                         f"parameter, got {names!r}")
    return list(names)


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
    """``opt.param_groups[i]``, as in PyTorch: ``"params"``, the group's parameters, their
    ``"param_names"`` if they came with names, and its settings (``"lr"``, ...), which
    ``step`` passes to ``update`` for those parameters.

    Writing a setting (``group["lr"] = 0.01``, ``group["betas"] = (0.9, 0.99)``) changes
    this group only, after the optimizer's ``check_settings``; ``update`` checks its
    settings together (``nesterov=False, momentum=0.0`` in one call). A change of what the
    optimizer keeps per parameter (Adam's ``amsgrad``) is refused once the group's
    parameters have state. A key that is no setting is a label of the user's, which may be
    added, changed and removed; a learning-rate scheduler adds its own (``initial_lr``,
    ...; see the module docstring); settings cannot be removed, and the parameters and
    their names are fixed.
    """

    def __init__(self, optimizer: Any, index: int, params: list, settings: dict,
                 names: list | None = None):
        self._optimizer, self._index = optimizer, index
        self._params, self._settings, self._names = params, settings, names

    def __getitem__(self, key: str) -> Any:
        if key == "params":
            return self._params
        return self._names if key == NAMES and self._names is not None else self._settings[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.update({key: value})

    def update(self, other: Any = (), /, **changes: Any) -> None:
        opt, changes = self._optimizer, {**dict(other), **changes}
        same = changes.get("params")
        if same is not None and len(same) == len(self._params) and all(
                p is q for p, q in zip(same, self._params)):
            del changes["params"]                   # group.update(dict(group)): unchanged
        if NAMES in changes and changes[NAMES] == self._names:
            del changes[NAMES]
        name = f"{type(opt).__name__}.param_groups[{self._index}]"
        for key in changes:
            if key in ("params", NAMES) or (key not in self._settings and key not in
                                             SCHEDULE_KEYS and refused_label(opt, key)):
                raise KeyError(f"{name}: {key!r} is not a setting of this optimizer; its "
                               f"settings are {', '.join(opt.defaults)}" + (
                                   " (the parameters are fixed: make a new optimizer, or "
                                   "add a group with add_param_group)" if key == "params" else
                                   " (the names are fixed with the parameters)"
                                   if key == NAMES else "; " + refused_label(opt, key)))
        checked = opt.check_settings(opt._owner(self._index), {**self._settings, **changes})
        before, after = set(opt.state_keys(self._settings)), set(opt.state_keys(checked))
        if before != after and any(opt.state.get(p) for p in self._params):
            said = ", ".join(f"{k}={v!r}" for k, v in changes.items())
            raise ValueError(f"{name}: {said} changes what the optimizer keeps per parameter "
                             f"({sorted(before)} -> {sorted(after)}); "
                             "set it before the first step(), or make a new optimizer")
        self._settings = checked

    def __delitem__(self, key: str) -> None:
        """Remove a label; settings, the parameters and the schedulers' keys stay."""
        if key in self._settings and key not in self._optimizer.defaults and \
                key not in SCHEDULE_KEYS:
            del self._settings[key]
            return
        raise (KeyError(key) if key not in self else TypeError(
            f"{type(self._optimizer).__name__}.param_groups[{self._index}]: settings cannot "
            f"be removed (tried {key!r}); only a label of your own can"))

    def __iter__(self) -> Iterator[str]:
        return iter(["params", *([NAMES] if self._names is not None else []), *self._settings])

    def __len__(self) -> int:
        return 1 + (self._names is not None) + len(self._settings)

    def __repr__(self) -> str:
        return repr(dict(self))
