#!/usr/bin/env bash
# Ten launchguard processes of one user, each watching its own job, share one
# Slurm question per cycle through the state directory's poll cache: the
# real Slurm commands (counted by wrappers on PATH) stay near what one
# process costs, not ten times it. The jobs are held (PENDING, no node used).
. "$(dirname "$0")/lib.sh"
require_slurm

shim=$work/shim
make_counting_shim "$shim"
ids=()
for _ in $(seq 10); do
    ids+=("$(sbatch --parsable --hold --account=research --mem=10M --output=/dev/null --wrap "sleep 1" | cut -d';' -f1)")
done
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; scancel "${ids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
watch_all() { # $1: state dir per process ("shared" or "separate"); prints the Slurm commands run
    rm -f "$shim/calls"
    pids=()
    local i=0 id
    for id in "${ids[@]}"; do
        i=$((i + 1))
        local state=$work/state
        [ "$1" = shared ] || state=$work/state-$i
        PATH="$shim:$PATH" "$LAUNCHGUARD" watch "$id" --state-dir "$state" --poll-interval 1 --poll-max 3 \
            > /dev/null 2> "$work/watch-$i.err" &
        pids+=("$!")
    done
    sleep 8
    kill "${pids[@]}"
    wait "${pids[@]}" 2>/dev/null || true
    pids=()
    wc -l < "$shim/calls"
}
shared=$(watch_all shared)
separate=$(watch_all separate)
echo "Slurm commands in 8 s for 10 processes: $shared shared, $separate with separate state dirs"
grep -q "PENDING" "$work/watch-1.err"
# One process alone asks about 4 times in 8 s (at 1, 2, 3.6 and 6.2 s),
# sacct plus at most one squeue each time.
[ "$shared" -le 16 ] || { echo "shared: $shared Slurm commands" >&2; exit 1; }
[ "$separate" -ge $((shared * 3)) ] || { echo "sharing saved little: $shared vs $separate" >&2; exit 1; }
