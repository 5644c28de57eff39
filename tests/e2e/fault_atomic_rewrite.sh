#!/usr/bin/env bash
# Fault test: `audit --fix` and `render -o` replace a file atomically
# (util/atomic_file). SIGKILL just before the rename leaves the original
# whole; a full disk leaves it whole and says why (exit 3); mode bits and
# symlinks survive a successful rewrite; a rendered script holding a secret
# from [env] is 0600 (so is a job file `tune --write-job` writes with it)
# and `check` warns about it. No Slurm needed.
. "$(dirname "$0")/lib.sh"

cat > train.sh <<'SCRIPT'
#!/bin/bash
#SBATCH -N 1
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=1
NCCL_DEBUG=WARN
srun torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 \
  --num-layers 8 --hidden-size 1024 --num-attention-heads 16 --micro-batch-size 1 --global-batch-size 8
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
SCRIPT
cp train.sh original.sh
chmod 0750 train.sh

# Killed between writing the temporary and the rename: the target is untouched.
set +e
LG_FAULT_KILL_AFTER=atomic_write_before_rename "$LAUNCHGUARD" audit --fix train.sh > /dev/null 2>&1
rc=$?
set -e
expect_eq "$rc" "137"
cmp train.sh original.sh

# A successful rewrite keeps the mode bits and, through a symlink, the link.
mkdir real && mv train.sh real/train.sh && ln -s real/train.sh train.sh
"$LAUNCHGUARD" audit train.sh --fix > /dev/null || true
[ -L train.sh ]
expect_eq "$(stat -c %a real/train.sh)" "750"
grep -q '^export NCCL_DEBUG=WARN' real/train.sh
expect_eq "$(ls -A real | wc -l)" "1"

# render -o through a symlink: the link stays, its target gets the script.
: > rendered.real && chmod 0640 rendered.real && ln -s rendered.real rendered.sbatch
"$LAUNCHGUARD" render "$LG_SOURCE_DIR/examples/qwen3-8b-lora-tp2.toml" -o rendered.sbatch --force 2> /dev/null
[ -L rendered.sbatch ]
grep -q '^#SBATCH' rendered.real
expect_eq "$(stat -c %a rendered.real)" "640"

# A job whose [env] holds a credential: check warns, render -o writes 0600.
cp "$LG_SOURCE_DIR/examples/qwen3-8b-lora-tp2.toml" secret.toml
if grep -q '^\[env\]' secret.toml; then
    sed -i '/^\[env\]/a HF_TOKEN = "hf_abcdefghijklmnopqrstuvwxyz0123456789"' secret.toml
else
    printf '\n[env]\nHF_TOKEN = "hf_abcdefghijklmnopqrstuvwxyz0123456789"\n' >> secret.toml
fi
"$LAUNCHGUARD" check secret.toml > check.out 2>&1 || true
expect_contains check.out "env.secret_in_job"
"$LAUNCHGUARD" render secret.toml -o secret.sbatch --force 2> /dev/null
expect_eq "$(stat -c %a secret.sbatch)" "600"
# tune --write-job carries the [env] into the job file it writes: 0600 too,
# also over an existing file's mode (--force).
umask 022
"$LAUNCHGUARD" tune secret.toml --top 1 --write-job best-secret.toml > /dev/null
grep -q 'hf_abcdefghijklmnopqrstuvwxyz0123456789' best-secret.toml
expect_eq "$(stat -c %a best-secret.toml)" "600"
: > existing.toml; chmod 644 existing.toml
"$LAUNCHGUARD" tune secret.toml --top 1 --write-job existing.toml --force > /dev/null
expect_eq "$(stat -c %a existing.toml)" "600"

# A full disk: exit 3, the reason, the original whole, no temporary left.
mkdir -p small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
    trap 'umount "$work/small" 2>/dev/null || true; rm -rf "$work"' EXIT
    cp original.sh small/train.sh
    dd if=/dev/zero of=small/filler bs=4k 2>/dev/null || true
    set +e
    "$LAUNCHGUARD" audit --fix small/train.sh > /dev/null 2> fix.err
    rc=$?
    set -e
    expect_eq "$rc" "3"
    expect_contains fix.err "No space left on device"
    expect_contains fix.err "file system is full"
    cmp small/train.sh original.sh
    expect_eq "$(ls -A small | wc -l)" "2"
else
    echo "note: cannot mount a small tmpfs here; full-disk case not run"
fi
echo "PASS $test_name"
