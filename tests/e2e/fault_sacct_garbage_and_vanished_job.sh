#!/usr/bin/env bash
# Fault test (fake Slurm tools, no cluster needed): sacct printing garbage and
# a job that Slurm stops knowing. Garbage is "unknown, ask again", never a
# state; a job unknown for --vanish-after seconds is reported as vanished and
# the run ends failed with that reason, not retried, not hanging.
. "$(dirname "$0")/lib.sh"
export PATH="$fake_slurm_bin:$PATH"
export LG_FAKE_SLURM_LOG="$work/calls.log"

NAME=e2e-vanish write_job
export LG_FAKE_SLURM="sacct=garbage squeue=invalid"
set +e
lg_run submit job.toml --retry 2 --vanish-after 3 --json > out.json 2> err.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_eq "$(jq -r .outcome out.json)" "failed"
expect_eq "$(jq -r '.attempts | length' out.json)" "1"
expect_eq "$(jq -r '.attempts[0].state' out.json)" "VANISHED"
expect_contains err.txt "it vanished"
jq -r .reason out.json | grep -q "vanished from Slurm"
# Exactly one sbatch, and the polls were batched sacct calls.
expect_eq "$(grep -c '^sbatch' calls.log)" "1"
grep -q '^sacct' calls.log
