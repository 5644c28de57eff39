#!/usr/bin/env bash
# Build and run bench_diagnose from the repository root:
#   LG_FAILURE_LOGS=a.json:b.json bench/diagnose/run.sh [SIZE_GB]   (default 1)
# The labelled failure logs are not part of the repository: list them in
# LG_FAILURE_LOGS (colon-separated); without it the accuracy part says it is
# skipped and the generated-log parts still run.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_gb=${1:-1}
build=${BUILD_DIR:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target bench_diagnose
"$build/bench/diagnose/bench_diagnose" --size-gb "$size_gb"
