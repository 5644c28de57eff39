#!/usr/bin/env bash
# Build (Release) and run the audit speed benchmark on a generated
# 10,000-line script. The false-alarm benchmark is in corpus.md (its scripts
# are public but not copied here; see corpus.md for how they were audited).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-bench"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_audit >/dev/null
"$build/bench/audit/bench_audit" "$root/presets" "${1:-10000}" "${2:-20}"
