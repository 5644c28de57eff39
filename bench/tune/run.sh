#!/usr/bin/env bash
# Build bench_tune (Release) and run it on the parsed Megatron Bridge performance tables
# (bridge_performance.json: its "source" names project, files and commit).
#   bench/tune/run.sh               accuracy on calibration and held-out releases, tune ranking, speed
#   bench/tune/run.sh --calibrate   refit the per-system efficiencies (25.09 + 25.11 only)
#   bench/tune/run.sh --speed       only the speed figure (Llama3.1-405B x 1024 H100)
#   bench/tune/run.sh --rows        also every row and every problem's ranks (--ranks: the ranks only)
#   bench/tune/run.sh --only TEXT   only the problems whose release|task|model|system|... contains TEXT
#   bench/tune/run.sh --classify    why each published layout is not in the top 5 (pruned by what, or the cost term)
#   bench/tune/run.sh --dump FILE   also write each problem's best candidate per distinct layout (CSV)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_tune >/dev/null
"$build/bench/tune/bench_tune" "$root/bench/tune/bridge_performance.json" "$root/presets" "$@"
