#!/usr/bin/env bash
# audit: the project's own templates and the scripts it renders for every
# shipped example are clean (no error, no warning): what we generate must pass
# what we preach. (The broken example is left out: its command is a Bridge
# recipe, so the script itself carries nothing audit could object to.)
. "$(dirname "$0")/lib.sh"

mkdir -p logs
"$LAUNCHGUARD" audit --color never "$LG_SOURCE_DIR"/templates/*.mustache > templates.txt
for job in "$LG_SOURCE_DIR"/examples/*.toml; do
    name=$(basename "$job" .toml)
    [ "$name" = broken-cpu-offload-pp ] && continue
    "$LAUNCHGUARD" render "$job" -o "$name.sbatch"
    "$LAUNCHGUARD" audit --json "$name.sbatch" > "$name.json"
    count=$(jq '[.files[].findings[] | select(.severity == "error" or .severity == "warning")] | length' "$name.json")
    if [ "$count" != 0 ]; then
        jq -r '.files[].findings[] | "\(.line): \(.severity): \(.message) [\(.rule)]"' "$name.json" >&2
        echo "rendered $name has $count finding(s)" >&2
        exit 1
    fi
done
