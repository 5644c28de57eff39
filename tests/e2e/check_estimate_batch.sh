#!/usr/bin/env bash
# check/estimate batch mode (issue 10: 226 estimates cost 226 processes): many
# job files and JSON lines on stdin in one process. Each result equals the
# single-job command's document; a bad input (missing file, unknown key, not
# JSON, a line over 16 MiB) is an error in its place with its location, the
# rest still run, and the exit code is the worst. The projection of the
# --json lines is compared byte for byte with tests/golden/batch/
# (LG_UPDATE_GOLDEN=1 rewrites it; review the diff). No Slurm needed.
. "$(dirname "$0")/lib.sh"

golden="$LG_SOURCE_DIR/tests/golden/batch"
examples="$LG_SOURCE_DIR/examples"
cp "$examples/llama3-70b-sft-h100.toml" "$examples/qwen3-8b-lora-tp2.toml" .
cat > bad-key.toml <<'TOML'
[model]
preset = "llama3-8b"
[parallelism]
ppp = 4
TOML
{
    echo '{"model": {"preset": "llama3-8b"}, "parallelism": {"tp": 2, "sequence_parallel": true}, "training": {"global_batch_size": 32}}'
    echo ''
    echo '{"model": {"preset": "llama3-8b"}, "parallelism": {"tp": "two"}}'
    echo '{"model": {"preset": "llama3-8b"}, '
    echo '{"model": {"preset": "llama3-8b"}, "parallelism": {"tp": 3}, "training": {"global_batch_size": 32}}'
    head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' ' '; echo
    echo '[1]'
} > jobs.jsonl

inputs=(llama3-70b-sft-h100.toml qwen3-8b-lora-tp2.toml missing.toml bad-key.toml)
for command in check estimate; do
    set +e
    "$LAUNCHGUARD" --json "$command" "${inputs[@]}" --jsonl - < jobs.jsonl > "$command.jsonl" 2> "$command.err"
    rc=$?
    set -e
    expect_eq "$rc" "2"                     # the worst: unreadable inputs
    [ ! -s "$command.err" ] || { cat "$command.err" >&2; exit 1; }
    # One line per input, blank lines skipped, in order.
    expect_eq "$(jq -r .input "$command.jsonl" | tr '\n' ' ')" \
        "llama3-70b-sft-h100.toml qwen3-8b-lora-tp2.toml missing.toml bad-key.toml <stdin>:1 <stdin>:3 <stdin>:4 <stdin>:5 <stdin>:6 <stdin>:7 "
    # Each job's result is the single-job command's document.
    for index in 0 1; do
        "$LAUNCHGUARD" --json "$command" "${inputs[$index]}" > single.json || true
        diff <(jq -S . single.json) \
            <(jq -S -s ".[$index] | del(.input, .exit_code)" "$command.jsonl")
    done
done
# The check lines, projected onto what must not drift: exit code, the error
# rules, and each unreadable input's message.
jq -c '{input, exit_code, error: .error.message,
        rules: ([.findings[]? | select(.severity == "error") | .rule] | sort)}' check.jsonl \
    | sed "s|$work/||g" > check.projected.jsonl
if [ "${LG_UPDATE_GOLDEN:-}" = 1 ]; then
    cp check.projected.jsonl "$golden/check.jsonl"
fi
diff -u "$golden/check.jsonl" check.projected.jsonl

# Text mode: one block per input, the error in its block, a count at the end.
set +e
"$LAUNCHGUARD" --color never check qwen3-8b-lora-tp2.toml bad-key.toml --jsonl - < jobs.jsonl > check.txt 2> check.err
rc=$?
set -e
expect_eq "$rc" "2"
expect_contains check.txt "==> bad-key.toml <=="
expect_contains check.txt "launchguard: error: bad-key.toml:4:1: unknown key 'ppp' in [parallelism]"
# A key's error is at its column on the line; a finding on the whole job
# (no key of the line to blame) at the line alone.
expect_contains check.txt "launchguard: error: <stdin>:3:52: parallelism.tp must be an integer, got string \"two\""
expect_contains check.txt "launchguard: error: <stdin>:6: line longer than 16 MiB"
expect_contains check.txt "<stdin>:5: error: "
expect_contains check.txt "<stdin>:5:36: error: "
expect_contains check.txt "8 job(s): 2 ok, 1 with errors, 5 not read"

# Only jobs with findings: the worst is 1; all clean: 0.
set +e
"$LAUNCHGUARD" check qwen3-8b-lora-tp2.toml --jsonl - < <(sed -n 5p jobs.jsonl) > /dev/null
rc=$?
set -e
expect_eq "$rc" "1"
"$LAUNCHGUARD" check qwen3-8b-lora-tp2.toml --jsonl - < <(sed -n 1p jobs.jsonl) > /dev/null
# One reader of standard input.
set +e
"$LAUNCHGUARD" check - --jsonl - < /dev/null 2> both.err
rc=$?
set -e
expect_eq "$rc" "2"
expect_contains both.err "both read standard input"
