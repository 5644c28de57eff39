#!/usr/bin/env bash
# submit --dry-run shows the script and the sbatch call and queues nothing;
# a job with preflight errors is refused before sbatch (exit 1).
. "$(dirname "$0")/lib.sh"
require_slurm

before=$(squeue -h | wc -l)
NAME=e2e-dry write_job
lg_run submit job.toml --dry-run > dry.txt
expect_contains dry.txt "would run (no job submitted): sbatch --parsable"
expect_contains dry.txt "#SBATCH --job-name=e2e-dry"
[ ! -d state/runs ] || [ -z "$(ls state/runs)" ]

sed -i 's/^pp = 1/pp = 2/; s/^\[training\]/[training]\ncpu_offloading_layers = 2/' job.toml
set +e
lg_run submit job.toml > out.txt 2> err.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_contains err.txt "the preflight found errors; nothing was submitted"
expect_eq "$(squeue -h | wc -l)" "$before"
