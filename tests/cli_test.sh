#!/bin/sh
# Host-program tests: every bad input gives one clear message naming the file,
# the JSON path and the reason, exit status 2, and no crash. Run with the
# release binary and (by make test) the ASan/UBSan binary.
# Usage: tests/cli_test.sh PCSIM_BINARY
set -u
BIN=${1:-build/pcsim}
D=tests/cli
pass=0
fail=0

expect() { # name, want_status, want_text, args...
    name=$1 want=$2 text=$3
    shift 3
    out=$("$BIN" "$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$want" ] && printf '%s' "$out" | grep -qF -- "$text"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: status $rc (want $want), output:"
        printf '%s\n' "$out" | head -5
        echo "  (wanted text: $text)"
    fi
}

expect invalid-json 2 "$D/bad_json.json:3:" run $D/bad_json.json
expect unknown-field 2 "$D/unknown_field.json: \$.world: unknown field 'speed'" run $D/unknown_field.json
expect wrong-type 2 "\$.run.seconds: expected a number, got a string" run $D/wrong_type.json
expect out-of-range 2 "\$.world.dt_s: value -0.05 is outside" run $D/out_of_range.json
expect future-schema 2 "\$.schema: version 7 is not supported" run $D/future_schema.json
expect unknown-command 2 "\$.script[0].command: unknown command 'warp_drive'" run $D/unknown_command.json
expect unknown-target 2 "\$.script[0].target: no pump 'pump9' in u1" run $D/unknown_target.json
expect unknown-unit-name 2 "\$.units[1]: unit 2 must be named 'u2'" run $D/bad_unit_name.json
expect unit-out-of-range 2 "\$.units[0].loops: value 12 is outside [1, 4]" run $D/bad_unit_field.json
expect unknown-channel 2 "\$.readers.names[1]: unknown channel 'u1.core.pwr'" run $D/unknown_channel.json --seconds 1
expect bad-setpoint 2 "\$.instrumentation.low_flow_frac: value 7 is outside [0, 1.5]" run $D/bad_setpoint.json
expect missing-file 2 "$D/nope.json" run $D/nope.json
expect bad-option 2 "--seconds 'abc'" run --seconds abc
expect unknown-subcommand 2 "unknown command 'fly'" fly
expect v0-migrated 0 "ticks 50, simulated 5.0 s" run $D/v0_minimal.json --quiet
expect default-runs 0 "final state hash" run --quiet --seconds 2
expect station-trips 0 "u2 REACTOR TRIP, first out: u2.rps.low_flow.2" run --seconds 130 --readers 2
expect unknown-sensor 2 "\$.script[0].target: no sensor named 'u1.nis.power.Q'" run $D/unknown_sensor.json
expect help 0 "usage: pcsim run" run --help
expect replay-missing 2 "cannot open journal" replay $D/none.journal
tmp=${TMPDIR:-/tmp}/pcsim-cli-$$
expect journal-written 0 "final state hash" run --quiet --seconds 3 --journal "$tmp.journal"
expect replay-matches 0 "matches the journal" replay "$tmp.journal" --quiet
rm -f "$tmp.journal"

# Determinism of the station run (issue 8): save at 130 s + resume for 130 s
# equals 260 s straight; 0, 1 and 2 workers (xenon runs as a slow job) and 0
# or 20 readers give the same hash; a replay of the
# journal reproduces it. The run crosses the pump trip, the scram and alarms.
hash_of() { "$BIN" "$@" --json 2>/dev/null | sed -n 's/.*"state_hash":"\([0-9a-f]*\)".*/\1/p'; }
h_straight=$(hash_of run --seconds 260 --readers 0 --workers 0)
h_workers1=$(hash_of run --seconds 260 --readers 0 --workers 1)
h_workers2=$(hash_of run --seconds 260 --readers 20 --workers 2)
h_readers=$(hash_of run --seconds 260 --readers 20)
h_first=$(hash_of run --seconds 130 --readers 4 --save "$tmp.save")
h_resumed=$(hash_of run --seconds 130 --readers 4 --load "$tmp.save")
same() { # name, a, b
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1: '$2' vs '$3'"; fi
}
same readers-do-not-change-state "$h_straight" "$h_readers"
same one-worker-equals-inline "$h_straight" "$h_workers1"
same two-workers-and-readers-equal-inline "$h_straight" "$h_workers2"
same save-load-resume "$h_straight" "$h_resumed"
[ -n "$h_first" ] && [ "$h_first" != "$h_straight" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL half-run hash differs"; }
"$BIN" run --quiet --seconds 260 --journal "$tmp.journal" > /dev/null
expect station-replay 0 "matches the journal" replay "$tmp.journal" --quiet
rm -f "$tmp.save" "$tmp.journal"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
