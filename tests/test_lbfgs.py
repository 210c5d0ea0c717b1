"""optim.LBFGS (tinyffn/optim_lbfgs.py) against torch.optim.LBFGS: every step's loss,
parameters and evaluation counts on a Rosenbrock function, a least-squares fit and a small
network (float64), with and without the strong-Wolfe line search, live where torch is
installed and against torch's numbers written out where it is not; the exits (max_iter,
max_eval, the tolerances); saving and resuming mid-run; the arguments it refuses."""
import inspect

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim

_rng = np.random.default_rng(0)
A, Y = _rng.normal(size=(30, 4)), _rng.normal(size=30)           # least squares
X, T = _rng.normal(size=(16, 3)), _rng.normal(size=(16, 1))      # the network's data
W1, B1, W2 = _rng.normal(size=(3, 5)), _rng.normal(size=5), 0.5 * _rng.normal(size=(5, 1))


def rosenbrock(lib, x):
    """Σ (1 - x_i)² + 100 (x_{i+1} - x_i²)²: a curved valley, its minimum 0 at all ones."""
    return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()


# problem -> (its starting values, loss(lib, *parameters, data)) with data as lib tensors
PROBLEMS = {
    "rosenbrock": ([np.array([-1.5, 2.0])], lambda lib, x: rosenbrock(lib, x)),
    "least_squares": ([np.zeros(4), np.zeros(1)],
                      lambda lib, w, b, a, y: ((a @ w + b - y) ** 2).mean()),
    "network": ([W1, B1, W2],
                lambda lib, w1, b1, w2, x, t: (((x @ w1 + b1).tanh() @ w2 - t) ** 2).mean()),
}
DATA = {"rosenbrock": [], "least_squares": [A, Y], "network": [X, T]}

SETTINGS = [      # max_iter=10, 3 steps: 30 iterations (see test_every_step_matches_torch)
    {"max_iter": 10},
    {"max_iter": 10, "line_search_fn": "strong_wolfe"},
    {"max_iter": 7, "history_size": 2},                      # the history fills and shifts
    {"max_iter": 10, "line_search_fn": "strong_wolfe", "max_eval": 8, "history_size": 4},
    {"lr": 0.1, "max_iter": 4, "max_eval": 3},               # max_eval stops before max_iter
    {"max_iter": 10, "line_search_fn": "strong_wolfe", "tolerance_change": 1e-4,
     "tolerance_grad": 1e-5},
    {"max_iter": 10, "line_search_fn": "strong_wolfe", "lr": 10},   # long trials: zooms
]


def run(lib, problem, settings, steps=3, device=None, opt_state=None, start=None):
    """``steps`` calls of ``step(closure)`` by ``lib.optim.LBFGS`` (lib tinyffn or torch).
    Returns per step: the loss step returned, each parameter after it, func_evals, n_iter;
    and the optimizer."""
    on = {"device": device} if device else {}
    start = PROBLEMS[problem][0] if start is None else start
    ps = [lib.nn.Parameter(lib.tensor(w, **on)) for w in start]
    data = [lib.tensor(a, **on) for a in DATA[problem]]
    opt = lib.optim.LBFGS(ps, **settings)
    if opt_state is not None:
        opt.load_state_dict(opt_state)

    def closure():
        opt.zero_grad()
        loss = PROBLEMS[problem][1](lib, *ps, *data)
        loss.backward()
        return loss

    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        state = opt.state[ps[0]]
        out.append((loss.item(), [p.detach().cpu().numpy().copy() if lib is not tinyffn else
                                  p.numpy() for p in ps],
                    state["func_evals"], state["n_iter"]))
    return out, opt


def torch_run(problem, settings, **kw):
    torch = pytest.importorskip("torch")
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return run(torch, problem, settings, **kw)
    finally:
        torch.set_default_dtype(default)


def assert_same_steps(ours, theirs, rtol=1e-10, atol=1e-10):
    assert len(ours) == len(theirs)
    for i, ((loss, ps, evals, iters), (tloss, tps, tevals, titers)) in enumerate(
            zip(ours, theirs)):
        assert (evals, iters) == (tevals, titers), f"step {i}: func_evals, n_iter"
        np.testing.assert_allclose(loss, tloss, rtol=rtol, atol=atol, err_msg=f"step {i}")
        for p, tp in zip(ps, tps):
            np.testing.assert_allclose(p, tp, rtol=rtol, atol=atol, err_msg=f"step {i}")


