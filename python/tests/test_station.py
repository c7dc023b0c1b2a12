"""The station API: scenarios, ticks, commands by name, events, save/load,
the state hash, errors as pcsim.Error with pcsim's message, thread rules."""

import threading

import pytest

import pcsim

from conftest import TWO_UNITS


def test_default_scenario_and_station(default_station):
    station = default_station
    assert station.scenario.name == "pwr-station"
    assert station.unit_count == 4
    assert station.dt_s == 0.05
    assert station.seed == 20261130  # scenarios/pwr-station.json world.seed
    assert station.tick_count == 0
    station.tick(40)
    assert station.tick_count == 40
    assert station.time_s == pytest.approx(2.0)
    assert "u1.core.power" in station.channel_names()
    info = station.channel_info("u1.core.power")
    assert (info.name, info.unit, info.kind) == ("u1.core.power", "W", "f64")
    # 3411 MWt nominal at full power (scenarios/README.md), within 0.1 %.
    assert station.value("u1.core.power") == pytest.approx(3411e6, rel=1e-3)


def test_command_names_include_the_scripts():
    names = pcsim.command_names()
    for n in ("rod_position", "rod_speed", "scram", "pump_trip", "sg_pressure", "boron"):
        assert n in names


def test_pump_trip_by_name_gives_its_events(station):
    station.command("u2.pump2", "pump_trip")
    station.tick(60)  # 3 s: the low-flow trip follows the coast-down
    events = station.events()
    first = events[0]
    assert (first.tick, first.name) == (0, "PCS_EV_PRIMARY_PUMP_TRIPPED")
    assert first.text.startswith("u2 pump2 TRIPPED at")
    names = [e.name for e in events]
    assert "PCS_EV_UNIT_TRIP" in names and "PCS_EV_UNIT_SCRAM" in names
    scram = events[names.index("PCS_EV_UNIT_SCRAM")]
    assert scram.text.startswith("u2 SCRAM (protection")
    assert station.events() == []  # each event once
    assert station.events_missed == 0


def test_unknown_target_raises_with_pcsims_message(station):
    with pytest.raises(pcsim.Error) as e:
        station.command("u2.pump9", "pump_trip")
    assert e.value.code == "PCS_E_NOTFOUND"
    assert "pump9" in e.value.message and "pump1..pump4" in e.value.message


def test_value_out_of_range_raises_naming_the_range(station):
    rod = station.prepare("u1.D", "rod_position")
    with pytest.raises(pcsim.Error) as e:
        rod.submit(1.5)
    assert e.value.code == "PCS_E_INVAL"
    assert "value 1.5 is outside [0, 1]" in str(e.value)
    rod.submit(0.5)  # the same Command still works


def test_unknown_channel_raises(station):
    with pytest.raises(pcsim.Error) as e:
        station.channels(["u1.core.power", "u1.no_such"])
    assert e.value.code == "PCS_E_NOTFOUND" and "u1.no_such" in e.value.message


def test_scenario_from_string_errors_name_the_path():
    with pytest.raises(pcsim.Error) as e:
        pcsim.Scenario.from_string('{"schema": 1, "world": {"dt_s": -1}}', name="bad.json")
    assert e.value.code == "PCS_E_INVAL"
    assert "bad.json" in e.value.message and "dt_s" in e.value.message


def test_scenario_from_file_and_string(tmp_path):
    text = pcsim.Scenario.default_text()
    path = tmp_path / "s.json"
    path.write_text(text)
    a = pcsim.Scenario.from_file(path)
    b = pcsim.Scenario.from_string(text, name="mine")
    assert a.source == str(path) and b.source == "mine"
    assert a.build_hash == b.build_hash == pcsim.Scenario().build_hash
    assert [x.command for x in a.actions][:3] == ["rod_manual", "rod_position", "pump_trip"]
    assert a.actions[2].tick == 2400  # t_s 120 at dt 0.05
    with pytest.raises(pcsim.Error) as e:
        pcsim.Scenario.from_file(tmp_path / "missing.json")
    assert "missing.json" in e.value.message


def test_save_load_round_trip_and_refusal(station, tmp_path):
    station.tick(100)
    path = tmp_path / "w.save"
    station.save(path)
    station.command("u1.D", "rod_position", 0.7)
    station.tick(100)
    h1 = station.state_hash
    station.load(path)
    assert station.tick_count == 100
    station.command("u1.D", "rod_position", 0.7)
    station.tick(100)
    assert station.state_hash == h1
    bad = tmp_path / "bad.save"
    bad.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(pcsim.Error) as e:
        station.load(bad)
    assert "bad.save" in e.value.message
    assert station.state_hash == h1  # a refused load leaves the world as it was
    other = pcsim.Station(TWO_UNITS, seed=5)
    with pytest.raises(pcsim.Error) as e:
        other.load(path)  # another seed
    assert e.value.code == "PCS_E_CORRUPT" and "seed" in e.value.message
    other.close()


def test_seed_moves_the_sensors_and_the_plant_only_through_control():
    a, b = pcsim.Station(TWO_UNITS, seed=1), pcsim.Station(TWO_UNITS, seed=2)
    for s in (a, b):
        s.tick(20)
    assert a.value("u1.nis.power.A") != b.value("u1.nis.power.A")  # sensor noise
    # The plant feels the noise only through its pressurizer controller, which
    # reads measured pressure and level as a plant's does: a few kPa of heater
    # demand, far below a part in 1e5 of core power after a second.
    pa, pb = a.value("u1.core.power"), b.value("u1.core.power")
    assert abs(pa - pb) <= 1e-5 * pa
    a.close(), b.close()


def test_other_threads_are_refused(station):
    errors = []

    def other():
        for call in (lambda: station.tick(), lambda: station.command("u1", "scram"),
                     lambda: station.close()):
            try:
                call()
            except pcsim.Error as e:
                errors.append(str(e))

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 3 and all("belongs to thread" in m for m in errors)
    assert station.tick_count == 0
    station.tick()  # still open


def test_closed_station_raises():
    s = pcsim.Station(TWO_UNITS)
    ch = s.channels(["u1.core.power"])
    s.close()
    with pytest.raises(pcsim.Error, match="closed"):
        s.tick()
    with pytest.raises(pcsim.Error, match="closed"):
        ch.read()
    s.close()  # twice is fine


def test_the_script_source_has_the_scenarios_rate_limit(repo):
    """The script source gets run.command_rate_per_s / run.command_burst as
    `pcsim run` does (tests/cli/rate_limit.json: 20/s, burst 2, three actions
    at tick 0): the third is refused by the bucket and raised here."""
    scn = pcsim.Scenario.from_file(str(repo / "tests/cli/rate_limit.json"))
    st = pcsim.Station(scn, script=True)
    try:
        with pytest.raises(pcsim.Error, match="rate limit"):
            st.tick(1)
    finally:
        st.close()
