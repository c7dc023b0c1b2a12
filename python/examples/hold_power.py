"""Hold a unit at 50 % power with a proportional rod controller.

A one-unit station (SCENARIO below: the primary with the steam generators'
secondary as a pressure boundary, sg_model "boundary", and no automatic rod
control) runs at 50 % power. At t = 30 s its steam
generators' secondary pressure drops from 6.89 to 6.4 MPa (a load increase:
the SGs draw more heat, the coolant cools, and the negative moderator
temperature coefficient adds reactivity), which left alone takes the unit
to 67 % within three minutes. The controller reads the unit's relative power
every second and moves control bank D's demanded position by
KP x (0.5 - power): rod speed proportional to the power error, the way a
PWR's rod control runs its banks, at the bank's own drive speed.

Run from the repository root after `make` (or the README's venv install):

    /usr/bin/python3 python/examples/hold_power.py        # python/ on sys.path
    .venv/bin/python python/examples/hold_power.py

It prints the power every 10 s and the largest deviation after settling, and
exits 1 if the power left the band.
"""

import os
import sys

try:
    import pcsim.env
except ImportError:  # run from the source tree: python/ next to this folder
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import pcsim.env

SCENARIO = """{"schema": 1, "name": "hold-power",
  "world": {"dt_s": 0.05, "seed": 20261130, "k_slow": 72},
  "readers": {"count": 0},
  "units": [{"name": "u1", "sg_model": "boundary", "initial_power_fraction": 0.5}]}"""
TARGET = 0.5  # relative power
KP = 0.5  # bank-D demand change per unit of power error, per second
SETTLE_S = 60  # after this, the power must stay within BAND of TARGET
BAND = 0.01
DISTURB_S = 30  # the load change


def run(seconds=200, control=True, verbose=False):
    """Run the controlled (or uncontrolled) unit; returns (powers, env)."""
    env = pcsim.env.StationEnv(
        observe=["u1.core.relative_power", "u1.rods.D.pos"],
        act=[("u1.D", "rod_position")],
        scenario=pcsim.Scenario.from_string(SCENARIO, "hold_power.py"),
        reward=lambda obs, action, info: -abs(obs[0] - TARGET),
        ticks_per_step=20,  # 1 s per step at dt = 0.05 s
        max_steps=seconds,
    )
    obs, info = env.reset(seed=1)
    powers = []
    for t in range(seconds):
        if t == DISTURB_S:
            env.station.command("u1", "sg_pressure", 6.4e6)
        power, rod = obs
        demand = rod + KP * (TARGET - power) if control else rod
        obs, reward, terminated, truncated, info = env.step([min(1.0, max(0.0, demand))])
        powers.append(obs[0])
        if verbose and (t + 1) % 10 == 0:
            print(f"t {t + 1:4d} s  power {100 * obs[0]:6.2f} %  bank D {obs[1]:.4f}")
        if terminated or truncated:
            break
    return powers, env


def main():
    powers, env = run(verbose=True)
    worst = max(abs(p - TARGET) for p in powers[SETTLE_S:])
    print(f"after {SETTLE_S} s: power within {100 * worst:.3f} % of {100 * TARGET:.0f} % "
          f"(band {100 * BAND:.0f} %); state hash {env.station.state_hash_hex}")
    env.close()
    return 0 if worst <= BAND else 1


if __name__ == "__main__":
    sys.exit(main())
