"""Transient plots of a `pcsim run --csv` file, for people who do not run a
server: ``pcsim plot RUN.csv -o transient.png`` (cli/plot.c runs
``/usr/bin/python3 -m pcsim.plot`` with Debian's python3-matplotlib).

The standard panels, each drawn when the CSV has a channel for it, columns
chosen by name (shell globs, fnmatch):

=============  ============================================  ==================
panel          channels                                      shown in
=============  ============================================  ==================
power          ``*.core.power``, ``*.nis.power*``            MW
pressure       ``*.rcs.pressure``, ``*.pzr.pressure``,       MPa
               ``*.sg*.pressure`` (steam-side units)
temperatures   ``*.t_hot``, ``*.t_cold``, ``*.t_inlet``,     degC
               ``*.t_outlet``, ``*.t_avg`` (coolant only:
               not ``*.fuel.*``, ``*.clad.*``)
flows          ``*.core.flow``, ``*.loop*.flow``             % of first value
levels         ``*.pzr.level``, ``*.nr_level`` (SG narrow    % (as the channel)
               range, steam-side units)
=============  ============================================  ==================

Sensor status columns (``*.status``) are never plotted. The colour is the
unit (``u1``, ``u2``, ...), the line style the quantity. Event markers come
from ``--events LOG``: the output of the same ``pcsim run`` (its event lines,
``  t=   121.25 s  u2 REACTOR TRIP, ...``; with ``--csv -`` that output is on
standard error). Trips, scrams and pump trips are red and labelled, other
events (alarms, rod limits) grey.

This module imports only the standard library at import, and matplotlib
(Agg) when it draws: never the cffi bindings or libpcsim. :func:`plot`
returns a :class:`PlotSummary` (the panels, their columns, the events drawn)
that tests check instead of pixels.
"""

import argparse
import csv
import fnmatch
import math
import os
import re
import sys
from dataclasses import dataclass, field


class PlotError(Exception):
    """A bad input or output: the message names the file and what is wrong."""


@dataclass(frozen=True)
class _Kind:
    """One quantity of a panel: the channel globs and how it is drawn."""

    label: str
    globs: tuple
    style: str = "-"
    width: float = 1.4


@dataclass(frozen=True)
class _Panel:
    name: str
    ylabel: str
    kinds: tuple
    convert: str  # "mega", "celsius", "pct_first", "same"
    min_span: float  # the y axis shows at least this much (in the panel's unit), so
    # a steady value is a flat line, not its last digits magnified


_COOLANT_ONLY = ("*.fuel.*", "*.clad.*")

PANELS = (
    _Panel("power", "power (MW)",
           (_Kind("core.power", ("*.core.power",)),
            _Kind("nis.power (sensors)", ("*.nis.power*",), ":", 0.8)), "mega", 100.0),
    _Panel("pressure", "pressure (MPa)",
           (_Kind("RCS, pressurizer", ("*.rcs.pressure", "*.pzr.pressure")),
            _Kind("SG dome", ("*.sg*.pressure",), "--")), "mega", 0.5),
    _Panel("temperatures", "temperature (\u00b0C)",
           (_Kind("t_hot", ("*.t_hot",)),
            _Kind("t_cold", ("*.t_cold",), "--"),
            _Kind("t_inlet", ("*.t_inlet",), ":", 1.8),
            _Kind("t_outlet", ("*.t_outlet",), "-.", 1.2),
            _Kind("t_avg (coolant)", ("*.t_avg",), (0, (6, 2, 1, 2)), 1.0)), "celsius", 5.0),
    _Panel("flows", "flow (% of first row)",
           (_Kind("core.flow", ("*.core.flow",)),
            _Kind("loop flow", ("*.loop*.flow",), "--", 1.0)), "pct_first", 10.0),
    _Panel("levels", "level (%)",
           (_Kind("pressurizer", ("*.pzr.level",)),
            _Kind("SG narrow range", ("*.nr_level",), "--")), "same", 10.0),
)

DEFAULT_SIZE = (1400, 1200)  # pixels; the PNG is exactly this size
DPI = 100

