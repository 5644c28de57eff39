#!/usr/bin/env bash
# submit: the composed environment turns PyTorch's NCCL flight recorder on
# with its dumps next to the logs, one prefix per job
# (TORCH_NCCL_DEBUG_INFO_TEMP_FILE=logs/nccl_trace_%j_rank_, the script
# writing "$SLURM_JOB_ID" for %j); a job whose ranks hit the NCCL watchdog
# timeout (the stand-in trainer writes <prefix><rank> as ProcessGroupNCCL's
# DebugInfoWriter does) is diagnosed with its dumps named. Its retry (an
# NCCL timeout is an infrastructure failure: --retry-infra) leaves its own
# dumps beside the first attempt's instead of overwriting them, each
# attempt's diagnosis lists its own, and `diagnose LOG` those of the log's job.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-frdump NODES=1 GPUS=2 write_job --fail nccl-timeout --fail-rank 0 --fail-at 2 --nccl-delay 0.2
"$LAUNCHGUARD" env job.toml > env.txt
expect_contains env.txt 'TORCH_NCCL_DEBUG_INFO_TEMP_FILE=logs/nccl_trace_"$SLURM_JOB_ID"_rank_'
set +e
lg_run submit job.toml --retry 1 --retry-infra --json > out.json 2> progress.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_eq "$(jq -r '.attempts | length' out.json)" "2"
first=$(jq -r '.attempts[0].job_id' out.json)
second=$(jq -r '.attempts[1].job_id' out.json)
test -s "logs/nccl_trace_${first}_rank_1"
test -s "logs/nccl_trace_${second}_rank_1"
expect_contains progress.txt "NCCL flight-recorder dumps: $work/logs/nccl_trace_${first}_rank_1"
expect_contains progress.txt "NCCL flight-recorder dumps: $work/logs/nccl_trace_${second}_rank_1"
run=$(jq -r .run_id out.json)
records=$work/state/runs/$run/records
dumps_of_attempt() {
    cat "$records"/*.json | jq -rs --argjson n "$1" \
        '[.[] | select(.type == "diagnosis" and .data.attempt == $n)][0].data.flight_recorder_dumps | join(" ")'
}
expect_eq "$(dumps_of_attempt 1)" "$work/logs/nccl_trace_${first}_rank_1"
expect_eq "$(dumps_of_attempt 2)" "$work/logs/nccl_trace_${second}_rank_1"
set +e
"$LAUNCHGUARD" diagnose "logs/e2e-frdump-$first.out" --job job.toml --json > diagnosis.json
"$LAUNCHGUARD" diagnose "logs/e2e-frdump-$second.out" --json > diagnosis2.json
set -e
expect_eq "$(jq -r '.flight_recorder_dumps | join(" ")' diagnosis.json)" "logs/nccl_trace_${first}_rank_1"
# Without --job: the per-job names launchguard composes, for the log's job.
expect_eq "$(jq -r '.flight_recorder_dumps | join(" ")' diagnosis2.json)" "logs/nccl_trace_${second}_rank_1"
