#!/usr/bin/env bash
# submit: hostile values in the job name, an [env] value and a command
# argument travel through the rendered script, sbatch, srun and the real job
# without executing anything, and arrive byte for byte.
. "$(dirname "$0")/lib.sh"
require_slurm

hostile='$(touch PWNED1)`touch PWNED2`;touch PWNED3 '"'"'"quoted"'"'"' #SBATCH --nodes=9'
# TOML basic strings: escape backslashes and double quotes.
toml_value=$(printf '%s' "$hostile" | sed 's/\\/\\\\/g; s/"/\\"/g')
cat > job.toml <<TOML
[job]
name = "$toml_value"
[model]
num_layers = 2
hidden_size = 256
ffn_hidden_size = 1024
num_attention_heads = 4
vocab_size = 1000
seq_length = 128
[training]
global_batch_size = 1
[cluster]
gpu = "h100-80gb"
nodes = 1
gpus_per_node = 1
[slurm]
partition = "batch"
account = "research"
time = "00:02:00"
mem = "100M"
[launch]
command = ["bash", "-c", "printf '%s' \"\$1\" > arg.txt; printf '%s' \"\$HOSTILE\" > env.txt", "_", "$toml_value"]
output = "out-%j.txt"
[env]
HOSTILE = "$toml_value"
TOML
lg_run submit job.toml --json > out.json 2> err.txt
expect_eq "$(jq -r .outcome out.json)" "succeeded"
expect_eq "$(cat arg.txt)" "$hostile"
expect_eq "$(cat env.txt)" "$hostile"
# Nothing ran: no PWNED file anywhere under the work dir or the state dir.
[ -z "$(find . -name 'PWNED*')" ] || { find . -name 'PWNED*' >&2; exit 1; }
# The directive in the name did not become a directive: one node was used.
job=$(jq -r '.attempts[0].job_id' out.json)
expect_eq "$(sacct -j "$job" -X --parsable2 --noheader --format=NNodes | head -1)" "1"
