#!/usr/bin/env bash
# Fault test: the job's log is truncated, then deleted, while watch follows
# it. watch restarts at offset 0 after the truncation, shrugs off the
# deletion, and the run still ends correctly (the job itself succeeds).
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-trunc NODES=1 GPUS=1 write_job --iterations 40 --interval 0.2
lg_run submit job.toml --detach --json > sub.json
run=$(jq -r .run_id sub.json)
job=$(jq -r '.attempts[0].job_id' sub.json)
log=logs/e2e-trunc-$job.out
lg_bg watch "$run" --json > w.json 2> w.err
watcher=$!
for _ in $(seq 50); do [ -s "$log" ] && break; sleep 0.2; done
[ -s "$log" ]
sleep 2
: > "$log"          # truncated mid-run
sleep 2
rm -f "$log"        # deleted mid-run
wait "$watcher"
expect_eq "$(jq -r .outcome w.json)" "succeeded"
expect_eq "$(jq -r '.attempts[0].state' w.json)" "COMPLETED"
if grep -qi "internal error" w.err; then cat w.err >&2; exit 1; fi
