#!/usr/bin/env bash
# cluster: a job that allocates more host memory than its --mem is killed by
# Slurm's cgroup OOM handler and sacct says OUT_OF_MEMORY: on the job when the
# batch step itself grows, on the step when an srun task does (the job then
# ends FAILED because srun exits 1).
. "$(dirname "$0")/lib.sh"
require_slurm

cat >batch-oom.sbatch <<SCRIPT
#!/bin/bash
#SBATCH --job-name=e2e-host-oom-batch
#SBATCH --mem=200M
#SBATCH --time=00:05:00
#SBATCH --output=slurm-%j.out
"$fake_trainer" --fail host-oom --fail-at 1 --interval 0 --host-oom-mib 1024
SCRIPT

cat >step-oom.sbatch <<SCRIPT
#!/bin/bash
#SBATCH --job-name=e2e-host-oom-step
#SBATCH --mem=200M
#SBATCH --time=00:05:00
#SBATCH --output=slurm-%j.out
srun "$fake_trainer" --fail host-oom --fail-at 1 --interval 0 --host-oom-mib 1024
SCRIPT

batch_job=$(sbatch --parsable batch-oom.sbatch)
step_job=$(sbatch --parsable step-oom.sbatch)

expect_eq "$(wait_for_end "$batch_job" 120)" OUT_OF_MEMORY
expect_contains "slurm-$batch_job.out" "oom-kill event"

expect_eq "$(wait_for_end "$step_job" 120)" FAILED
sacct -j "$step_job" --parsable2 --noheader --format=JobID,State,ExitCode \
    >sacct.txt
expect_contains sacct.txt "$step_job.0|OUT_OF_MEMORY|"
expect_contains "slurm-$step_job.out" "task 0: Out Of Memory"
expect_contains "slurm-$step_job.out" \
    "Some of your processes may have been killed by the cgroup out-of-memory handler."
if grep -q "was not killed" "slurm-$step_job.out"; then
    echo "the trainer survived its --mem" >&2
    exit 1
fi
