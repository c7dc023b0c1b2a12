"""python/examples/hold_power.py: the proportional rod controller holds its
one-unit station's u1 at 50 % power through a load change, within 1 % (of rated power) from 60 s on;
without the controller the same load change takes the unit out of that band.
(The script itself runs verbatim from README's "From Python" block in the
suite, python/tests/run_suite.sh.)"""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "python" / "examples"))
import hold_power  # noqa: E402


def test_controller_holds_fifty_percent():
    powers, env = hold_power.run(seconds=150)
    env.close()
    settled = powers[hold_power.SETTLE_S:]
    assert len(powers) == 150
    assert max(abs(p - 0.5) for p in settled) <= 0.01
    assert max(powers[hold_power.DISTURB_S:]) > 0.505  # the load change did move it


def test_without_the_controller_power_leaves_the_band():
    powers, env = hold_power.run(seconds=150, control=False)
    env.close()
    assert max(abs(p - 0.5) for p in powers[hold_power.SETTLE_S:]) > 0.05
