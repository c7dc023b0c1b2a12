"""Structural change while running (issue 19) through the bindings: a pump
removed, installed and started by a station's script, and the channel list
across the change (pcsim/structure.h: a retired channel keeps its id)."""

import json
import subprocess

import pytest

import pcsim

# One single-loop unit: the cheapest station with a pump to take out.
SCENARIO = """{"schema": 1, "name": "pump-reinstall",
 "units": [{"name": "u1", "loops": 2}],
 "script": [{"t_s": 0.1, "command": "pump_remove", "target": "u1.pump1"},
            {"t_s": 0.2, "command": "pump_install", "target": "u1.pump1"},
            {"t_s": 0.3, "command": "pump_start", "target": "u1.pump1"}]}"""


def _station():
    return pcsim.Station(pcsim.Scenario.from_string(SCENARIO, "pump-reinstall.json"), script=True)


def test_channel_names_skip_a_removed_pumps_channel():
    with _station() as st:
        before = st.channel_names()
        assert "u1.pump1.speed" in before
        st.tick(3)  # the removal applies at the end of tick 2
        names = st.channel_names()
        assert "u1.pump1.speed" not in names
        assert len(names) == len(before) - 1
        st.tick(2)  # the install at tick 4: the channel again, under a new id
        names = st.channel_names()
        assert names.count("u1.pump1.speed") == 1
        assert len(names) == len(before)


def test_script_starts_the_reinstalled_pump():
    with _station() as st:
        st.tick(7)  # remove (tick 2), install (tick 4), start (tick 6)
        kinds = [e.name for e in st.events()]
        assert "PCS_EV_COMMAND_REJECTED" not in kinds, st.events()
        assert "PCS_EV_PRIMARY_PUMP_STARTED" in kinds


# u2 built later: its scram before its unit_add (dropped at its tick, as
# `pcsim run` drops it), then its add and a trip of its own pump, a target
# that does not exist at the start.
LATER = """{"schema": 1, "name": "later-unit", "run": {"seconds": 2},
 "units": [{"name": "u1", "loops": 1}, {"name": "u2", "loops": 1, "build": "later"}],
 "script": [{"t_s": 0.5, "command": "scram", "target": "u2"},
            {"t_s": 1.0, "command": "unit_add", "target": "u2"},
            {"t_s": 1.5, "command": "pump_trip", "target": "u2.pump1"}]}"""


def test_a_script_names_a_later_units_targets_as_pcsim_run_does(tmp_path, pcsim_bin):
    """The script's targets of u2 were resolved when the station was built,
    before u2 existed: Station(script=True) raised PCS_E_NOTFOUND for
    'u2.pump1'. They are checked against the plant with u2 built aside and
    resolved at their tick; the run's hash is pcsim run's."""
    path = tmp_path / "later.json"
    path.write_text(LATER)
    r = subprocess.run([str(pcsim_bin), "run", str(path), "--json", "--quiet", "--readers", "0"],
                       capture_output=True, text=True, check=True)
    with pcsim.Station(path, script=True) as st:
        with pytest.warns(RuntimeWarning, match=r"t=0\.50 s \(tick 10\): .*scram of 'u2' dropped: "
                                                r"u2 is not built at this tick"):
            st.tick(40)
        assert st.script_dropped == 1
        kinds = [e.name for e in st.events()]
        assert "PCS_EV_COMMAND_REJECTED" not in kinds
        assert "PCS_EV_PRIMARY_PUMP_TRIPPED" in kinds
        assert st.state_hash_hex == json.loads(r.stdout)["state_hash"]


def test_a_script_target_no_later_unit_will_have_is_refused_at_the_start():
    """Checked against u2 as its build makes it (one loop): the probe's
    message, as pcsim run's (cli test later-unit-target-never-exists)."""
    text = LATER.replace('"u2.pump1"', '"u2.pump2"')
    with pytest.raises(pcsim.Error, match="PCS_E_NOTFOUND") as e:
        pcsim.Station(pcsim.Scenario.from_string(text, "later.json"), script=True)
    assert "later.json: $.script[2].target: no pump 'pump2' in u2 (pump1..pump1)" in str(e.value)
