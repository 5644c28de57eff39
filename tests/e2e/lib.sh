# Shared helpers for the end-to-end tests. Source it first:
#   . "$(dirname "$0")/lib.sh"
# Each test runs in its own temporary directory, kept on failure.
# Environment (set by tests/e2e/CMakeLists.txt): LAUNCHGUARD (the binary),
# LG_SOURCE_DIR (the checkout). LG_REQUIRE_SLURM=1 turns skips into failures.
set -euo pipefail
export LC_ALL=C
test_name=$(basename "$0" .sh)
LG_SOURCE_DIR=${LG_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LAUNCHGUARD=${LAUNCHGUARD:-launchguard}
fake_trainer=$LG_SOURCE_DIR/tests/trainer/fake_trainer
fake_slurm_bin=$LG_SOURCE_DIR/tests/fakes/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/lg-e2e.$test_name.XXXXXX")
cd "$work"

on_error() { # keep the evidence
    # The ERR trap also fires under `set +e` (rc=$? patterns): ignore it there.
    case $- in *e*) ;; *) return 0 ;; esac
    echo "FAIL $test_name: line $1: $BASH_COMMAND (files kept in $work)" >&2
    trap - EXIT
    exit 1
}
trap 'on_error $LINENO' ERR
trap 'rm -rf "$work"' EXIT

skip() { # exit 125 = CTest SKIP_RETURN_CODE
    if [ -n "${LG_REQUIRE_SLURM:-}" ]; then
        echo "FAIL $test_name: $* (LG_REQUIRE_SLURM is set)" >&2
        exit 1
    fi
    echo "SKIP $test_name: $*"
    exit 125
}

# Use the local cluster of scripts/slurm-cluster when it runs and the caller
# did not point SLURM_CONF elsewhere.
if [ -z "${SLURM_CONF:-}" ]; then
    local_conf=${LG_SLURM_STATE:-/tmp/launchguard-slurm}/etc/slurm.conf
    if [ -f "$local_conf" ]; then
        export SLURM_CONF=$local_conf
    fi
fi

require_slurm() {
    command -v sbatch >/dev/null || skip "sbatch not on PATH"
    timeout 10 scontrol ping >/dev/null 2>&1 \
        || skip "slurmctld not responding (start it: scripts/slurm-cluster start)"
}

expect_eq() {
    [ "$1" = "$2" ] || { echo "expected '$2', got '$1'" >&2; return 1; }
}
expect_contains() {
    grep -Fq -- "$2" "$1" || { echo "$1 lacks '$2':"; cat "$1"; return 1; } >&2
}

# Print the allocation state of job $1 from sacct ("COMPLETED", "FAILED", …).
job_state() {
    sacct -j "$1" -X --parsable2 --noheader --format=State 2>/dev/null \
        | head -n 1 | cut -d' ' -f1
}

# Wait up to $2 seconds for job $1 to leave PENDING/RUNNING/COMPLETING and
# print its final state.
wait_for_end() {
    local id=$1 seconds=$2 state=""
    local deadline=$((SECONDS + seconds))
    while [ $SECONDS -lt $deadline ]; do
        state=$(job_state "$id")
        case $state in
            "" | PENDING | RUNNING | COMPLETING | CONFIGURING | REQUEUED) ;;
            *) echo "$state"; return 0 ;;
        esac
        sleep 1
    done
    echo "job $id still '$state' after ${seconds} s" >&2
    squeue -j "$id" >&2 || true
    return 1
}

# Write job.toml: a small dense job on the local cluster whose command is the
# stand-in trainer with the given arguments. $NODES/$GPUS/$MEM/$NAME/$ENV_LINES
# tune it.
write_job() {
    local args="" a
    for a in "$@"; do args+=", \"$a\""; done
    cat > job.toml <<TOML
[job]
name = "${NAME:-e2e-job}"
[model]
num_layers = 16
hidden_size = 2048
ffn_hidden_size = 8192
num_attention_heads = 16
num_query_groups = 4
vocab_size = 32000
seq_length = 4096
[parallelism]
tp = 1
pp = 1
[training]
micro_batch_size = 1
global_batch_size = 8
distributed_optimizer = true
[cluster]
gpu = "h100-80gb"
nodes = ${NODES:-1}
gpus_per_node = ${GPUS:-2}
[slurm]
partition = "batch"
account = "${ACCOUNT:-research}"
time = "00:05:00"
mem = "${MEM:-1G}"
[launch]
template = "srun-native"
command = ["python3", "$fake_trainer"$args]
output = "logs/%x-%j.out"
[env]
${ENV_LINES:-}
TOML
}

