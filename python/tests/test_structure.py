"""Structural change while running (issue 19) through the bindings: a pump
removed, installed and started by a station's script, and the channel list
across the change (pcsim/structure.h: a retired channel keeps its id)."""

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
