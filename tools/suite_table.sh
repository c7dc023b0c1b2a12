#!/bin/sh
# Print the per-suite time table of `make test` from the file suite_time.sh writes.
# Usage: tools/suite_table.sh TIMES_FILE
set -eu
awk '
    { t[NR] = $1; s[NR] = $2; ok[NR] = ($3 == 0) ? "ok" : "FAILED"; sum += $2 }
    END {
        printf "\n%-22s %9s  %s\n", "suite", "seconds", "result"
        for (i = 1; i <= NR; i++)
            printf "%-22s %9.1f  %s\n", t[i], s[i], ok[i]
        printf "%-22s %9.1f\n", "total", sum
    }' "$1"
