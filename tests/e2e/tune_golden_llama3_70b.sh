#!/usr/bin/env bash
# tune on the memory-tuning guide's Llama3-70B example (32 x H100, the job's other settings kept,
# TP/PP/VPP/MBS/recompute free): the text table and --json, byte for byte against
# tests/golden/tune/ (LG_UPDATE_GOLDEN=1 rewrites them; review the diff). Then --write-job writes
# the best layout as a job file that `check` passes, and the JSON's shape holds.
. "$(dirname "$0")/lib.sh"

golden="$LG_SOURCE_DIR/tests/golden/tune"
job="$LG_SOURCE_DIR/examples/llama3-70b-sft-h100.toml"
free="tp,pp,vpp,mbs,recompute"
"$LAUNCHGUARD" --color never tune "$job" --free "$free" > tune.txt
"$LAUNCHGUARD" --json tune "$job" --free "$free" --top 3 > tune.json
if [ "${LG_UPDATE_GOLDEN:-}" = 1 ]; then
    cp tune.txt "$golden/llama3-70b-sft-h100.txt"
    jq -S . tune.json > "$golden/llama3-70b-sft-h100.json"
fi
diff -u "$golden/llama3-70b-sft-h100.txt" tune.txt
diff -u "$golden/llama3-70b-sft-h100.json" <(jq -S . tune.json)
expect_eq "$(jq -r '.searched == .pruned_by_rules + .pruned_by_memory + .survivors' tune.json)" "true"
expect_eq "$(jq -r '.candidates[0].rank' tune.json)" "1"
expect_eq "$(jq -r '.candidates[0].layout | has("tp") and has("etp") and has("cpu_offloading_layers")' tune.json)" "true"
# Best first but for ties within the model's 6% resolution (docs/tune.md, "Ranking"): no
# candidate ranks below one more than 6% slower, and rank 1 is within 6% of the best.
expect_eq "$(jq -r '[.candidates[].relative] | . as $r | [range(1; length) | select($r[.] * 0.94 > ($r[:.] | min))] | length' tune.json)" "0"
expect_eq "$(jq -r '.candidates[0].relative >= 0.94' tune.json)" "true"
expect_eq "$(jq -r '.candidates[0].band_bytes >= .candidates[0].peak_bytes' tune.json)" "true"
"$LAUNCHGUARD" tune "$job" --free "$free" --write-job best.toml > /dev/null
"$LAUNCHGUARD" check best.toml > check.txt || { cat check.txt >&2; exit 1; }
tp=$(jq -r '.candidates[0].layout.tp' tune.json)
grep -q "^tp = $tp\$" best.toml
# refuses to overwrite without --force
if "$LAUNCHGUARD" tune "$job" --free "$free" --write-job best.toml 2> err.txt; then
    echo "overwrote without --force" >&2; exit 1
fi
grep -q -- "--force" err.txt
