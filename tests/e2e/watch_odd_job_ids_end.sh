#!/usr/bin/env bash
# watch JOB_ID on ids Slurm does not report exactly, on the real cluster:
# an id Slurm never knew ends as VANISHED after --vanish-after (it used to
# poll forever), "0<id>" is job <id>, and a pending heterogeneous job (squeue
# lists only its components "<id>+0", "<id>+1") is PENDING, not vanished,
# until both components end. The three cases run at once.
. "$(dirname "$0")/lib.sh"
require_slurm

odd_id_case() {
    local rc id  # het is global: the EXIT trap reads it after the function returns
    case $1 in
    unknown)
        set +e
        timeout 60 "$LAUNCHGUARD" watch 99999999 --vanish-after 2 --poll-interval 1 --json > unknown.json 2> unknown.err
        rc=$?
        set -e
        expect_eq "$rc" "1"
        expect_eq "$(jq -r .state unknown.json)" "VANISHED"
        expect_contains unknown.err "it vanished"
        ;;
    zeros)
        id=$(sbatch --parsable --account=research --mem=10M --output=/dev/null --wrap "sleep 1" | cut -d';' -f1)
        timeout 120 "$LAUNCHGUARD" watch "0$id" --vanish-after 5 --poll-interval 1 --json > zeros.json
        expect_eq "$(jq -r .state zeros.json)" "COMPLETED"
        expect_eq "$(jq -r .job_id zeros.json)" "0$id"
        ;;
    hetjob)
        cat > het.sh <<'SH'
#!/bin/bash
#SBATCH --account=research --mem=10M --output=/dev/null
#SBATCH hetjob
#SBATCH --mem=10M
sleep 1
SH
        het=$(sbatch --parsable --hold het.sh | cut -d';' -f1)
        trap 'scancel "$het" 2>/dev/null || true' EXIT
        set +e
        timeout 8 "$LAUNCHGUARD" watch "$het" --vanish-after 2 --poll-interval 1 > held.out 2> held.err
        rc=$?
        set -e
        expect_eq "$rc" "124"  # still watching: held, not vanished
        expect_contains held.err "job $het PENDING"
        if grep -q vanished held.err; then echo "a pending hetjob was called vanished" >&2; exit 1; fi
        scontrol release "$het"
        timeout 120 "$LAUNCHGUARD" watch "$het" "$het+1" --vanish-after 30 --poll-interval 1 --json > het.json
        expect_eq "$(jq -r '.jobs[0].state' het.json)" "COMPLETED"
        expect_eq "$(jq -r '.jobs[1].state' het.json)" "COMPLETED"
        ;;
    esac
    echo "$1: ok"
}
each_in_parallel odd_id_case hetjob zeros unknown
