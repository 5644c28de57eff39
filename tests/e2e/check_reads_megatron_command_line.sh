#!/usr/bin/env bash
# check: a Megatron-LM command line after `--` is judged like a job file;
# a world size that the parallelism does not divide is an error.
. "$(dirname "$0")/lib.sh"

args=(python pretrain_gpt.py --num-layers 32 --hidden-size 4096 --num-attention-heads 32
      --group-query-attention --num-query-groups 8 --swiglu --seq-length 4096
      --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 64 --bf16
      --tensor-model-parallel-size 4 --pipeline-model-parallel-size 2 --vocab-size 128256
      --use-distributed-optimizer --sequence-parallel --disable-bias-linear
      --normalization RMSNorm --untie-embeddings-and-output-weights)
"$LAUNCHGUARD" check --json --gpu h100-80gb --nodes 2 -- "${args[@]}" > ok.json
expect_eq "$(jq -r .ok ok.json)" "true"

set +e
"$LAUNCHGUARD" check --json --gpu h100-80gb --nodes 1 --gpus-per-node 6 -- "${args[@]}" > bad.json
rc=$?
set -e
expect_eq "$rc" "1"
expect_eq "$(jq -r '[.findings[] | select(.severity == "error")] | length > 0' bad.json)" "true"
