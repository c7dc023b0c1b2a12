"""Channel reads into numpy: the values, one C call per read into the same
array, no allocation after the first read, and the reads before the first
tick (nothing published yet)."""

import itertools
import tracemalloc

import numpy as np
import pytest

import pcsim

NAMES = ["u1.core.power", "u1.core.flow", "u2.rcs.pressure", "u1.core.trip", "u4.core.relative_power"]
# The same kinds (f64 and the u32 trip word) on the two-unit station (conftest).
NAMES2 = NAMES[:4] + ["u2.core.relative_power"]


def test_read_equals_the_live_values(default_station):
    station = default_station
    ch = station.channels(NAMES)
    before = ch.read().copy()  # tick 0: read live, nothing published yet
    assert ch.tick == 0
    assert before[4] == pytest.approx(0.45, abs=1e-12)  # u4 starts at 45 % (pwr-station.json)
    station.tick(10)
    out = ch.read()
    assert out.dtype == np.float64 and out.shape == (len(NAMES),)
    assert ch.tick == 9  # published by the last tick (ticks 0..9)
    assert out.tolist() == [station.value(n) for n in NAMES]
    assert ch.read() is out  # the reader's own array, refilled


def test_read_into_the_callers_array(station):
    ch = station.channels(NAMES2)
    station.tick()
    mine = np.full(len(NAMES2), np.nan)
    assert ch.read(mine) is mine
    assert not np.isnan(mine).any()
    with pytest.raises(ValueError, match="float64 array of shape"):
        ch.read(np.zeros(len(NAMES2), dtype=np.float32))
    with pytest.raises(ValueError, match=r"shape \(5,\)"):
        ch.read(np.zeros(3))


def _alloc(f, times=1000):
    """(bytes kept, bytes at the peak) over `times` calls of f, as tracemalloc
    counts them (the measuring itself costs a constant few dozen bytes)."""
    f()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        for _ in itertools.repeat(None, times):  # range() would allocate its ints
            f()
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return now - base, peak - base


@pytest.mark.parametrize("own", [True, False])
@pytest.mark.parametrize("every_channel", [False, True])
def test_no_allocation_after_the_first_read(station, own, every_channel):
    names = station.channel_names() if every_channel else NAMES2
    ch = station.channels(names)
    station.tick()
    out = None if own else np.zeros(len(names))
    ch.read(out)  # the first read allocates (the array, its pointer)
    kept, peak = _alloc(lambda: ch.read(out))
    # The floor: the bare C call with the same arguments. cffi's ABI-mode
    # call machinery mallocs and frees one argument buffer per call (its
    # size set by the signature, not the data); anything above that floor
    # would be the package's.
    lib = pcsim._lib.lib
    r, ids, n, ptr, tick = ch._r, ch._ids, len(names), ch._last_ptr, ch._tick
    bare_kept, bare_peak = _alloc(lambda: lib.pcs_snapshot_read(r, ids, n, ptr, tick))
    _, nothing = _alloc(lambda: None)
    assert kept == 0, f"{kept} bytes kept by 1000 reads"
    assert peak == bare_peak, f"a read's peak {peak} B, the bare C call's {bare_peak} B"
    assert bare_kept == 0 and bare_peak - nothing <= 128
    assert ch.read(out) is (ch._own if own else out)


def test_reads_follow_the_ticks(station):
    ch = station.channels(["u2.core.flow"])
    station.tick()
    flow0 = ch.read()[0]
    station.command("u2.pump2", "pump_trip")
    station.tick(40)
    flow = ch.read()[0]
    assert 0.5 * flow0 < flow < 0.98 * flow0  # one pump of four coasting down, 2 s in
