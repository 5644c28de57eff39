#!/usr/bin/env bash
# Fault test: the Slurm daemons go away while a run is watched.
# 1. slurmdbd alone stops: sacct fails, watch asks squeue and carries on.
# 2. slurmctld and slurmdbd both stop: watch reports the outage, keeps
#    waiting, and finishes correctly once they are back.
. "$(dirname "$0")/lib.sh"
require_slurm
cluster=$LG_SOURCE_DIR/scripts/slurm-cluster
restore() { "$cluster" start-daemon slurmdbd >/dev/null 2>&1 || true; "$cluster" start-daemon slurmctld >/dev/null 2>&1 || true; }

NAME=e2e-outage NODES=1 GPUS=2 write_job --iterations 90 --interval 0.5
lg_run submit job.toml --detach --json > sub.json
run=$(jq -r .run_id sub.json)

# 1: slurmdbd down for 8 s.
lg_bg watch "$run" > w1.json 2> w1.err
watcher=$!
sleep 2
"$cluster" stop-daemon slurmdbd 2>/dev/null
sleep 8
"$cluster" start-daemon slurmdbd 2>/dev/null || { restore; exit 1; }

# 2: slurmctld and slurmdbd down for 25 s while the job still runs (longer
# than squeue's own ~18 s of connection retries).
sleep 1
"$cluster" stop-daemon slurmctld 2>/dev/null
"$cluster" stop-daemon slurmdbd 2>/dev/null
sleep 25
"$cluster" start-daemon slurmdbd 2>/dev/null || { restore; exit 1; }
"$cluster" start-daemon slurmctld 2>/dev/null || { restore; exit 1; }
wait "$watcher"
expect_contains w1.err "Slurm is not answering"
expect_contains w1.err "Slurm answers again"
expect_run_clean "$run" 1
