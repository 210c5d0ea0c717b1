"""The benchmark harness runs end to end (benchmarks/run.py --quick), so it never rots.

Timings are never asserted: they depend on the machine and on whatever else it is doing.
What is asserted is that every section ran, that the JSON holds every row, and that the
numbers are finite and positive. The harness itself checks tinyffn's gradients against
the hand-written step (and PyTorch's) before timing, so this test also fails on a wrong
FFN gradient.
"""
import dataclasses
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import tinyffn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the repository root
from benchmarks import memory, reference, run  # noqa: E402
from benchmarks.reference import ACTIVATIONS  # noqa: E402


def positive(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


@pytest.fixture(scope="module")
def quick_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "out.json"
    status = run.main(["--quick", "--json", str(out)])
    assert status == 0
    return json.loads(out.read_text())


def test_every_section_is_reported(quick_results):
    assert set(run.SECTIONS) <= set(quick_results)
    info = quick_results["machine"]
    assert info["cores"] >= 1 and info["cpu"]
    assert {"python", "numpy", "scipy", "tinyffn"} <= set(info["versions"])
    assert info["threads"]


def test_ffn_rows_cover_every_activation_and_size(quick_results):
    rows = quick_results["ffn"]
    assert {(r["activation"], r["T"], r["d"]) for r in rows} == {
        (a, T, d) for a in ACTIVATIONS for T, d in run.QUICK.ffn_sizes}
    for r in rows:
        assert positive(r["gemm_flops"]) and r["noise"] >= 1
        assert {"gemm", "tinyffn", "handwritten"} <= set(r["ms"])
        for key in ("ms", "min_ms", "ratios", "min_ratios"):
            assert all(positive(v) for v in r[key].values())
        assert all(len(ts) == r["repeats"][name] >= 1 for name, ts in r["times_ms"].items())
        assert all(f >= 0 for f in r["page_faults"].values())


def test_overhead_chain_and_memory_numbers_are_sane(quick_results):
    overhead = quick_results["overhead"]
    assert overhead["n_ops"] == run.QUICK.overhead_ops
    assert all(positive(v) for v in overhead["tinyffn"].values())
    chain = quick_results["chain"]
    assert positive(chain["tinyffn"]["build_s"]) and positive(chain["tinyffn"]["backward_s"])
    for row in quick_results["memory"]:
        assert positive(row["minimum_bytes"])
        # the measured peak holds at least the parameters, gradients, inputs and output
        assert row["peak_bytes"]["tinyffn"] >= row["minimum_bytes"] / 2
        assert positive(row["ratio"]["tinyffn"]) and positive(row["ratio"]["handwritten"])


def test_a_configuration_can_be_timed_in_a_fresh_process():
    """The default run times each configuration in new processes; check that path too."""
    cfg = dataclasses.replace(run.QUICK, fresh_processes=True)
    row = run.bench_ffn_config("relu", 8, 4, run.open_device("cpu", with_torch=False), cfg)
    assert set(row["ms"]) == {"gemm", "tinyffn", "handwritten"}
    assert all(positive(v) for v in row["ms"].values())


def test_sections_can_be_chosen(tmp_path):
    out = tmp_path / "out.json"
    assert run.main(["--quick", "--sections", "overhead", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert "overhead" in results and "ffn" not in results and "memory" not in results


class Stopped(Exception):
    """A benchmark stopped part-way (gpu_check.sh's time limit), planted by the tests."""


def stopped(*args):
    raise Stopped


def test_a_run_stopped_part_way_keeps_the_sections_it_finished(tmp_path, monkeypatch):
    """gpu_check.sh stops the benchmark at its time limit: the JSON must already hold what
    was measured before, not be written only at the end."""
    monkeypatch.setattr(run, "bench_chain", stopped)
    out = tmp_path / "out.json"
    with pytest.raises(Stopped):
        run.main(["--quick", "--sections", "overhead,chain", "--json", str(out)])
    results = json.loads(out.read_text())
    assert positive(results["overhead"]["tinyffn"]["total_us_per_op"]) and "chain" not in results


def test_a_run_stopped_inside_the_ffn_section_keeps_its_rows(tmp_path, monkeypatch):
    """On a GPU the FFN section is most of the benchmark: it is saved row by row."""
    measure, calls = run.bench_ffn_config, []

    def third_row_stops(*args):
        calls.append(args)
        if len(calls) == 3:
            raise Stopped
        return measure(*args)

    monkeypatch.setattr(run, "bench_ffn_config", third_row_stops)
    out = tmp_path / "out.json"
    with pytest.raises(Stopped):
        run.main(["--quick", "--sections", "ffn", "--json", str(out)])
    rows = json.loads(out.read_text())["ffn"]
    assert [r["activation"] for r in rows] == list(ACTIVATIONS[:2])


def test_a_run_stopped_in_its_first_section_replaces_an_earlier_runs_json(tmp_path, monkeypatch):
    """gpu_check.sh reuses its output folder: a benchmark stopped inside the ffn section (the
    first, and the longest) wrote no JSON, and the previous run's file was left to be read
    as this run's. It is replaced at the start by one with the machine and no sections."""
    monkeypatch.setattr(run, "bench_overhead", stopped)
    out = tmp_path / "out.json"
    out.write_text(json.dumps({"overhead": "an earlier run's"}))
    with pytest.raises(Stopped):
        run.main(["--quick", "--sections", "overhead", "--json", str(out)])
    results = json.loads(out.read_text())
    assert "overhead" not in results and results["elapsed_s"] == 0.0 and results["quick"]
    assert results["machine"]["device"] == "cpu"


def test_analytic_minimum_counts_every_array():
    T, d, d_ff = 3, 2, 8
    params = 2 * d * d_ff + d_ff + d
    arrays = 2 * params + 4 * T * d + 2 * T * d_ff      # + grads; x, gx, gy, y; a, h
    assert memory.analytic_minimum_bytes(T, d, d_ff) == 4 * arrays


@pytest.mark.skipif(tinyffn.cuda_available(), reason="this machine has a usable GPU")
def test_cuda_without_a_gpu_exits_with_tinyffns_message(capsys):
    assert run.main(["--quick", "--device", "cuda"]) != 0
    err = capsys.readouterr().err
    assert "error: device 'cuda'" in err


def test_a_wrong_gradient_stops_the_benchmark(monkeypatch):
    """The pre-timing check catches a 1% error in one gradient and names it."""
    right = reference.handwritten_step

    def off_by_one_percent(*args, **kwargs):
        y, g = right(*args, **kwargs)
        g["w1.bias"] = g["w1.bias"] * 1.01
        return y, g

    monkeypatch.setattr(reference, "handwritten_step", off_by_one_percent)
    with pytest.raises(run.WrongResultError, match="w1.bias"):
        run.check_gradients("relu", 8, 4, run.open_device("cpu"))


def test_a_missing_gradient_stops_the_benchmark(monkeypatch):
    """A reference without x's gradient (or tinyffn without one) is a wrong result, not
    a comparison of the arrays both happen to have."""
    right = reference.handwritten_step

    def without_x(*args, **kwargs):
        y, g = right(*args, **kwargs)
        del g["x"]
        return y, g

    monkeypatch.setattr(reference, "handwritten_step", without_x)
    with pytest.raises(run.WrongResultError, match=r"tinyffn produced \[.*'x', 'y'\], "
                                                   r"numpy produced \[.*'w2.weight', 'y'\]"):
        run.check_gradients("relu", 8, 4, run.open_device("cpu"))


def test_check_close_holds_float32_to_its_tolerance():
    """Each entry within 1e-4 of itself plus 1e-4 of the largest |want|: for want (1, 100)
    the first entry may be off by 0.0101, not by 0.02; float64 is refused (tinyffn's
    arrays must stay float32)."""
    want = np.array([1.0, 100.0])
    run.check_close("y", np.array([1.0 + 0.0100, 100.0], dtype=np.float32), want)
    with pytest.raises(run.WrongResultError, match=r"y: entry \(0,\) is 1.02, expected 1 "):
        run.check_close("y", np.array([1.02, 100.0], dtype=np.float32), want)
    with pytest.raises(run.WrongResultError, match=r"entry \(1,\) is 99.97"):
        run.check_close("y", np.array([1.0, 99.97], dtype=np.float32), want)
    with pytest.raises(run.WrongResultError, match=r"got dtype float64, shape \(2,\); "
                                                   r"expected float32"):
        run.check_close("y", want.copy(), want)
    with pytest.raises(run.WrongResultError, match=r"shape \(1, 2\); expected float32, "
                                                   r"shape \(2,\)"):
        run.check_close("y", want[None].astype(np.float32), want)


@pytest.mark.parametrize("activation", ["relu", "relu+fused"])
def test_a_training_step_holds_at_most_a_quarter_over_the_minimum(activation):
    """Peak memory of one ReLU FFN step at (512, 256) (issue 6's target: at most 1.25x the
    analytic minimum). tracemalloc counts allocations, so this is no timing: it fails if
    the graph keeps an intermediate such as x @ W1^T alive, as it once did (1.75x)."""
    T, d = 512, 256
    problem = run.FFNProblem.build(activation, T, d, "cpu")
    before = sum(a.nbytes for a in problem.params.values()) \
        + problem.x.data.nbytes + problem.gy.data.nbytes
    problem.step()                              # a first, unmeasured run fills caches
    problem.clear_grads()
    peak = before + memory.traced_peak_bytes(problem.step)
    assert peak <= 1.25 * memory.analytic_minimum_bytes(T, d, problem.d_ff)


def test_gpu_run_measures_the_target_size_first_and_summarises_it_at_once(monkeypatch):
    """gpu_check.sh stops the benchmark at its time limit: on cuda the (8192, 4096) rows
    and their throughput summary come before the other sizes, on the CPU in size order."""
    events = []
    monkeypatch.setattr(run, "check_gradients", lambda *args: None)
    monkeypatch.setattr(run, "bench_ffn_config",
                        lambda activation, T, d, dev, cfg: {"T": T, "d": d})
    monkeypatch.setattr(run, "print_ffn_row", lambda row, *args, **kw: events.append(
        (row["T"], row["d"])))
    monkeypatch.setattr(run, "print_throughput_against_torch",
                        lambda rows, cfg: events.append("summary"))
    cfg = dataclasses.replace(run.DEFAULT, ffn_sizes=((64, 64), (512, 256)))
    per_size = len(ACTIVATIONS)
    for name, want in [("cuda", [(8192, 4096)] * per_size + ["summary"]
                        + [(64, 64)] * per_size + [(512, 256)] * per_size),
                       ("cpu", [(64, 64)] * per_size + [(512, 256)] * per_size)]:
        events.clear()
        dev = run.Device(name, None, None, None, None, None)
        run.bench_ffn(dev, cfg)
        assert events == want


def test_gpu_throughput_summary_reads_the_largest_size(capsys):
    """Printed only on --device cuda, so checked here on made-up rows: the ratio is
    torch ms / tinyffn ms at the largest (T, d), and TFLOP/s is matmul FLOPs / step time."""
    def row(activation, T, d, tiny_ms, torch_ms):
        return {"activation": activation, "T": T, "d": d, "gemm_flops": 6.0e12,
                "ms": {"tinyffn": tiny_ms, "torch": torch_ms},
                "min_ms": {"tinyffn": tiny_ms / 2, "torch": torch_ms}}

    rows = [row("relu", 64, 64, 1.0, 0.5), row("relu", 8192, 4096, 120.0, 108.0),
            row("gelu", 8192, 4096, 150.0, 105.0)]
    run.print_throughput_against_torch(rows, run.DEFAULT)
    out = capsys.readouterr().out
    assert "(T, d) = (8192, 4096)" in out and ">= 0.8" in out
    assert "relu         0.90   (tinyffn: 50 TFLOP/s" in out
    assert "gelu         0.70   (tinyffn: 40 TFLOP/s" in out
    assert out.count("TFLOP/s") == 2                        # the (64, 64) row is left out
    run.print_throughput_against_torch(rows, dataclasses.replace(run.DEFAULT, stat="min"))
    assert "relu         1.80" in capsys.readouterr().out     # the fastest rounds instead
