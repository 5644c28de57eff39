#!/usr/bin/env bash
# check: a typo in a key is an input error (exit 2) with file:line:column
# and a did-you-mean hint; a missing file and an unknown command are too.
. "$(dirname "$0")/lib.sh"

cat > job.toml <<'TOML'
[model]
preset = "llama3-8b"
[parallelism]
tp = 2
ppp = 4
TOML
set +e
"$LAUNCHGUARD" check job.toml > out.txt 2> err.txt
rc=$?
set -e
expect_eq "$rc" "2"
expect_contains err.txt "launchguard: error: job.toml:5:1: unknown key 'ppp' in [parallelism]"
expect_contains err.txt "hint: did you mean 'pp'?"

set +e
"$LAUNCHGUARD" check no-such-file.toml 2> err.txt
rc=$?
"$LAUNCHGUARD" chekc job.toml 2> err2.txt
rc2=$?
set -e
expect_eq "$rc" "2"
expect_contains err.txt "cannot read job file 'no-such-file.toml'"
expect_eq "$rc2" "2"
expect_contains err2.txt "did you mean 'check'?"
