#!/bin/sh
# Build and run bench/sweep/reader_wait_sweep.c (issue 16: readers that wait)
# against the release library. Usage: bench/sweep/reader_wait_sweep.sh
# [seconds per phase] [reader counts ...]; prints the machine, its load and
# the table recorded in bench/README.md.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
make -s -j2 build/libpcsim.a
mkdir -p build/sweep
cc -std=c17 -O2 -D_GNU_SOURCE -Iinclude -Wall -Wextra -Wconversion -o build/sweep/reader_wait_sweep \
    bench/sweep/reader_wait_sweep.c build/libpcsim.a -fopenmp -lmimalloc -lck -lxxhash -lhwloc \
    -ljansson -lklu -lm -lpthread
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load before: $(uptime)"
./build/sweep/reader_wait_sweep "$@"
echo "load after: $(uptime)"
