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

# Two pytest processes at once (the suites of make test run one at a time on
# two cores; each test is a single thread, or a client and a server taking
# turns): SHARD_A's files in one, every other test file in the other, so a
# new file is never left out. SHARD_A holds about half the suite's time
# (pytest --durations=0; 14 s of CPU each in 2026-12). Each prints when
# both are done, in turn.
SHARD_A="test_remote.py test_example.py test_bindings.py"
echo "== pytest with the venv's interpreter (installed package), two processes"
cd "$scratch"
tests=$repo/python/tests
a_files='' b_ignore=''
for f in $SHARD_A; do
    [ -f "$tests/$f" ] || { echo "run_suite.sh: SHARD_A names $f, not in $tests" >&2; exit 1; }
    a_files="$a_files $tests/$f" b_ignore="$b_ignore --ignore=$tests/$f"
done
run_pytest() { # log, pytest arguments...
    log=$1
    shift
    PCSIM_LIBRARY="$build/libpcsim.so" PCSIM_BUILD="$build" PCSIM_EXPECT_INSTALLED=1 \
        .venv/bin/python -m pytest -q -p no:cacheprovider --durations=5 "$@" >"$log" 2>&1
}
# shellcheck disable=SC2086 # the file lists split on spaces
run_pytest "$scratch/a.log" $a_files &
pid_a=$!
# shellcheck disable=SC2086
run_pytest "$scratch/b.log" $b_ignore "$tests" &
pid_b=$!
rc=0
wait $pid_a || rc=1
wait $pid_b || rc=1
echo "-- pytest:$a_files" | sed "s|$tests/||g"
cat "$scratch/a.log"
echo "-- pytest: the other test files"
cat "$scratch/b.log"
exit $rc
