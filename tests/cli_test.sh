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
    # A hang is a failure too: no case may take a minute (status 124).
    out=$(timeout 60 "$BIN" "$@" 2>&1)
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
expect directory 2 "$D: is a directory, not a scenario file" run $D
expect bad-option 2 "--seconds 'abc'" run --seconds abc
expect save-unwritable-before-run 2 "--save '/nonexistent/dir/x.save': cannot create a temporary file in '/nonexistent/dir' for '/nonexistent/dir/x.save': No such file or directory" \
    run --seconds 0.1 --save /nonexistent/dir/x.save
expect csv-unwritable 2 "--csv '/nonexistent/dir/x.csv': cannot create a temporary file in '/nonexistent/dir' for '/nonexistent/dir/x.csv': No such file or directory" \
    run --seconds 0.1 --csv /nonexistent/dir/x.csv
expect unknown-subcommand 2 "unknown command 'fly'" fly
expect v0-migrated 0 "ticks 50, simulated 5.0 s" run $D/v0_minimal.json --quiet
expect v0-with-v1-section 2 "$D/v0_with_v1_section.json: \$.world: schema-1 section in a file without \"schema\"" \
    run $D/v0_with_v1_section.json --quiet
expect default-runs 0 "final state hash" run --quiet --seconds 2
expect station-trips 0 "u2 REACTOR TRIP, first out: u2.rps.low_flow.2" run --seconds 130 --readers 2
expect unknown-sensor 2 "\$.script[0].target: no sensor named 'u1.nis.power.Q'" run $D/unknown_sensor.json
# trip_bypass without a value used to bypass channel A (value 0) silently.
expect trip-bypass-needs-value 2 "$D/trip_bypass_no_value.json: \$.script[0].value: trip_bypass of 'u1.rps.high_flux' needs a value: a channel index (0 = channel A) or -1 to bypass the whole function" \
    run $D/trip_bypass_no_value.json
expect trip-bypass-channel-and-function 0 "ticks 40, simulated 2.0 s" run $D/trip_bypass_values.json --quiet --readers 0
expect rounding-warns 0 "warning: $D/rounding.json: \$.run.seconds: 0.07 s is 1 tick of 0.05 s (0.05 s, 28.6 % off)" \
    run $D/rounding.json --quiet
expect rounding-warns-timeline 0 "\$.run.timeline_every_s: 0.01 s is 1 tick of 0.05 s (0.05 s, 400 % off)" \
    run $D/rounding.json --quiet
expect rounding-warns-option 0 "warning: --seconds: 0.12 s is 2 ticks of 0.05 s (0.1 s, 16.7 % off)" \
    run --seconds 0.12 --quiet
expect help 0 "usage: pcsim run" run --help
expect json-escapes-name 0 '{"scenario":"a\"b\\c\u0009d",' run $D/name_needs_escaping.json --json --seconds 0.1
expect long-name-cut-on-a-character 0 '{"scenario":"ééééééééééééééééééééééééééééééé",' run $D/name_long_utf8.json --json --seconds 0.1
expect replay-missing 2 "cannot open journal" replay $D/none.journal
tmp=${TMPDIR:-/tmp}/pcsim-cli-$$
expect journal-written 0 "final state hash" run --quiet --seconds 3 --journal "$tmp.journal"
expect replay-matches 0 "matches the journal" replay "$tmp.journal" --quiet
rm -f "$tmp.journal"
# Save at 1 s, resume for 1 s: the same hash as 2 s straight; a world built
# from another scenario refuses the file.
"$BIN" run --quiet --seconds 1 --save "$tmp.save" > /dev/null 2>&1
want=$("$BIN" run --quiet --seconds 2 2>&1 | sed -n 's/^final state hash //p')
hash_2s=$want # expect() reuses $want
expect load-resumes-exactly 0 "final state hash $want" run --quiet --seconds 1 --load "$tmp.save"
expect check-finite-same-hash 0 "final state hash $hash_2s" run --quiet --seconds 2 --check-finite
expect load-other-scenario 2 "sections, this world has 1 (different scenario?)" \
    run $D/v0_minimal.json --quiet --load "$tmp.save"
expect load-other-seed 2 "with world seed 20261130; this world has seed 7" \
    run $D/station_seed7.json --quiet --load "$tmp.save"
