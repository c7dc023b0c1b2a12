#!/bin/sh
# Regenerate the seed corpora of the fuzz targets (tests/fuzz/README.md) from
# the repository's files and from real runs of the host program, so they
# follow the save and journal formats: rerun after a format change.
# Usage: tests/fuzz/make_seeds.sh [PCSIM_BINARY]    (from the repository root)
# Writes tests/fuzz/corpus/{scenario,save,journal,script}/seed-*; other files
# there (crash inputs kept as regressions, fuzzer finds) are left alone.
set -eu
BIN=${1:-build/pcsim}
C=tests/fuzz/corpus
T=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-seeds-XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$C/scenario" "$C/save" "$C/journal" "$C/script"
rm -f "$C"/scenario/seed-* "$C"/save/seed-* "$C"/journal/seed-* "$C"/script/seed-*

# A scenario that sets every field the loader knows (ranges in scenarios/README.md).
cat > "$T/every-field.json" <<'JSON'
{"schema": 1, "name": "every-field",
 "world": {"dt_s": 0.05, "seed": 7, "k_slow": 10, "k_storage": 100, "workers": 0,
           "snapshot_buffers": 4, "commands_per_tick": 64},
 "run": {"seconds": 2, "timeline_every_s": 1},
 "readers": {"count": 1, "rate_hz": 5, "channels": 2, "names": ["u1.core.power", "u1.core.flow"]},
 "units": [{"name": "u1", "nominal_power_w": 3.0e9, "initial_power_fraction": 0.9, "loops": 2,
            "sg_nodes": 4, "t_hot_k": 599, "t_cold_k": 565, "sg_pressure_pa": 6.9e6,
            "pump": {"rated_flow_kg_s": 4500, "rated_dp_pa": 6e5, "inertia_kg_m2": 3000,
                     "rated_speed_rad_s": 124},
            "generation_time_s": 2e-5, "mtc_per_k": -2e-4, "doppler_coef": -0.002,
            "boron_ppm": 900, "rod_speed_per_s": 0.01, "scram_drop_time_s": 2.5,
            "control_bank_position": 0.9}],
 "instrumentation": {"high_flux_frac": 1.09, "flux_rate_frac": 0.05, "rate_window_ticks": 20,
                     "low_flow_frac": 0.9, "high_pressure_pa": 1.65e7, "low_pressure_pa": 1.3e7,
                     "alarm_power_frac": 1.03, "alarm_flow_frac": 0.95,
                     "alarm_pressure_high_pa": 1.6e7, "alarm_t_hot_k": 610, "noise_frac": 0.001},
 "script": [{"t_s": 1, "command": "pump_trip", "target": "u1.pump2"}]}
JSON
# Schema 0 (migrated): flat fields and "events".
cat > "$T/schema0-events.json" <<'JSON'
{"dt": 0.1, "seed": 3, "duration_s": 2,
 "events": [{"time": 0.5, "action": "scram", "unit": "u1"}], "units": [{"name": "u1"}]}
JSON
# One action of every non-structural command the script knows (station/station.c),
# each with a real target of the built-in station (all four units are steam_side, so
# sg_pressure has none; freeze and thaw need a "freeze" section; the structural
# commands have their own journals below and in tests/cli).
cat > "$T/every-command.json" <<'JSON'
[{"t_s": 0, "command": "rod_position", "target": "u1.D", "value": 0.8},
 {"t_s": 0.05, "command": "rod_speed", "target": "u1.C", "value": 0.01},
 {"t_s": 0.1, "command": "scram", "target": "u1"},
 {"t_s": 0.15, "command": "reset", "target": "u1"},
 {"t_s": 0.2, "command": "boron", "target": "u2", "value": 1200},
 {"t_s": 0.25, "command": "pump_trip", "target": "u2.pump1"},
 {"t_s": 0.3, "command": "pump_start", "target": "u2.pump1", "value": 1},
 {"t_s": 0.35, "command": "pzr_heaters", "target": "u3", "value": 1e6},
 {"t_s": 0.4, "command": "pzr_spray", "target": "u3", "value": 0.2},
 {"t_s": 0.45, "command": "pzr_auto", "target": "u3"},
 {"t_s": 0.5, "command": "charging", "target": "u3", "value": 5},
 {"t_s": 0.55, "command": "level_auto", "target": "u3"},
 {"t_s": 0.6, "command": "letdown", "target": "u3", "value": 6},
 {"t_s": 0.65, "command": "turbine_valve", "target": "u4", "value": 0.9},
 {"t_s": 0.7, "command": "turbine_load", "target": "u4", "value": 0.95},
 {"t_s": 0.75, "command": "turbine_runback", "target": "u4", "value": 0.9},
 {"t_s": 0.8, "command": "rod_manual", "target": "u4"},
 {"t_s": 0.85, "command": "rod_auto", "target": "u4"},
 {"t_s": 0.9, "command": "dump_manual", "target": "u4", "value": 0.1},
 {"t_s": 0.95, "command": "dump_auto", "target": "u4"},
 {"t_s": 1.0, "command": "dump_pressure_mode", "target": "u4"},
 {"t_s": 1.05, "command": "dump_tavg_mode", "target": "u4"},
 {"t_s": 1.1, "command": "sg_porv_manual", "target": "u4.porv1", "value": 0.1},
 {"t_s": 1.15, "command": "sg_porv_auto", "target": "u4.porv1"},
 {"t_s": 1.2, "command": "feed_bypass", "target": "u4", "value": 1},
 {"t_s": 1.25, "command": "feed_main", "target": "u4", "value": 1},
 {"t_s": 1.3, "command": "feed_pump_trip", "target": "u4", "value": 2},
 {"t_s": 1.35, "command": "feed_pump_start", "target": "u4", "value": 2},
 {"t_s": 1.4, "command": "afw_start", "target": "u4"},
 {"t_s": 1.45, "command": "afw_stop", "target": "u4"},
 {"t_s": 1.5, "command": "c7_reset", "target": "u4"},
 {"t_s": 1.55, "command": "condenser_available", "target": "u4", "value": 1},
 {"t_s": 1.6, "command": "si_reset", "target": "u4"},
 {"t_s": 1.65, "command": "msiv_close", "target": "u2.msiv1"},
 {"t_s": 1.7, "command": "msiv_open", "target": "u2.msiv1"},
 {"t_s": 1.75, "command": "steam_line_break", "target": "u2.sg1", "value": 0},
 {"t_s": 1.8, "command": "turbine_trip", "target": "u2"},
 {"t_s": 1.85, "command": "generator_mode", "target": "u2", "value": 1},
 {"t_s": 1.9, "command": "generator_load_torque", "target": "u2", "value": 1e6},
 {"t_s": 1.95, "command": "generator_load_power", "target": "u2", "value": 1e8},
 {"t_s": 2.0, "command": "trip_reset", "target": "u1"},
 {"t_s": 2.05, "command": "trip_bypass", "target": "u1.rps.high_flux", "value": 1},
 {"t_s": 2.1, "command": "sensor_fail_low", "target": "u1.loop1.flow.B"},
 {"t_s": 2.15, "command": "sensor_fail_high", "target": "u1.loop1.flow.C"},
 {"t_s": 2.2, "command": "sensor_stuck", "target": "u1.loop1.t_hot.S"},
 {"t_s": 2.25, "command": "sensor_clear", "target": "u1.loop1.flow.B"},
 {"t_s": 2.3, "command": "alarm_ack", "target": "u2.alarm.flow_low.2"},
 {"t_s": 2.35, "command": "alarm_ack_all", "target": "u4"},
 {"t_s": 2.4, "command": "alarm_shelve", "target": "u1.alarm.power_high", "value": 60}]
