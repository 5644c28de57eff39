#!/usr/bin/env bash
# slurm client: CliClient's sbatch/sacct/squeue/scancel argv against the real
# local cluster (the live cases of tests/unit/slurm/test_cli_client_live.cpp).
. "$(dirname "$0")/lib.sh"
require_slurm
[ -x "${LG_TEST_SLURM:-}" ] || skip "test_slurm not built (LG_TEST_SLURM unset)"

LG_SLURM_LIVE=1 "$LG_TEST_SLURM" --test-case="CliClient (live)*" >out.txt 2>&1 \
    || { cat out.txt >&2; exit 1; }
expect_contains out.txt "Status: SUCCESS!"
expect_contains out.txt "test cases: 2 | 2 passed"
