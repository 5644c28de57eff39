#!/usr/bin/env bash
# submit --retry: a GPU hardware failure (the stand-in trainer prints the
# NVIDIA driver's Xid 79 kernel line, with its node's name, on the first node
# it runs on and on that node only) is diagnosed gpu_hardware on that node;
# the retry resubmits with --exclude=<node> (in the attempt's script and the
# journal, shown by `runs`), its job runs on another node (sacct NodeList),
# and no attempt is submitted twice.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-badnode NODES=1 GPUS=1 write_job --fail xid --fail-at 2 --iterations 3 --bad-node-file "$work/bad-node"
lg_run submit job.toml --retry 1 --json > out.json 2> progress.txt
bad=$(cat bad-node)
[ -n "$bad" ]
expect_eq "$(jq -r '.attempts[0].category' out.json)" "gpu_hardware"
expect_eq "$(jq -r '.attempts[0].host' out.json)" "$bad"
expect_eq "$(jq -c '.attempts[1].exclude' out.json)" "[\"$bad\"]"
run=$(jq -r .run_id out.json)
expect_run_clean "$run" 2
second=$(jq -r '.attempts[1].job_id' out.json)
nodes=$(sacct -j "$second" -X --parsable2 --noheader --format=NodeList | head -n 1)
[ -n "$nodes" ] && [ "$nodes" != "$bad" ] || { echo "attempt 2 ran on '$nodes', the bad node is $bad" >&2; exit 1; }
expect_contains "$work/state/runs/$run/attempt-2/job.sbatch" "#SBATCH --exclude=$bad"
lg_run runs "$run" > runs.txt
expect_contains runs.txt "diagnosis gpu_hardware on $bad"
expect_contains runs.txt "excluding $bad"
