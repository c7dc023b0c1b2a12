#!/bin/sh
# Install the Debian packages pcsim needs, only those missing. Idempotent:
# prints nothing and touches nothing when everything is there.
# Usage: tools/deps.sh [test]
#   no argument: what `make` and `make run` need;
#   test: also what only the tests need (`make deps-test`, used by the fuzz
#   targets that `make test` runs): clang and its libFuzzer/sanitizer runtimes,
#   and spin for the model checks (verify/).
set -eu
PKGS="gcc make pkg-config libck-dev libxxhash-dev libmimalloc-dev libhwloc-dev \
libjansson-dev libcriterion-dev systemtap-sdt-dev libsuitesparse-dev liburcu-dev \
libsundials-dev libgsl-dev"
TEST_PKGS="clang libclang-rt-14-dev libomp-dev jq spin"
if [ "${1:-}" = test ]; then PKGS="$PKGS $TEST_PKGS"; fi
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "make deps: installing$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
