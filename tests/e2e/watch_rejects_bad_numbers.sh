#!/usr/bin/env bash
# Number options of watch and submit are range-checked before anything asks
# Slurm (no cluster needed): nan, inf, 1e308 and 0.0001 used to be accepted
# (140 Slurm calls in 10 s from one watcher with 0.0001). Exit 2, the option,
# the range and the value in the message.
. "$(dirname "$0")/lib.sh"
export PATH="$fake_slurm_bin:$PATH"
export LG_FAKE_SLURM_LOG="$work/calls.log"

check_refused() { # $1: expected message piece, rest: arguments
    local want=$1 rc
    shift
    set +e
    timeout 20 "$LAUNCHGUARD" "$@" --state-dir "$work/state" > out.txt 2> err.txt
    rc=$?
    set -e
    expect_eq "$rc" "2"
    expect_contains err.txt "$want"
}
for value in nan inf 1e308 0.0001 0 -5; do
    check_refused "--poll-interval must be between 1 and 3600 seconds, got" watch 123 --poll-interval "$value"
done
check_refused "--poll-max must be between 5 and 3600 seconds, got 1000000000" watch 123 --poll-max 1e9
check_refused "--poll-max must be between 10 and 3600 seconds, got 2" watch 123 --poll-interval 10 --poll-max 2
check_refused "--vanish-after must be between 1 and 604800 seconds, got nan" watch 123 --vanish-after nan
NAME=e2e-numbers write_job
check_refused "--poll-interval must be between" submit job.toml --poll-interval nan
check_refused "--retry must be between 0 and 50" submit job.toml --retry 1000
# Nothing reached Slurm.
[ ! -s calls.log ] || { echo "Slurm was called:"; cat calls.log; exit 1; } >&2
