#!/usr/bin/env bash
# Build and run bench_diagnose from the repository root:
#   bench/diagnose/run.sh [SIZE_GB]   (default 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
size_gb=${1:-1}
build=${BUILD_DIR:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target bench_diagnose
"$build/bench/diagnose/bench_diagnose" ../shared/data/failure_logs_dev.json --size-gb "$size_gb"