rm -f "$tmp.save"

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
# Journals are input too: damaged ones get a message naming file and line.
# A v3 journal carries its scenario (issue 13): replay needs no --scenario,
# and a --scenario that is another scenario is refused naming both hashes.
"$BIN" run $D/v0_minimal.json --quiet --journal "$tmp.journal" > /dev/null
expect replay-carries-its-scenario 0 "matches the journal" replay "$tmp.journal" --quiet
expect replay-other-scenario-hash 2 "$tmp.journal:3: scenario hash cd5a5420be89b3bc differs from the scenario's 90362d4818facab3 (scenarios/pwr-station.json)" \
    replay "$tmp.journal" --scenario scenarios/pwr-station.json
echo '{"dt": 0.1, "seed": 8, "duration_s": 5}' > "$tmp.seed8.json"
expect replay-other-seed 2 "$tmp.journal:4: world seed 7 differs from the scenario's 8 ($tmp.seed8.json)" \
    replay "$tmp.journal" --scenario "$tmp.seed8.json"
sed 's/^# scenario_hash cd5a5420be89b3bc$/# scenario_hash xyz/' "$tmp.journal" > "$tmp.garbled"
expect replay-garbled-header 2 "$tmp.garbled:3: field 1 (H) 'xyz' is not 1 to 16 hex digits" replay "$tmp.garbled"
head -n 7 "$tmp.journal" > "$tmp.garbled"
expect replay-truncated-header 2 "$tmp.garbled:7: the scenario text has 0 of the 78 bytes line 7 gives" \
    replay "$tmp.garbled"
# The kind table: a journal whose pump_trip is another kind than this build's.
"$BIN" run --quiet --readers 0 --seconds 121 --journal "$tmp.journal" > /dev/null
sed 's/^# kind pump_trip 6$/# kind pump_trip 7/' "$tmp.journal" > "$tmp.garbled"
expect replay-kind-table-differs 2 "$tmp.garbled:12: kind 'pump_trip' is 7 in the journal, 6 in the station" \
    replay "$tmp.garbled"
sed 's/^# target u2.pump2 1048597$/# target u2.pump2 1048598/' "$tmp.journal" > "$tmp.garbled"
expect replay-target-differs 2 "target 'u2.pump2' is 1048598 in the journal, 1048597 in the station" \
    replay "$tmp.garbled"
sed '1s/v3/v2/' "$tmp.journal" > "$tmp.garbled"
expect replay-refuses-v2 2 "$tmp.garbled:1: journal format v2; this pcsim reads v3" replay "$tmp.garbled"
rm -f "$tmp.journal" "$tmp.garbled" "$tmp.seed8.json"
expect replay-needs-its-scenario 2 "$D/other_scenario.journal: the journal does not carry its scenario (recorded with 'tests/cli/v0_minimal.json'); pass --scenario tests/cli/v0_minimal.json" \
    replay $D/other_scenario.journal
expect replay-with-its-scenario 0 "matches the journal" \
    replay $D/other_scenario.journal --scenario $D/v0_minimal.json --quiet
expect replay-needs-its-save 2 "$D/resumed.journal:5: the run started at tick 20 (resumed from a save); a replay from tick 0 cannot match" \
    replay $D/resumed.journal
"$BIN" run --quiet --readers 0 --seconds 1 --save "$tmp.1s.save" > /dev/null
"$BIN" run --quiet --readers 0 --seconds 1 --load "$tmp.1s.save" --journal "$tmp.journal" > /dev/null
expect replay-resumed-with-its-save 0 "matches the journal" replay "$tmp.journal" --load "$tmp.1s.save" --quiet
sed 's/^\(# end_tick [0-9]* hash \).*/\10000000000000001/' "$tmp.journal" > "$tmp.garbled"
expect replay-hash-differs 1 "differs from the journal's 0000000000000001" replay "$tmp.garbled" --load "$tmp.1s.save" --quiet
rm -f "$tmp.1s.save" "$tmp.journal" "$tmp.garbled"
expect replay-huge-end 2 "$D/huge_end.journal:7: end tick 18446744073709551615 is outside" \
    replay $D/huge_end.journal
expect replay-bad-kind 2 "$D/bad_kind.journal:7: command kind 999 is outside [1, 255]" \
    replay $D/bad_kind.journal
# v1 held fixed kind ranges and packed targets (here 32 = pump trip, 1025 =
# unit 1's pump 1): its numbers mean other commands now, so it is refused.
expect replay-refuses-v1 2 "$D/v1_format.journal:1: journal format v1; this pcsim reads v3" \
    replay $D/v1_format.journal
