#!/usr/bin/env bash
# submit: a real host OOM (the trainer allocates past --mem, Slurm's cgroup
# handler kills it) ends OUT_OF_MEMORY, is diagnosed host_oom, and is not
# retried automatically.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-hostoom NODES=1 GPUS=1 MEM=300M write_job --fail host-oom --host-oom-mib 1024 --fail-at 2
set +e
lg_run submit job.toml --retry 2 --json > out.json 2> progress.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_eq "$(jq -r .outcome out.json)" "failed"
expect_eq "$(jq -r '.attempts | length' out.json)" "1"
expect_eq "$(jq -r '.attempts[0].state' out.json)" "OUT_OF_MEMORY"
expect_eq "$(jq -r '.attempts[0].category' out.json)" "host_oom"
