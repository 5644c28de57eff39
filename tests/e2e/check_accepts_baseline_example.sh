#!/usr/bin/env bash
# check: the Megatron Bridge memory-tuning guide's Llama3-70B baseline passes preflight, and its
# --json output carries the verdict and a per-stage estimate.
. "$(dirname "$0")/lib.sh"

"$LAUNCHGUARD" check --json "$LG_SOURCE_DIR/examples/llama3-70b-sft-h100.toml" > out.json
expect_eq "$(jq -r .ok out.json)" "true"
expect_eq "$(jq -r '.estimate.stages | length' out.json)" "4"
expect_eq "$(jq -r '.estimate.capacity_bytes > 80000000000' out.json)" "true"
verdict=$(jq -r .estimate.verdict out.json)
[ "$verdict" = fits ] || [ "$verdict" = borderline ] || { echo "unexpected verdict $verdict" >&2; exit 1; }
