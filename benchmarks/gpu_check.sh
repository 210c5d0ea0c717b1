#!/usr/bin/env bash
# The GPU check of issue 7, in one go, on a machine with an NVIDIA GPU and CuPy:
#   1. the GPU benchmark (FFN steps up to (T, d) = (8192, 4096), TFLOP/s, against PyTorch CUDA),
#   2. every demo with --device cuda at its default size,
#   3. the whole test suite, with the GPU tests enabled (they run whenever CuPy sees a GPU).
# Everything it prints goes to one folder: logs, the benchmark JSON, the demos' figures, and
# summary.txt, one line per stage.
#
#   bash benchmarks/gpu_check.sh [--rehearse] [OUT_DIR]     (default: out/gpu_check)
#
# --rehearse runs the same three stages on the CPU, to check this script before GPU time is
# spent on it (the test suite does, on any machine): any GPU is hidden, the benchmark runs on
# the CPU with --quick, the demos on the strict array-API backend with --quick, and the test
# stage only the GPU-marked tests, on a stand-in "cuda" made of NumPy (tests/fake_cuda.py),
# so a GPU test that would fail for a reason of its own fails here. It proves the plumbing
# and the tests' own logic, not the GPU.
#
# Time: the whole check must end within GPU_CHECK_SECONDS (default 480). Each stage gets at
# most what is left of it (the benchmark at most GPU_CHECK_BENCH_SECONDS, default 270): a stage that runs past the limit is stopped, the stages after it
# are not started, and summary.txt says which (exit 124: stopped or not started). The order
# puts the stage with the least predictable time last: the suite's GPU time depends on how
# many kernels CuPy must compile on a fresh machine, while the benchmark's is bounded by its
# own budget per row. GPU_CHECK_STAGES picks stages (comma-separated, from benchmark, demos,
# tests; default all three), so a run cut short can be finished on the same machine by
# running only what it did not reach, e.g. GPU_CHECK_STAGES=tests, into another folder.
#
# Packages: CuPy, NumPy, SciPy, pytest, hypothesis, matplotlib and tqdm are expected on the
# machine; pytest-xdist, if there, runs the tests in parallel (CuPy compiles each new
# kernel on first use, and a fresh machine has none cached); pytest-timeout, if there,
# fails a test that hangs for 150 s rather than let it spend the whole stage.
# array-api-compat (CuPy's array-API namespace), array-api-strict and graphviz are
# pure-Python wheels: if a folder .whl/ holds them (benchmarks/fetch_gpu_wheels.sh fetches
# them on a machine with a package index), they are installed from it first.
#
# With this project's device tool: fetch the wheels here first (bash
# benchmarks/fetch_gpu_wheels.sh), then run with carry [".whl"] and timeout_s 540:
#   GPU_CHECK_SECONDS=450 bash benchmarks/gpu_check.sh /tmp/gc; s=$?;
#   tar czf $OUT/gpu_check.tgz -C /tmp gc; cp /tmp/gc/summary.txt /tmp/gc/bench_cuda.txt $OUT/; exit $s
# (the folder is tarred because only a few files, two folders deep, come back from $OUT).
set -uo pipefail
cd "$(dirname "$0")/.."
rehearse=0
if [ "${1:-}" = "--rehearse" ]; then rehearse=1; shift; fi
out="${1:-out/gpu_check}"
stages=",${GPU_CHECK_STAGES:-benchmark,demos,tests},"
for name in $(echo "$stages" | tr ',' ' '); do
    case "$name" in
        benchmark|demos|tests) ;;
        *) echo "GPU_CHECK_STAGES: unknown stage '$name'; choose from benchmark, demos, tests" >&2
           exit 2 ;;
    esac
done
for limit in "${GPU_CHECK_SECONDS:-480}" "${GPU_CHECK_BENCH_SECONDS:-270}"; do
    if ! [[ "$limit" =~ ^[0-9]+$ ]] || [ "$limit" -eq 0 ]; then
        echo "GPU_CHECK_SECONDS and GPU_CHECK_BENCH_SECONDS are whole seconds > 0, got '$limit'" >&2
        exit 2
    fi
done
wanted() { [[ "$stages" == *",$1,"* ]]; }
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg
py="${PYTHON:-python3}"
start=$(date +%s)
deadline=$(( start + ${GPU_CHECK_SECONDS:-480} ))
status=0

# stage NAME LOG SHOW COMMAND...: run COMMAND with what is left of the time limit, its
# output to LOG (and to the terminal too if SHOW is 1); add "NAME: exit N, T s" to
# summary.txt. With no time left the stage does not start and counts as stopped (124).
stage() {
    local name=$1 log=$2 show=$3 t0 left rc
    shift 3
    t0=$(date +%s)
    left=$(( deadline - t0 ))
    if [ -n "${stage_cap:-}" ] && [ "$stage_cap" -lt "$left" ] && [ "$left" -gt 0 ]; then
        left=$stage_cap             # this stage may not take all that is left
    fi
    if [ "$left" -le 0 ]; then
        echo "$name: exit 124, not started: the time limit is spent" | tee -a "$out/summary.txt"
        status=1
        return
    fi
    if [ "$show" -eq 1 ]; then
        timeout "$left" "$@" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
    else
        timeout "$left" "$@" > "$log" 2>&1
        rc=$?
    fi
    [ "$rc" -eq 0 ] || status=1
    echo "$name: exit $rc, $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
}

