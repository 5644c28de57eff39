#!/usr/bin/env bash
# One verdict in every command: [env] PYTORCH_CUDA_ALLOC_CONF =
# "expandable_segments:true" (lowercase) is refused by PyTorch at start-up
# (c10/core/AllocatorConfig.cpp: "Expected a single True/False argument for
# expandable_segments" in 2.4-2.7, ConfigTokenizer::toBool in 2.8+), so check,
# estimate, env, render, submit --dry-run and diagnose --job all report the
# same allocator_config_error, exit 1 (diagnose: the log decides the exit) and
# none of them offers expandable segments as a memory fix. No cluster needed.
. "$(dirname "$0")/lib.sh"

sed 's/^NCCL_DEBUG = "WARN"$/NCCL_DEBUG = "WARN"\nPYTORCH_CUDA_ALLOC_CONF = "expandable_segments:true"/' \
    "$LG_SOURCE_DIR/examples/llama3-70b-sft-h100.toml" > job.toml
expect_contains job.toml 'PYTORCH_CUDA_ALLOC_CONF = "expandable_segments:true"'
verdict='[allocator_config_error]'
message='Expected a single True/False argument for expandable_segments'

for command in check estimate env render "submit --dry-run"; do
    set +e
    # shellcheck disable=SC2086 # "submit --dry-run" is two words
    "$LAUNCHGUARD" $command job.toml > out.txt 2>&1
    rc=$?
    set -e
    echo "$command: exit $rc"
    expect_eq "$rc" "1"
    expect_contains out.txt "$verdict"
    expect_contains out.txt "$message"
    expect_contains out.txt "fix: write expandable_segments:True"
    ! grep -q 'fragmentation  ' out.txt || { echo "$command adds a fragmentation allowance" >&2; exit 1; }
    ! grep -q 'alloc_conf_conflict' out.txt || { echo "$command reports a conflict too" >&2; exit 1; }
done

# The JSON documents carry the same finding.
for command in check estimate render; do
    set +e
    "$LAUNCHGUARD" --json $command job.toml > out.json 2>/dev/null
    set -e
    expect_contains out.json '"rule": "allocator_config_error"'
    ! grep -q '"fix": "expandable_segments"' out.json || { echo "$command offers the fix" >&2; exit 1; }
done

echo "RuntimeError: Expected a single True/False argument for expandable_segments" > job.log
set +e
"$LAUNCHGUARD" diagnose job.log --job job.toml > out.txt 2>&1
set -e
expect_contains out.txt "$verdict"
expect_contains out.txt "$message"
echo "PASS $test_name"
