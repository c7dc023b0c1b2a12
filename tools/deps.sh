#!/bin/sh
# Install the Debian packages a make target needs, only those missing.
# Idempotent: prints nothing and touches nothing when everything is there.
# Usage: tools/deps.sh [run|bench|test] [--list]
#   run (default; make deps, for make, make run, make install): what builds
#       the library and the pcsim host program, and what `pcsim plot` runs
#       (Debian's python3-matplotlib);
#   bench (make deps-bench, for make bench): run's, plus the libraries the
#       benchmarks compare pcsim with (bench/: liburcu for the RCU read
#       comparison, SUNDIALS CVODE and GSL for the ODE solvers);
#   test (make deps-test, for make test): bench's, because make test builds
#       and briefly runs the benchmarks (bench-quick), plus the test tools:
#       Criterion, clang with libFuzzer and OpenMP (fuzz targets, determinism
#       build), g++, cmake and pkg-config (tests/hosts/consumers.sh), jq
#       (tests/fuzz/make_seeds.sh), spin (the model checks in verify/), and the Python package's test set
#       (python/tests/run_suite.sh): Debian's python3-venv and python3-pip
#       (README's offline venv install; they bring setuptools and wheel),
#       python3-cffi, python3-numpy and python3-pytest (python3 itself also
#       runs tests/serve_test.py and tests/web_test.py); nodejs runs the
#       browser's sync decoder against the C one (tests/sync_js_test.sh);
#       chromium, nodejs and npm run the control room's browser test (below).
#   --list: print the set's packages, one per line, and install nothing
#       (README.md measures each set's download size from this list).
set -eu
# systemtap-sdt-dev: <sys/sdt.h>, the USDT probes the release library keeps
# (engine/probes.h). libuv1-dev: the event loop of `pcsim serve` (cli/serve*.c;
# linked into the host program only, not libpcsim). python3-matplotlib: `pcsim
# plot` runs /usr/bin/python3 -m pcsim.plot (cli/plot.c, python/pcsim/plot.py).
RUN_PKGS="gcc make libck-dev libxxhash-dev libmimalloc-dev libhwloc-dev libjansson-dev \
libsuitesparse-dev systemtap-sdt-dev libuv1-dev python3-matplotlib"
BENCH_PKGS="liburcu-dev libsundials-dev libgsl-dev"
TEST_PKGS="libcriterion-dev clang libclang-rt-14-dev libomp-dev g++ cmake pkg-config jq spin \
python3 python3-venv python3-pip python3-cffi python3-numpy python3-pytest nodejs"

# The control room (`pcsim serve --http`). Run set: libwebsockets-dev, the
# HTTP and WebSocket side on serve's libuv loop (it brings
# libwebsockets-evlib-uv, the libuv plugin lws loads at run time). Test set:
# chromium and npm (with nodejs, above) for the browser test (tests/browser/:
# npm ci installs playwright-core from its committed package-lock.json). A node
# that did not come from Debian (e.g. a nodesource nodejs, which bundles npm
# and conflicts with Debian's npm) counts as installed: nodejs and npm are
# looked for as commands.
RUN_PKGS="$RUN_PKGS libwebsockets-dev"
TEST_PKGS="$TEST_PKGS chromium npm"

set_name=run list=0
for a in "$@"; do
    case $a in
    run | bench | test) set_name=$a ;;
    --list) list=1 ;;
    *)
        echo "tools/deps.sh: unknown argument '$a' (want run, bench or test, and --list)" >&2
        exit 2
        ;;
    esac
done
case $set_name in
run) PKGS=$RUN_PKGS ;;
bench) PKGS="$RUN_PKGS $BENCH_PKGS" ;;
test) PKGS="$RUN_PKGS $BENCH_PKGS $TEST_PKGS" ;;
esac
if [ "$list" = 1 ]; then
    # shellcheck disable=SC2086 # one package a line
    printf "%s\n" $PKGS
    exit 0
fi

missing=""
for p in $PKGS; do
    case $p in
    nodejs) command -v node > /dev/null 2>&1 && continue ;;
    npm) command -v npm > /dev/null 2>&1 && continue ;;
    esac
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "make deps ($set_name): installing$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# make -j2 may start two sets at once: wait for the other's dpkg lock.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
# shellcheck disable=SC2086
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
