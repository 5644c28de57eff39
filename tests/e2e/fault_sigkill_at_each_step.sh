#!/usr/bin/env bash
# Fault test: SIGKILL launchguard right after each step of `submit --retry`
# (each journal record, and between sbatch returning and the job id being
# recorded); `watch RUN_ID` then resumes. Every run must end succeeded with
# exactly one Slurm job per attempt: no duplicate, no lost attempt. The kill
# points are independent runs (own state directory), four at a time.
. "$(dirname "$0")/lib.sh"
require_slurm
NAME=e2e-fault NODES=1 GPUS=2 ENV_LINES='PYTORCH_CUDA_ALLOC_CONF = "expandable_segments:False"' \
    write_job --fail oom-unless-expandable --iterations 3 --interval 0.01
kill_after_point() {
    local point=$1 rc run
    set +e
    LG_FAULT_KILL_AFTER=$point lg_run submit job.toml --retry 2 > /dev/null 2> "kill-$point.err"
    rc=$?
    set -e
    expect_eq "$rc" "137"
    run=$(ls state/runs)
    lg_run watch "$run" > /dev/null 2> "resume-$point.err"
    expect_run_clean "$run" 2
    echo "killed after $point: resumed, 2 attempts, one job each"
}
each_in_parallel kill_after_point run_created attempt_prepared submit_started sbatch_returned submitted state \
    attempt_finished 'attempt_prepared#2' 'sbatch_returned#2' 'submitted#2'
