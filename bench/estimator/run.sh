#!/usr/bin/env bash
# Build bench_estimator and run it on measured peak-memory records.
#   bench/estimator/run.sh [MEASUREMENTS.json] [bench args…]
# The measurements are not part of the repository: give the file as the first
# argument, or point LG_DEV_DATA at the development data directory (its first
# memory_measurements_*.json is used). Without either, the benchmark says it
# is skipped and exits 0, so bench/run-all passes on a fresh clone.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
# The published-configurations check needs no measurements: the Megatron
# Bridge performance-table rows are in the repository (bench/tune).
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_published >/dev/null
"$build/bench/estimator/bench_published" "$root/bench/tune/bridge_performance.json" "$root/presets"
data=""
if [ "$#" -gt 0 ] && [[ "$1" == *.json ]]; then
    data=$1
    shift
elif [ -n "${LG_DEV_DATA:-}" ]; then
    data=$(find "$LG_DEV_DATA" -maxdepth 1 -name 'memory_measurements_*.json' | sort | head -n 1)
    data=${data:-$LG_DEV_DATA/memory_measurements_*.json}
fi
if [ -z "$data" ]; then
    echo "estimator accuracy: skipped (no measurements: pass MEASUREMENTS.json or set LG_DEV_DATA to the development data directory)"
    exit 0
fi
if [ ! -r "$data" ]; then
    echo "estimator accuracy: cannot read $data (LG_DEV_DATA=${LG_DEV_DATA:-unset})" >&2
    exit 2
fi
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_estimator >/dev/null
"$build/bench/estimator/bench_estimator" "$data" "$@"
