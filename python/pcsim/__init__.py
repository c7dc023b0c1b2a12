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
declarations are generated from the public headers by `make`, and at import
the package checks the library's version and the layout of every public
struct against the table the library exports (pcs_abi_layout), refusing to
load on any difference. numpy is imported only when an array is asked for.

Threads: a Station belongs to the thread that created it: tick, commands,
save, load, value and close raise pcsim.Error on any other. A Channels
reader may be used from another thread, one thread at a time.

Errors: every failing pcsim call raises pcsim.Error with pcsim's message.
"""

from ._lib import library_path, version
from ._station import (
    Action,
    ChannelInfo,
    Channels,
    Command,
    Error,
    Event,
    Scenario,
    Station,
    command_names,
    event_name,
)

__all__ = [
    "Action",
    "ChannelInfo",
    "Channels",
    "Command",
    "Error",
    "Event",
    "Scenario",
    "Station",
    "command_names",
    "event_name",
    "library_path",
    "version",
]
__version__ = version
