#!/usr/bin/env bash
# The GPU check of issue 7, in one go, on a machine with an NVIDIA GPU and CuPy:
#   1. the whole test suite, with the GPU tests enabled (they run whenever CuPy sees a GPU),
#   2. every demo with --device cuda at its default size,
#   3. the GPU benchmark (FFN steps up to (T, d) = (8192, 4096), TFLOP/s, against PyTorch CUDA).
# Everything it prints goes to one folder: logs, the benchmark JSON, the demos' figures.
#
#   bash benchmarks/gpu_check.sh [OUT_DIR]          (default: out/gpu_check)
#
# Packages: CuPy, NumPy, SciPy, pytest, hypothesis, matplotlib and tqdm are expected on the
# machine. array-api-compat (CuPy's array-API namespace), array-api-strict and graphviz are
# pure-Python wheels: if a folder .whl/ holds them (benchmarks/fetch_gpu_wheels.sh fetches
# them on a machine with a package index), they are installed from it first.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-out/gpu_check}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg
py="${PYTHON:-python3}"

if compgen -G ".whl/*.whl" >/dev/null; then
    "$py" -m pip install -q --no-index --no-deps --no-compile --target /tmp/tinyffn-site .whl/*.whl \
        && export PYTHONPATH="/tmp/tinyffn-site:${PYTHONPATH:-}"
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}"

"$py" - <<'PY' 2>&1 | tee "$out/device.txt"
import tinyffn
if not tinyffn.cuda_available():
    tinyffn.zeros(1, device="cuda")          # raises the DeviceError that says why
import cupy
props = cupy.cuda.runtime.getDeviceProperties(0)
print("GPU:", props["name"].decode(), "| CuPy", cupy.__version__, "| CUDA runtime",
      cupy.cuda.runtime.runtimeGetVersion())
PY
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "no usable GPU: stopping" >&2; exit 1; }

status=0
start=$(date +%s)
echo "== 1/3 tests (GPU tests enabled)" | tee "$out/summary.txt"
"$py" -m pytest -q -p no:cacheprovider tests 2>&1 | tee "$out/tests.log"
rc=${PIPESTATUS[0]}; [ "$rc" -eq 0 ] || status=1
tail -n 1 "$out/tests.log" | tee -a "$out/summary.txt"

echo "== 2/3 demos on cuda" | tee -a "$out/summary.txt"
for demo in seed_selftest train_activations key_value_memory per_position_jacobian cost_model; do
    t0=$(date +%s)
    "$py" "demos/$demo.py" --device cuda --out "$out/demos/$demo" > "$out/demo_$demo.log" 2>&1
    rc=$?; [ "$rc" -eq 0 ] || status=1
    echo "$demo: exit $rc, $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
done

echo "== 3/3 benchmark on cuda" | tee -a "$out/summary.txt"
"$py" benchmarks/run.py --device cuda --json "$out/bench_cuda.json" 2>&1 | tee "$out/bench_cuda.txt"
rc=${PIPESTATUS[0]}; [ "$rc" -eq 0 ] || status=1
echo "benchmark: exit $rc" | tee -a "$out/summary.txt"
echo "total: $(( $(date +%s) - start )) s, status $status" | tee -a "$out/summary.txt"
exit "$status"
