"""The same state hash from Python as from C (`pcsim run`, build/pcsim) for
the same scenario and commands."""

import json
import subprocess

import pcsim

SCENARIO = {
    "schema": 1,
    "name": "py-vs-c",
    "world": {"dt_s": 0.05, "seed": 4242, "k_slow": 72, "workers": 0},
    "run": {"seconds": 20, "timeline_every_s": 10},
    "readers": {"count": 0},
    "units": [{"name": "u1"}, {"name": "u2", "initial_power_fraction": 0.6}],
    "script": [
        {"t_s": 1, "command": "rod_speed", "target": "u1.D", "value": 0.05},
        {"t_s": 2, "command": "rod_position", "target": "u1.D", "value": 0.7},
        {"t_s": 5, "command": "boron", "target": "u2", "value": 900},
        {"t_s": 8, "command": "pump_trip", "target": "u2.pump3"},
        {"t_s": 12, "command": "sg_pressure", "target": "u1", "value": 6.7e6},
    ],
}


def c_hash(pcsim_bin, *args):
    r = subprocess.run([str(pcsim_bin), "run", *map(str, args), "--json", "--quiet"],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["state_hash"]


def test_commands_by_name_from_python_match_the_c_script(tmp_path, pcsim_bin):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    want = c_hash(pcsim_bin, path)
    scn = pcsim.Scenario.from_file(path)
    with pcsim.Station(scn) as s:  # no script: the same commands, submitted by name here
        at = {a.tick: a for a in scn.actions}
        for t in range(scn.run_ticks):
            a = at.get(t)
            if a:
                s.command(a.target, a.command, a.value)
            s.tick()
        assert s.tick_count == 400
        assert s.state_hash_hex == want


def test_scripts_applied_by_the_station_match_the_c_host(tmp_path, pcsim_bin):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    with pcsim.Station(path, script=True) as s:
        s.tick(400)
        assert s.state_hash_hex == c_hash(pcsim_bin, path)
    # The built-in scenario (the library's own copy), past its first action
    # (rod_position at 60 s, tick 1200).
    want = c_hash(pcsim_bin, "--seconds", 61)
    with pcsim.Station(script=True) as s:
        s.tick(1220)
        assert s.state_hash_hex == want
        assert [e.text for e in s.events() if e.text] == []  # nothing else happened yet


def test_the_hash_depends_on_the_commands(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    hashes = set()
    for value in (0.7, 0.71):
        with pcsim.Station(path) as s:
            s.command("u1.D", "rod_position", value)
            s.tick(40)
            hashes.add(s.state_hash)
    assert len(hashes) == 2
