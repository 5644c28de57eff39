#!/usr/bin/env bash
# Every command refuses what it cannot read as a file, with exit 2 and a
# message: a directory ("audit DIR" was exit 0 "clean", "diagnose DIR" "no
# failure"), a FIFO (every command blocked forever), /dev/zero (grew to 4 GB
# and bad_alloc), a symlink loop and a path too long ("internal error", exit 3).
# The terminal never gets an escape sequence from a job value.
. "$(dirname "$0")/lib.sh"

mkdir logs
mkfifo pipe
ln -s loop-b loop-a
ln -s loop-a loop-b
long=$(printf 'x%.0s' $(seq 1 5000))

refused() { # refused WHAT-IN-MESSAGE COMMAND...
    local what=$1
    shift
    set +e
    timeout 20 "$LAUNCHGUARD" "$@" > out.txt 2> err.txt
    local rc=$?
    set -e
    expect_eq "$rc" "2"
    expect_contains err.txt "$what"
}

refused "cannot read script 'logs': it is a directory" audit logs
refused "cannot read log 'logs': it is a directory" diagnose logs
refused "cannot read job file 'logs': it is a directory" check logs
refused "it is a FIFO (named pipe)" check pipe
refused "it is a FIFO (named pipe)" audit pipe
refused "it is a FIFO (named pipe)" diagnose pipe
refused "it is a character device" estimate /dev/zero
refused "it is a character device" audit /dev/zero
refused "is larger than 16.0 MiB" audit - < /dev/zero
refused "a symlink loop" check loop-a
refused "a symlink loop" diagnose loop-a
refused "the path is too long" check "$long"
refused "the path is too long" audit "$long"

# An escape in a job value reaches the terminal escaped (here: an unknown key).
printf '[model]\npreset = "llama3-8b"\n[parallelism]\n"tp\\u001b[2J" = 2\n' > job.toml
refused 'tp\x1b[2J' check job.toml
if grep -q $'\033' err.txt; then
    echo "FAIL: a raw ESC reached the terminal" >&2
    exit 1
fi
