#!/usr/bin/env bash
# submit --detach returns once the job is queued; `watch RUN_ID` picks the
# run up from the journal and follows it to the end; `runs` lists it.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-detach write_job --iterations 4
lg_run submit job.toml --detach --json > out.json
expect_eq "$(jq -r .detached out.json)" "true"
run_id=$(jq -r .run_id out.json)
job_id=$(jq -r '.attempts[0].job_id' out.json)
[ -n "$job_id" ]
lg_run watch "$run_id" --json > watched.json
expect_eq "$(jq -r .outcome watched.json)" "succeeded"
expect_eq "$(jq -r '.attempts[0].job_id' watched.json)" "$job_id"
lg_run runs --json > runs.json
expect_eq "$(jq -r '.runs[0].run_id' runs.json)" "$run_id"
expect_eq "$(jq -r '.runs[0].attempts | length' runs.json)" "1"
