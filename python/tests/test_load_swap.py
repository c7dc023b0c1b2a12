"""Station.load of a save with a structure log (issue 19): the load runs in a
fresh world, swapped in only on success (pcsim/persist.h: a load replays the
save's structural changes before it checks the rest, and an applied change
cannot be undone). A refused load leaves the station as it was; a save made
before a structural change loads after it."""

import struct

import pytest

import pcsim

# One single-loop unit: the cheapest station with a pump to take out.
SCENARIO = """{"schema": 1, "name": "pump-swap", "units": [{"name": "u1", "loops": 2}]}"""


def _station():
    return pcsim.Station(pcsim.Scenario.from_string(SCENARIO, "pump-swap.json"))


def _save_without_pump(path):
    """A save at tick 3 whose structure log holds one pump_remove."""
    with _station() as st:
        st.command("u1.pump1", "pump_remove")
        st.tick(3)
        st.save(path)


def _corrupt(src, dst):
    """src with a byte of its first section (a state store, not the log)
    flipped: its header, table and log still check out, its checksum not."""
    b = bytearray(src.read_bytes())
    n_sections = struct.unpack_from("<I", b, 12)[0]
    first = struct.unpack_from("<Q", b, 48 + 64)[0]  # persist.h: header 48, name[64], offset
    assert first == 48 + 104 * n_sections + 8
    b[first] ^= 0xFF
    dst.write_bytes(bytes(b))


def test_a_refused_load_leaves_the_station_as_it_was(tmp_path):
    _save_without_pump(tmp_path / "removed.save")
    _corrupt(tmp_path / "removed.save", tmp_path / "bad.save")
    with _station() as ref:
        ref.tick(3)
        want = ref.state_hash
    with _station() as st:
        st.tick(2)
        flow = st.channels(["u1.pump1.speed"])
        with pytest.raises(pcsim.Error, match="checksum"):
            st.load(tmp_path / "bad.save")
        assert st.tick_count == 2
        assert "u1.pump1.speed" in st.channel_names()
        st.tick(1)
        assert st.state_hash == want
        assert flow.read()[0] == st.value("u1.pump1.speed")


def test_a_save_loads_after_a_structural_change_made_since_it(tmp_path):
    """save, pump_install, load that save (it was refused: "the save's
    structure log has 1 entries; this world has applied 2")."""
    path = tmp_path / "removed.save"
    with _station() as st:
        st.command("u1.pump1", "pump_remove")
        st.tick(3)
        st.save(path)
        st.load(path)
        st.tick(1)
        then = st.state_hash
        flow = st.channels(["u1.core.flow"])
        st.command("u1.pump1", "pump_install")
        st.tick(2)
        assert "u1.pump1.speed" in st.channel_names()
        st.load(path)
        assert st.tick_count == 3
        assert "u1.pump1.speed" not in st.channel_names()
        st.tick(1)
        assert st.state_hash == then
        assert flow.read()[0] == st.value("u1.core.flow")  # the reader follows the new world
        assert flow.tick == 3  # published by tick index 3 (the fourth), as before a load
