#!/usr/bin/env bash
# Fetch the pure-Python wheels benchmarks/gpu_check.sh needs on a GPU machine that has no
# package index (array-api-compat for CuPy's array-API namespace, array-api-strict and
# graphviz for the test suite). Run here, where pip reaches PyPI; the wheels land in .whl/,
# which git ignores. Versions pinned to what the CPU suite runs with.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
python3 -m pip download -q --no-deps --only-binary=:all: -d .whl \
    "array-api-compat==1.16.0" "array-api-strict==2.6.1" "graphviz==0.21"
ls -l .whl
