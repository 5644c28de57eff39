#!/usr/bin/env bash
# submit: the composed environment turns PyTorch's NCCL flight recorder on
# with its dumps next to the logs (TORCH_NCCL_DEBUG_INFO_TEMP_FILE=logs/nccl_trace_rank_);
# a job whose ranks hit the NCCL watchdog timeout (the stand-in trainer
# writes <prefix><rank> as ProcessGroupNCCL's DebugInfoWriter does) is
# diagnosed with the dumps named, and `diagnose` points at them too.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-frdump NODES=1 GPUS=2 write_job --fail nccl-timeout --fail-rank 0 --fail-at 2 --nccl-delay 0.2
"$LAUNCHGUARD" env job.toml > env.txt
expect_contains env.txt "TORCH_NCCL_DEBUG_INFO_TEMP_FILE=logs/nccl_trace_rank_"
set +e
lg_run submit job.toml --json > out.json 2> progress.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_contains progress.txt "NCCL flight-recorder dumps: $work/logs/nccl_trace_rank_1"
test -s logs/nccl_trace_rank_1
run=$(jq -r .run_id out.json)
records=$work/state/runs/$run/records
expect_eq "$(cat "$records"/*.json | jq -rs '[.[] | select(.type == "diagnosis")][0].data.flight_recorder_dumps[0]')" \
    "$work/logs/nccl_trace_rank_1"
set +e
"$LAUNCHGUARD" diagnose logs/e2e-frdump-*.out --json > diagnosis.json
set -e
expect_eq "$(jq -r '.flight_recorder_dumps[0]' diagnosis.json)" "logs/nccl_trace_rank_1"
