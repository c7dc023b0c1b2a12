#!/bin/sh
# Seeds of fuzz_sync_decode: real sessions of the station's control room,
# recorded by build/sync-record (tests/sync_js/record.c), cut into inputs of
# the target's format ([u16 length][message] records): each stream's start
# (LAYOUT, KEYFRAME, history, the first deltas), a stretch around the pump
# trip, and stream 1's damaged messages with their neighbours.
# Usage: tests/fuzz/make_sync_seeds.sh build/sync-record
set -eu
REC=${1:?usage: make_sync_seeds.sh SYNC_RECORD}
OUT=$(dirname "$0")/corpus/sync_decode
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$REC" "$TMP/stream.bin" "$TMP/c.txt" 12
mkdir -p "$OUT"
/usr/bin/python3 - "$TMP/stream.bin" "$OUT" <<'PY'
import hashlib, os, struct, sys
data = open(sys.argv[1], "rb").read()
streams = {0: [], 1: []}
p = 0
while p < len(data):
    sid, n = data[p], struct.unpack_from("<I", data, p + 1)[0]
    streams[sid].append(data[p + 5:p + 5 + n])
    p += 5 + n
def seed(msgs):
    blob = b"".join(struct.pack("<H", len(m)) + m for m in msgs if len(m) < 65536)
    name = hashlib.sha1(blob).hexdigest()
    open(os.path.join(sys.argv[2], name), "wb").write(blob)
for sid, msgs in streams.items():
    seed(msgs[:8])
    seed(msgs[:3] + msgs[40:60])
    seed(msgs[:2] + msgs[90:110])
PY
echo "make_sync_seeds: $(ls "$OUT" | wc -l) seeds in $OUT"
