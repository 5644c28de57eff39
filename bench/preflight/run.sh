#!/usr/bin/env bash
# Build (Release) and run the preflight speed benchmark; also time the whole
# `launchguard check` process on the example with hyperfine-free repetition.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-bench"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_preflight launchguard >/dev/null
example="$root/examples/llama3-70b-sft-h100.toml"
"$build/bench/preflight/bench_preflight" "$example" "$root/presets" 10000
lg="$build/src/cli/launchguard"
start=$(date +%s%N)
for _ in $(seq 100); do "$lg" check "$example" >/dev/null || true; done
end=$(date +%s%N)
echo "launchguard check (whole process, wall): $(( (end - start) / 100000 )) us per run (mean of 100)"
