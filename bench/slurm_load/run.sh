#!/usr/bin/env bash
# Load on Slurm while watching 1, 10 and 100 jobs. First a simulated hour
# (FakeClient), then the real local cluster: N sleeping jobs are submitted and
# the poller watches them for SECONDS (default 90) through wrapper scripts
# that count every real sacct/squeue/scontrol invocation.
# Needs the local cluster: scripts/slurm-cluster start.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-90}
build="$root/build-bench"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_slurm_load >/dev/null
bench="$build/bench/slurm_load/bench_slurm_load"
"$bench" simulate

eval "$("$root/scripts/slurm-cluster" env)"
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
for tool in sacct squeue scontrol sbatch scancel; do
    real=$(command -v "$tool")
    printf '#!/bin/sh\necho "%s" >> "%s/calls"\nexec "%s" "$@"\n' "$tool" "$shim" "$real" > "$shim/$tool"
    chmod +x "$shim/$tool"
done
for n in 1 10 100; do
    ids=()
    for _ in $(seq "$n"); do
        ids+=("$(sbatch --parsable --account=research --mem=10M --time=00:10:00 --output=/dev/null --wrap "sleep 300" | cut -d';' -f1)")
    done
    rm -f "$shim/calls"
    "$bench" real "$shim" "$seconds" "${ids[@]}"
    calls=$(wc -l < "$shim/calls" 2>/dev/null || echo 0)
    echo "  real Slurm commands: $calls in ${seconds} s = $(awk "BEGIN {printf \"%.1f\", $calls * 60 / $seconds}")/min ($(sort "$shim/calls" | uniq -c | tr '\n' ' '))"
    scancel "${ids[@]}"
done