if [ "$rehearse" -eq 0 ] && compgen -G ".whl/*.whl" >/dev/null; then
    "$py" -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/tinyffn-site \
        .whl/*.whl \
        || { echo "installing the wheels in .whl/ failed: stopping" | tee "$out/summary.txt" >&2; exit 1; }
    export PYTHONPATH="/tmp/tinyffn-site:${PYTHONPATH:-}"
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}"

if [ "$rehearse" -eq 1 ]; then
    device=strict bench_device=cpu quick=(--quick) select=(-m cuda)
    export CUDA_VISIBLE_DEVICES=""          # hide any GPU
    export TINYFFN_FAKE_CUDA=1              # the GPU tests run on NumPy standing in for CuPy
    echo "rehearsal on the CPU: no GPU is used; the GPU tests run on a NumPy stand-in" \
        | tee "$out/device.txt"
else
    device=cuda bench_device=cuda quick=() select=()
    unset TINYFFN_FAKE_CUDA                 # left from a rehearsal by hand, the tests would not touch the GPU
    "$py" - <<'PY' 2>&1 | tee "$out/device.txt"
import sys
import tinyffn
if not tinyffn.cuda_available():
    try:
        tinyffn.zeros(1, device="cuda")      # raises the DeviceError that says why
    except tinyffn.backend.DeviceError as e:  # that reason in one line, not a traceback
        sys.exit(f"DeviceError: {e}")
import cupy
from benchmarks import machine
try:
    import torch
except ImportError:
    torch = None
gpu = machine.gpu_info(torch if torch is not None and torch.cuda.is_available() else None)
print(f"GPU: {gpu['name']} | CuPy {gpu['cupy']} | CUDA runtime "
      f"{cupy.cuda.runtime.runtimeGetVersion()} | CuPy TF32 {'on' if gpu['cupy_tf32'] else 'off'}")
# a GPU is visible; can CuPy also compile kernels (NVRTC), multiply (cuBLAS), erf, scatter?
m = tinyffn.nn.FFN(8, activation="gelu", device="cuda")
x = tinyffn.randn(4, 8, device="cuda", requires_grad=True)
m(x)[[0, 1]].sum().backward()
print(f"a GELU FFN forward and backward on the GPU: sum of dL/dx = {x.grad.sum().item():.6g}")
if torch is None:
    print("torch not installed: the benchmark has no PyTorch column")
else:
    print(f"torch {torch.__version__}: CUDA {'available' if torch.cuda.is_available() else 'NOT available: no PyTorch column'}"
          f" | TF32 in float32 matmuls {gpu.get('torch_allow_tf32', '?')}"
          f" ({gpu.get('torch_fp32_precision', 'allow_tf32')})")
PY
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "no usable GPU: stopping" >&2; exit 1; }
fi

pytest_opts=()
if "$py" -c "import xdist" 2>/dev/null; then
    pytest_opts=(-n "${GPU_CHECK_WORKERS:-8}")
fi
if "$py" -c "import pytest_timeout" 2>/dev/null; then
    pytest_opts+=(--timeout 150)    # pytest-timeout, if there: one hung test fails alone
fi

: > "$out/summary.txt"
if wanted benchmark; then
    echo "== benchmark on $bench_device" | tee -a "$out/summary.txt"
    # at most GPU_CHECK_BENCH_SECONDS (default 270), so the tests keep their time; its
    # target size comes first and the JSON is written after each section
    stage_cap=${GPU_CHECK_BENCH_SECONDS:-270}
    stage benchmark "$out/bench_$bench_device.txt" 1 \
        "$py" benchmarks/run.py --device "$bench_device" "${quick[@]}" --json "$out/bench_$bench_device.json"
    stage_cap=
fi

if wanted demos; then
    echo "== demos on $device" | tee -a "$out/summary.txt"
    for demo in seed_selftest train_activations key_value_memory per_position_jacobian cost_model \
                ffn_curvature checkpointing mixture_of_experts; do
        stage "$demo" "$out/demo_$demo.log" 0 \
            "$py" "demos/$demo.py" --device "$device" "${quick[@]}" --out "$out/demos/$demo"
    done
fi

if wanted tests; then
    echo "== tests (GPU tests enabled)" | tee -a "$out/summary.txt"
    stage tests "$out/tests.log" 1 "$py" -m pytest -q -p no:cacheprovider "${pytest_opts[@]}" "${select[@]}" tests
    [ -f "$out/tests.log" ] && echo "   $(tail -n 1 "$out/tests.log")" | tee -a "$out/summary.txt"
fi
echo "total: $(( $(date +%s) - start )) s, status $status" | tee -a "$out/summary.txt"
exit "$status"
