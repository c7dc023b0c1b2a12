"""pcsim from Python: the deterministic reactor-plant station of libpcsim.

    import pcsim
    with pcsim.Station() as sim:                     # the built-in 4-unit station
        power = sim.channels(["u1.core.power", "u1.core.flow"])
        sim.command("u2.pump2", "pump_trip")         # by name; applies next tick
        sim.tick(200)
        print(power.read(), sim.state_hash_hex)
        for ev in sim.events():
            print(ev.tick, ev.text)

Bindings are cffi in ABI mode over libpcsim.so (found through
$PCSIM_LIBRARY, then the source tree's build/, then the system loader); the
declarations are generated from the public headers by `make`, and when the
bindings load the package checks the library's version and the layout of
every public struct against the table the library exports (pcs_abi_layout),
refusing to load on any difference. They load on the first name taken from
the package (pcsim.Station, pcsim.version, `from pcsim import Event`, ...),
not at `import pcsim`: so `python3 -m pcsim.plot` (the plots of
`pcsim plot`, matplotlib only) needs neither cffi nor the library. numpy is
imported only when an array is asked for.

Threads: a Station belongs to the thread that created it: tick, commands,
save, load, value and close raise pcsim.Error on any other. A Channels
reader may be used from another thread, one thread at a time.

Errors: every failing pcsim call raises pcsim.Error with pcsim's message.
"""

import importlib

# Name -> the submodule that defines it, imported on first access (PEP 562).
_LAZY = {
    "Action": "._station",
    "ChannelInfo": "._station",
    "Channels": "._station",
    "Command": "._station",
    "Error": "._station",
    "Event": "._station",
    "Scenario": "._station",
    "Station": "._station",
    "command_names": "._station",
    "event_name": "._station",
    "library_path": "._lib",
    "version": "._lib",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    attr = "version" if name == "__version__" else name
    module = _LAZY.get(attr)
    if module is None:
        raise AttributeError(f"module 'pcsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})
