"""benchmarks/gpu_check.sh, the one-go GPU check, works before GPU time is spent on it.

A GPU machine is lent rarely and briefly, so the script must not fail there on plumbing:
a wrong path, a demo option, a missing log. ``--rehearse`` runs its three stages on the
CPU (the quick benchmark; the demos on the strict array-API backend; GPU-marked tests, on
a NumPy stand-in for the GPU); these tests run that rehearsal, check the two ways the real run stops early
(no usable GPU, and the time limit), and the choice of stages for a rerun.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tinyffn

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "gpu_check.sh"
DEMOS = ("seed_selftest", "train_activations", "key_value_memory", "per_position_jacobian",
         "cost_model", "ffn_curvature", "checkpointing", "mixture_of_experts")
FIGURES = {"train_activations": "loss_curves.png", "key_value_memory": "unit_firing.png",
           "per_position_jacobian": "jacobians.png", "cost_model": "flops_vs_T.png",
           "ffn_curvature": "sharpness.png", "checkpointing": "memory_vs_k.png",
           "mixture_of_experts": "moe_routing.png"}


def gpu_check(*args, **env) -> subprocess.CompletedProcess:
    """Run the script with this interpreter, tests in one process, extra environment."""
    environment = {**os.environ, "PYTHON": sys.executable, "GPU_CHECK_WORKERS": "0", **env}
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], cwd=REPO, env=environment,
                          capture_output=True, text=True, timeout=600)   # a hang guard


def slow_python(folder: Path) -> str:
    """A Python that takes 3 s more to run any script (not ``-c``, which the script's own
    checks use): every stage then outlasts a 1 s limit, however fast the machine, and
    whether or not torch (slow to import) is installed."""
    wrapper = folder / "slow-python"
    wrapper.write_text(f'#!/bin/sh\ncase "$1" in -c) ;; *) sleep 3 ;; esac\n'
                       f'exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def summary_lines(out: Path) -> dict:
    """summary.txt's "name: exit N, ..." lines as {name: N}."""
    lines = (out / "summary.txt").read_text().splitlines()
    exits = {}
    for line in lines:
        name, sep, rest = line.partition(": exit ")
        if sep:
            exits[name] = int(rest.split(",")[0])
    return exits


# The rehearsal in two halves, so that pytest-xdist runs them side by side (together they
# were the suite's longest test, about 90 s on 2 cores); test_the_stages_run_in_order runs
# every stage in one folder.
def test_rehearsal_tests_stage_runs_the_gpu_tests_on_the_stand_in(tmp_path):
    out = tmp_path / "check"
    done = gpu_check("--rehearse", out, GPU_CHECK_STAGES="tests")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert summary_lines(out) == {"tests": 0}
    assert (out / "summary.txt").read_text().splitlines()[-1].endswith("status 0")
    last = (out / "tests.log").read_text().splitlines()[-1]
    # the GPU tests ran on the NumPy stand-in (tests/fake_cuda.py), any real GPU hidden;
    # a few skip where torch, their reference, is not installed
    assert "passed" in last and "failed" not in last and "error" not in last, last
    assert "NumPy stand-in" in (out / "device.txt").read_text()


def test_rehearsal_benchmark_and_demos_stages_write_their_logs_figures_and_json(tmp_path):
    out = tmp_path / "check"
    done = gpu_check("--rehearse", out, GPU_CHECK_STAGES="benchmark,demos")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert summary_lines(out) == {"benchmark": 0, **{d: 0 for d in DEMOS}}
    assert (out / "summary.txt").read_text().splitlines()[-1].endswith("status 0")
    for demo in DEMOS:
        assert (out / f"demo_{demo}.log").read_text().strip(), f"{demo} printed nothing"
    for demo, figure in FIGURES.items():
        assert (out / "demos" / demo / figure).stat().st_size > 0
    results = json.loads((out / "bench_cpu.json").read_text())
    assert results["quick"] and results["ffn"] and results["memory"]


@pytest.mark.skipif(tinyffn.cuda_available(), reason="this machine has a usable GPU")
def test_without_a_gpu_it_stops_at_once_and_says_why(tmp_path):
    done = gpu_check(tmp_path)
    assert done.returncode == 1
    assert "no usable GPU: stopping" in done.stderr
    assert "DeviceError: device 'cuda'" in (tmp_path / "device.txt").read_text()
    assert not (tmp_path / "summary.txt").exists()


