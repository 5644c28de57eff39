#!/usr/bin/env bash
# Fault test: SIGKILL `submit --retry` at arbitrary moments (a timer, not a
# step), kill the resuming `watch` too, then let two watchers (two login
# nodes) finish the run at once. No duplicate jobs, no lost attempts. The
# delays are independent runs (own state directory), four at a time.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-randkill NODES=1 GPUS=2 ENV_LINES='PYTORCH_CUDA_ALLOC_CONF = "expandable_segments:False"' \
    write_job --fail oom-unless-expandable --iterations 6 --interval 0.1
kill_at_delay() {
    local delay=$1 pid other run
    lg_bg submit job.toml --retry 2 > /dev/null 2>&1
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    if [ -z "$(ls state/runs 2>/dev/null)" ]; then
        echo "killed at ${delay}s before the run existed: nothing to resume"
        return 0
    fi
    run=$(ls state/runs)
    lg_bg watch "$run" > /dev/null 2>&1
    pid=$!
    sleep 0.7
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    lg_bg watch "$run" > /dev/null 2>&1
    other=$!
    lg_run watch "$run" > /dev/null 2>&1
    wait "$other"
    expect_run_clean "$run" 2
    echo "killed at ${delay}s, again while resuming, then two watchers: 2 attempts, one job each"
}
each_in_parallel kill_at_delay 0.2 0.6 1.2 2.0 2.8