@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("i", range(len(SETTINGS)))
def test_every_step_matches_torch(problem, i):
    """Five step() calls: the loss each returns, every parameter after it and the counts
    func_evals and n_iter, as torch.optim.LBFGS's (agree to ~1e-13 measured)."""
    ours, _ = run(tinyffn, problem, SETTINGS[i])
    theirs, _ = torch_run(problem, SETTINGS[i])
    assert_same_steps(ours, theirs)
    start = PROBLEMS[problem][0]
    assert not np.allclose(ours[0][1][0], start[0])         # it moved
    assert ours[-1][0] < ours[0][0]                         # and went down


def test_iterates_within_a_step_match_torch():
    """max_iter=1: each step() is one iteration, so this compares every iterate (and the
    loss at each) of a 12-iteration run, for both line searches."""
    for search in (None, "strong_wolfe"):
        settings = {"max_iter": 1, "line_search_fn": search}
        ours, _ = run(tinyffn, "rosenbrock", settings, steps=12)
        theirs, _ = torch_run("rosenbrock", settings, steps=12)
        assert_same_steps(ours, theirs)
        assert [n for *_, n in ours] == list(range(1, 13))


def test_state_matches_torchs():
    """The state's names, under the first parameter, and its values after two steps."""
    torch = pytest.importorskip("torch")
    settings = {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 5}
    _, opt = run(tinyffn, "network", settings, steps=2)
    _, topt = torch_run("network", settings, steps=2)
    ours, theirs = opt.state_dict()["state"], topt.state_dict()["state"]
    assert list(ours) == list(theirs) == [0]
    assert sorted(ours[0]) == sorted(theirs[0]) == sorted(optim.LBFGS([
        nn.Parameter(tinyffn.zeros(1))]).state_keys({}))

    def value(v):
        return np.asarray(v.detach().numpy() if isinstance(v, torch.Tensor) else
                          v.numpy() if isinstance(v, tinyffn.Tensor) else v, dtype=float)

    for key, v in theirs[0].items():
        if isinstance(v, list):
            assert len(ours[0][key]) == len(v), key
            for a, b in zip(ours[0][key], v):
                np.testing.assert_allclose(value(a), value(b), rtol=1e-9, err_msg=key)
        else:
            np.testing.assert_allclose(value(ours[0][key]), value(v), rtol=1e-9, err_msg=key)


# torch.optim.LBFGS on rosenbrock from (-1.5, 2), run(torch, "rosenbrock", {"max_iter": 10,
# "line_search_fn": search}), PyTorch 2.13.0, CPU, float64: after 3 steps, x, func_evals,
# n_iter and the loss the third step returned
TORCH_ROSENBROCK = {
    None: ([-0.2841813516847216, 0.07319765884456844], 30, 30, 3.173287752667091),
    "strong_wolfe": ([0.6392604324167889, 0.3951195851698306], 37, 27, 1.4363331975262201),
}


@pytest.mark.parametrize("search", TORCH_ROSENBROCK)
def test_matches_torchs_numbers_written_out(search, device):
    """Rosenbrock on every backend (strict: the array API only) against torch's
    numbers pasted in: runs without torch."""
    ours, _ = run(tinyffn, "rosenbrock", {"max_iter": 10, "line_search_fn": search},
                  device=device)
    x, evals, iters, loss = TORCH_ROSENBROCK[search]
    np.testing.assert_allclose(ours[-1][1][0], x, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours[-1][0], loss, rtol=1e-10)
    assert (ours[-1][2], ours[-1][3]) == (evals, iters)


