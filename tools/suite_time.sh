#!/bin/sh
# Run one suite of `make test` and record how long it took.
# Usage: tools/suite_time.sh TIMES_FILE NAME COMMAND...
# Appends "NAME SECONDS STATUS" to TIMES_FILE and exits with the command's
# status, so make stops at the first failing suite as before.
#
# With SUITE_LOG_DIR set (the suites `make test` runs two at a time), the
# suite's output goes to SUITE_LOG_DIR/NAME.log instead of the terminal, so
# two suites' lines never interleave; a failing suite's log is printed whole
# (its last 400 lines) under a header naming the suite and the log.
set -u
times=$1 name=$2
shift 2
start=$(date +%s.%N)
if [ -n "${SUITE_LOG_DIR:-}" ]; then
    mkdir -p "$SUITE_LOG_DIR"
    log=$SUITE_LOG_DIR/$name.log
    echo "== $name: started (log: $log)"
    "$@" > "$log" 2>&1
    rc=$?
else
    "$@"
    rc=$?
fi
end=$(date +%s.%N)
secs=$(awk "BEGIN { printf \"%.1f\", $end - $start }")
printf '%s %s %s\n' "$name" "$secs" "$rc" >> "$times"
if [ -n "${SUITE_LOG_DIR:-}" ]; then
    if [ "$rc" -eq 0 ]; then
        echo "== $name: ok in $secs s"
    else
        echo "== $name: FAILED (exit $rc) after $secs s; the last 400 lines of $log:"
        tail -n 400 "$log"
    fi
fi
# A failing suite stops make: show the table of what ran so far.
[ "$rc" -eq 0 ] || "$(dirname "$0")/suite_table.sh" "$times"
exit "$rc"
