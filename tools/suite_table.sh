#!/bin/sh
# Print the per-suite time table of `make test` from the file suite_time.sh writes.
# Usage: tools/suite_table.sh TIMES_FILE
# When TIMES_FILE.start holds the epoch second `make test` began, the table
# also gives the wall time, which is less than the suites' sum because the
# single-threaded suites run two at a time.
set -eu
start=
[ -r "$1.start" ] && start=$(cat "$1.start")
awk -v start="$start" -v now="$(date +%s)" '
    { t[NR] = $1; s[NR] = $2; ok[NR] = ($3 == 0) ? "ok" : "FAILED"; sum += $2 }
    END {
        printf "\n%-22s %9s  %s\n", "suite", "seconds", "result"
        for (i = 1; i <= NR; i++)
            printf "%-22s %9.1f  %s\n", t[i], s[i], ok[i]
        printf "%-22s %9.1f\n", "sum of suites", sum
        if (start != "")
            printf "%-22s %9.1f\n", "wall", now - start
    }' "$1"
