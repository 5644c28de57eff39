#!/usr/bin/env bash
# submit: the demo story on the real cluster. The job dies of a
# fragmentation OOM (expandable segments off); launchguard diagnoses it from
# the logs, retries with expandable_segments:True, and the retry completes.
# Exactly one Slurm job per attempt.
. "$(dirname "$0")/lib.sh"
require_slurm

NAME=e2e-frag NODES=2 GPUS=4 ENV_LINES='PYTORCH_CUDA_ALLOC_CONF = "expandable_segments:False"' \
    write_job --fail oom-unless-expandable --iterations 5
lg_run submit job.toml --retry 2 --json > out.json 2> progress.txt
expect_eq "$(jq -r .outcome out.json)" "succeeded"
expect_eq "$(jq -r '.attempts | length' out.json)" "2"
expect_eq "$(jq -r '.attempts[0].category' out.json)" "cuda_oom_fragmentation"
expect_eq "$(jq -r '.attempts[0].state' out.json)" "FAILED"
expect_eq "$(jq -r '.attempts[1].fix' out.json)" "expandable_segments"
expect_eq "$(jq -r '.attempts[1].state' out.json)" "COMPLETED"
run_id=$(jq -r .run_id out.json)
grep -q 'expandable_segments:True' "state/runs/$run_id/attempt-2/job.sbatch"
expect_contains progress.txt "diagnosis: cuda_oom_fragmentation"
# One Slurm job per attempt, each carrying its attempt's tag (slurmdbd
# stores the comment a moment after the job ends, so ask for a while).
for n in 1 2; do
    tag=$(jq -r ".attempts[$((n-1))].tag" out.json)
    for _ in $(seq 20); do
        count=$(sacct -X --parsable2 --noheader --format=JobID,Comment -S now-1hour | grep -c -- "$tag" || true)
        [ "$count" = 0 ] || break
        sleep 0.5
    done
    expect_eq "$count" "1"
done
