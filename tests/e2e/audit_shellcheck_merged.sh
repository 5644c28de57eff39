#!/usr/bin/env bash
# audit --shellcheck runs the real shellcheck (Debian package shellcheck,
# installed by scripts/install-deps) and merges its job-breaking codes into
# text, JSON and SARIF: a launch line cut by a missing `\` (SC2215) and a
# `cd` that may fail without set -e (SC2164); its quoting advice (SC2086) is left out.
# Without --shellcheck nothing of it appears; with a PATH that has no
# shellcheck, a warning says it did not run.
. "$(dirname "$0")/lib.sh"

command -v shellcheck >/dev/null || { echo "FAIL $test_name: shellcheck not installed (scripts/install-deps)" >&2; exit 1; }
cat > job.sbatch <<'SCRIPT'
#!/bin/bash
#SBATCH --nodes=1
#SBATCH --signal=TERM@120
set -uo pipefail
cd /scratch/run
srun python pretrain_gpt.py
  --tensor-model-parallel-size 2
echo $SLURM_JOB_ID
SCRIPT

"$LAUNCHGUARD" audit --json job.sbatch > plain.json
[ "$(jq '[.files[].findings[] | select(.rule == "audit.shellcheck")] | length' plain.json)" = 0 ]

"$LAUNCHGUARD" audit --json --shellcheck job.sbatch > merged.json
jq -r '.files[].findings[] | select(.rule == "audit.shellcheck") | "\(.line) \(.message)"' merged.json > codes.txt
cat codes.txt
grep -q '^5 SC2164' codes.txt
grep -q '^7 SC2215' codes.txt
! grep -q 'SC2086' codes.txt

"$LAUNCHGUARD" audit --format sarif --shellcheck job.sbatch > merged.sarif
[ "$(jq '[.runs[0].results[] | select(.ruleId == "audit.shellcheck")] | length' merged.sarif)" = 2 ]
jq -e '.runs[0].tool.driver.rules[] | select(.id == "audit.shellcheck")' merged.sarif >/dev/null

"$LAUNCHGUARD" audit --color never --shellcheck job.sbatch > merged.txt || true
grep -q 'job.sbatch:7: warning: SC2215' merged.txt

# No shellcheck on PATH: said, not silently skipped.
mkdir bin
for tool in bash; do ln -s "$(command -v $tool)" bin/$tool; done
PATH=$PWD/bin "$LAUNCHGUARD" audit --json --shellcheck job.sbatch > missing.json || true
jq -e '.files[].findings[] | select(.rule == "audit.shellcheck" and (.message | startswith("shellcheck did not run")))' missing.json >/dev/null
echo "PASS $test_name"
