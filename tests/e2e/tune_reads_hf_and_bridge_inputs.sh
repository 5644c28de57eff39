#!/usr/bin/env bash
# tune reads the job as check does: --hf-config (Meta-Llama-3-8B's published dimensions, written
# here; no download) gives the same search as the llama3-8b preset; --bridge-override and
# --bridge-config layer on it or on a job file, and what they set is kept (TP stays at the
# override's / the YAML's value); --hf-config alone needs --gpu and --gpus (exit 2).
# Small searches (8 GPUs, CP kept at 1 by an override, the YAML's with three dimensions free):
# what is asserted is how the inputs compose, not the ranking.
. "$(dirname "$0")/lib.sh"

ex=$LG_SOURCE_DIR/examples
write_llama3_hf_config 8B Meta-Llama-3-8B
problem=(--gpu h100-80gb --gpus 8 --seq 4096 --gbs 32 --top 3 --bridge-override model.context_parallel_size=1)
"$LAUNCHGUARD" --json tune --model llama3-8b "${problem[@]}" > preset.json
"$LAUNCHGUARD" --json tune --hf-config Meta-Llama-3-8B "${problem[@]}" > hf.json
summary() { jq -S '{searched, pruned_by_rules, pruned_by_memory, survivors,
                    top: [.candidates[] | {layout, peak_bytes, tflops: .throughput.tflops_per_gpu}]}' "$1"; }
diff -u <(summary preset.json) <(summary hf.json)
expect_eq "$(jq '.survivors > 0' hf.json)" "true"
expect_eq "$(jq '[.candidates[], .pareto[] | .layout.cp] | unique' -c hf.json)" "[1]"

# A second Bridge override on the generated job: TP is kept at 8 too, the rest searched.
"$LAUNCHGUARD" --json tune --hf-config Meta-Llama-3-8B "${problem[@]}" \
    --bridge-override model.tensor_model_parallel_size=8 > tp8.json
expect_eq "$(jq '.survivors > 0' tp8.json)" "true"
expect_eq "$(jq '[.candidates[], .pareto[] | .layout.tp] | unique' -c tp8.json)" "[8]"

# The Bridge YAML on the site file (the 70B example's layout: TP 4, PP 4, VPP 5): PP and MBS free.
"$LAUNCHGUARD" --json tune "$ex/bridge/llama3-70b-site.toml" --bridge-config "$ex/bridge/llama3-70b-sft.yaml" \
    --free pp,vpp,mbs > yaml.json
expect_eq "$(jq '.survivors > 0' yaml.json)" "true"
expect_eq "$(jq '[.candidates[] | .layout.tp] | unique' -c yaml.json)" "[4]"
# The YAML alone says the model too; --gpu/--nodes the cluster.
"$LAUNCHGUARD" --json tune --bridge-config "$ex/bridge/llama3-70b-sft.yaml" --gpu h100-80gb --nodes 4 \
    --free pp,vpp,mbs > yaml-alone.json
expect_eq "$(jq '[.candidates[] | .layout.tp] | unique' -c yaml-alone.json)" "[4]"

set +e
"$LAUNCHGUARD" tune --hf-config Meta-Llama-3-70B 2> missing.err
rc=$?
set -e
expect_eq "$rc" "2"
expect_contains missing.err "tune: --hf-config needs --gpu and --gpus"
