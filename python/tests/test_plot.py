"""pcsim.plot (the drawing behind `pcsim plot`): which columns go to which
panel, the PNG's size, event markers, the errors, and that importing it
loads neither cffi nor libpcsim. Checked through the PlotSummary that plot()
returns, not through pixels."""

import math
import os
import re
import struct
import subprocess
import sys

import pytest

from pcsim import plot as pplot

from conftest import REPO


def png_size(path):
    """(width, height) from the PNG's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


@pytest.fixture(scope="module")
def run130(tmp_path_factory, pcsim_bin):
    """126 s of the default station, a CSV row a second: u2's pump 2 trips at
    120 s, the low-flow trip and the scram follow at 121.55 s and 121.60 s.
    (126 s, not 130: SG 2's post-trip low-low level function fires at about
    129.6-130 s, and which side of the run's end it lands moved with every
    change to the steam side.)"""
    d = tmp_path_factory.mktemp("plot")
    csv_path, log = d / "run.csv", d / "run.log"
    with open(log, "w") as out:
        subprocess.run([str(pcsim_bin), "run", "--seconds", "126", "--readers", "0",
                        "--csv-every", "1", "--csv", str(csv_path)],
                       stdout=out, stderr=subprocess.STDOUT, check=True, timeout=120)
    return csv_path, log


def header(path):
    with open(path) as f:
        return f.readline().strip().split(",")


def test_default_station_panels_columns_and_events(run130, tmp_path):
    csv_path, log = run130
    png = tmp_path / "t.png"
    s = pplot.plot(str(csv_path), str(png), events_path=str(log))
    assert png_size(png) == pplot.DEFAULT_SIZE == (1400, 1200)
    assert [p.name for p in s.panels] == ["power", "pressure", "temperatures", "flows", "levels"]
    assert s.missing == []
    assert (s.rows, s.t_first, s.t_last) == (126, 1.0, 126.0)
    names = header(csv_path)[1:]

    def want(pattern):
        return [n for n in names if re.fullmatch(pattern, n)]

    # 4 units: core power and the four NIS sensors each (status columns not).
    assert s.panel("power").columns == want(r"u\d\.(core\.power|nis\.power\.[A-D])")
    assert len(s.panel("power").columns) == 20
    # RCS (hot leg), pressurizer and the four SG domes' pressure per unit
    # (the default's units have the steam side); not the sensors.
    assert s.panel("pressure").columns == want(r"u\d\.(rcs|pzr|sg\d)\.pressure")
    assert len(s.panel("pressure").columns) == 24
    # Coolant temperatures only: fuel.t_avg and clad.t_max are not drawn.
    temps = want(r"u\d\.(loop\d\.t_(hot|cold)|core\.t_(inlet|outlet)|(coolant|rcs)\.t_avg)")
    assert s.panel("temperatures").columns == temps and len(temps) == 48
    assert s.panel("flows").columns == want(r"u\d\.(core\.flow|loop\d\.flow)")
    # pressurizer level and the SGs' narrow-range levels (%), not the SGs'
    # collapsed levels (m)
    levels = want(r"u\d\.(pzr\.level|sg\d\.nr_level)")
    assert s.panel("levels").columns == levels and len(levels) == 20
    assert all(not p.skipped for p in s.panels)
    # The log's 8 event lines (u1's rods are on automatic control, so no
    # bank-limit line): u2's pump trip, two alarm lines, the low-flow trip
    # function, reactor trip, scram, the turbine-trip function and its alarm;
    # 3 of them trips/scrams. (The low-flow function does not trip again as
    # the power falls: P-8, which arms it, resets once at 38 %.)
    assert (s.events, s.major_events, s.events_outside) == (8, 3, 0)


def test_size_option_and_events_outside_the_range(run130, tmp_path, capsys):
    csv_path, _ = run130
    log = tmp_path / "events.log"
    log.write_text("t=    60.0 s u1 | core.power 3.4e+09 W\n"  # a timeline line: not an event
                   "  t=    50.00 s  u1 SCRAM (manual)\n"
                   "  t=   500.00 s  u3 REACTOR TRIP, first out: x\n")
    png = tmp_path / "small.png"
    rc = pplot.main([str(csv_path), "-o", str(png), "--size", "800x600", "--events", str(log),
                     "--title", "small"])
    assert rc == 0
    assert png_size(png) == (800, 600)
    out = capsys.readouterr().out
    assert f"{png}: 800x600 px, 126 rows 1-126 s; panels: power (20), pressure (24), " \
           "temperatures (48), flows (20), levels (20); 1 events (1 trips/scrams)" in out


def write(path, text):
    path.write_text(text)
    return str(path)


def test_levels_units_and_what_is_never_plotted(tmp_path):
    csv_path = write(tmp_path / "f.csv",
                     "t_s,u1.core.power,u1.pzr.level,u1.fuel.t_avg,u1.loop1.flow,"
                     "u1.loop1.flow.A.status,u1.core.t_inlet,u1.pump1.speed\n"
                     "0.5,3.4e9,55,900,4000,0,565.15,124.5\n"
                     "1.0,3.3e9,56,890,0,0,566.15,60\n")
    s = pplot.plot(csv_path, str(tmp_path / "f.png"), size_px=(600, 500))
    assert [p.name for p in s.panels] == ["power", "temperatures", "flows", "levels"]
    assert s.panel("levels").columns == ["u1.pzr.level"]
    assert s.panel("temperatures").columns == ["u1.core.t_inlet"]
    assert s.panel("flows").columns == ["u1.loop1.flow"]
    assert png_size(tmp_path / "f.png") == (600, 500)
    # Conversions, hand-computed: W -> MW, K -> degC, flow % of the first row.
    power, temps, flows, _ = [p for p, _ in pplot.select_panels(["u1.core.power",
                                                                 "u1.core.t_inlet",
                                                                 "u1.loop1.flow",
                                                                 "u1.pzr.level"])]
    assert pplot._convert(power, [3.4e9])[0] == [3400.0]
    assert pplot._convert(temps, [565.15])[0] == pytest.approx([292.0])
    assert pplot._convert(flows, [4000.0, 1000.0, -400.0])[0] == [100.0, 25.0, -10.0]
    assert pplot._convert(flows, [0.0, 1.0])[0] is None  # no percentage of 0


def test_flow_starting_at_zero_is_skipped_and_said(tmp_path, capsys):
    csv_path = write(tmp_path / "z.csv", "t_s,u1.core.power,u1.loop1.flow\n1,1e9,0\n2,1e9,5\n")
    assert pplot.main([csv_path, "-o", str(tmp_path / "z.png")]) == 0
    err = capsys.readouterr().err
    assert "flows: u1.loop1.flow not drawn: first value 0 kg/s: no percentage of it" in err


def test_empty_field_is_a_gap_for_a_unit_added_later(tmp_path):
    """`pcsim run --csv` writes a field empty while its channel does not exist
    (README, "The CSV options": u2 before its unit_add): NaN, a gap in the
    line, not an error; a flow's percentage is of its first value."""
    csv_path = write(tmp_path / "g.csv",
                     "t_s,u1.core.power,u2.core.power,u2.loop1.flow\n"
                     "1,3.4e9,,\n"
                     "2,3.4e9,1.7e9,4000\n"
                     "3,3.4e9,1.6e9,2000\n")
    names, times, cols = pplot.read_csv(csv_path)
    assert times == [1.0, 2.0, 3.0]
    assert math.isnan(cols["u2.core.power"][0]) and cols["u2.core.power"][1:] == [1.7e9, 1.6e9]
    flows = [p for p, _ in pplot.select_panels(["u2.loop1.flow"])][0]
    got = pplot._convert(flows, cols["u2.loop1.flow"])[0]
    assert math.isnan(got[0]) and got[1:] == [100.0, 50.0]  # hand-computed: 4000, 2000 of 4000
    s = pplot.plot(csv_path, str(tmp_path / "g.png"), size_px=(600, 500))
    assert s.panel("power").columns == ["u1.core.power", "u2.core.power"]


