#!/usr/bin/env bash
# render: a Megatron-LM job's launch line is written from the job (the flags of
# `convert --to megatron-args`), so a job whose model comes from a Hugging Face
# config.json (Meta-Llama-3-8B's published dimensions, written here; no
# download) renders a script that runs what was judged: read back as a
# Megatron-LM command line it gives the same estimate. The command's own flags
# that set a job key are replaced, the others kept. A Megatron Bridge job with no
# command is refused (exit 2) rather than rendered without a launch line.
. "$(dirname "$0")/lib.sh"

ex=$LG_SOURCE_DIR/examples
write_llama3_hf_config 8B Meta-Llama-3-8B
cat > job.toml <<'TOML'
[job]
name = "llama3-8b-mlm"

[model]
hf_config = "Meta-Llama-3-8B"
seq_length = 4096

[parallelism]
tp = 2
sequence_parallel = true

[training]
micro_batch_size = 1
global_batch_size = 64
recompute = { granularity = "selective", modules = ["mlp"] }

[cluster]
gpu = "h100-80gb"
nodes = 1
gpus_per_node = 8

[launch]
template = "torchrun"
framework = "megatron-lm"
command = ["python", "pretrain_gpt.py", "--tensor-model-parallel-size", "4", "--data-path", "/data/llama", "--lr", "3e-4"]
TOML
"$LAUNCHGUARD" render job.toml -o job.sbatch
# torchrun's last line: the training script and its flags.
line=$(tail -n 1 job.sbatch)
eval "set -- $line"
expect_eq "$1" "pretrain_gpt.py"
words=("$@")
count() { local n=0 w; for w in "${words[@]}"; do [ "$w" = "$1" ] && n=$((n + 1)); done; echo "$n"; }
value() { local i; for ((i = 0; i < ${#words[@]} - 1; i++)); do [ "${words[$i]}" = "$1" ] && { echo "${words[$((i + 1))]}"; return; }; done; }
expect_eq "$(count --tensor-model-parallel-size)" "1"
expect_eq "$(value --tensor-model-parallel-size)" "2"
expect_eq "$(value --num-layers)" "32"
expect_eq "$(value --ffn-hidden-size)" "14336"
expect_eq "$(value --data-path)" "/data/llama"
expect_eq "$(value --lr)" "3e-4"
# The same flags as `convert --to megatron-args`, one function for both.
"$LAUNCHGUARD" --json convert job.toml --to megatron-args > convert.json
n=$(jq '.words | length' convert.json)
expect_eq "${words[*]:1:$n}" "$(jq -r '.words | join(" ")' convert.json)"

"$LAUNCHGUARD" estimate --json job.toml > toml.json
"$LAUNCHGUARD" estimate --json --gpu h100-80gb -- python "$@" > argv.json
expect_eq "$(jq .peak_bytes argv.json)" "$(jq .peak_bytes toml.json)"
expect_eq "$(jq .parameters.total argv.json)" "$(jq .parameters.total toml.json)"

# A Bridge job with nothing to run: refused, with the fix.
set +e
"$LAUNCHGUARD" render --bridge-config "$ex/bridge/llama3-70b-sft.yaml" --gpu h100-80gb --nodes 4 > /dev/null 2> bridge.err
rc=$?
set -e
expect_eq "$rc" "2"
expect_contains bridge.err "launch.command is empty"