def test_the_line_search_matches_torchs_on_many_starts():
    """_strong_wolfe itself beside torch's, 600 times: along -g (scaled at random) of a
    3-D Rosenbrock function and of Σ |x|^1.5 + 0.3 Σ x (whose curvature, infinite at 0,
    fools the cubic fits into the bracket's ends), first trials t from 1e-3 to 1e6, max_ls
    from 1 to 25, c2 and tolerance_change beyond LBFGS's: the same t, loss, gradient and
    number of evaluations. This reaches the zoom phase's rarer branches (a trial near an
    end, a bracket too small), which the runs above pass through a few times at most."""
    torch = pytest.importorskip("torch")
    from torch.optim.lbfgs import _strong_wolfe as torch_strong_wolfe
    from tinyffn.optim_lbfgs import _strong_wolfe

    def rosenbrock_and_grad(x):
        f = ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()
        g = np.zeros_like(x)
        g[:-1] += -2 * (1 - x[:-1]) - 400 * x[:-1] * (x[1:] - x[:-1] ** 2)
        g[1:] += 200 * (x[1:] - x[:-1] ** 2)
        return float(f), g

    def cusp_and_grad(x):
        return float((np.abs(x) ** 1.5).sum() + 0.3 * x.sum()), \
            1.5 * np.sign(x) * np.abs(x) ** 0.5 + 0.3

    rng = np.random.default_rng(1)
    for f_and_g in (rosenbrock_and_grad, cusp_and_grad):
        for _ in range(300):
            x = rng.uniform(-2, 2, size=3)
            f, g = f_and_g(x)
            d = -g * 10.0 ** rng.uniform(-3, 0)
            kw = dict(max_ls=int(rng.integers(1, 26)), c2=float(rng.choice([0.9, 0.1, 0.01])),
                      tolerance_change=float(rng.choice([1e-9, 1e-2])))
            t0 = 10.0 ** rng.uniform(-3, 6)

            def ours(x, t, d):
                return f_and_g(x + t * d)

            def theirs(x, t, d):
                loss, grad = f_and_g(x.numpy() + float(t) * d.numpy())
                return loss, torch.tensor(grad)

            f1, g1, t1, n1 = _strong_wolfe(np, ours, x, t0, d, f, g, g @ d, **kw)
            td, tg = torch.tensor(d), torch.tensor(g)
            f2, g2, t2, n2 = torch_strong_wolfe(theirs, torch.tensor(x), t0, td, f, tg,
                                                tg.dot(td), **kw)
            assert n1 == n2
            np.testing.assert_allclose(float(t1), float(t2), rtol=1e-10)
            np.testing.assert_allclose(f1, f2, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(g1, g2.numpy(), rtol=1e-9, atol=1e-9)


def test_step_returns_the_first_loss_and_stops_at_the_tolerances():
    """step returns the closure's first loss (before the step), as torch's; at an optimum
    (max |g| <= tolerance_grad) it evaluates once and leaves the parameters alone."""
    w = nn.Parameter(tinyffn.tensor([1.0, 1.0]))
    opt = optim.LBFGS([w])
    losses = []

    def closure():
        opt.zero_grad()
        loss = rosenbrock(tinyffn, w)
        loss.backward()
        losses.append(loss)
        return loss

    assert opt.step(closure) is losses[0] and len(losses) == 1
    assert opt.state[w] == {"func_evals": 1, "n_iter": 0}
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0])
    w.data = w.backend.xp.asarray([-1.5, 2.0])
    first = rosenbrock(tinyffn, w).item()
    assert opt.step(closure).item() == first and len(losses) > 2
    assert rosenbrock(tinyffn, w).item() < first


def test_max_iter_and_max_eval_bound_one_step():
    """max_iter iterations at most (without a line search one evaluation each but the
    last's), max_eval evaluations at most, default max_iter * 5 // 4."""
    for settings, evals in (({"max_iter": 6}, 6), ({"max_iter": 6, "max_eval": 4}, 4),
                            ({"max_iter": 6, "line_search_fn": "strong_wolfe",
                              "max_eval": 5}, None)):
        (out,), opt = run(tinyffn, "rosenbrock", settings, steps=1)
        assert out[2] <= settings.get("max_eval", 7)
        if evals is not None:
            assert out[2] == evals
    assert optim.LBFGS([nn.Parameter(tinyffn.zeros(1))], max_iter=8).max_eval == 10


def test_history_keeps_the_last_history_size_pairs():
    """old_dirs, old_stps, ro: at most history_size pairs, the newest last: y = g - g_prev
    and s = t d of the last iteration (checked by hand at the end of a step)."""
    settings = {"history_size": 2, "max_iter": 1}
    out, opt = run(tinyffn, "network", settings, steps=6)
    state = opt.state[opt.params[0]]
    assert len(state["old_dirs"]) == len(state["old_stps"]) == len(state["ro"]) == 2
    np.testing.assert_allclose(np.asarray(state["ro"][-1]),
                               1 / np.dot(state["old_dirs"][-1], state["old_stps"][-1]))
    before = np.concatenate([p.ravel() for p in out[-2][1]])
    after = np.concatenate([p.ravel() for p in out[-1][1]])
    np.testing.assert_allclose(after - before, state["t"] * state["d"], rtol=1e-12)


def test_state_dict_resumes_exactly():
    """2 steps, state_dict, a new optimizer on the weights reached loads it, 3 more steps:
    bit for bit the 5 steps uninterrupted. The saved state is a copy: the steps after it
    leave it as it was."""
    for settings in SETTINGS[1:4]:
        whole, _ = run(tinyffn, "network", settings, steps=5)
        half, opt = run(tinyffn, "network", settings, steps=2)
        saved = opt.state_dict()
        kept = [a.numpy().copy() for a in saved["state"][0]["old_dirs"]]
        rest, _ = run(tinyffn, "network", settings, steps=3, opt_state=saved,
                      start=half[-1][1])
        for (_, ps, *counts), (_, qs, *qcounts) in zip(whole[2:], rest):
            assert counts == qcounts
            for p, q in zip(ps, qs):
                np.testing.assert_array_equal(p, q)
        ps, data = opt.params, [tinyffn.tensor(X), tinyffn.tensor(T)]

        def closure():
            opt.zero_grad()
            loss = PROBLEMS["network"][1](tinyffn, *ps, *data)
            loss.backward()
            return loss

        opt.step(closure)                           # the optimizer saved goes on
        assert not np.array_equal(opt.state[ps[0]]["old_dirs"][-1], kept[-1])
        for a, b in zip(saved["state"][0]["old_dirs"], kept, strict=True):
            np.testing.assert_array_equal(a.numpy(), b)


