#!/usr/bin/env bash
# Load on Slurm from one user's concurrent launchguard processes.
#   bench/slurm_load/run.sh [SECONDS]     (default 60; needs the local cluster)
# First a simulated hour of one session watching 1, 10, 100 jobs (FakeClient).
# Then the real thing: for N = 1, 10, 100, N held jobs (PENDING, so they use
# no node and the cluster stays free for others) are each followed by their
# own `launchguard watch JOB_ID` process for SECONDS; wrapper scripts on PATH
# count every real sacct/squeue/scontrol/sbatch/scancel they run. Twice: all
# processes sharing one state directory (the per-user poll cache), and each
# with its own (no sharing, what one-poller-per-process costs).
# LAUNCHGUARD=path/to/launchguard skips building it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
# BUILD_DIR=an existing build directory is used as it is (not reconfigured).
build=${BUILD_DIR:-$root/build-bench}
[ -n "${BUILD_DIR:-}" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target bench_slurm_load >/dev/null
"$build/bench/slurm_load/bench_slurm_load" simulate
if [ -z "${LAUNCHGUARD:-}" ]; then
    cmake --build "$build" -j2 --target launchguard >/dev/null
    LAUNCHGUARD=$build/src/cli/launchguard
fi

eval "$("$root/scripts/slurm-cluster" env)"
timeout 10 scontrol ping >/dev/null 2>&1 || { echo "no local cluster: the real part is skipped"; exit 0; }
work=$(mktemp -d)
ids=()
pids=()
cleanup() {
    [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
    [ ${#ids[@]} -eq 0 ] || scancel "${ids[@]}" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/shim"
for tool in sacct squeue scontrol sbatch scancel; do
    real=$(command -v "$tool")
    printf '#!/bin/sh\necho "%s" >> "%s/calls"\nexec "%s" "$@"\n' "$tool" "$work" "$real" > "$work/shim/$tool"
    chmod +x "$work/shim/$tool"
done
for n in 1 10 100; do
    ids=()
    for _ in $(seq "$n"); do
        ids+=("$(sbatch --parsable --hold --account=research --mem=10M --time=00:10:00 --output=/dev/null \
            --wrap "sleep 1" | cut -d';' -f1)")
    done
    for mode in shared separate; do
        rm -rf "$work/calls" "$work/state"*
        pids=()
        i=0
        for id in "${ids[@]}"; do
            i=$((i + 1))
            state=$work/state
            [ "$mode" = shared ] || state=$work/state-$i
            PATH="$work/shim:$PATH" "$LAUNCHGUARD" watch "$id" --state-dir "$state" > /dev/null 2>&1 &
            pids+=("$!")
        done
        sleep "$seconds"
        kill "${pids[@]}" 2>/dev/null || true
        wait "${pids[@]}" 2>/dev/null || true
        pids=()
        calls=$(wc -l < "$work/calls" 2>/dev/null || echo 0)
        printf '%3d run(s), %-8s state dir: %4d Slurm commands in %d s = %6.1f/min (%s)\n' "$n" "$mode" "$calls" \
            "$seconds" "$(awk "BEGIN {print $calls * 60 / $seconds}")" \
            "$(sort "$work/calls" 2>/dev/null | uniq -c | awk '{printf "%s %s ", $1, $2}')"
    done
    scancel "${ids[@]}"
    ids=()
done
