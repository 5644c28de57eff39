#!/usr/bin/env bash
# check: CPU offloading with PP > 1 is an error (exit 1) quoting Megatron's
# own ValueError and pointing at the job file's line.
. "$(dirname "$0")/lib.sh"

job="$LG_SOURCE_DIR/examples/broken-cpu-offload-pp.toml"
set +e
"$LAUNCHGUARD" check --color never "$job" > out.txt 2> err.txt
rc=$?
set -e
expect_eq "$rc" "1"
expect_contains out.txt "Currently there is no support for Pipeline parallelism with CPU offloading"
grep -Eq "broken-cpu-offload-pp.toml:[0-9]+:[0-9]+: error:" out.txt || { cat out.txt >&2; exit 1; }
