#!/usr/bin/env bash
# Build bench_estimator and run it on a measurement file. The development
# measurements are not part of the repository: give their path as the first
# argument or in LG_MEMORY_MEASUREMENTS.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
data="${1:-${LG_MEMORY_MEASUREMENTS:-}}"
if [ -z "$data" ]; then
  echo "bench/estimator/run.sh: no measurement data; pass memory_measurements_*.json or set LG_MEMORY_MEASUREMENTS" >&2
  exit 2
fi
[ $# -gt 0 ] && shift
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_estimator >/dev/null
"$build/bench/estimator/bench_estimator" "$data" "$@"
cmake --build "$build" -j"$(nproc)" --target bench_published >/dev/null
"$build/bench/estimator/bench_published" "$root/bench/tune/bridge_performance.json" "$root/presets"
