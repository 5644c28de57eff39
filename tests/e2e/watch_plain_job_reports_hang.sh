#!/usr/bin/env bash
# watch JOB_ID --log FILE (a job launchguard did not submit: plain sbatch):
# the log tail feeds the same hang monitor as a run's, so iteration lines
# that stop while Slurm says RUNNING are reported hang_no_progress. Without
# --hang-cancel the job is left running (launchguard did not submit it); with
# it the job is cancelled after the grace. The stand-in trainer's hang mode
# prints Megatron's iteration lines, then sleeps.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-plain-hang NODES=1 GPUS=1 write_job --fail hang --fail-rank 0 --fail-at 4 --iterations 100
"$LAUNCHGUARD" render job.toml -o job.sbatch
mkdir -p logs

# 1. Reported, not cancelled: the test cancels the job itself once reported.
job=$(sbatch --parsable job.sbatch | cut -d';' -f1)
log=logs/e2e-plain-hang-$job.out
lg_bg watch "$job" --log "$log" --hang-floor 2 --hang-grace 1 > out1.txt 2> progress1.txt
watcher=$!
for _ in $(seq 60); do
    grep -q "hang_no_progress while Slurm says RUNNING" progress1.txt && break
    sleep 1
done
expect_contains progress1.txt "hang_no_progress while Slurm says RUNNING: no new iteration for"
expect_contains progress1.txt "not cancelling a job launchguard did not submit"
sleep 3  # past the grace: still running
expect_eq "$(squeue -h -j "$job" -o %T)" "RUNNING"
scancel "$job"
set +e
wait "$watcher"
rc=$?
set -e
expect_eq "$rc" "1"
expect_contains out1.txt "diagnosis: hang_no_progress"

# 2. --hang-cancel: cancelled by the watcher after the grace.
job=$(sbatch --parsable job.sbatch | cut -d';' -f1)
log=logs/e2e-plain-hang-$job.out
set +e
timeout 120 "$LAUNCHGUARD" watch "$job" --log "$log" --hang-floor 2 --hang-grace 1 --hang-cancel --json \
    --state-dir "$work/state" --poll-interval 1 --poll-max 3 > out2.json 2> progress2.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_contains progress2.txt "cancelling: hang_no_progress and no progress through the 1 s grace"
expect_eq "$(jq -r .category out2.json)" "hang_no_progress"
expect_eq "$(wait_for_end "$job" 30)" "CANCELLED"

# Contradicting flags are a usage error.
set +e
"$LAUNCHGUARD" watch "$job" --hang-cancel --no-hang-cancel --state-dir "$work/state" 2> usage.txt
rc=$?
set -e
expect_eq "$rc" "2"
