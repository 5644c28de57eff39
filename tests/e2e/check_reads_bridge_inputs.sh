#!/usr/bin/env bash
# check: the 70B SFT example written as Megatron Bridge recipe overrides (the
# key=value words of `run_recipe.py --recipe … model.tensor_model_parallel_size=4`,
# run_recipe.py's own form) and as --bridge-override words gives the same
# verdict and findings as the TOML job; bad overrides are located errors, exit 2.
. "$(dirname "$0")/lib.sh"

ex=$LG_SOURCE_DIR/examples
strip_locations() { sed -E 's/^[^:]*(:[0-9]+)*: (error|warning|advice):/\2:/'; }

# The reference: the site file plus, as TOML keys, exactly the settings the
# Bridge forms below carry. (examples/llama3-70b-sft-h100.toml mirrors the
# full fp8-cs performance recipe: CUDA graphs, TE cross-entropy, deferred
# wgrad …, which these few overrides do not set.)
{
    sed -n '1,/^preset = /p' "$ex/bridge/llama3-70b-site.toml"
    cat <<'TOML'
seq_length = 4096

[parallelism]
tp = 4
pp = 4
vpp = 5
sequence_parallel = true

[training]
micro_batch_size = 1
global_batch_size = 32
precision = "fp8-cs"
recompute = { granularity = "selective", modules = ["core_attn"] }
distributed_optimizer = true
optimizer = { name = "adam", grad_dtype = "bf16" }
TOML
    sed -n '/^preset = /,$p' "$ex/bridge/llama3-70b-site.toml" | tail -n +2
} > reference.toml
"$LAUNCHGUARD" check reference.toml | strip_locations > toml.out

overrides=(model.seq_length=4096 model.tensor_model_parallel_size=4 model.pipeline_model_parallel_size=4
           model.virtual_pipeline_model_parallel_size=5 model.sequence_parallel=true
           train.micro_batch_size=1 train.global_batch_size=32
           mixed_precision=bf16_with_fp8_current_scaling_mixed
           model.recompute_granularity=selective "model.recompute_modules=[core_attn]"
           ddp.grad_reduce_in_fp32=false ddp.use_distributed_optimizer=true)

"$LAUNCHGUARD" check "$ex/bridge/llama3-70b-site.toml" -- \
    python scripts/training/run_recipe.py --recipe llama3_70b_sft "${overrides[@]}" | strip_locations > recipe.out
expect_eq "$(cat recipe.out)" "$(cat toml.out)"

flags=()
for o in "${overrides[@]}"; do flags+=(--bridge-override "$o"); done
"$LAUNCHGUARD" check "$ex/bridge/llama3-70b-site.toml" "${flags[@]}" | strip_locations > flags.out
expect_eq "$(cat flags.out)" "$(cat toml.out)"

# run_recipe.py's convenience flags (-tp, -gb, -sl …) are the same fields.
"$LAUNCHGUARD" check --json "$ex/bridge/llama3-70b-site.toml" -- python run_recipe.py --recipe llama3_70b_sft \
    -tp 4 -pp 4 -vp 5 -sl 4096 -mb 1 -gb 32 model.sequence_parallel=true \
    mixed_precision=bf16_with_fp8_current_scaling_mixed model.recompute_granularity=selective \
    ddp.grad_reduce_in_fp32=false > short.json
"$LAUNCHGUARD" check --json reference.toml > toml.json
expect_eq "$(jq .estimate.peak_bytes short.json)" "$(jq .estimate.peak_bytes toml.json)"

# A typo is a located error with a did-you-mean, exit 2.
set +e
"$LAUNCHGUARD" check "$ex/bridge/llama3-70b-site.toml" -- python run_recipe.py --recipe llama3_70b_sft \
    model.tensor_model_paralel_size=4 2> typo.err
rc=$?
set -e
expect_eq "$rc" "2"
grep -q "command line:1:5: unknown key model.tensor_model_paralel_size" typo.err
grep -q "did you mean 'model.tensor_model_parallel_size'" typo.err

# A recipe name alone: the error says which file to give.
set +e
"$LAUNCHGUARD" check --gpu h100-80gb -- python run_recipe.py --recipe llama3_70b_sft 2> alone.err
rc=$?
set -e
expect_eq "$rc" "2"
grep -q -- "--bridge-config" alone.err

# The same job as the ConfigContainer YAML a Bridge run writes.
"$LAUNCHGUARD" check "$ex/bridge/llama3-70b-site.toml" --bridge-config "$ex/bridge/llama3-70b-sft.yaml" \
    | strip_locations > yaml.out
expect_eq "$(cat yaml.out)" "$(cat toml.out)"

# A YAML syntax error is located (yaml-cpp's mark), exit 2.
printf 'model:\n  num_layers: 4\n   hidden_size: [1\n' > broken.yaml
set +e
"$LAUNCHGUARD" check --gpu h100-80gb --bridge-config broken.yaml 2> broken.err
rc=$?
set -e
expect_eq "$rc" "2"
grep -q "broken.yaml:3:[0-9]*: invalid YAML" broken.err

# A YAML key typo is located at its line with a did-you-mean.
printf 'train:\n  global_batch_sise: 8\n' > typo.yaml
set +e
"$LAUNCHGUARD" check "$ex/bridge/llama3-70b-site.toml" --bridge-config typo.yaml 2> ytypo.err
rc=$?
set -e
expect_eq "$rc" "2"
grep -q "typo.yaml:2:3: unknown key train.global_batch_sise" ytypo.err
grep -q "did you mean 'train.global_batch_size'" ytypo.err
