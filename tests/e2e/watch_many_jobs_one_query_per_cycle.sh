#!/usr/bin/env bash
# watch JOB_ID…: ten plain Slurm jobs are followed to their end with one
# batched Slurm query per poll cycle for all of them (counted through
# wrapper scripts around the real tools), not one per job.
. "$(dirname "$0")/lib.sh"
require_slurm

shim=$work/shim
make_counting_shim "$shim"
ids=()
for i in $(seq 10); do
    ids+=("$(sbatch --parsable --account=research --mem=10M --output=/dev/null --wrap "sleep $((i % 3 + 2))")")
done
PATH="$shim:$PATH" "$LAUNCHGUARD" watch "${ids[@]}" --poll-interval 1 --poll-max 2 --json > out.json
expect_eq "$(jq '[.jobs[] | select(.state == "COMPLETED")] | length' out.json)" "10"
sacct_calls=$(grep -c '^sacct' "$shim/calls")
# Every poll asks about all jobs at once: far fewer calls than jobs x polls.
[ "$sacct_calls" -ge 1 ] && [ "$sacct_calls" -le 12 ] || { echo "sacct called $sacct_calls times" >&2; exit 1; }
# squeue only answers for ids accounting does not know yet: at most once a poll.
squeue_calls=$(grep -c '^squeue' "$shim/calls" || true)
[ "$squeue_calls" -le "$sacct_calls" ] || { echo "squeue called $squeue_calls times" >&2; exit 1; }
