"""Refuse to build the package without its generated declarations (the rest
of the metadata is in pyproject.toml)."""

import os

from setuptools import setup

if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pcsim", "_cdef.h")):
    raise SystemExit(
        "pcsim: python/pcsim/_cdef.h is missing: run `make` in the repository root first "
        "(it generates the cffi declarations from include/pcsim/*.h)"
    )

setup()
