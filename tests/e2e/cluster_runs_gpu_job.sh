#!/usr/bin/env bash
# cluster: a 4-node x 8-GPU job runs the fake trainer on 32 ranks under srun,
# ends COMPLETED, and sacct records it with its GPUs and comment.
. "$(dirname "$0")/lib.sh"
require_slurm

cat >job.sbatch <<SCRIPT
#!/bin/bash
#SBATCH --job-name=e2e-gpu
#SBATCH --nodes=4
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=8
#SBATCH --account=research
#SBATCH --time=00:05:00
#SBATCH --output=slurm-%j.out
echo "nodes=\$SLURM_JOB_NUM_NODES gpus=\$SLURM_GPUS_PER_NODE"
srun --output=rank-%t.out --error=rank-%t.err \
    "$fake_trainer" --iterations 5 --interval 0.01
SCRIPT

job_id=$(sbatch --parsable --comment=lg:e2e-gpu:a1 job.sbatch)
state=$(wait_for_end "$job_id" 120)
expect_eq "$state" COMPLETED

expect_contains "slurm-$job_id.out" "nodes=4 gpus=8"
# Megatron prints iterations on the last rank, memory reports on every rank.
expect_contains rank-31.out "iteration        5/       5 |"
expect_contains rank-0.out "[Rank 0] (after 1 iterations) memory (MB) |"
expect_eq "$(ls rank-*.out | wc -l)" 32

sacct -j "$job_id" --parsable2 --noheader \
    --format=JobID,State,NodeList,AllocTRES,Comment >sacct.txt
expect_contains sacct.txt "$job_id|COMPLETED|"
expect_contains sacct.txt "node=4|lg:e2e-gpu:a1"
expect_contains sacct.txt "gres/gpu=32"
expect_contains sacct.txt "lg:e2e-gpu:a1"
expect_contains sacct.txt "$job_id.0|COMPLETED|n[1-4]|"
