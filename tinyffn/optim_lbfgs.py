"""L-BFGS, ``torch.optim.LBFGS``, reached as ``tinyffn.optim.LBFGS`` (:mod:`tinyffn.optim`
imports it): PyTorch 2.13's algorithm step by step, with its arguments, defaults and state
names, for small smooth problems (a Gaussian process's few hyperparameters, a least-squares
fit) where a curvature-aware step beats many small gradient steps.

It does not fit the ``update(w, g, state, xp, ...)`` pattern of the other optimizers: one
``step(closure)`` evaluates the loss many times, so it takes a closure (zero_grad, forward,
backward, return the loss) and works on one flat vector θ of every parameter::

    opt = tinyffn.optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.mse_loss(x @ w, y)
        loss.backward()
        return loss

    for _ in range(5):
        opt.step(closure)

As in PyTorch, all parameters form one group (there is one flat θ), the state is kept under
the first parameter (``opt.state[p0]``: ``func_evals``, ``n_iter``, ``d``, ``t``,
``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``, ``al``),
and ``step`` returns the loss of its first evaluation. The scalars PyTorch keeps as 0-d
tensors (``t``, ``ro``, ``H_diag``, ``al``) are 0-d arrays of the backend here, so on a GPU
the two-loop recursion runs without reading a number back; the host reads a number only
where PyTorch's code does (``float(loss)``, the tolerance tests, the line search's
comparisons).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from . import grad_mode
from .arguments import _is_int, is_real, type_name
from .backend import dtype_name
from .module_state import array_like
from .optim import Optimizer, _non_negative
from .tensor import Tensor

# what step() keeps, in PyTorch's order (al appears at the second iteration)
_STATE_KEYS = ("func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag",
              "prev_flat_grad", "prev_loss", "al")
_VECTORS, _VECTOR_LISTS = ("d", "prev_flat_grad"), ("old_dirs", "old_stps")
_SCALARS, _SCALAR_LISTS = ("t", "H_diag"), ("ro", "al")


def _cubic_interpolate(xp, x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped
    to ``bounds`` (default [min(x1, x2), max(x1, x2)]); their midpoint if the cubic has no
    minimum. PyTorch's (from torch7's polyinterp.lua)::

        d1 = g1 + g2 - 3 (f1 - f2) / (x1 - x2)
        d2 = sqrt(d1² - g1 g2)
        x* = x2 - (x2 - x1) (g2 + d2 - d1) / (g2 - g1 + 2 d2)     (x1 <= x2; else swapped)
    """
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = xp.sqrt(xp.asarray(d2_square))
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(xp, obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """PyTorch's line search along d from θ = x (torch7's lswolfe.lua): a step t with
    sufficient decrease, f(x + t d) <= f + c1 t gtd (Armijo), and a flatter slope,
    |g(x + t d)·d| <= -c2 gtd (curvature). First it brackets such a t, growing t by cubic
    interpolation (up to 10×), then it zooms into the bracket. Returns the loss, the flat
    gradient and t of the point it settles on, and how many evaluations it made.
    ``obj_func(x, t, d)`` is the loss and flat gradient at x + t d, θ restored after."""
    d_norm = xp.max(xp.abs(d))
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = _dot(xp, g_new, d)

    # bracket an interval containing a point satisfying the Wolfe criteria
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # interpolate: a longer step, between 1.01 t and 10 t
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(xp, t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new, gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(xp, g_new, d)
        ls_iter += 1

    if ls_iter == max_ls:       # out of evaluations: the better of θ and the last point
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point in it satisfies both conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break               # the bracket is too small to matter
        t = _cubic_interpolate(xp, bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # a t within 10% of an end makes little progress: after two such tries in a
        # row (or one at or past an end), evaluate 10% of the bracket in from that end
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(xp, g_new, d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # no sufficient decrease, or not below the low end: t becomes the high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new, gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True     # both Wolfe conditions hold
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the minimum lies on the other side: the old low end becomes the high one
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new     # t is the new low end
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new, gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _dot(xp, a, b):
    """a·b of two vectors (n,), a 0-d array: no number is read back to the host."""
    return a @ b


class LBFGS(Optimizer):
    """L-BFGS (Nocedal 1980; Liu & Nocedal 1989), PyTorch's, on the flat vector θ of all the
    parameters and its gradient g. Each of up to ``max_iter`` iterations of a step::

        y = g - g_prev,  s = t_prev d_prev        if y·s > 1e-10 keep (y, s, ρ = 1 / y·s),
                                                  the last history_size of them (old_dirs,
                                                  old_stps, ro), and H_diag = y·s / y·y
        d = -H g                                  the two-loop recursion: H, the inverse
                                                  Hessian that the pairs imply, from H_diag I
                                                  (d = -g at the first iteration ever)
        t = lr  (min(1, 1 / Σ|g|) lr the first time)
        θ ← θ + t d                               or with line_search_fn="strong_wolfe" a t
                                                  meeting the strong Wolfe conditions

    A step stops early when max |g| <= tolerance_grad (θ is optimal), when g·d >
    -tolerance_change, or when max |t d| or the change of the loss is below
    tolerance_change, and after ``max_eval`` evaluations of the closure (default
    max_iter · 5 // 4). Without a line search, the last iteration does not evaluate the
    loss again, as in PyTorch (no use in a stochastic setting).
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1,
                 max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn: str | None = None):
        if max_eval is None:
            max_eval = _positive_int("LBFGS", "max_iter", max_iter) * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError(_ONE_GROUP.format(n=len(self.param_groups)))

    def add_param_group(self, param_group: Any) -> None:
        """Refused: L-BFGS steps one flat vector of all its parameters, one group."""
        raise ValueError(_ONE_GROUP.format(n=len(self.param_groups) + 1))

    def check_settings(self, owner: str, settings: dict) -> dict:
        s = super().check_settings(owner, settings)
        for key in ("max_iter", "max_eval", "history_size"):
            s[key] = _positive_int(owner, key, s[key])
        for key in ("tolerance_grad", "tolerance_change"):
            s[key] = _non_negative(owner, key, s[key])
        if s["line_search_fn"] not in (None, "strong_wolfe"):
            raise ValueError(f"{owner}: line_search_fn must be None (steps of lr) or "
                             f"'strong_wolfe', got {s['line_search_fn']!r}")
        return s

    def state_keys(self, settings: Any) -> tuple:
        return _STATE_KEYS

    # -- the flat vector θ and its gradient -----------------------------------------------
    def _flat_grad(self, xp) -> Any:
        """Every parameter's gradient flattened and joined, (n,); zeros for no gradient."""
        params = self.params
        for j, p in enumerate(params):     # (p.grad fits p: its setter checks)
            if p.dtype != params[0].dtype or p.backend is not params[0].backend:
                raise RuntimeError(
                    f"LBFGS.step: parameter {j} is {_describe(p)}, parameter 0 "
                    f"{_describe(params[0])}; L-BFGS steps one flat vector of all the "
                    "parameters: give them one dtype and device (model.to(...))")
        return xp.concat([xp.zeros(p.numel(), dtype=p.dtype) if p.grad is None
                          else xp.reshape(p.grad.data, (-1,)) for p in params])  # (n,)

    def _add_grad(self, xp, t, d) -> None:
        """θ ← θ + t d, each parameter taking its slice of d; new arrays, as every step."""
        offset = 0
        for p in self.params:
            n = p.numel()
            p.data = p.data + t * xp.reshape(d[offset:offset + n], p.shape)  # (*p.shape)
            offset += n

    def _directional_evaluate(self, closure, xp, x, t, d) -> tuple:
        """The loss and flat gradient at θ = x + t d; θ is x again afterwards."""
        self._add_grad(xp, t, d)
        loss = _loss(closure)
        flat_grad = self._flat_grad(xp)
        for p, w in zip(self.params, x):
            p.data = w
        return loss, flat_grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to ``max_iter`` L-BFGS iterations; ``closure`` (zero_grad, forward, backward,
        return the loss) is called with grad enabled, once or more per iteration. Returns
        the closure's first loss, from before the step, as PyTorch's."""
        if not callable(closure):
            raise TypeError("LBFGS.step: needs the closure that recomputes the loss, as "
                            "PyTorch's: def closure(): opt.zero_grad(); loss = ...; "
                            "loss.backward(); return loss; then opt.step(closure) (got "
                            f"{type_name(closure)})")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        params = self.params
        xp = params[0].backend.xp

        # LBFGS has only global state: PyTorch keeps it under the first parameter
        state = self.state.setdefault(params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        # evaluate initial f(θ) and g
        with grad_mode.enable_grad():
            orig_loss = closure()
        loss = _as_float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._flat_grad(xp)
        opt_cond = xp.max(xp.abs(flat_grad)) <= tolerance_grad
        if opt_cond:                            # θ is already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # -- the direction d ----------------------------------------------------------
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad      # the change of the gradient
                s = d * t                           # the step taken
                ys = _dot(xp, y, s)
                if ys > 1e-10:                      # curvature positive: remember the pair
                    if len(old_dirs) == history_size:   # forget the oldest
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / _dot(xp, y, y)    # the initial inverse Hessian's scale

                # d = -H g by the two-loop recursion
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                al.extend([None] * (num_old - len(al)))     # history_size raised mid-run
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = _dot(xp, old_stps[i], q) * ro[i]
                    q = q - al[i] * old_dirs[i]
                r = q * H_diag
                for i in range(num_old):
                    be_i = _dot(xp, old_dirs[i], r) * ro[i]
                    r = r + (al[i] - be_i) * old_stps[i]
                d = r

            prev_flat_grad = flat_grad
            prev_loss = loss

            # -- the step length t --------------------------------------------------------
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / xp.sum(xp.abs(flat_grad))) * lr
            else:
                t = lr

            gtd = _dot(xp, flat_grad, d)            # the slope along d
            if gtd > -tolerance_change:             # d does not go down
                break

            ls_func_evals = 0
            if line_search_fn is not None:          # "strong_wolfe", checked by the group
                x_init = [p.data for p in params]   # θ; steps give p new arrays

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, xp, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    xp, obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(xp, t, d)
                opt_cond = xp.max(xp.abs(flat_grad)) <= tolerance_grad
            else:
                self._add_grad(xp, t, d)            # a fixed step
                if n_iter != max_iter:              # re-evaluate, but not after the last
                    loss = _loss(closure)
                    flat_grad = self._flat_grad(xp)
                    opt_cond = xp.max(xp.abs(flat_grad)) <= tolerance_grad
                    ls_func_evals = 1

            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # -- stop? --------------------------------------------------------------------
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if xp.max(xp.abs(d * t)) <= tolerance_change:   # θ no longer moves
                break
            if abs(loss - prev_loss) < tolerance_change:    # nor the loss
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    # -- saving and resuming ---------------------------------------------------------------
    def state_dict(self) -> dict:
        """The base's layout; the lists (``old_dirs``, ``old_stps``, ``ro``, ``al``) are
        copied entry by entry too, so later steps leave a saved state unchanged."""
        out = super().state_dict()
        p0 = self.params[0]
        for s in out["state"].values():
            for key in _VECTOR_LISTS + _SCALAR_LISTS:
                if key in s:
                    s[key] = [None if v is None else Tensor(
                        p0.backend.xp.asarray(v, copy=True), _backend=p0.backend)
                        for v in s[key]]
        return out

    def load_state_dict(self, state_dict: Any) -> None:
        """Resume from :meth:`state_dict`: the state of parameter 0 (the only one), each
        array checked against the flat size n of all the parameters and put on their
        device in their dtype; settings and groups as the base's ``load_state_dict``."""
        mine = self._index_lists()
        if state_dict.get("optimizer", "LBFGS") != "LBFGS" or [
                list(g["params"]) for g in state_dict["param_groups"]] != mine:
            return super().load_state_dict(state_dict)      # raises, saying why
        name = "LBFGS.load_state_dict"
        states = {int(i): s for i, s in state_dict["state"].items() if s}
        if set(states) - {0}:
            raise ValueError(f"{name}: state for parameter(s) {sorted(set(states) - {0})}; "
                             "L-BFGS keeps its state under parameter 0 only")
        loaded = _loaded(name, self.params, states[0]) if states else None
        super().load_state_dict({**state_dict, "state": {}})
        if loaded is not None:
            self.state[self.params[0]] = loaded


_ONE_GROUP = ("LBFGS: got {n} parameter groups; L-BFGS steps one flat vector of all the "
              "parameters, so it takes one group, as PyTorch's (\"LBFGS doesn't support "
              "per-parameter options\"): pass the parameters as one list")


def _positive_int(owner: str, name: str, value: Any) -> int:
    if not _is_int(value):
        raise TypeError(f"{owner}: {name} must be a whole number, got {value!r}")
    if value < 1:
        raise ValueError(f"{owner}: {name} must be >= 1, got {value}")
    return int(value)


def _as_float(loss: Any) -> float:
    """The closure's loss as a Python float, as PyTorch's ``float(closure())``."""
    if not (isinstance(loss, Tensor) and loss.numel() == 1 or is_real(loss)):
        raise TypeError("LBFGS.step: the closure must return the loss, a one-element tensor "
                        f"or a number, got {type_name(loss)}"
                        + (f" of shape {loss.shape}" if isinstance(loss, Tensor) else "")
                        + "; end it with `return loss`")
    return float(loss)


def _loss(closure: Callable[[], Any]) -> float:
    with grad_mode.enable_grad():
        return _as_float(closure())


def _describe(t: Tensor) -> str:
    return f"{dtype_name(t.dtype)} of shape {t.shape} on {t.device}"


def _loaded(name: str, params: list, saved: dict) -> dict:
    """A saved state as step() keeps it: arrays on parameter 0's device in its dtype."""
    p0, n = params[0], sum(p.numel() for p in params)
    unknown = sorted(set(saved) - set(_STATE_KEYS))
    if unknown:
        raise ValueError(f"{name}: the state has {unknown}, which L-BFGS does not keep "
                         f"(it keeps {', '.join(_STATE_KEYS)})")

    def array(key, v, shape):
        a = array_like(p0, v)
        if tuple(a.shape) != shape:
            raise ValueError(f"{name}: state {key!r} has shape {tuple(a.shape)}, expected "
                             f"{shape} (the {n} entries of all the parameters, flat)"
                             if shape else f"{name}: state {key!r} must be one number, got "
                             f"shape {tuple(a.shape)}")
        return a

    out = {}
    for key, v in saved.items():
        if key in ("func_evals", "n_iter"):
            if not (is_real(v) and v >= 0 and v == int(v)):
                raise ValueError(f"{name}: {key} must be a whole number >= 0, got {v!r}")
            out[key] = int(v)
        elif key == "prev_loss" or is_real(v):          # Python numbers stay numbers
            out[key] = v if v is None else float(v)
        elif key in _VECTORS:
            out[key] = array(key, v, (n,))
        elif key in _SCALARS:
            out[key] = array(key, v, ())
        else:                                           # the lists
            out[key] = [None if e is None and key == "al" else
                        array(key, e, (n,) if key in _VECTOR_LISTS else ()) for e in v]
    return out