def test_past_the_time_limit_a_stage_is_stopped_and_the_rest_not_started(tmp_path):
    out = tmp_path / "check"
    done = gpu_check("--rehearse", out, GPU_CHECK_SECONDS="1", PYTHON=slow_python(tmp_path))
    assert done.returncode == 1
    summary = (out / "summary.txt").read_text()
    exits = summary_lines(out)
    assert exits == {"tests": 124, "benchmark": 124, **{d: 124 for d in DEMOS}}
    # the benchmark is stopped and the later stages are not started; the clock counts whole
    # seconds: a run that starts late in one may find the second spent before the benchmark
    # begins, and it is not started either
    assert summary.count("not started: the time limit is spent") in (len(DEMOS) + 1,
                                                                      len(DEMOS) + 2)
    assert summary.splitlines()[-1].endswith("status 1")


def test_the_benchmark_stops_at_its_own_limit_and_leaves_the_rest_their_time(tmp_path):
    out = tmp_path / "check"
    gpu_check("--rehearse", out, GPU_CHECK_SECONDS="8", GPU_CHECK_BENCH_SECONDS="1",
              GPU_CHECK_STAGES="benchmark,demos", PYTHON=slow_python(tmp_path))
    summary = (out / "summary.txt").read_text()
    assert summary_lines(out)["benchmark"] == 124          # 3 s of start-up: past its 1 s
    first_demo = next(line for line in summary.splitlines() if line.startswith(DEMOS[0]))
    assert "not started" not in first_demo                 # ~7 s of the 8 were left for it


def test_the_stages_run_in_order_and_a_rerun_can_pick_some(tmp_path):
    slow = {"GPU_CHECK_SECONDS": "1", "PYTHON": slow_python(tmp_path)}
    everything = tmp_path / "all"
    gpu_check("--rehearse", everything, **slow)
    names = list(summary_lines(everything))
    assert names == ["benchmark", *DEMOS, "tests"]   # the least predictable stage last
    only = tmp_path / "only"
    done = gpu_check("--rehearse", only, GPU_CHECK_STAGES="demos,benchmark", **slow)
    assert list(summary_lines(only)) == ["benchmark", *DEMOS]
    assert not (only / "tests.log").exists() and done.returncode == 1


@pytest.mark.parametrize("limits", [{"GPU_CHECK_BENCH_SECONDS": "0"},
                                    {"GPU_CHECK_SECONDS": "5m"}])
def test_a_time_limit_that_is_not_whole_seconds_is_refused(tmp_path, limits):
    done = gpu_check("--rehearse", tmp_path, **limits)
    assert done.returncode == 2 and "whole seconds > 0" in done.stderr
    assert not (tmp_path / "summary.txt").exists()


def test_an_unknown_stage_is_refused_before_anything_runs(tmp_path):
    done = gpu_check("--rehearse", tmp_path, GPU_CHECK_STAGES="bench")
    assert done.returncode == 2
    assert "unknown stage 'bench'; choose from benchmark, demos, tests" in done.stderr
    assert not (tmp_path / "summary.txt").exists()


def test_the_real_run_never_tests_on_the_numpy_stand_in(tmp_path):
    """TINYFFN_FAKE_CUDA=1 left in the shell (from rehearsing the GPU tests by hand) would
    make the real run's test stage run on NumPy and pass without touching the GPU. A
    Python that answers the GPU probe (stdin) itself and records what pytest would see
    shows the variable is gone by the test stage."""
    seen = tmp_path / "fake_cuda_seen"
    wrapper = tmp_path / "probe-python"
    wrapper.write_text(f'#!/bin/sh\ncase "$1" in\n'
                       f'  -) cat >/dev/null; echo "GPU: stand-in for the probe"; exit 0 ;;\n'
                       f'  -m) echo "TINYFFN_FAKE_CUDA=${{TINYFFN_FAKE_CUDA:-unset}}" > "{seen}";'
                       f' echo "1 passed"; exit 0 ;;\n'
                       f'esac\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    done = gpu_check(tmp_path / "check", GPU_CHECK_STAGES="tests", PYTHON=str(wrapper),
                     TINYFFN_FAKE_CUDA="1")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert seen.read_text().strip() == "TINYFFN_FAKE_CUDA=unset"
