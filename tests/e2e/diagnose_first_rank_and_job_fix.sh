#!/usr/bin/env bash
# diagnose: per-rank logs (message formats of PyTorch's CUDACachingAllocator,
# ProcessGroupNCCL's watchdog and NCCL's init lines) name the first failing
# rank and its host, list the other ranks' timeouts as consequences, and with
# --job the capacity-OOM fix is the job's own retry ladder step (never core_attn
# recompute, which check calls useless with fused attention).
. "$(dirname "$0")/lib.sh"

mkdir logs
for rank in 0 1 2 3; do
    echo "gpu-node00$((rank / 2)):100:200 [$((rank % 2))] NCCL INFO comm 0x55 rank $rank nranks 4 cudaDev 0 busId 1000 - Init COMPLETE" > logs/rank$rank.log
done
echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.21 GiB is free. Of the allocated memory 76.12 GiB is allocated by PyTorch, and 0.23 GiB is reserved by PyTorch but unallocated." >> logs/rank2.log
for rank in 0 1 3; do
    echo "[E501 14:31:07.4 ProcessGroupNCCL.cpp:607] [Rank $rank] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out." >> logs/rank$rank.log
done

set +e
"$LAUNCHGUARD" --json diagnose logs/rank3.log logs/rank0.log logs/rank2.log logs/rank1.log > out.json
rc=$?
"$LAUNCHGUARD" --json diagnose logs/rank*.log --job "$LG_SOURCE_DIR/examples/llama3-70b-sft-h100.toml" > job.json
rc_job=$?
set -e
expect_eq "$rc" "1"
expect_eq "$rc_job" "1"
expect_eq "$(jq -r .category out.json)" "cuda_oom_capacity"
expect_eq "$(jq -r .first_failing_rank out.json)" "2"
expect_eq "$(jq -r .host out.json)" "gpu-node001"
expect_eq "$(jq -r '[.consequences[] | select(.category == "nccl_timeout") | .rank] | sort | join(",")' out.json)" "0,1,3"
expect_contains out.json "assumes fused/flash attention"
expect_eq "$(jq -r '.suggested_change // ""' out.json)" ""
suggested=$(jq -r .suggested_change job.json)
[ -n "$suggested" ] && [ "$suggested" != "recompute_core_attn" ] || { cat job.json >&2; exit 1; }
expect_contains job.json "retry ladder"
