#!/bin/sh
# The determinism contract across builds (docs/ARCHITECTURE.md section 7):
# a scenario's final state hash is the same for every build and worker
# count, with the parallel unit stage off and on. Runs each host program
# with 0 and 2 workers, then again with --parallel-units (engine/par_stage.c),
# for SECONDS simulated seconds and compares every hash with the first
# build's 0-worker run. A build's 0- and 2-worker runs go side by side (2
# cores; the contract holds whatever the timing, so the load of the other
# run is no harm).
# Usage: tools/determinism.sh [--scenario FILE] SECONDS NAME=BINARY [NAME=BINARY ...]
#   --scenario FILE: run FILE (default: the built-in scenario). make
#   determinism passes the default scenario with its script moved into the
#   first seconds (Makefile, DET_SCENARIO), so a short run applies every
#   scripted command and crosses every slow-job period several times.
# Exits 1 naming each build and worker count whose hash differs, 2 on a run
# that fails or prints no hash.
set -u
scenario=""
if [ "${1:-}" = --scenario ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--scenario FILE] SECONDS NAME=BINARY..." >&2; exit 2; }
    scenario=$2
    shift 2
    [ -f "$scenario" ] || { echo "determinism: scenario $scenario: no such file" >&2; exit 2; }
fi
[ $# -ge 2 ] || { echo "usage: $0 [--scenario FILE] SECONDS NAME=BINARY..." >&2; exit 2; }
seconds=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ref="" ref_name="" fail=0
for spec in "$@"; do
    name=${spec%%=*} bin=${spec#*=}
    for par in "" --parallel-units; do
        "$bin" run ${scenario:+"$scenario"} --quiet --readers 0 --seconds "$seconds" --workers 0 $par > "$tmp/0.out" 2>&1 &
        pid0=$!
        "$bin" run ${scenario:+"$scenario"} --quiet --readers 0 --seconds "$seconds" --workers 2 $par > "$tmp/2.out" 2>&1 &
        pid2=$!
        for workers in 0 2; do
            if [ "$workers" = 0 ]; then wait "$pid0"; else wait "$pid2"; fi
            rc=$?
            out=$(cat "$tmp/$workers.out")
            hash=$(printf '%s\n' "$out" | sed -n 's/.*final state hash \([0-9a-f]*\).*/\1/p' | head -n 1)
            run="$name workers $workers${par:+ $par}"
            if [ $rc -ne 0 ] || [ -z "$hash" ]; then
                echo "determinism: $run: run failed (status $rc), no hash:" >&2
                printf '%s\n' "$out" | tail -n 5 >&2
                wait
                exit 2
            fi
            if [ -z "$ref" ]; then
                ref=$hash ref_name=$run
            fi
            if [ "$hash" = "$ref" ]; then
                echo "determinism: $run: $hash"
            else
                echo "determinism: $run: hash $hash differs from $ref_name: $ref" >&2
                fail=1
            fi
        done
    done
done
[ $fail -eq 0 ] && echo "determinism: $# builds x 2 worker counts x parallel units off and on agree after $seconds s${scenario:+ of $scenario}"
exit $fail
