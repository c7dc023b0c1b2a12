#!/bin/sh
# The determinism contract across builds (docs/ARCHITECTURE.md section 7):
# the default scenario's final state hash is the same for every build and
# worker count. Runs each host program with 0 and 2 workers for SECONDS
# simulated seconds (60 s = 1200 ticks, 60 xenon SLOW merges per unit) and
# compares every hash with the first build's 0-worker run.
# Usage: tools/determinism.sh SECONDS NAME=BINARY [NAME=BINARY ...]
# Exits 1 naming each build and worker count whose hash differs, 2 on a run
# that fails or prints no hash.
set -u
[ $# -ge 2 ] || { echo "usage: $0 SECONDS NAME=BINARY..." >&2; exit 2; }
seconds=$1
shift
ref="" ref_name="" fail=0
for spec in "$@"; do
    name=${spec%%=*} bin=${spec#*=}
    for workers in 0 2; do
        out=$("$bin" run --quiet --readers 0 --seconds "$seconds" --workers "$workers" 2>&1)
        rc=$?
        hash=$(printf '%s\n' "$out" | sed -n 's/.*final state hash \([0-9a-f]*\).*/\1/p' | head -n 1)
        if [ $rc -ne 0 ] || [ -z "$hash" ]; then
            echo "determinism: $name workers $workers: run failed (status $rc), no hash:" >&2
            printf '%s\n' "$out" | tail -n 5 >&2
            exit 2
        fi
        if [ -z "$ref" ]; then
            ref=$hash ref_name="$name workers $workers"
        fi
        if [ "$hash" = "$ref" ]; then
            echo "determinism: $name workers $workers: $hash"
        else
            echo "determinism: $name workers $workers: hash $hash differs from $ref_name: $ref" >&2
            fail=1
        fi
    done
done
[ $fail -eq 0 ] && echo "determinism: $# builds x 2 worker counts agree after $seconds s"
exit $fail