@pytest.mark.parametrize("name,text,message", [
    ("missing.csv", None, "{p}: no such file (make one with `pcsim run --csv {p}`)"),
    ("empty.csv", "", "{p}: empty: no header line"),
    ("no_t.csv", "time,u1.core.power\n1,2\n",
     "{p}:1: first column is 'time', not t_s: not a `pcsim run --csv` file"),
    ("no_rows.csv", "t_s,u1.core.power\n", "{p}: a header but no rows"),
    ("bad_number.csv", "t_s,u1.core.power\n1,abc\n",
     "{p}:2: column u1.core.power: 'abc' is not a number"),
    ("short_row.csv", "t_s,u1.core.power\n1\n", "{p}:2: 1 fields, the header has 2"),
    ("nothing.csv", "t_s,u1.rods.pos,u1.core.boron\n1,0.9,975\n",
     "{p}: no plottable columns: none of its 2 channel(s) (u1.rods.pos, u1.core.boron) "
     "matches a panel (power: *.core.power, *.nis.power*; pressure: *.rcs.pressure, "
     "*.pzr.pressure, *.sg*.pressure;"),
])
def test_bad_csv_is_named_and_exits_2(tmp_path, capsys, name, text, message):
    p = tmp_path / name
    if text is not None:
        p.write_text(text)
    png = tmp_path / "out.png"
    assert pplot.main([str(p), "-o", str(png)]) == 2
    assert f"pcsim plot: {message.format(p=p)}" in capsys.readouterr().err
    assert not png.exists()


def test_missing_events_file_and_unwritable_output(run130, tmp_path, capsys):
    csv_path, _ = run130
    assert pplot.main([str(csv_path), "-o", str(tmp_path / "x.png"),
                       "--events", str(tmp_path / "nope.log")]) == 2
    assert f"--events {tmp_path / 'nope.log'}: no such file" in capsys.readouterr().err
    assert pplot.main([str(csv_path), "-o", "/nonexistent/dir/x.png"]) == 2
    assert "-o /nonexistent/dir/x.png: cannot write: " in capsys.readouterr().err


def test_bad_size_is_refused_with_its_range(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        pplot.main(["x.csv", "-o", "x.png", "--size", "90x4000"])
    assert e.value.code == 2
    assert "'90x4000': expected WIDTHxHEIGHT in pixels, each in [200, 10000]" in \
        capsys.readouterr().err


def test_plot_imports_neither_cffi_nor_the_library():
    """`python3 -m pcsim.plot` must work where libpcsim cannot load: the
    package loads its bindings on first use, not at import."""
    code = ("import sys, pcsim.plot; "
            "print(sorted(m for m in ('cffi', 'pcsim._lib', 'pcsim._station', 'matplotlib') "
            "if m in sys.modules))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PCSIM_LIBRARY="/nonexistent/libpcsim.so", PYTHONPATH=str(REPO / "python"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd="/", timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