expect replay-tick-order 2 "$D/tick_order.journal:8: tick 4 is earlier than the previous line's 9" \
    replay $D/tick_order.journal
expect replay-tick-past-end 2 "$D/tick_past_end.journal:7: tick 50 is not before the end tick 10" \
    replay $D/tick_past_end.journal
# The header of the journals written below (the built-in scenario, no kinds).
journal_head() {
    printf '# pcsim journal v3\n# scenario <built-in pwr-station.json>\n'
    printf '# scenario_hash 90362d4818facab3\n# seed 20261130\n# start_tick 0\n# kinds 0\n'
}
{
    journal_head
    i=0
    while [ $i -lt 300 ]; do echo "0 5 0 0 0 0 0"; i=$((i + 1)); done
    echo "# end_tick 10 hash 0123456789abcdef"
} > "$tmp.crowded"
expect replay-crowded-tick 2 "$tmp.crowded:263: more than 256 commands at tick 0" replay "$tmp.crowded"
rm -f "$tmp.crowded"

# A valid run of 1e15 ticks must start (it used to allocate 8 bytes per tick
# up front: "out of memory", or an AddressSanitizer abort), so it is still
# running when stopped after 2 s.
out=$(timeout 2 "$BIN" run $D/very_long_run.json --quiet 2>&1)
rc=$?
if [ "$rc" -eq 124 ] && [ -z "$out" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL very-long-run-starts: status $rc (want 124, still running), output:"
    printf '%s\n' "$out" | head -3
fi

# ---- issue 12, save-io: outputs never follow or delete what is at or beside
# their path; a save refuses what is not a regular file and a world built
# from another scenario. ----
io=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-cli-io-XXXXXX")
echo "keep me" > "$io/victim"
ln -s "$io/victim" "$io/run.journal"
ln -s "$io/victim" "$io/run.csv"
ln -s "$io/victim" "$io/end.save.tmp"
expect outputs-beside-symlinks 0 "final state hash" \
    run --quiet --seconds 1 --journal "$io/run.journal" --csv "$io/run.csv" --save "$io/end.save"
check() { # name, shell test...
    name=$1
    shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}
check symlink-target-untouched [ "$(cat "$io/victim")" = "keep me" ]
check journal-replaces-its-symlink [ ! -L "$io/run.journal" ]
check journal-written [ "$(head -1 "$io/run.journal")" = "# pcsim journal v3" ]
check csv-replaces-its-symlink [ ! -L "$io/run.csv" ] && [ -s "$io/run.csv" ]
check save-tmp-symlink-kept [ -L "$io/end.save.tmp" ]
check no-temporaries-left [ "$(ls "$io" | wc -l)" -eq 5 ]
expect journal-replays 0 "matches the journal" replay "$io/run.journal" --quiet
expect built-in-save-loads-with-its-file 0 "final state hash" \
    run scenarios/pwr-station.json --quiet --seconds 0.1 --load "$io/end.save"
sed 's/"initial_power_fraction": 0.5/"initial_power_fraction": 0.6/' scenarios/pwr-station.json \
    > "$io/u4_at_60.json"
expect load-other-build 2 "$io/end.save': saved from build hash 0x" \
    run "$io/u4_at_60.json" --quiet --seconds 0.1 --load "$io/end.save"
expect load-directory 2 "load '$io': is a directory" run --quiet --seconds 0.1 --load "$io"
mkfifo "$io/fifo"
expect load-fifo 2 "load '$io/fifo': is a FIFO" run --quiet --seconds 0.1 --load "$io/fifo"
rm -rf "$io"
# ---- end of issue 12, save-io ----

# ---- issue 12 "Numbers" (scenario branch): numbers, JSON messages, bounded
# reads, k_slow and builder ranges. Each message names the file, the JSON path
# (or line:column) and the allowed range or what was expected.
# Numbers whose text is non-zero but that a double cannot hold are refused with
# the text as written and the field's range, never read as 0 or as a subnormal.
expect number-underflow-where-0-allowed 2 "$D/number_underflow_zero_allowed.json: \$.run.seconds: value 1e-400 is too small for a double" \
    run $D/number_underflow_zero_allowed.json --quiet
expect number-underflow-says-its-text 2 "$D/number_underflow.json: \$.world.dt_s: value 1e-400 is too small for a double (non-zero magnitudes start at 2.2e-308); allowed [1e-06, 10]" \
    run $D/number_underflow.json --quiet
expect number-subnormal 2 "\$.run.seconds: value 4.9e-320 is too small for a double (non-zero magnitudes start at 2.2e-308); allowed [0, 1e+09]" \
    run $D/number_subnormal.json --quiet
expect number-overflow 2 "$D/number_overflow.json: \$.run.seconds: value 1e400 is too large for a double (magnitudes up to 1.8e+308); allowed [0, 1e+09]" \
    run $D/number_overflow.json --quiet
expect number-underflow-in-a-unit 2 "\$.units[0].boron_ppm: value -1e-330 is too small for a double" \
    run $D/number_underflow_unit.json --quiet
expect number-zero-written-small 0 "ticks 0, simulated 0.0 s" run $D/number_zero_text.json --quiet
# Messages that start in the JSON library (jansson) are re-worded: line:column,
# the JSON path there, and what was expected instead.
expect json-syntax-reworded 2 "$D/bad_json.json:3:26: \$.world: invalid JSON: expected a field name in double quotes (no comma before '}'), found '}'" \
    run $D/bad_json.json
expect json-missing-comma 2 "$D/missing_comma.json:1:43: \$.world.dt_s: invalid JSON: expected ',' or '}' after this field's value, found '\"seed\"'" \
    run $D/missing_comma.json
expect json-duplicate-key 2 "$D/duplicate_key.json:1:44: \$.world.dt_s: the field 'dt_s' appears twice in this object (each field may appear once)" \
    run $D/duplicate_key.json
expect json-too-deep 2 "$D/deep_nesting.json:1:56: \$.script[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 32 levels (a scenario needs at most 4)" \
    run $D/deep_nesting.json
expect json-integer-overflow 2 "$D/integer_overflow.json: \$.world.seed: value 123456789012345678901234567890 does not fit a 64-bit integer; allowed [0, 9223372036854775807]" \
    run $D/integer_overflow.json
expect json-nul-in-string 2 "$D/nul_in_string.json:1:25: \$.name: a string holds \\u0000 (NUL), which no scenario field may contain" \
    run $D/nul_in_string.json
expect json-bad-utf8 2 "$D/bad_utf8.json:1:24: \$.name: invalid JSON: byte 0xff is not UTF-8 (a scenario file is UTF-8 text)" \
    run $D/bad_utf8.json
expect json-empty-file 2 "$D/empty.json: the file is empty; expected a scenario object {...}" run $D/empty.json
expect json-trailing-text 2 "$D/trailing_text.json:1:15: \$: invalid JSON: more text after the scenario object, found 'x'; expected the end of the file" \
    run $D/trailing_text.json
expect json-missing-file 2 "$D/nope.json: cannot open: No such file or directory" run $D/nope.json
# Bounded reads: the size limit (default 4 MiB, --max-scenario-bytes) and the
# file type are checked before anything is parsed; a FIFO with no writer is
# refused at once instead of blocking.
tmp=${TMPDIR:-/tmp}/pcsim-cli-$$
{ printf '{"schema": 1, "run": {"seconds": 0}'; head -c 5242880 /dev/zero | tr '\0' ' '; printf '}'; } > "$tmp.big"
big=$(wc -c < "$tmp.big")
expect scenario-over-size-limit 2 "$tmp.big: $big bytes is more than the scenario size limit of 4194304 bytes (set with --max-scenario-bytes)" \
    run "$tmp.big" --quiet
expect scenario-size-limit-raised 0 "ticks 0, simulated 0.0 s" run "$tmp.big" --quiet --max-scenario-bytes 8388608
rm -f "$tmp.big"
expect scenario-size-limit-option 2 "$D/rounding.json: $(wc -c < $D/rounding.json) bytes is more than the scenario size limit of 10 bytes" \
    run $D/rounding.json --max-scenario-bytes 10
expect scenario-size-limit-bad-option 2 "--max-scenario-bytes '0': expected an integer in [1, 1099511627776]" \
    run --max-scenario-bytes 0
expect scenario-device 2 "/dev/null: is not a regular file (a character device); a scenario must be a regular file" run /dev/null
mkfifo "$tmp.fifo"
out=$(timeout 5 "$BIN" run "$tmp.fifo" 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && printf '%s' "$out" | grep -qF "$tmp.fifo: is not a regular file (a FIFO)"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL scenario-fifo-refused-at-once: status $rc (want 2; 124 is a hang), output:"
    printf '%s\n' "$out" | head -3
fi
rm -f "$tmp.fifo"
# k_slow up to its allowed 1e9: the SLOW xenon step is 20 dt k_slow = 1e9 s
# and must stay finite (it gave NaN from 5e8 and stopped the run at tick 20).
expect k-slow-1e9-runs 0 "ticks 600, simulated 30.0 s" run $D/k_slow_max.json --quiet --readers 0
# ---- end of issue 12 "Numbers" block

# Journals are read like saves and scenarios (issue 12): regular files only
# (a FIFO with no writer must not block), one bounded line at a time (a long
# comment line used to be split into pieces read as lines, so its tail ran as
# a command), and bounded counts of commands and lines.
expect replay-long-line 2 "$D/long_line.journal:2: line is longer than 512 bytes" \
    replay $D/long_line.journal --scenario $D/v0_minimal.json --quiet
expect replay-directory 2 "$D: not a regular file (a directory)" replay $D
expect replay-char-device 2 "/dev/zero: not a regular file (a character device)" replay /dev/zero
rm -f "$tmp.fifo"
mkfifo "$tmp.fifo"
out=$(timeout 5 "$BIN" replay "$tmp.fifo" 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && printf '%s' "$out" | grep -qF "$tmp.fifo: not a regular file (a FIFO)"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL replay-fifo: status $rc (want 2, 124 is a hang), output:"
    printf '%s\n' "$out" | head -3
fi
rm -f "$tmp.fifo"
printf '# pcsim journal v3\n0 5 0 0 0 0 0\000 junk\n# end_tick 10 hash e6ad1be9a8972875\n' > "$tmp.nul"
expect replay-nul-byte 2 "$tmp.nul:2: NUL byte at column 14" \
    replay "$tmp.nul" --scenario $D/v0_minimal.json --quiet
{ journal_head; awk 'BEGIN { for (i = 0; i <= 65536; i++) print int(i / 200), 5, 0, 0, 0, 0, 0;
                          print "# end_tick 400 hash e6ad1be9a8972875" }'; } > "$tmp.many"
expect replay-too-many-commands 2 "$tmp.many:65543: more than 65536 commands" \
    replay "$tmp.many" --scenario $D/v0_minimal.json --quiet
awk 'BEGIN { print "# pcsim journal v3"; for (i = 0; i < 262144; i++) print "#";
             print "# end_tick 10 hash e6ad1be9a8972875" }' > "$tmp.many"
expect replay-too-many-lines 2 "$tmp.many:262145: more than 262144 lines" \
    replay "$tmp.many" --scenario $D/v0_minimal.json --quiet
rm -f "$tmp.many" "$tmp.nul"

# Version: pcs_version() (first line of pcsim info) is the Makefile's VERSION,
# and a shared library beside the binary has SONAME libpcsim.so.MAJOR of it
# (libpcsim.so.0.MINOR before 1.0: a 0.x MINOR release may break the ABI).
ver=$(MAKEFLAGS='' MAKELEVEL='' make -s --no-print-directory print-version)
check_eq() { # name, want, got
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1: got '$3', want '$2'"; fi
}
check_eq version-is-makefile-version "pcsim $ver" "$("$BIN" info 2>&1 | head -n 1)"
lib=$(dirname "$BIN")/libpcsim.so
if [ -e "$lib" ]; then
    somajor=${ver%%.*}
    [ "$somajor" = 0 ] && somajor=$(echo "$ver" | cut -d. -f1,2)
    check_eq soname-is-version-major "libpcsim.so.$somajor" \
        "$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
fi

# ---- review (hostile-user pass over issue 12) ----
# An output path that exists and is not a regular file (a FIFO here; as root a
# device such as /dev/null) is refused before the run and left as it was: the
# rename replaced it with a regular file (and exited 0).
rv=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-cli-review-XXXXXX")
mkfifo "$rv/fifo"
for opt in save journal csv; do
    expect "review-$opt-over-fifo" 2 "--$opt '$rv/fifo': '$rv/fifo' is a FIFO, not a regular file" \
        run --quiet --seconds 0.1 --readers 0 --$opt "$rv/fifo"
    check "review-$opt-fifo-kept" [ -p "$rv/fifo" ]
    [ -p "$rv/fifo" ] || { rm -f "$rv/fifo"; mkfifo "$rv/fifo"; }
done
mkdir "$rv/dir"
expect review-save-over-directory-before-run 2 "--save '$rv/dir': '$rv/dir' is a directory, not a regular file" \
    run --quiet --seconds 0.1 --readers 0 --save "$rv/dir"
# A journal is opened like a save: a FIFO with no writer is refused at once
# (it blocked forever), a directory is named as such.
expect review-replay-fifo 2 "$rv/fifo: not a regular file (a FIFO)" replay "$rv/fifo"
expect review-replay-directory 2 "$rv/dir: not a regular file (a directory)" replay "$rv/dir"
# --trace never writes through a symlink (it truncated the target) and never
# blocks on a FIFO.
echo "keep me" > "$rv/victim"
ln -s "$rv/victim" "$rv/trace.json"
expect review-trace-beside-symlink 0 "final state hash" run --quiet --seconds 0.1 --readers 0 --trace "$rv/trace.json"
check review-trace-symlink-target-untouched [ "$(cat "$rv/victim")" = "keep me" ]
expect review-trace-fifo 2 "--trace: '$rv/fifo': '$rv/fifo' is a FIFO, not a regular file" \
    run --quiet --seconds 0.1 --readers 0 --trace "$rv/fifo"
rm -rf "$rv"
# Script values outside what the command's handler accepts are refused at load
# with the JSON path of the value and the range (they passed and the command was
# silently rejected at run time, exit 0); sg_pressure named an internal function
# and the target's path.
expect review-sg-pressure-range 2 "$D/review_sg_pressure_range.json: \$.script[0].value: value 1e+12 is outside [611.213, 2.2064e+07] (sg_pressure: secondary pressure Pa)" \
    run $D/review_sg_pressure_range.json --quiet --readers 0
expect review-rod-position-range 2 "$D/review_rod_position_range.json: \$.script[0].value: value 2 is outside [0, 1] (rod_position: position)" \
    run $D/review_rod_position_range.json --quiet --readers 0
expect review-boron-range 2 "$D/review_boron_range.json: \$.script[0].value: value 20000 is outside [0, 10000] (boron: ppm)" \
    run $D/review_boron_range.json --quiet --readers 0
# ---- end of review

# Journal fields are read strictly (review of issue 12): a kind past 2^32 used
# to wrap to a valid one through sscanf's %u, a negative target to 2^32-1,
# and a NaN argument was taken as a number.
expect replay-kind-wraps 2 "$D/kind_wraps.journal:7: command kind 4294967297 is outside [1, 255]" \
    replay $D/kind_wraps.journal
expect replay-negative-target 2 "$D/negative_target.journal:7: field 3 (target) '-1' is not a whole number in [0, 4294967295]" \
    replay $D/negative_target.journal
expect replay-nan-argument 2 "$D/nan_arg.journal:7: field 4 (a0) 'nan' is not a finite number" \
    replay $D/nan_arg.journal

# ---- realtime pacing (issue 19): --realtime runs through the library's pacer
# (pcs_world_advance); --speed is checked; falling behind is reported.
expect speed-needs-realtime 2 "--speed 10 needs --realtime" run --speed 10 --seconds 0.1
expect speed-above-range 2 "--speed '5000': expected a multiplier in [0.1, 1000]" \
    run --realtime --speed 5000 --seconds 0.1
expect speed-below-range 2 "--speed '0.05': expected a multiplier in [0.1, 1000]" \
    run --realtime --speed 0.05 --seconds 0.1
expect speed-not-a-number 2 "--speed 'fast': expected a multiplier in [0.1, 1000]" \
    run --realtime --speed fast --seconds 0.1
has() { # name, text, output
    if printf '%s' "$3" | grep -qF -- "$2"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1: no '$2' in:"; printf '%s\n' "$3" | tail -5; fi
}
# 2 simulated s at 10x: the 40th tick falls due 0.2 s after the first call,
# so the paced part cannot be shorter. The station's build (the property
# tables and each primary's steady state) comes before it and takes longer
# than the paced run on a loaded machine, so the wall time of the whole
# command says nothing; the rate pcsim reports for the paced ticks does:
# pacing holds it at or below 200 ticks/s (a free run of 40 ticks is
# thousands a second). The ticks are the same as at full speed, so is the hash.
out=$(timeout 60 "$BIN" run --quiet --seconds 2 --realtime --speed 10 2>&1)
rate=$(printf '%s\n' "$out" | sed -n 's/.*achieved \([0-9.]*\) ticks\/s.*/\1/p')
check "realtime-10x-paces-at-200-ticks-per-s (achieved $rate)" \
    awk -v r="$rate" 'BEGIN { exit !(r != "" && r > 0 && r <= 210) }'
has realtime-10x-reports-rate "realtime: speed 10x needs 200.0 ticks/s, achieved" "$out"
has realtime-10x-same-hash "final state hash $hash_2s" "$out"
# dt 1 ms at 1000x needs 1e6 ticks/s, which no machine runs a unit at: the
# backlog passes 0.25 s of wall time and a warning says so, with the rates.
# 40,000 ticks take about 1.2 s of CPU here: 4x the 0.25 s the warning needs
# on an idle machine (5,000 ticks were too few: the warning missed once).
out=$(timeout 60 "$BIN" run $D/realtime_fine_dt.json --realtime --speed 1000 --readers 0 2>&1)
has realtime-falling-behind-warns "warning: --realtime is falling behind at tick" "$out"
has realtime-falling-behind-rates "ticks/s achieved, 1000000.0 needed at 1000x" "$out"
has realtime-falling-behind-summary "realtime: speed 1000x needs 1000000.0 ticks/s, achieved" "$out"
# ---- end of realtime pacing

# The script's rate limit (run.command_rate_per_s 20, burst 2; 1 token a
# tick): 3 actions at tick 0 and 2 at tick 1 -> 2 + 1 accepted, 2 refused.
expect rate-limit-refusals-counted 0 \
    "commands refused by rate limit: script (class 2, id 1; 20/s, burst 2) 2" \
    run $D/rate_limit.json --quiet
expect rate-limit-refusals-json 0 '"refused_rate":2,"sources":[{"name":"script","class":2' \
    run $D/rate_limit.json --quiet --json

# ---- CSV that serves (issue 18): --csv -, --csv-every, --csv-channels ----
cv=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-cli-csv-XXXXXX")
# --csv -: the CSV alone on stdout (t_s first, rows every 0.5 s of the 2 s
# run, the globs' channels in channel order); the summary on stderr.
timeout 60 "$BIN" run --seconds 2 --readers 0 --csv - --csv-every 0.5 \
    --csv-channels 'u1.core.power,u*.rcs.pressure' > "$cv/out.csv" 2> "$cv/err.txt"
rc=$?
check "csv-stdout-exit-0 ($rc)" [ "$rc" -eq 0 ]
check csv-stdout-header [ "$(head -1 "$cv/out.csv")" = \
    "t_s,u1.core.power,u1.rcs.pressure,u2.rcs.pressure,u3.rcs.pressure,u4.rcs.pressure" ]
check csv-every-0.5s-times [ "$(tail -n +2 "$cv/out.csv" | cut -d, -f1 | tr '\n' ' ')" = \
    "0.500 1.000 1.500 2.000 " ]
check csv-stdout-no-summary [ "$(grep -c summary "$cv/out.csv")" = 0 ]
has csv-stdout-summary-on-stderr "final state hash $hash_2s" "$(cat "$cv/err.txt")"
# --json with --csv -: stdout stays pure CSV, the JSON summary is on stderr.
timeout 60 "$BIN" run --seconds 0.5 --readers 0 --json --csv - --csv-every 0.05 --csv-channels 'u1.core.power' \
    > "$cv/j.csv" 2> "$cv/j.err"
check csv-stdout-json-lines [ "$(wc -l < "$cv/j.csv")" -eq 11 ] # header + 10 ticks of 0.05 s
has csv-stdout-json-on-stderr '"state_hash":"' "$(cat "$cv/j.err")"
# Default interval unchanged: the scenario's timeline (rate_limit.json: 1 s),
# every channel (as many as the world says it has). A subset's column is the
# full CSV's column, value for value.
R=$D/rate_limit.json
"$BIN" run $R --quiet --seconds 3 --csv "$cv/full.csv" > /dev/null 2>&1
"$BIN" run $R --quiet --seconds 3 --csv "$cv/sub.csv" --csv-channels 'u1.loop?.flow' > /dev/null 2>&1
check csv-default-interval-is-the-timeline [ "$(cut -d, -f1 "$cv/full.csv" | tr '\n' ' ')" = "t_s 1.000 2.000 3.000 " ]
n_world=$("$BIN" run $R --seconds 0 --csv - --csv-channels nothing 2>&1 | sed -n 's/.*the world has \([0-9]*\) channels.*/\1/p')
check "csv-default-every-channel ($n_world)" [ "$(head -1 "$cv/full.csv" | tr ',' '\n' | wc -l)" -eq $((n_world + 1)) ]
col=$(head -1 "$cv/full.csv" | tr ',' '\n' | grep -nx 'u1.loop2.flow' | cut -d: -f1)
check csv-subset-header [ "$(head -1 "$cv/sub.csv")" = "t_s,u1.loop1.flow,u1.loop2.flow,u1.loop3.flow,u1.loop4.flow" ]
check csv-subset-same-values [ "$(cut -d, -f"$col" "$cv/full.csv")" = "$(cut -d, -f3 "$cv/sub.csv")" ]
expect csv-channels-matches-nothing 2 "--csv-channels: pattern 'u1.core.pwr' matches no channel (the world has" \
    run --seconds 0.1 --readers 0 --csv - --csv-channels 'u1.core.power,u1.core.pwr'
expect csv-channels-empty-pattern 2 "--csv-channels 'u1.core.power,': pattern 2 is empty" \
    run --seconds 0.1 --readers 0 --csv - --csv-channels 'u1.core.power,'
expect csv-every-zero 2 "--csv-every '0': expected seconds in (0, 1e9]" run --csv - --csv-every 0
expect csv-every-negative 2 "--csv-every '-1': expected seconds in (0, 1e9]" run --csv - --csv-every -1
expect csv-every-too-large 2 "--csv-every '2e9': expected seconds in (0, 1e9]" run --csv - --csv-every 2e9
expect csv-every-not-a-number 2 "--csv-every 'often': expected seconds in (0, 1e9]" run --csv - --csv-every often
expect csv-every-needs-csv 2 "--csv-every needs --csv FILE (or --csv - for standard output)" run --csv-every 1
expect csv-channels-needs-csv 2 "--csv-channels needs --csv FILE" run --csv-channels 'u1.*'
expect csv-every-rounds-warns 0 "warning: --csv-every: 0.01 s is 1 tick of 0.05 s (0.05 s, 400 % off)" \
    run --quiet --seconds 0.1 --readers 0 --csv - --csv-every 0.01 --csv-channels u1.core.power
rm -rf "$cv"
# ---- end of CSV options

# ---- pcsim plot (issue 18): python3 -m pcsim.plot found from the binary's
# place, not the working directory; its errors name the file ----
pl=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-cli-plot-XXXXXX")
abs_bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
"$BIN" run --seconds 2 --readers 0 --csv - --csv-every 0.5 \
    --csv-channels 'u*.core.power,u*.rcs.pressure' > "$pl/run.csv" 2> "$pl/run.log"
out=$(cd / && timeout 120 "$abs_bin" plot "$pl/run.csv" -o "$pl/run.png" --events "$pl/run.log" 2>&1)
rc=$?
check "plot-runs-from-anywhere ($rc)" [ "$rc" -eq 0 ]
has plot-says-what-it-drew "$pl/run.png: 1400x1200 px, 4 rows 0.5-2 s; panels: power (4), pressure (4); no temperatures, flows, levels column; 0 events" "$out"
check plot-png-written [ "$(head -c 8 "$pl/run.png" | od -An -c | tr -d ' ')" = "211PNG\r\n032\n" ]
printf 'time,u1.core.power\n1,2\n' > "$pl/no_t.csv"
printf 't_s,u1.rods.pos\n1,0.9\n' > "$pl/none.csv"
expect plot-missing-file 2 "pcsim plot: $pl/nope.csv: no such file" plot "$pl/nope.csv" -o "$pl/x.png"
expect plot-no-t_s-column 2 "pcsim plot: $pl/no_t.csv:1: first column is 'time', not t_s" \
    plot "$pl/no_t.csv" -o "$pl/x.png"
expect plot-nothing-plottable 2 "pcsim plot: $pl/none.csv: no plottable columns: none of its 1 channel(s) (u1.rods.pos) matches a panel" \
    plot "$pl/none.csv" -o "$pl/x.png"
expect plot-needs-output 2 "the following arguments are required: -o/--output" plot "$pl/run.csv"
expect plot-no-arguments 2 "usage: pcsim plot RUN.csv -o PNG" plot
out=$(PCSIM_PYTHON=/nonexistent/python3 "$BIN" plot "$pl/run.csv" -o "$pl/x.png" 2>&1)
rc=$?
check "plot-without-python-exit-1 ($rc)" [ "$rc" -eq 1 ]
has plot-without-python-says-so "plot: cannot run /nonexistent/python3: No such file or directory (pcsim plot needs Python 3 with matplotlib" "$out"
check plot-errors-wrote-nothing [ ! -e "$pl/x.png" ]
rm -rf "$pl"
# ---- end of pcsim plot

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
