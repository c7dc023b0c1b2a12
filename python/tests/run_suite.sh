#!/bin/sh
# make test's `python` suite: README.md's "From Python" shell blocks, run
# verbatim (the install into a fresh venv, then the example), in a scratch
# directory that holds a copy of python/ and a link to the build; then the
# pytest tests with that venv's interpreter, so they test the installed
# package (PCSIM_EXPECT_INSTALLED=1 makes them check it), not the source tree.
# Usage: python/tests/run_suite.sh   (B=build directory, default build;
# `make` must have built it and python/pcsim/_cdef.h)
set -eu
cd "$(dirname "$0")/../.."
repo=$(pwd)
B=${B:-build}
case $B in /*) build=$B ;; *) build=$repo/$B ;; esac
[ -f "$build/libpcsim.so" ] && [ -f python/pcsim/_cdef.h ] ||
    { echo "run_suite.sh: $build/libpcsim.so or python/pcsim/_cdef.h missing: run make" >&2; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-python.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# The package as a new user has it after `make` (no in-tree build output).
tar -C "$repo" --exclude='python/build' --exclude='python/*.egg-info' --exclude='__pycache__' \
    -cf - python | tar -C "$scratch" -xf -
ln -s "$build" "$scratch/build"

# README's "From Python" blocks, verbatim, each in its own sh -eu, here
# (tools/readme_blocks.sh: the install into .venv, the example, the API tour).
"$repo/tools/readme_blocks.sh" -C "$scratch" "From Python=3"

echo "== pytest with the venv's interpreter (installed package)"
cd "$scratch"
PCSIM_LIBRARY="$build/libpcsim.so" PCSIM_BUILD="$build" PCSIM_EXPECT_INSTALLED=1 \
    .venv/bin/python -m pytest -q -p no:cacheprovider "$repo/python/tests"