JSON

# scenario: every scenario file in the repository, and the two above.
for f in scenarios/*.json tests/cli/*.json; do
    cp "$f" "$C/scenario/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
done
cp "$T/every-field.json" "$T/schema0-events.json" "$C/scenario/"
for f in every-field schema0-events; do mv "$C/scenario/$f.json" "$C/scenario/seed-$f.json"; done

# script: the script (or schema-0 events) array of each of those files.
for f in "$C"/scenario/seed-*.json; do
    s=$(jq -c '.script // .events // empty' "$f" 2>/dev/null || true)
    [ -n "$s" ] && printf '%s\n' "$s" > "$C/script/$(basename "$f")"
done
cp "$T/every-command.json" "$C/script/seed-every-command.json"

# save: real saves of the world fuzz_save builds (tests/fuzz/save_station.json,
# one unit): at build, early, and after its script's rod move, stuck sensor,
# shelved alarm and pump trip (trips, alarms, rate rings, sensor modes).
S=tests/fuzz/save_station.json
"$BIN" run "$S" --quiet --seconds 0 --save "$C/save/seed-station-0s.save" > /dev/null
"$BIN" run "$S" --quiet --seconds 1 --save "$C/save/seed-station-1s.save" > /dev/null
"$BIN" run "$S" --quiet --seconds 30 --save "$C/save/seed-station-30s.save" > /dev/null

# journal: real journals (built-in station with its script, a resumed run, a
# schema-0 scenario, a run of every command) and the replay test fixtures.
"$BIN" run --quiet --readers 0 --seconds 200 --journal "$C/journal/seed-station-200s.journal" > /dev/null
"$BIN" run --quiet --readers 0 --seconds 1 --save "$T/1s.save" > /dev/null
"$BIN" run --quiet --readers 0 --seconds 2 --load "$T/1s.save" \
    --journal "$C/journal/seed-station-resumed.journal" > /dev/null
"$BIN" run tests/cli/v0_minimal.json --quiet --journal "$C/journal/seed-v0-minimal.journal" > /dev/null
jq --slurpfile s "$T/every-command.json" '.script = $s[0] | .run.seconds = 3' \
    scenarios/pwr-station.json > "$T/every-command-scenario.json"
"$BIN" run "$T/every-command-scenario.json" --quiet --readers 0 \
    --journal "$C/journal/seed-every-command.journal" > /dev/null
# The journal names the scenario file it ran: name it as the fuzz target expects.
sed -i "s|^# scenario .*|# scenario <built-in pwr-station.json>|" "$C/journal/seed-every-command.journal"
# A structural line whose own field no run applies (pump 9 of a 4-loop
# unit), on the built-in station's header: pcs_replay_check refuses it at
# its line, naming the field.
"$BIN" run --quiet --readers 0 --seconds 0.05 --journal "$T/short.journal" > /dev/null
sed 's/^# end_tick /0 250 0 1 9 0 0\n&/' "$T/short.journal" > "$C/journal/seed-structure-field.journal"
for f in tests/cli/*.journal; do cp "$f" "$C/journal/seed-cli-$(basename "$f")"; done

echo "fuzz seeds: $(find "$C" -name 'seed-*' | wc -l) files in $C"
