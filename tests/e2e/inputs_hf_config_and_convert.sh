#!/usr/bin/env bash
# A Hugging Face config.json (Meta-Llama-3-8B's published dimensions, written
# here; no download) gives the estimate of the llama3-8b preset, from
# --hf-config and from [model] hf_config; malformed JSON is a located error
# (exit 2). `convert` writes the 70B example as TOML, Bridge overrides and
# Megatron-LM flags, and each reads back to the same estimate.
. "$(dirname "$0")/lib.sh"

ex=$LG_SOURCE_DIR/examples
write_llama3_hf_config 8B Meta-Llama-3-8B
printf '[model]\npreset = "llama3-8b"\nseq_length = 4096\n' > preset.toml
printf '[model]\nhf_config = "Meta-Llama-3-8B"\nseq_length = 4096\n' > hf.toml
"$LAUNCHGUARD" estimate --json preset.toml > preset.json
"$LAUNCHGUARD" estimate --json hf.toml > hf.json
"$LAUNCHGUARD" estimate --json --hf-config Meta-Llama-3-8B/config.json > flag.json
for f in hf.json flag.json; do
    expect_eq "$(jq .peak_bytes "$f")" "$(jq .peak_bytes preset.json)"
    expect_eq "$(jq .parameters.total "$f")" "$(jq .parameters.total preset.json)"
done

# Malformed JSON: file:line:column, exit 2, no crash.
printf '{\n  "hidden_size": 4096,\n  "num_hidden_layers": 32\n  "vocab_size": 1\n}\n' > bad.json
set +e
"$LAUNCHGUARD" check --hf-config bad.json 2> bad.err
rc=$?
set -e
expect_eq "$rc" "2"
expect_contains bad.err "bad.json:4:14: invalid JSON: syntax error while parsing object"

# convert: each form reads back to the same estimate as the TOML example.
"$LAUNCHGUARD" check --json "$ex/llama3-70b-sft-h100.toml" > toml.json
"$LAUNCHGUARD" convert "$ex/llama3-70b-sft-h100.toml" --to toml > converted.toml
"$LAUNCHGUARD" check --json converted.toml > converted.json
expect_eq "$(jq -c '[.ok, .estimate.peak_bytes, [.findings[].rule]]' converted.json)" \
          "$(jq -c '[.ok, .estimate.peak_bytes, [.findings[].rule]]' toml.json)"
"$LAUNCHGUARD" convert converted.toml --to toml > again.toml
diff <(tail -n +2 converted.toml) <(tail -n +2 again.toml)

mapfile -t overrides < <("$LAUNCHGUARD" --json convert "$ex/llama3-70b-sft-h100.toml" --to bridge-overrides | jq -r '.words[]')
flags=()
for o in "${overrides[@]}"; do flags+=(--bridge-override "$o"); done
"$LAUNCHGUARD" check --json "$ex/bridge/llama3-70b-site.toml" "${flags[@]}" > overrides.json
expect_eq "$(jq -c '[.ok, .estimate.peak_bytes, [.findings[].rule]]' overrides.json)" \
          "$(jq -c '[.ok, .estimate.peak_bytes, [.findings[].rule]]' toml.json)"

mapfile -t margs < <("$LAUNCHGUARD" --json convert "$ex/llama3-70b-sft-h100.toml" --to megatron-args | jq -r '.words[]')
"$LAUNCHGUARD" estimate --json --gpu h100-80gb --nodes 4 -- python pretrain_gpt.py "${margs[@]}" > megatron.json
expect_eq "$(jq .peak_bytes megatron.json)" "$(jq .estimate.peak_bytes toml.json)"