# Run launchguard with a private state dir and quick polling.
lg_run() {
    "$LAUNCHGUARD" "$@" --state-dir "$work/state" --poll-interval 1 --poll-max 3
}

# As lg_run, in the background; $! is launchguard's own pid (exec), so
# `kill -9 $!` kills launchguard, not a wrapper subshell.
lg_bg() {
    ( exec "$LAUNCHGUARD" "$@" --state-dir "$work/state" --poll-interval 1 --poll-max 3 ) &
}

# Print how many Slurm jobs carry tag $1 in their comment (waits up to 10 s
# for slurmdbd to record comments of jobs that just ended).
jobs_with_tag() {
    local count=0
    for _ in $(seq 20); do
        count=$(sacct -X --parsable2 --noheader --format=JobID,Comment -S now-2hours 2>/dev/null \
            | grep -c -- "$1" || true)
        [ "$count" = 0 ] || break
        sleep 0.5
    done
    echo "$count"
}

# Check that run $1 (in $work/state) succeeded with $2 attempts and exactly
# one Slurm job per attempt.
expect_run_clean() {
    local run=$1 attempts=$2 n tag
    lg_run runs "$run" --json > "runs-$run.json"
    expect_eq "$(jq -r '.runs[0].outcome' "runs-$run.json")" "succeeded"
    expect_eq "$(jq -r '.runs[0].attempts | length' "runs-$run.json")" "$attempts"
    for n in $(seq 0 $((attempts - 1))); do
        tag=$(jq -r ".runs[0].attempts[$n].tag" "runs-$run.json")
        expect_eq "$(jobs_with_tag "$tag")" "1"
    done
}

# Run function $1 once per remaining argument, up to four at a time (the local
# cluster has four nodes; a case is one job at a time), each in its own
# directory of $work holding a copy of job.toml if there is one, with work=
# that directory so lg_run's state is its own. A case's output is printed when its batch ends;
# any failing case fails the test (after its batch, with its output). For
# cases that spend their time waiting on Slurm, not on the CPU.
each_in_parallel() {
    local fn=$1 i=0 j failed=0
    shift
    local items=("$@")
    while [ "$i" -lt "${#items[@]}" ]; do
        local pids=() dirs=()
        for j in 0 1 2 3; do
            [ $((i + j)) -lt "${#items[@]}" ] || break
            local dir="$work/case-$((i + j))"
            mkdir -p "$dir"
            if [ -f job.toml ]; then cp job.toml "$dir/"; fi
            (cd "$dir"; work=$dir; "$fn" "${items[$((i + j))]}") > "$dir.log" 2>&1 &
            pids+=("$!")
            dirs+=("$dir")
        done
        for j in "${!pids[@]}"; do
            if wait "${pids[$j]}"; then
                cat "${dirs[$j]}.log"
            else
                echo "case '${items[$((i + j))]}' failed (files in ${dirs[$j]}):" >&2
                cat "${dirs[$j]}.log" >&2
                failed=1
            fi
        done
        i=$((i + ${#pids[@]}))
    done
    if [ "$failed" = 1 ]; then
        trap - EXIT
        echo "FAIL $test_name (files kept in $work)" >&2
        exit 1
    fi
}

# Make directory $1 hold wrappers around the real Slurm tools that log each
# call's tool name to $1/calls before running it (put $1 first on PATH).
make_counting_shim() {
    local shim=$1 tool real
    mkdir -p "$shim"
    for tool in sacct squeue scontrol sbatch scancel; do
        real=$(command -v "$tool")
        printf '#!/bin/sh\necho "%s" >> "%s/calls"\nexec "%s" "$@"\n' "$tool" "$shim" "$real" > "$shim/$tool"
        chmod +x "$shim/$tool"
    done
}

# Write directory $2 holding the Hugging Face config.json of Meta-Llama-3 $1
# (8B or 70B), from the models' published dimensions (no download).
write_llama3_hf_config() {
    local layers hidden ffn heads
    case $1 in
        8B) layers=32 hidden=4096 ffn=14336 heads=32 ;;
        70B) layers=80 hidden=8192 ffn=28672 heads=64 ;;
        *) echo "write_llama3_hf_config: no Llama 3 $1" >&2; return 1 ;;
    esac
    mkdir -p "$2"
    cat > "$2/config.json" <<JSON
{
  "architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "hidden_size": $hidden, "intermediate_size": $ffn, "num_attention_heads": $heads,
  "num_key_value_heads": 8, "num_hidden_layers": $layers, "vocab_size": 128256,
  "max_position_embeddings": 8192, "rope_theta": 500000.0, "tie_word_embeddings": false
}
JSON
}
