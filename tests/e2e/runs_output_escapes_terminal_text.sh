#!/usr/bin/env bash
# runs and runs RUN_ID print journal values (the job name, a retry's reason
# quoting a log line) through the one terminal sanitiser (util/terminal): a
# log line carrying ESC [ 2 J (clear screen) and an OSC 52 clipboard write is
# shown escaped, never sent raw. No Slurm needed: the journal is a copy of
# tests/golden/cli/state with one reason changed.
. "$(dirname "$0")/lib.sh"

cp -r "$LG_SOURCE_DIR/tests/golden/cli/state" state
run=20261201-120000-llama3-70b-sft-k3f9
record=state/runs/$run/records/00000010.json
# JSON escapes \u001b: the record stays valid JSON and holds the raw bytes once read.
sed -i 's|"reason":"cuda_oom_fragmentation on attempt 1"|"reason":"rank 3: \\u001b[2J\\u001b]52;c;ZWNobyBwd25lZA==\\u0007 CUDA out of memory"|' "$record"
grep -q 'u001b\[2J' "$record"
chmod -R go-rwx state
"$LAUNCHGUARD" --color never runs "$run" --state-dir state > detail.txt
"$LAUNCHGUARD" --color never runs --state-dir state > list.txt
expect_contains detail.txt 'why: rank 3: \x1b[2J\x1b]52;c;ZWNobyBwd25lZA==\x07 CUDA out of memory'
for file in detail.txt list.txt; do
    if LC_ALL=C grep -q $'\x1b\|\x07' "$file"; then echo "$file carries a raw escape" >&2; exit 1; fi
done
