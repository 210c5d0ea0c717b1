"""demos/: every demo runs at its --quick size on every backend and shows what it claims.

Each demo's ``main(argv)`` returns the numbers it printed; these tests check them (the
seed's worked answers, matched parameter counts, exact reconstructions, exact zeros,
measured FLOPs equal to the formulas) and that the figures were written.
"""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import tinyffn

DEMOS = pathlib.Path(__file__).resolve().parent.parent / "demos"
sys.path.insert(0, str(DEMOS))          # the demos import each other as plain modules

import checkpointing            # noqa: E402
import cost_model               # noqa: E402
import ffn_curvature            # noqa: E402
import key_value_memory         # noqa: E402
import mixture_of_experts       # noqa: E402
import per_position_jacobian    # noqa: E402
import seed_selftest            # noqa: E402
import tour                     # noqa: E402
import train_activations        # noqa: E402


# The longer demos are checked on the CPU and a GPU: each also runs on the strict backend in
# gpu_check.sh's rehearsal (tests/test_gpu_check.py), which is what that backend is for
# (an array call outside the standard fails there), and the numbers it computes are
# NumPy's; running them here again cost about 15 s of the suite.
on_cpu_and_gpu = pytest.mark.parametrize("device", [
    "cpu", pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
        not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not available")])])


def run(demo, device, out):
    return demo.main(["--quick", "--device", device, "--out", out])


def assert_figures(result, out, names):
    assert sorted(pathlib.Path(f).name for f in result["figures"]) == sorted(names)
    for name in names:
        png = pathlib.Path(out) / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{png} is not a PNG"


def test_seed_selftest(device, tmp_path, capsys):
    result = run(seed_selftest, device, tmp_path)
    out = capsys.readouterr().out
    assert result["c"]["outputs"] == [(2.0, 0.0), (1.0, 2.0)]
    assert result["c"]["ffn_outputs"] == [[2.0, 0.0], [1.0, 2.0]]
    assert "a = W1 x + b1  = (1, 0, 1, -1)" in out and "h = relu(a)    = (1, 0, 1, 0)" in out
    # units counted from 0, as the docs count them (ffn.md: "units 0 and 2 fire")
    assert "units 1 and 3 off" in out and "unit 0 off" in out
    for d, n in result["a"]["counted"].items():                 # (a) 8d² + 5d
        assert n == result["a"]["formula"][d] == 8 * d * d + 5 * d
    assert result["a"]["llama7b"]["total_untied"] == 6_704_594_944
    b = result["b"]                                              # (b) measured = formulas
    for T, (ffn, attention) in b["measured"].items():
        assert ffn == 16 * T * b["d"] ** 2 and attention == 4 * T * T * b["d"]
    assert b["measured"][b["crossover_small"]][0] == b["measured"][b["crossover_small"]][1]
    assert b["llama_ffn"] == 8 * b["llama_attention"] and b["llama_crossover"] == 16_384
    e = result["e"]                                              # (e) 1.5x, not 3x
    assert e["ratio_same_d_ff"] == 1.5 and e["expand_ratio"] == 2.0
    assert e["gated_rule"] == e["plain"] and e["llama_d_ff"] == 11008
    assert "'triples'" in out and "6.57e9" in out                # the seed's wording is flagged


@on_cpu_and_gpu
def test_train_activations_needs_the_nonlinearity(device, tmp_path):
    result = run(train_activations, device, tmp_path)
    runs = result["results"]
    assert list(runs) == ["ReLU", "GELU", "Swish", "SwiGLU", "linear (no σ)"]
    counts = [r["params"] for r in runs.values()]
    assert max(counts) / min(counts) < 1.03                      # matched parameter counts
    linear = runs.pop("linear (no σ)")
    for name, r in runs.items():
        assert r["loss"] < linear["loss"], name
        assert r["train_acc"] > linear["train_acc"], name
    assert_figures(result, tmp_path, ["loss_curves.png", "decision_regions.png"])


@on_cpu_and_gpu
def test_key_value_memory_is_a_sum_over_units(device, tmp_path):
    result = run(key_value_memory, device, tmp_path)
    assert result["reconstruction_error"] < 1e-5
    assert result["hand_reconstruction_error"] < 1e-5
    assert result["hand_recall_error"] < 1e-9                    # the hand-written memory is exact
    assert result["recall_error"] < 0.05 and result["loss"] < 1e-4
    assert 0 < result["units"]["mean_active"] < 1
    assert_figures(result, tmp_path, ["unit_firing.png"])


def test_key_value_memory_explains_why_its_learning_rate_decays(tmp_path, capsys):
    """At a constant lr, Adam leaves the exact fit it reaches (lowest near step 800, then
    the loss climbs back by many orders); decaying the lr to 0 keeps the fit."""
    constant = key_value_memory.main(["--steps", "1200", "--constant-lr", "--out", tmp_path])
    assert constant["lowest_loss"] < 1e-25 and constant["loss"] > 1e6 * constant["lowest_loss"]
    assert "The loss rose after its lowest point" in capsys.readouterr().out
    decayed = key_value_memory.main(["--steps", "1200", "--out", tmp_path])
    assert decayed["loss"] < 1e-25 and decayed["loss"] < 100 * decayed["lowest_loss"]
    assert "The loss rose" not in capsys.readouterr().out


def test_per_position_jacobian(device, tmp_path):
    result = run(per_position_jacobian, device, tmp_path)
    assert result["ffn_off_block_norm"] == 0.0
    assert result["attention_off_block_norm"] > 0.1 * result["attention_norm"]
    assert result["ffn_norm"] > 0 and result["ffn_diagonal_block_error"] < 1e-12
    assert_figures(result, tmp_path, ["jacobians.png"])


def test_cost_model(device, tmp_path):
    result = run(cost_model, device, tmp_path)
    d = result["d"]
    assert result["matches"]
    for row in result["rows"]:
        T = row["T"]
        assert row["ffn"] == row["ffn_formula"] == 16 * T * d * d
        assert row["attention"] == row["attention_formula"] == 4 * T * T * d
        assert row["attention_with_projections"] == 4 * T * T * d + 8 * T * d * d
    assert result["crossover"] == 4 * d and result["crossover_with_projections"] == 2 * d
    assert_figures(result, tmp_path, ["flops_vs_T.png"])


def test_tour_runs_all_five_and_lists_the_figures(tmp_path, capsys):
    results = tour.main(["--quick", "--out", tmp_path])
    out = capsys.readouterr().out
    assert list(results) == [demo.NAME for demo in tour.DEMOS]
    assert all(r["seconds"] > 0 for r in results.values())
    figures = sorted(tmp_path.rglob("*.png"))
    assert len(figures) == 5
    for figure in figures:
        assert str(figure.relative_to(tmp_path)) in out       # the summary says where each went
    assert "FFN((1, 0)) = (2, 0), FFN((0, 1)) = (1, 2)" in out
    # the bound the summary states holds for every activation (68.7% once read "≥ 69%")
    bound = int(re.search(r"held-out accuracy ≥ (\d+)% with σ", out).group(1))
    accuracies = [r["test_acc"] for name, r in results["train_activations"]["results"].items()
                  if "linear" not in name]
    assert bound / 100 <= min(accuracies) < (bound + 1) / 100


def test_a_demo_runs_as_a_script(tmp_path):
    done = subprocess.run([sys.executable, str(DEMOS / "seed_selftest.py"), "--quick",
                           "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert ("Both agree with the hand computation: FFN((1, 0)) = (2, 0), FFN((0, 1)) = (1, 2)."
            in done.stdout)


def test_a_demo_without_figures_says_so_and_makes_no_folder(tmp_path, capsys):
    """seed_selftest's --help once offered a "folder for the figures" it never drew, and
    the tour left an empty out/tour/seed_selftest/ behind."""
    with pytest.raises(SystemExit):
        seed_selftest.main(["--help"])
    assert "draws no figures" in " ".join(capsys.readouterr().out.split())
    seed_selftest.main(["--quick", "--out", tmp_path / "unused"])
    assert not (tmp_path / "unused").exists()
    with pytest.raises(SystemExit):
        cost_model.main(["--help"])                 # a demo that draws keeps the usual help
    assert "folder for the figures" in capsys.readouterr().out


@pytest.mark.skipif(tinyffn.cuda_available(), reason="needs a machine without a usable GPU")
def test_an_unusable_device_is_one_line_not_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, str(DEMOS / "cost_model.py"), "--device", "cuda",
                           "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("cost_model.py: device 'cuda'") and "Traceback" not in done.stderr


@pytest.mark.parametrize("demo, option", [(cost_model, "--d"), (train_activations, "--steps"),
                                          (key_value_memory, "--steps"),
                                          (checkpointing, "--layers"),
                                          (checkpointing, "--repeats"),
                                          (ffn_curvature, "--steps"), (ffn_curvature, "--every"),
                                          (mixture_of_experts, "--steps")])
@pytest.mark.parametrize("value", ["0", "-5", "2.5"])
def test_sizes_must_be_whole_numbers_from_one(demo, option, value, tmp_path, capsys):
    """`--steps 0` once meant the default, and `--steps -5` crashed mid-run."""
    with pytest.raises(SystemExit) as stop:
        demo.main(["--quick", option, value, "--out", tmp_path])
    assert stop.value.code == 2
    assert f"argument {option}: expected an integer from 1 to 2147483647, got '{value}'" in \
        capsys.readouterr().err


@pytest.mark.parametrize("out", ["", "a_file", "a_file/sub"])
def test_an_unusable_out_folder_is_a_usage_error_not_a_traceback(out, tmp_path, capsys,
                                                                monkeypatch):
    """--out naming a file once gave a FileExistsError traceback; --out '' wrote figures
    into the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("not a folder")
    with pytest.raises(SystemExit) as stop:
        cost_model.main(["--quick", "--out", out])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --out: give a folder name" in err if out == "" else \
        f"--out {out}: cannot make this folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]   # nothing written


def test_fit_decays_the_learning_rate_linearly_to_zero():
    """Under a constant gradient Adam steps by lr (m̂ = v̂ = 1), so the loss w.sum() falls by
    each step's lr: lr (1 - k/steps) at step k when decaying, lr throughout otherwise."""
    import _common
    for decay, lrs in [(True, [0.1, 0.075, 0.05]), (False, [0.1, 0.1, 0.1])]:
        model = tinyffn.nn.Linear(1, 1, bias=False, dtype="float64")
        losses = _common.fit(model, lambda: model.weight.sum(), 4, 0.1, "test", decay=decay)
        assert [a - b for a, b in zip(losses, losses[1:])] == pytest.approx(lrs, rel=1e-6)


class Stream:
    """A stand-in for sys.stderr that says whether it is a terminal."""

    def __init__(self, tty):
        self.tty, self.text = tty, []

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text.append(text)

    def flush(self):
        pass


@pytest.mark.parametrize("tty", [False, True])
def test_fit_draws_a_progress_bar_only_on_a_terminal(tty, monkeypatch):
    """`python demos/tour.py 2>&1 | tee log` logged every redraw of every bar."""
    import _common
    stderr = Stream(tty)
    monkeypatch.setattr(sys, "stderr", stderr)
    model = tinyffn.nn.Linear(1, 1, bias=False)
    _common.fit(model, lambda: model.weight.sum(), 3, 0.1, "bar")
    assert ("bar" in "".join(stderr.text)) == tty


@on_cpu_and_gpu
def test_ffn_curvature(device, tmp_path):
    """Power iteration on create_graph products finds eigvalsh's top eigenvalue; then what
    the quick run measures (a regression check of the dynamics, float64, the same numbers
    on every backend): at η = 0.3 λ_max rises but stays below 2/η and the loss falls at
    every step; at η = 0.8 λ_max's mean over the second half is within 2 % of 2/η while
    the loss rises on some steps."""
    result = run(ffn_curvature, device, tmp_path)
    check = result["check"]
    assert check["n_params"] == 42 and check["asymmetry"] < 1e-12      # H is symmetric
    assert check["eigvalsh_max"] > abs(check["eigvalsh_min"])         # so power iteration
    assert abs(check["power"] - check["eigvalsh_max"]) < 1e-6         # finds λ_max
    runs = result["runs"]
    assert list(runs) == list(ffn_curvature.LRS)
    assert len({r["sharpness"][0] for r in runs.values()}) == 1       # one start for every η
    for eta, r in runs.items():
        assert r["steps"][0] == 0 and r["steps"][-1] == result["steps"] == len(r["loss"]) - 1
        assert r["sharpness"][-1] == pytest.approx(r["exact_end"], rel=1e-3), eta
    assert result["activations"]["GELU"]["sharpness"] == pytest.approx(
        runs[0.3]["sharpness"][0], rel=1e-4)                          # the same loss, twice
    below, edge = runs[0.3], runs[0.8]
    assert max(below["sharpness"]) < 0.6 * 2 / 0.3 and below["rises"] == 0
    assert max(below["sharpness"]) > 1.5 * below["sharpness"][0]      # it sharpened
    assert edge["late_mean"] == pytest.approx(2 / 0.8, rel=0.02) and edge["rises"] > 10
    assert_figures(result, tmp_path, ["sharpness.png"])


def _tiny_model_as_torch(check):
    """The tiny check's FFN, data and loss, rebuilt in torch from the same numbers."""
    torch = pytest.importorskip("torch")
    shapes = [tuple(p.shape) for p in check["model"].parameters()]
    x, y = (torch.tensor(t.numpy()) for t in (check["x"], check["y"]))

    def loss(flat):
        w1, b1, w2, b2 = (flat[o:o + n].reshape(s) for o, n, s in _pieces(shapes))
        h = torch.nn.functional.gelu(x @ w1.T + b1)
        return torch.nn.functional.mse_loss(h @ w2.T + b2, y)

    flat = torch.cat([torch.tensor(p.numpy()).ravel() for p in check["model"].parameters()])
    return torch, loss, flat


def _pieces(shapes):
    offset = 0
    for s in shapes:
        n = int(np.prod(s))
        yield offset, n, s
        offset += n


def test_ffn_curvature_hessian_matches_torch(tmp_path):
    """The full Hessian the demo builds from create_graph products, entry by entry,
    against torch.autograd.functional.hessian of the same loss."""
    check = ffn_curvature.tiny_check("cpu")
    torch, loss, flat = _tiny_model_as_torch(check)
    H = torch.autograd.functional.hessian(loss, flat).numpy()
    np.testing.assert_allclose(check["hessian"], H, rtol=1e-10, atol=1e-12)


def test_ffn_curvature_product_matches_finite_differences_of_the_gradient(device):
    """H v against (g(θ + h v) - g(θ - h v)) / 2h, g from ordinary (first-order) backward
    passes: no create_graph in the reference."""
    check = ffn_curvature.tiny_check(device)
    model, x, y = check["model"], check["x"], check["y"]
    params = list(model.parameters())
    rng = np.random.default_rng(1)
    v = [tinyffn.tensor(rng.standard_normal(p.shape), dtype=p.dtype, device=device)
         for p in params]
    loss = tinyffn.functional.mse_loss(model(x), y)
    Hv = ffn_curvature.hessian_vector_product(loss, params)(v)

    def gradient_at(shift):
        with tinyffn.no_grad():
            for p, u in zip(params, v):
                p.add_(u, alpha=shift)
        grads = tinyffn.grad(tinyffn.functional.mse_loss(model(x), y), params)
        with tinyffn.no_grad():
            for p, u in zip(params, v):
                p.add_(u, alpha=-shift)
        return [g.numpy() for g in grads]

    h = 1e-5
    for hv, plus, minus in zip(Hv, gradient_at(h), gradient_at(-h)):
        np.testing.assert_allclose(hv.numpy(), (plus - minus) / (2 * h), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "fast"])
def test_ffn_curvature_learning_rates_must_be_positive_numbers(value, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        ffn_curvature.main(["--quick", "--lr", value, "--out", tmp_path])
    assert stop.value.code == 2
    assert f"argument --lr: expected a number > 0, got '{value}'" in capsys.readouterr().err


@on_cpu_and_gpu
def test_checkpointing(device, tmp_path):
    """Every measured k against the demo's own claims: the gradients are the plain step's
    bit for bit, the FLOPs are the plain step's plus one block forward per rerun block
    (matmul: 48·L·T·d² + 16·r·T·d²), and the arrays held between forward and backward are
    the model's (k-2)·T·d + n·A + T·d entries, A = 19·T·d + 2·T, with the loss (4 bytes)
    and each checkpointed segment's copy of the generator's state (45 bytes, on the CPU):
    byte for byte on the CPU backends."""
    result = run(checkpointing, device, tmp_path)
    L, T, d = result["layers"], result["tokens"], result["d"]
    rows = result["rows"]
    real_gpu = device == "cuda" and os.environ.get("TINYFFN_FAKE_CUDA") != "1"
    assert result["meter"] == ("cupy" if real_gpu else "tracemalloc")
    assert [r["k"] for r in rows] == ["none", 1, 2, 4, 5, 8]          # divisors, and L/2 + 1
    assert [(r["m"], r["n"], r["reruns"]) for r in rows] == [
        (0, 8, 0), (0, 8, 0), (4, 4, 4), (2, 2, 6), (1, 4, 4), (1, 1, 7)]
    assert result["saved_per_block"] == 19 * T * d + 2 * T
    for r in rows:
        k = r["k"]
        assert r["same_grads"], k
        assert r["matmul"] == 48 * L * T * d * d + 16 * r["reruns"] * T * d * d, k
        assert r["flops"] == rows[0]["flops"] + r["reruns"] * result["block_forward_flops"], k
        boundaries = max(k - 2, 0) if k != "none" else 0
        entries = boundaries * T * d + r["n"] * result["saved_per_block"] + T * d
        segments = k - 1 if r["m"] else 0
        state = 0 if result["meter"] == "cupy" else 45
        assert r["held_model"] == 4 * entries + 4 + state * segments
        if result["meter"] == "cupy":       # the pool's bytes, CuPy's own allocations too
            assert r["held"] == pytest.approx(r["held_model"], rel=0.01), k
        else:
            assert r["held"] == r["held_model"], k
        assert r["peak"] >= r["held"]
    by_k = {r["k"]: r for r in rows}
    assert by_k[1]["held"] == by_k["none"]["held"]        # one segment: nothing checkpointed
    assert by_k[8]["held"] < by_k[4]["held"] < by_k[2]["held"] < by_k[1]["held"] / 1.9
    assert by_k[5]["held"] > by_k[2]["held"]       # a 4-block plain tail, and more boundaries
    assert_figures(result, tmp_path, ["memory_vs_k.png"])


def test_checkpointing_memory_is_least_near_the_square_root_of_L_A_over_s():
    """48 blocks: k* = √(L·A/s) ≈ 30 for A/s = 19.5. Of the divisors around it, the held
    arrays fall from k = 12 to 24 (fewer blocks' activations) and rise again at k = 48
    (more boundaries than the blocks they spare), as the model says."""
    stack = checkpointing.make_stack(48, 4, "cpu")
    x = tinyffn.randn(8, 4, requires_grad=True)
    meter = checkpointing.Meter("cpu")
    checkpointing.step(stack, x, 2, meter, count=False)
    held = {k: checkpointing.step(stack, x, k, meter)["held"] for k in (12, 24, 48)}
    model = {k: checkpointing.predicted(48, 8, 4, k, 0, meter.state_bytes)[0] for k in held}
    assert held == model
    assert held[12] > held[24] < held[48]


class _CupyMemoryHook:
    """CuPy 13's ``cupy.cuda.MemoryHook`` (cupy/cuda/memory_hook.pyx): ``with hook:``
    registers it by ``name`` (a second registration is a KeyError) and the six callbacks
    take keyword arguments only."""
    name = "MemoryHook"
    registered: dict = {}

    def __enter__(self):
        if self.name in self.registered:
            raise KeyError(f"memory hook {self.name} already exists")
        self.registered[self.name] = self
        return self

    def __exit__(self, *_):
        del self.registered[self.name]

    def malloc_preprocess(self, **kwargs): pass
    def malloc_postprocess(self, **kwargs): pass
    def alloc_preprocess(self, **kwargs): pass
    def alloc_postprocess(self, **kwargs): pass
    def free_preprocess(self, **kwargs): pass
    def free_postprocess(self, **kwargs): pass


class _CupyPool:
    """The hook calls of CuPy 13's SingleDeviceMemoryPool.malloc and PooledMemory.free
    (cupy/cuda/memory.pyx), with their keyword arguments: ``size`` is what the array
    asked for, ``mem_size`` that rounded up to 512 bytes; a 0-byte request, and one that
    fails (out of memory: the hooks are called, then the error raised), get pointer 0
    and are never freed through the pool."""

    def __init__(self):
        self.next_ptr, self.live = 1 << 20, {}

    def malloc(self, size: int, fails: bool = False) -> int:
        mem_size = -(-size // 512) * 512
        ptr = self.next_ptr if size and not fails else 0
        self.next_ptr += mem_size
        hooks = list(_CupyMemoryHook.registered.values())
        for hook in hooks:
            hook.malloc_preprocess(device_id=0, size=size, mem_size=mem_size)
        for hook in hooks:
            hook.malloc_postprocess(device_id=0, size=size, mem_size=mem_size, mem_ptr=ptr,
                                    pmem_id=id(self) + ptr if ptr else 0)
        if fails:
            raise MemoryError(f"out of memory allocating {mem_size} bytes")
        if ptr:
            self.live[ptr] = mem_size
        return ptr

    def free(self, ptr: int) -> None:
        mem_size = self.live.pop(ptr)
        for name in ("free_preprocess", "free_postprocess"):
            for hook in list(_CupyMemoryHook.registered.values()):
                getattr(hook, name)(device_id=0, mem_size=mem_size, mem_ptr=ptr,
                                    pmem_id=id(self) + ptr)


def test_checkpointing_gpu_meter_counts_what_cupys_pool_hands_out(monkeypatch):
    """The demo's GPU meter (a cupy.cuda.MemoryHook), driven by CuPy's hook calls as
    memory.pyx makes them: the bytes arrays asked for inside ``with meter`` (not the
    512-byte rounding, which would add 448 bytes to each (T, 1) array of the quick size),
    less those freed; arrays made before, and a failed allocation, are not counted; the peak since
    reset_peak; the hook unregistered on exit, so the next step can register it again."""
    fake = type(sys)("cupy")
    fake.cuda = type(sys)("cupy.cuda")
    fake.cuda.MemoryHook = _CupyMemoryHook
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(_CupyMemoryHook, "registered", {})
    meter = checkpointing.Meter("cpu")
    meter.kind, meter.hook = "cupy", checkpointing._cupy_hook()
    pool = _CupyPool()
    before = pool.malloc(1000)
    for _ in range(2):                          # a second step registers the hook again
        with meter:
            a, b = pool.malloc(64), pool.malloc(2048)
            pool.malloc(0)
            with pytest.raises(MemoryError):
                pool.malloc(1 << 40, fails=True)
            if before:                          # made before the first step, freed in it
                pool.free(before)
                before = 0
            assert meter.held() == (64 + 2048, 64 + 2048)
            meter.reset_peak()
            c = pool.malloc(4096)
            pool.free(c)
            pool.free(b)
            assert (meter.held()[0], meter.peak()) == (64, 64 + 2048 + 4096)
            pool.free(a)
            assert meter.held()[0] == 0
        assert _CupyMemoryHook.registered == {}


@on_cpu_and_gpu
def test_mixture_of_experts(device, tmp_path):
    """The counts are the formulas, measured: E·(8d² + 5d) + E·d parameters and k·16d² +
    2·d·E FLOPs per position for the mixtures, whatever E; each expert's load is a share
    of the held-out positions; the routing table counts each of them once; and, even at
    the quick size, every student learns and the mixtures beat the FFN whose FLOPs they
    match."""
    result = run(mixture_of_experts, device, tmp_path)
    d, experts = mixture_of_experts.D, mixture_of_experts.EXPERTS
    r = result["results"]
    assert [(r[n]["params"], r[n]["flops"]) for n in r] == [
        (8 * d * d + 5 * d, 16 * d * d),
        (experts * (8 * d * d + 5 * d) + experts * d, 16 * d * d + 2 * d * experts),
        (experts * (8 * d * d + 5 * d) + experts * d, 16 * d * d + 2 * d * experts),
        (experts * (2 * d * 2 * d + 3 * d) + experts * d, 2 * 4 * d * 2 * d + 2 * d * experts),
        (2 * d * 32 * d + 33 * d, 4 * d * 32 * d)]
    for name, row in r.items():
        assert row["test_mse"] < 0.2, name                  # the targets' variance is 0.4
        if row["load"] is not None:
            assert sum(row["load"]) == pytest.approx(1.0), name
            assert row["experts_used"] == sum(share > 0 for share in row["load"])
            assert 1 / experts <= row["purity"] <= 1
    assert r["MoE 8×4d top-1"]["test_mse"] < r["FFN 4d"]["test_mse"]
    assert r["MoE 8×2d top-2"]["test_mse"] < r["FFN 4d"]["test_mse"]
    for routing in (result["routing"], result["routing_no_aux"]):
        assert routing.sum() == 256 and routing.shape == (8, experts)
    assert (result["routing_no_aux"].sum(axis=0) > 0).sum() == \
        r["  same, no aux loss"]["experts_used"]         # first choices: top 1
    assert_figures(result, tmp_path, ["moe_loss_curves.png", "moe_routing.png"])


def test_mixture_of_experts_capacity_factor_counts_the_drops(capsys):
    """--capacity-factor reaches the three mixtures; evaluate() reports the share of the
    held-out choices past capacity, counted here from the router's first choices (top 1:
    C = ⌈1.0 · 128 / 8⌉ = 16 per expert), and the error of the same mixture without the
    limit, as a dropless copy computes it; the limit is back on afterwards."""
    models = mixture_of_experts.build_models("cpu", 1.0)
    assert [m.capacity_factor for m, _, _ in models.values()
            if isinstance(m, tinyffn.nn.MoEFFN)] == [1.0] * 3
    data = mixture_of_experts.make_data(64, 128, "cpu")
    model = models["MoE 8×4d top-1"][0]
    r = mixture_of_experts.evaluate(model, data)
    with tinyffn.no_grad():
        first = model.gate(data["x_test"]).argmax(dim=-1).numpy()
        dropless = mixture_of_experts.build_models("cpu")["MoE 8×4d top-1"][0]
        dropless.load_state_dict(model.state_dict())
        mse = (dropless(data["x_test"]) - data["y_test"]).square().mean().item()
    counts = np.bincount(first, minlength=8)
    assert counts.max() > 16, "the check needs drops"
    assert r["dropped"] == np.maximum(counts - 16, 0).sum() / 128
    assert r["test_mse_dropless"] == pytest.approx(mse, rel=1e-6)
    assert r["test_mse"] != pytest.approx(mse, rel=1e-3)
    # top 1 serves each expert's first 16 points in order; the rest lost their one choice,
    # predict 0 and so cost the mean of y² over them
    lost = np.zeros(128, bool)
    for e in range(8):
        lost[np.flatnonzero(first == e)[16:]] = True
    y_test = data["y_test"].numpy()
    assert r["lost"]["share"] == lost.mean()
    assert r["lost"]["mse"] == pytest.approx(float((y_test[lost] ** 2).mean()), rel=1e-5)
    assert model.capacity_factor == 1.0 and model.expert_capacity == 16
    with pytest.raises(SystemExit):
        mixture_of_experts.main(["--capacity-factor", "0"])
    assert "--capacity-factor: expected a number > 0, got '0'" in capsys.readouterr().err
