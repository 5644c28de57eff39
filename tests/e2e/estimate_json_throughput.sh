#!/usr/bin/env bash
# estimate --json: the throughput prediction of the memory-tuning guide's Llama3-70B baseline
# (step time, Model TFLOP/s/GPU, tokens/s/GPU and the named costs that sum to the step).
. "$(dirname "$0")/lib.sh"

"$LAUNCHGUARD" estimate --json "$LG_SOURCE_DIR/examples/llama3-70b-sft-h100.toml" > out.json
expect_eq "$(jq -r '.throughput.step_time_s > 0' out.json)" "true"
expect_eq "$(jq -r '.throughput.tflops_per_gpu > 100 and .throughput.tflops_per_gpu < 1979' out.json)" "true"
# tokens/s/GPU = GBS x seq / GPUs / step = 32 x 4096 / 32 / step
expect_eq "$(jq -r '((.throughput.tokens_per_sec_per_gpu * .throughput.step_time_s) - 4096 | fabs) < 8' out.json)" "true"
expect_eq "$(jq -r '((.throughput.costs | add) - .throughput.step_time_s | fabs) < 0.01' out.json)" "true"
"$LAUNCHGUARD" estimate "$LG_SOURCE_DIR/examples/llama3-70b-sft-h100.toml" > out.txt
grep -q '^predicted [0-9]* TFLOP/s/GPU' out.txt || { echo "no throughput line" >&2; exit 1; }
