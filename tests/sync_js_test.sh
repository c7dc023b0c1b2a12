#!/bin/sh
# The browser's delta-sync decoder (web/sync.js) against the C decoder on the
# same recorded streams of the real station (tests/sync_js/record.c): every
# message accepted or refused alike, every slot value, value tick and
# recorder point bit for bit, and the final state. Needs node (Debian
# nodejs); skips with a message when it is missing.
# Usage: tests/sync_js_test.sh build/sync-record [SECONDS]
set -eu
REC=${1:?usage: tests/sync_js_test.sh SYNC_RECORD [SECONDS]}
SECONDS_RUN=${2:-120}
if ! command -v node >/dev/null 2>&1; then
    echo "sync-js: node not found; the JavaScript decoder was not checked" >&2
    exit 1
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
"$REC" "$DIR/stream.bin" "$DIR/c.txt" "$SECONDS_RUN"
node "$(dirname "$0")/sync_js/check.mjs" "$DIR/stream.bin" > "$DIR/js.txt"
if ! cmp -s "$DIR/c.txt" "$DIR/js.txt"; then
    echo "sync-js: web/sync.js and the C decoder differ (C <, JS >):" >&2
    diff "$DIR/c.txt" "$DIR/js.txt" | head -20 >&2
    exit 1
fi
# Hostile sessions: the fuzz seeds and tests/sync_js/cases/ (a libFuzzer
# -merge of fuzz_sync_decode's findings: truncations, bad varints, sequence
# gaps, oversized counts, ...): accepted and refused alike, the same values.
HERE=$(dirname "$0")
set -- "$HERE"/sync_js/cases/* "$HERE"/fuzz/corpus/sync_decode/*
"$REC" --replay "$@" > "$DIR/c_replay.txt"
node "$HERE/sync_js/check.mjs" --replay "$@" > "$DIR/js_replay.txt"
if ! cmp -s "$DIR/c_replay.txt" "$DIR/js_replay.txt"; then
    echo "sync-js: on the hostile sessions web/sync.js and the C decoder differ (C <, JS >):" >&2
    diff "$DIR/c_replay.txt" "$DIR/js_replay.txt" | head -20 >&2
    exit 1
fi
echo "sync-js: and on $# hostile sessions: $(grep -c ' ok ' "$DIR/c_replay.txt") messages" \
    "accepted, $(grep -c ' refused' "$DIR/c_replay.txt") refused alike"
msgs=$(grep -c ' ok \| refused' "$DIR/c.txt")
refused=$(grep -c ' refused' "$DIR/c.txt" || true)
echo "sync-js: web/sync.js matches the C decoder on $msgs messages ($refused refused alike)," \
    "$(stat -c %s "$DIR/stream.bin") bytes of station streams"
