#!/usr/bin/env bash
# submit: sbatch refusing the job (an account Slurm does not know) is a Slurm
# failure: exit 3, Slurm's reason shown, the attempt recorded as submit_failed.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-refused ACCOUNT=no-such-account write_job
set +e
lg_run submit job.toml > out.txt 2> err.txt
rc=$?
set -e
expect_eq "$rc" "3"
grep -qi "account" err.txt || { cat err.txt >&2; exit 1; }
run_id=$(ls state/runs)
lg_run runs "$run_id" --json > runs.json
expect_eq "$(jq -r '.runs[0].attempts[0].outcome' runs.json)" "submit_failed"