def test_a_torch_state_dict_loads_and_goes_on_as_torch():
    """torch.optim.LBFGS's groups hold only LBFGS's settings, so its state_dict loads
    (torch tensors converted): 2 torch steps, then 2 of tinyffn's, as 4 of torch's."""
    settings = {"max_iter": 10, "line_search_fn": "strong_wolfe"}
    half, topt = torch_run("network", settings, steps=2)
    whole, _ = torch_run("network", settings, steps=4)
    rest, _ = run(tinyffn, "network", settings, steps=2, opt_state=topt.state_dict(),
                  start=half[-1][1])
    assert_same_steps(rest, whole[2:])


def test_state_dict_of_another_size_or_optimizer_is_refused():
    _, opt = run(tinyffn, "network", {}, steps=1)
    saved = opt.state_dict()
    other = optim.LBFGS([nn.Parameter(tinyffn.zeros(3, 5)), nn.Parameter(tinyffn.zeros(5)),
                         nn.Parameter(tinyffn.zeros(4, 1))])
    with pytest.raises(ValueError, match=r"state 'd' has shape \(25,\), expected \(24,\)"):
        other.load_state_dict(saved)
    adam = optim.Adam([nn.Parameter(tinyffn.zeros(1))])
    with pytest.raises(ValueError, match="saved by LBFGS"):
        adam.load_state_dict(saved)
    with pytest.raises(ValueError, match="saved by Adam"):
        optim.LBFGS([nn.Parameter(tinyffn.zeros(1))]).load_state_dict(adam.state_dict())


def test_errors():
    w, b = nn.Parameter(tinyffn.zeros(2, dtype="float64")), nn.Parameter(tinyffn.zeros(1))
    with pytest.raises(ValueError, match="LBFGS: got 2 parameter groups.*one group"):
        optim.LBFGS([{"params": [w]}, {"params": [b]}])
    opt = optim.LBFGS([w])
    with pytest.raises(ValueError, match="got 2 parameter groups"):
        opt.add_param_group({"params": [b]})
    with pytest.raises(TypeError, match="closure"):
        opt.step()                                  # as torch's: closure is required
    with pytest.raises(TypeError, match="LBFGS.step: needs the closure"):
        opt.step(None)
    with pytest.raises(TypeError, match="must return the loss.*got None"):
        opt.step(lambda: None)
    with pytest.raises(ValueError, match="line_search_fn must be None .* 'strong_wolfe', "
                                         "got 'wolfe'"):
        optim.LBFGS([w], line_search_fn="wolfe")
    with pytest.raises(ValueError, match="line_search_fn"):
        opt.param_groups[0]["line_search_fn"] = "backtracking"
    with pytest.raises(TypeError, match="max_iter must be a whole number"):
        optim.LBFGS([w], max_iter=2.5)
    with pytest.raises(ValueError, match="history_size must be >= 1"):
        optim.LBFGS([w], history_size=0)
    with pytest.raises(ValueError, match="lr must be >= 0"):
        optim.LBFGS([w], lr=-1)
    w.grad = tinyffn.ones(2, dtype="float64")
    with pytest.raises(RuntimeError, match="parameter 1 is float32 of shape \\(1,\\) on cpu, "
                                           "parameter 0 float64 .* give them one dtype"):
        optim.LBFGS([w, b]).step(lambda: 1.0)


def test_defaults_and_argument_names_are_torchs():
    opt = optim.LBFGS([nn.Parameter(tinyffn.zeros(2))])
    expected = {"lr": 1.0, "max_iter": 20, "max_eval": 25, "tolerance_grad": 1e-7,
                "tolerance_change": 1e-9, "history_size": 100, "line_search_fn": None}
    assert opt.hyperparameters() == expected and list(opt.hyperparameters()) == list(expected)
    torch = pytest.importorskip("torch")
    theirs = inspect.signature(torch.optim.LBFGS).parameters
    ours = inspect.signature(optim.LBFGS).parameters
    assert list(ours) == list(theirs)
    assert all(ours[k].default == theirs[k].default for k in ours if k != "params")
    assert torch.optim.LBFGS([torch.nn.Parameter(torch.zeros(2))]).defaults == expected
