#!/usr/bin/env bash
# Build (Release) and run the audit speed benchmark on a generated
# 10,000-line script. The quality benchmark is score.py (see corpus.md: its
# scripts are public and not copied here).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-bench"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_audit >/dev/null
"$build/bench/audit/bench_audit" "$root/presets" "${1:-10000}" "${2:-20}"
