#!/bin/sh
# Run one suite of `make test` and record how long it took.
# Usage: tools/suite_time.sh TIMES_FILE NAME COMMAND...
# Appends "NAME SECONDS STATUS" to TIMES_FILE and exits with the command's
# status, so make stops at the first failing suite as before.
set -u
times=$1 name=$2
shift 2
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
printf '%s %s %s\n' "$name" "$(awk "BEGIN { printf \"%.1f\", $end - $start }")" "$rc" >> "$times"
# A failing suite stops make: show the table of what ran so far.
[ "$rc" -eq 0 ] || "$(dirname "$0")/suite_table.sh" "$times"
exit "$rc"
