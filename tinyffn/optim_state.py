"""The body of :meth:`tinyffn.optim.Optimizer.load_state_dict`, kept out of optim.py (as
``Module.load_state_dict``'s is in module_state.py) so that optim.py reads as the
optimizers: a state saved by :meth:`~tinyffn.optim.Optimizer.state_dict` checked whole
(the optimizer that saved it, the groups' sizes, each group's hyperparameters, each
parameter's state names, counts and shapes) before any of it replaces the current one.
"""
from __future__ import annotations

from typing import Any, Mapping

from .module_state import array_like
from .param_groups import NAMES, SCHEDULE_KEYS, checked_names, refused_label


def load_state(opt: Any, state_dict: Mapping) -> None:
    """Give optimizer ``opt`` the state ``state_dict`` (see ``Optimizer.load_state_dict``)."""
    cls = type(opt).__name__
    name = f"{cls}.load_state_dict"
    saved_by = state_dict.get("optimizer", cls)
    if saved_by != cls:
        raise ValueError(f"{name}: the state was saved by {saved_by}; load it into "
                         f"{saved_by} (its state and hyperparameters are not {cls}'s)")
    groups, mine = state_dict["param_groups"], opt._index_lists()
    if [list(g["params"]) for g in groups] != mine:
        sizes = [len(g["params"]) for g in groups]
        raise ValueError(
            f"{name}: the state is for {sum(sizes)} parameters in {len(groups)} group(s)"
            + (f" of sizes {sizes}" if len(groups) > 1 else "") + "; this optimizer has "
            + (f"one group of {len(mine[0])}" if len(mine) == 1 else
               f"{len(mine)} groups of sizes {[len(m) for m in mine]}")
            + "; make it with the groups of the optimizer saved, in the same order")
    checked, names = [], []
    for i, group in enumerate(groups):
        settings = {k: v for k, v in group.items() if k not in ("params", NAMES)}
        names.append(checked_names(f"{name}: param_groups[{i}]", group[NAMES],
                                   len(group["params"])) if NAMES in group else None)
        unknown = sorted(k for k in set(settings) - set(opt.defaults) - set(SCHEDULE_KEYS)
                         if refused_label(opt, k))         # labels load
        if unknown:
            raise ValueError(
                f"{name}: the saved hyperparameters {unknown} are not {cls}'s "
                f"({', '.join(sorted(opt.defaults))}); a state saved by another optimizer, "
                "or by torch.optim, does not load"
                + (f" (in param_groups[{i}])" if len(groups) > 1 else ""))
        checked.append(opt.check_settings(opt._owner(i), {**opt.defaults, **settings}))
    params = opt.params
    group_of = [i for i, indices in enumerate(mine) for _ in indices]
    state = [{} for _ in params]
    for i, saved in state_dict["state"].items():
        p = params[int(i)]
        keeps = opt.param_state_keys(checked[group_of[int(i)]], p.shape)
        if saved and set(saved) != set(keeps):
            raise ValueError(f"{name}: parameter {i}'s state has {sorted(saved)}; {cls} "
                             f"as configured keeps {sorted(keeps)}")
        for key, value in saved.items():
            if key == "step":               # a count: an int, np.int64, a 0-d array
                if not value >= 0 or value != int(value):
                    raise ValueError(f"{name}: step of parameter {i} must be a whole "
                                     f"number >= 0, got {value!r}")
                value = int(value)
            elif hasattr(value, "shape"):
                value = array_like(p, value)    # a fresh array on p's device, p's dtype
                want = opt.state_shape(key, p.shape)     # p's own, but Adafactor's
                if tuple(value.shape) != want:
                    raise ValueError(f"{name}: state {key!r} of parameter {i} has shape "
                                     f"{tuple(value.shape)}, the parameter {p.shape}"
                                     + (f" (so {want} expected)" if want != p.shape else ""))
            state[int(i)][key] = value
    for group, settings, saved_names in zip(opt.param_groups, checked, names):
        group._settings = settings          # checked above; the old state goes too
        if saved_names is not None:         # saved names replace these, as in PyTorch
            group._names = saved_names
    opt.state = dict(zip(params, state))
