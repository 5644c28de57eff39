#!/usr/bin/env bash
# Build bench_estimator and run it on the dev measurements.
# Run from anywhere; paths are relative to the repository root.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_estimator >/dev/null
cd "$root"
"$build/bench/estimator/bench_estimator" ../shared/data/memory_measurements_dev.json "$@"
