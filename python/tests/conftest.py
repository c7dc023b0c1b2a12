"""Shared fixtures. The tests import whichever pcsim is first on sys.path:
the venv's installed copy when python/tests/run_suite.sh runs them (it sets
PCSIM_EXPECT_INSTALLED=1), or the source tree's with python/ on sys.path."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("PCSIM_BUILD", REPO / "build"))


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
    import pcsim

    with pcsim.Station() as s:
        yield s
