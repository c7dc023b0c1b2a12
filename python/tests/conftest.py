"""Shared fixtures. The tests import whichever pcsim is first on sys.path:
the venv's installed copy when python/tests/run_suite.sh runs them (it sets
PCSIM_EXPECT_INSTALLED=1), or the source tree's with python/ on sys.path."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("PCSIM_BUILD", REPO / "build"))
# Two identical default units (u1, u2) and a seed of their own: what a test of
# the API needs (u2 to trip a pump of while u1 runs on), at under half the
# cost of a build of the default station (four units, two distinct ones to
# settle). Tests that check the default station build pcsim.Station().
TWO_UNITS = pathlib.Path(__file__).resolve().parent / "two_units.json"


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def pcsim_bin():
    path = BUILD / "pcsim"
    if not path.exists():
        pytest.fail(f"{path} is missing: run make first")
    return path


@pytest.fixture
def station():
    """A station of TWO_UNITS."""
    import pcsim

    with pcsim.Station(TWO_UNITS) as s:
        yield s


@pytest.fixture
def default_station():
    """A station of the default scenario (scenarios/pwr-station.json)."""
    import pcsim

    with pcsim.Station() as s:
        yield s
