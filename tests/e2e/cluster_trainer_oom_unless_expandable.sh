#!/usr/bin/env bash
# cluster: the demo trainer mode. Without expandable_segments the failing
# rank prints a fragmentation OOM and the job FAILs; with
# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True the same job COMPLETEs.
. "$(dirname "$0")/lib.sh"
require_slurm

write_job() { # write_job NAME ALLOC_CONF
    cat >"$1.sbatch" <<SCRIPT
#!/bin/bash
#SBATCH --job-name=e2e-$1
#SBATCH --nodes=1
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:05:00
#SBATCH --output=$1-%j.out
export PYTORCH_CUDA_ALLOC_CONF=$2
srun --output=$1-rank-%t.out --error=$1-rank-%t.err \
    "$fake_trainer" --fail oom-unless-expandable --fail-rank 1 --interval 0.01
SCRIPT
}
write_job plain ""
write_job expandable "expandable_segments:True"

plain_job=$(sbatch --parsable plain.sbatch)
expandable_job=$(sbatch --parsable expandable.sbatch)

expect_eq "$(wait_for_end "$plain_job" 120)" FAILED
expect_contains plain-rank-1.err "torch.OutOfMemoryError: CUDA out of memory."
expect_contains plain-rank-1.err "is reserved by PyTorch but unallocated"

expect_eq "$(wait_for_end "$expandable_job" 120)" COMPLETED
expect_contains expandable-rank-1.out "iteration       10/      10 |"