_UNIT = re.compile(r"^(u\d+)\.")
_EVENT_LINE = re.compile(r"^  t=\s*(-?[0-9]+(?:\.[0-9]*)?) s  (.+)$")
_MAJOR = re.compile(r"\b(TRIP|TRIPPED|SCRAM)\b")


@dataclass
class PanelSummary:
    name: str
    ylabel: str
    columns: list  # CSV column names, in CSV order
    skipped: list = field(default_factory=list)  # (column, why)


@dataclass
class PlotSummary:
    """What :func:`plot` drew."""

    csv: str
    output: str
    rows: int
    t_first: float
    t_last: float
    size_px: tuple
    panels: list  # PanelSummary, in drawing order
    missing: list  # names of the standard panels with no column in the CSV
    events: int = 0  # event markers drawn (inside the CSV's time range)
    major_events: int = 0  # of which trips, scrams, pump trips
    events_outside: int = 0  # event lines outside the time range, not drawn

    def panel(self, name):
        return next((p for p in self.panels if p.name == name), None)


def read_csv(path):
    """(header names after t_s, times, {name: values}) of a pcsim run CSV."""
    try:
        f = open(path, newline="", encoding="utf-8")
    except FileNotFoundError:
        raise PlotError(f"{path}: no such file (make one with `pcsim run --csv {path}`)") from None
    except IsADirectoryError:
        raise PlotError(f"{path}: is a directory, not a CSV file") from None
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}") from None
    with f:
        rows = csv.reader(f)
        try:
            header = next(rows, None)
        except (csv.Error, UnicodeDecodeError) as e:
            raise PlotError(f"{path}:1: not a CSV header: {e}") from None
        if not header:
            raise PlotError(f"{path}: empty: no header line (want t_s,<channel>,... as "
                            "`pcsim run --csv` writes)")
        if header[0] != "t_s":
            raise PlotError(f"{path}:1: first column is '{header[0][:40]}', not t_s: not a "
                            "`pcsim run --csv` file")
        names = header[1:]
        times, cols = [], {n: [] for n in names}
        try:
            for line, row in enumerate(rows, start=2):
                if not row:
                    continue
                if len(row) != len(header):
                    raise PlotError(f"{path}:{line}: {len(row)} fields, the header has "
                                    f"{len(header)}")
                times.append(_number(path, line, "t_s", row[0]))
                for n, v in zip(names, row[1:]):
                    cols[n].append(_number(path, line, n, v))
        except (csv.Error, UnicodeDecodeError) as e:
            raise PlotError(f"{path}: not CSV text: {e}") from None
    if not times:
        raise PlotError(f"{path}: a header but no rows (was the run shorter than one "
                        "--csv-every interval?)")
    return names, times, cols


def _number(path, line, name, text):
    # An empty field is a channel that does not exist at that row's time (a
    # unit added later, a removed pump: README, "The CSV options"): NaN, a
    # gap in its line, never a value.
    if text == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise PlotError(f"{path}:{line}: column {name}: '{text[:40]}' is not a number") from None


def read_events(path):
    """[(t_s, text)] from the output of `pcsim run` (its event lines)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise PlotError(f"--events {path}: no such file (the output of `pcsim run`, e.g. "
                        "`pcsim run --csv run.csv > run.log`)") from None
    except IsADirectoryError:
        raise PlotError(f"--events {path}: is a directory, not a pcsim run log") from None
    except OSError as e:
        raise PlotError(f"--events {path}: cannot read: {e.strerror}") from None
    out = []
    for line in lines:
        m = _EVENT_LINE.match(line)
        if m:
            out.append((float(m.group(1)), m.group(2)))
    return out


def _matches(name, globs):
    return any(fnmatch.fnmatchcase(name, g) for g in globs)


def select_panels(names):
    """[(panel, [(column, kind)])] for the panels with at least one column:
    each column goes to the first kind (in panel order) whose globs match it."""
    out = []
    taken = set()
    for panel in PANELS:
        picked = []
        for name in names:
            if name in taken or name.endswith(".status"):
                continue
            if panel.name == "temperatures" and _matches(name, _COOLANT_ONLY):
                continue
            kind = next((k for k in panel.kinds if _matches(name, k.globs)), None)
            if kind is not None:
                picked.append((name, kind))
                taken.add(name)
        if picked:
            out.append((panel, picked))
    return out


def _convert(panel, values):
    """Values in the panel's unit, or (None, why) when they cannot be."""
    if panel.convert == "mega":
        return [v / 1e6 for v in values], None
    if panel.convert == "celsius":
        return [v - 273.15 for v in values], None
    if panel.convert == "pct_first":
        # the first value the channel has: a unit added later starts empty (NaN)
        first = next((v for v in values if not math.isnan(v)), math.nan)
        if not (math.isfinite(first) and first > 0.0):
            return None, f"first value {first:g} kg/s: no percentage of it"
        return [100.0 * v / first for v in values], None
    return list(values), None


