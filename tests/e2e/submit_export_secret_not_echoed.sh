#!/usr/bin/env bash
# submit with a credential passed to sbatch's --export (the way `check`'s
# env.secret_in_job hint offers, instead of writing it into the script): the
# --dry-run echo, text and --json, shows the sbatch words quoted and the
# secret value replaced; the other words are kept byte for byte. No Slurm
# needed (a dry run submits nothing).
. "$(dirname "$0")/lib.sh"

token=hf_abcdefghijklmnopqrstuvwxyz0123456789
job="$LG_SOURCE_DIR/examples/qwen3-8b-lora-tp2.toml"
"$LAUNCHGUARD" --color never submit "$job" --dry-run --state-dir state \
    -- "--export=ALL,HF_TOKEN=$token,WANDB_MODE=offline" "--comment=two words" > dry.txt
expect_contains dry.txt "'--export=ALL,HF_TOKEN=<secret, not shown>,WANDB_MODE=offline' '--comment=two words'"
if grep -q "$token" dry.txt; then echo "the token was echoed" >&2; exit 1; fi
"$LAUNCHGUARD" --json submit "$job" --dry-run --state-dir state -- "--export=ALL,HF_TOKEN=$token" > dry.json
expect_eq "$(jq -r '.sbatch[3]' dry.json)" "--export=ALL,HF_TOKEN=<secret, not shown>"
if grep -q "$token" dry.json; then echo "the token was echoed in --json" >&2; exit 1; fi
