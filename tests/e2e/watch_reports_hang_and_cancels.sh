#!/usr/bin/env bash
# submit: a RUNNING job whose iteration lines stop (the stand-in trainer's
# hang mode: Megatron's iteration lines, then one rank sleeps) is reported
# hang_no_progress from the log tail alone, cancelled after the grace, and
# resubmitted unchanged once; the second hang ends the run. Floor and grace
# are seconds here (defaults 300 s and 360 s).
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-hang NODES=1 GPUS=2 write_job --fail hang --fail-rank 0 --fail-at 4 --iterations 100
set +e
lg_run submit job.toml --retry 1 --hang-floor 2 --hang-grace 1 --json > out.json 2> progress.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_eq "$(jq -r .outcome out.json)" "failed"
expect_eq "$(jq -r '.attempts | length' out.json)" "2"
for n in 0 1; do
    expect_eq "$(jq -r ".attempts[$n].category" out.json)" "hang_no_progress"
    job=$(jq -r ".attempts[$n].job_id" out.json)
    expect_eq "$(wait_for_end "$job" 30)" "CANCELLED"
done
expect_eq "$(jq -r '.attempts[1].fix' out.json)" ""
expect_contains progress.txt "hang_no_progress while Slurm says RUNNING: no new iteration for"
expect_contains progress.txt "last iteration 3"
expect_contains progress.txt "the run hung before"
run=$(jq -r .run_id out.json)
# One Slurm job per attempt, and the journal has the hang and the cancel.
for n in 0 1; do
    tag=$(jq -r ".attempts[$n].tag" out.json)
    expect_eq "$(jobs_with_tag "$tag")" "1"
done
records=$work/state/runs/$run/records
expect_eq "$(cat "$records"/*.json | jq -s '[.[] | select(.type == "hang")] | length')" "2"
expect_eq "$(cat "$records"/*.json | jq -rs '[.[] | select(.type == "cancel_requested")][0].data.reason')" \
    "hang_no_progress"