def _unit_of(name):
    m = _UNIT.match(name)
    return m.group(1) if m else "station"


def _short(text):
    """An event's text cut for a label: 'u2 REACTOR TRIP', 'u2 pump2 TRIPPED'."""
    for sep in (",", " (", " at ", ":"):
        i = text.find(sep)
        if i > 0:
            text = text[:i]
    return text[:28]


def _draw_events(axes, events, t0, t1):
    """Grey lines for every event, red for trips and scrams, labelled on the
    top panel (events within 2 % of the span share one label)."""
    inside = [(t, s) for t, s in events if t0 <= t <= t1]
    major = [(t, s) for t, s in inside if _MAJOR.search(s)]
    for t, s in inside:
        red = _MAJOR.search(s) is not None
        for ax in axes:
            ax.axvline(t, color="#c0392b" if red else "#999999", lw=0.9 if red else 0.5,
                       ls="--" if red else "-", alpha=0.8 if red else 0.5, zorder=0)
    gap = 0.02 * (t1 - t0) if t1 > t0 else 0.0
    last = None
    for t, s in major:
        if last is not None and t - last <= gap:
            continue
        last = t
        axes[0].annotate(_short(s), xy=(t, 1.0), xycoords=("data", "axes fraction"),
                         xytext=(2, -3), textcoords="offset points", rotation=90, va="top",
                         ha="left", fontsize=7, color="#c0392b",
                         bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.7))
    return len(inside), len(major), len(events) - len(inside)


def _min_span(ax, span):
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")
    lo, hi = ax.get_ylim()
    if hi - lo < span:
        mid = 0.5 * (lo + hi)
        ax.set_ylim(mid - 0.5 * span, mid + 0.5 * span)


def _legend(ax, units, kinds):
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=c, lw=2.0, label=u) for u, c in units]
    handles += [Line2D([], [], color="black", ls=k.style, lw=k.width, label=k.label)
                for k in kinds]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8,
              frameon=False, borderaxespad=0.0)


