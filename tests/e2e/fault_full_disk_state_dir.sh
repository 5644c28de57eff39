#!/usr/bin/env bash
# Fault test: the state directory's file system fills up. launchguard stops
# with a clear message (exit 3), the journal keeps every record it had, and
# once there is room `watch RUN_ID` finishes the run.
. "$(dirname "$0")/lib.sh"
require_slurm

mkdir -p small
if ! mount -t tmpfs -o size=256k tmpfs small 2>/dev/null; then
    echo "SKIP $test_name: cannot mount a small tmpfs here"; exit 125
fi
cleanup_mount() { umount "$work/small" 2>/dev/null || true; }
trap 'cleanup_mount; rm -rf "$work"' EXIT

NAME=e2e-fulldisk NODES=1 GPUS=2 write_job --iterations 30 --interval 0.2
"$LAUNCHGUARD" submit job.toml --detach --json --state-dir "$work/small/state" > sub.json
run=$(jq -r .run_id sub.json)
before=$(ls small/state/runs/"$run"/records | wc -l)
# Fill the file system completely.
dd if=/dev/zero of=small/filler bs=4k 2>/dev/null || true
set +e
"$LAUNCHGUARD" watch "$run" --state-dir "$work/small/state" --poll-interval 1 > w.out 2> w.err
rc=$?
set -e
expect_eq "$rc" "3"
expect_contains w.err "the state directory's file system is full"
# Nothing corrupted: every earlier record still reads back.
after=$(ls small/state/runs/"$run"/records | wc -l)
[ "$after" -ge "$before" ]
"$LAUNCHGUARD" runs "$run" --json --state-dir "$work/small/state" > r.json
expect_eq "$(jq -r '.runs[0].attempts[0].job_id' r.json)" "$(jq -r '.attempts[0].job_id' sub.json)"
rm -f small/filler
"$LAUNCHGUARD" watch "$run" --state-dir "$work/small/state" --poll-interval 1 --json > w2.json 2>/dev/null
expect_eq "$(jq -r .outcome w2.json)" "succeeded"