def plot(csv_path, out_path, events_path=None, title=None, size_px=DEFAULT_SIZE):
    """Draw @p csv_path's transient panels into the PNG @p out_path and return
    a PlotSummary. Raises PlotError with a message naming the file."""
    names, times, cols = read_csv(csv_path)
    chosen = select_panels(names)
    if not chosen:
        wanted = "; ".join(f"{p.name}: " + ", ".join(g for k in p.kinds for g in k.globs)
                           for p in PANELS)
        raise PlotError(f"{csv_path}: no plottable columns: none of its {len(names)} channel(s) "
                        f"({', '.join(names[:4])}{', ...' if len(names) > 4 else ''}) matches "
                        f"a panel ({wanted})")
    events = read_events(events_path) if events_path else []
    if events_path and not events:
        print(f"pcsim plot: note: --events {events_path} has no event lines "
              "('  t=   12.00 s  text' as pcsim run prints them): no markers drawn",
              file=sys.stderr)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise PlotError(f"matplotlib is missing ({e}): install Debian's python3-matplotlib "
                        "(`make deps` does)") from None

    width, height = size_px
    fig, axes = plt.subplots(len(chosen), 1, sharex=True, squeeze=False,
                             figsize=(width / DPI, height / DPI), dpi=DPI)
    axes = [a[0] for a in axes]
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    units = sorted({_unit_of(n) for n in names}, key=lambda u: (len(u), u))
    colour = {u: palette[i % len(palette)] for i, u in enumerate(units)}
    summary_panels = []
    for ax, (panel, picked) in zip(axes, chosen):
        ps = PanelSummary(panel.name, panel.ylabel, [])
        seen_units, seen_kinds = [], []
        for name, kind in picked:
            values, why = _convert(panel, cols[name])
            if values is None:
                ps.skipped.append((name, why))
                continue
            u = _unit_of(name)
            ax.plot(times, values, color=colour[u], ls=kind.style, lw=kind.width)
            ps.columns.append(name)
            if u not in seen_units:
                seen_units.append(u)
            if kind not in seen_kinds:
                seen_kinds.append(kind)
        seen_kinds.sort(key=panel.kinds.index)
        _min_span(ax, panel.min_span)
        ax.set_ylabel(panel.ylabel)
        ax.grid(True, lw=0.4, alpha=0.5)
        _legend(ax, [(u, colour[u]) for u in seen_units], seen_kinds)
        summary_panels.append(ps)
    axes[-1].set_xlabel("simulated time (s)")
    axes[-1].set_xlim(times[0], times[-1])
    n_ev, n_major, n_out = _draw_events(axes, events, times[0], times[-1])
    fig.suptitle(title or f"pcsim run: {os.path.basename(csv_path)} "
                 f"({times[0]:g} to {times[-1]:g} s, {len(times)} rows)", fontsize=11)
    fig.subplots_adjust(left=0.07, right=0.84, top=0.95, bottom=0.05, hspace=0.12)
    try:
        fig.savefig(out_path, format="png", dpi=DPI)
    except OSError as e:
        raise PlotError(f"-o {out_path}: cannot write: {e.strerror or e}") from None
    finally:
        plt.close(fig)
    present = {p.name for p, _ in chosen}
    return PlotSummary(
        csv=csv_path, output=out_path, rows=len(times), t_first=times[0], t_last=times[-1],
        size_px=(width, height), panels=summary_panels,
        missing=[p.name for p in PANELS if p.name not in present], events=n_ev,
        major_events=n_major, events_outside=n_out)


def _size(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or not (200 <= int(m.group(1)) <= 10000 and 200 <= int(m.group(2)) <= 10000):
        raise argparse.ArgumentTypeError(
            f"'{text}': expected WIDTHxHEIGHT in pixels, each in [200, 10000]")
    return int(m.group(1)), int(m.group(2))


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="pcsim plot",
        description="Plot the standard transient panels (power, pressure, temperatures, "
                    "flows, levels) of a `pcsim run --csv` file into a PNG.")
    ap.add_argument("csv", metavar="RUN.csv", help="a CSV written by pcsim run --csv")
    ap.add_argument("-o", "--output", metavar="PNG", required=True, help="the PNG to write")
    ap.add_argument("--events", metavar="LOG",
                    help="the output of the same pcsim run (its event lines mark the plot)")
    ap.add_argument("--title", help="the figure's title (default: the CSV's name and span)")
    ap.add_argument("--size", type=_size, default=DEFAULT_SIZE, metavar="WxH",
                    help="image size in pixels (default %dx%d)" % DEFAULT_SIZE)
    args = ap.parse_args(argv)
    try:
        s = plot(args.csv, args.output, args.events, args.title, args.size)
    except PlotError as e:
        print(f"pcsim plot: {e}", file=sys.stderr)
        return 2
    panels = ", ".join(f"{p.name} ({len(p.columns)})" for p in s.panels)
    print(f"pcsim plot: {s.output}: {s.size_px[0]}x{s.size_px[1]} px, {s.rows} rows "
          f"{s.t_first:g}-{s.t_last:g} s; panels: {panels}"
          + (f"; no {', '.join(s.missing)} column" if s.missing else "")
          + (f"; {s.events} events ({s.major_events} trips/scrams)" if args.events else ""))
    for p in s.panels:
        for name, why in p.skipped:
            print(f"pcsim plot: note: {p.name}: {name} not drawn: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
