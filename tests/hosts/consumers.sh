#!/bin/sh
# Hosts of an installed pcsim, built as a new user would build them (issue
# 17): `make install DESTDIR=<scratch> PREFIX=/usr/local` into a fresh
# temporary directory (never the system prefix), then
#   - c_station.c, C17, through pkg-config, shared: the reference line;
#   - cxx_station.cpp, C++17, through pkg-config, shared and --static;
#   - tests/hosts/cmake, find_package(pcsim 0.3), pcsim::pcsim and
#     pcsim::pcsim_static;
# every program must print the C reference's line (version, power read,
# pump trips, final state hash). Static binaries must not need libpcsim.so
# and run without LD_LIBRARY_PATH. Also: every public header that declares
# something has an extern "C" guard, and pcsimConfigVersion.cmake accepts
# and refuses the versions the SONAME rule says.
# Usage: tests/hosts/consumers.sh   (B=build directory, default build)
# ok always succeeds, so `test && ok || bad` is an if-then-else here.
# shellcheck disable=SC2015
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
H=tests/hosts
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-consumers.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
dest=$scratch/dest
prefix=/usr/local
lib=$dest$prefix/lib
pass=0
fail=0
# The Makefile's VERSION and the SONAME series it gives (0.MINOR before 1.0).
ver=$(MAKEFLAGS='' MAKELEVEL='' make -s --no-print-directory print-version)
major=${ver%%.*} rest=${ver#*.}
minor=${rest%%.*} patch=${rest#*.}
series=$major
[ "$major" = 0 ] && series=0.$minor

ok() { pass=$((pass + 1)); }
bad() { # name, why
    fail=$((fail + 1))
    echo "FAIL $1: $2"
}
# Run a build or run step quietly; on failure show its last lines.
step() { # name, command...
    name=$1
    shift
    "$@" > "$scratch/$name.log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        ok
        return 0
    fi
    bad "$name" "exit status $rc of: $*"
    tail -20 "$scratch/$name.log" | sed 's/^/    /'
    return 1
}

# extern "C" guards: a C++ host links only if every declaration has C
# linkage. export.h (macros) and pcsim.h (includes) declare nothing.
for h in include/pcsim/*.h; do
    if grep -qE '^(PCS_API|typedef|struct|enum|static inline)' "$h" &&
        ! grep -q '^extern "C" {' "$h"; then
        bad extern-c "$h declares symbols but has no extern \"C\" guard"
    fi
done

# pcsim.h is "everything public": it includes every other public header.
for h in include/pcsim/*.h; do
    b=${h##*/}
    [ "$b" = pcsim.h ] && continue
    grep -q "^#include \"pcsim/$b\"" include/pcsim/pcsim.h ||
        bad umbrella "include/pcsim/pcsim.h does not include pcsim/$b"
done

# The install, as a packager stages it (the build must exist: make all).
step install env MAKEFLAGS= MAKELEVEL= make -s --no-print-directory B="$B" install \
    DESTDIR="$dest" PREFIX="$prefix" || exit 1
for f in include/pcsim/pcsim.h lib/libpcsim.a lib/libpcsim.so.$series lib/pkgconfig/pcsim.pc \
    lib/cmake/pcsim/pcsimConfig.cmake lib/cmake/pcsim/pcsimConfigVersion.cmake; do
    [ -e "$dest$prefix/$f" ] && ok || bad install-files "$prefix/$f not installed"
done

# What is installed links none of the benchmarks' comparison libraries
# (liburcu, SUNDIALS, GSL: make deps-bench), so make run does not need them.
for f in lib/libpcsim.so.$ver bin/pcsim; do
    n=$(readelf -d "$dest$prefix/$f" | grep -E 'NEEDED.*(urcu|sundials|gsl)')
    [ -z "$n" ] && ok || bad no-bench-libs "$prefix/$f needs $n"
done
n=$(nm -u "$lib/libpcsim.a" 2>/dev/null | grep -E ' (urcu_|CVode|N_V|SUN|gsl_)' | head -3)
[ -z "$n" ] && ok || bad no-bench-libs "libpcsim.a calls $n"

# pkg-config sees the DESTDIR tree as if installed: PKG_CONFIG_SYSROOT_DIR
# puts $dest in front of the -I and -L paths of pcsim.pc (prefix=/usr/local).
export PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
cflags=$(pkg-config --cflags pcsim) && libs=$(pkg-config --libs pcsim) &&
    static_libs=$(pkg-config --static --libs pcsim) || {
    bad pkg-config "pkg-config cannot read $lib/pkgconfig/pcsim.pc"
    exit 1
}
# As an installed pcsim.pc is read (no sysroot): our include directory alone,
# no dependency's (no public header includes one).
want="-I$prefix/include"
got=$(PKG_CONFIG_SYSROOT_DIR='' pkg-config --cflags pcsim | sed 's/ *$//')
[ "$got" = "$want" ] && ok || bad pkg-config-cflags "got '$got', want '$want' alone"
# -lpcsim would find libpcsim.so next to the archive: name the archive.
static_libs=$(printf '%s\n' "$static_libs" | sed 's/-lpcsim\( \|$\)/-l:libpcsim.a\1/')

# CMake: find_package against the DESTDIR tree; the package finds its
# prefix from its own place, so no variable but CMAKE_PREFIX_PATH is needed.
# It builds and runs in the background while the pkg-config hosts below do
# (two cores, two chains); its counts and messages are added after both.
(
    pass=0 fail=0
    if step cmake-configure cmake -S $H/cmake -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$dest$prefix" \
        -DPCSIM_WANT="$series" -DCMAKE_BUILD_TYPE=Release && step cmake-build cmake --build "$scratch/cmake" -j2; then
        step run-cmake-shared env LD_LIBRARY_PATH="$lib" "$scratch/cmake/cxx_station_shared"
        step run-cmake-static env -u LD_LIBRARY_PATH "$scratch/cmake/cxx_station_static"
    fi
    echo "$pass $fail" > "$scratch/cmake.counts"
) > "$scratch/cmake.out" 2>&1 &
cmake_pid=$!

strict="-Wall -Wextra -Wpedantic -Werror"
# shellcheck disable=SC2086 # flags are word lists
{
    step c-shared gcc -std=c17 $strict $cflags -o "$scratch/c_shared" $H/c_station.c $libs &&
        step run-c-shared env LD_LIBRARY_PATH="$lib" "$scratch/c_shared"
    step cxx-shared g++ -std=c++17 $strict $cflags -o "$scratch/cxx_shared" $H/cxx_station.cpp \
        $libs && step run-cxx-shared env LD_LIBRARY_PATH="$lib" "$scratch/cxx_shared"
    step cxx-static g++ -std=c++17 $strict $cflags -o "$scratch/cxx_static" $H/cxx_station.cpp \
        $static_libs && step run-cxx-static env -u LD_LIBRARY_PATH "$scratch/cxx_static"
}

wait "$cmake_pid"
cat "$scratch/cmake.out"
if read -r p f < "$scratch/cmake.counts"; then
    pass=$((pass + p)) fail=$((fail + f))
else
    bad cmake "the CMake host's chain ended without its counts"
fi

# Static binaries carry the library: no libpcsim.so among what they need.
for b in "$scratch/cxx_static" "$scratch/cmake/cxx_station_static"; do
    [ -x "$b" ] || continue
    if readelf -d "$b" | grep -q 'NEEDED.*libpcsim'; then
        bad static-needed "$b needs libpcsim.so: $(readelf -d "$b" | grep 'NEEDED.*libpcsim')"
    else
        ok
    fi
done
# Shared binaries need the SONAME the Makefile sets.
for b in "$scratch/cxx_shared" "$scratch/cmake/cxx_station_shared"; do
    [ -x "$b" ] || continue
    needed=$(readelf -d "$b" | sed -n 's/.*NEEDED.*\[\(libpcsim[^]]*\)\]/\1/p')
    [ "$needed" = "libpcsim.so.$series" ] && ok ||
        bad shared-needed "$b needs '$needed', want libpcsim.so.$series (the SONAME)"
done

# Every program printed the C reference's line.
ref=$(cat "$scratch/run-c-shared.log" 2>/dev/null)
case $ref in
"version $ver power_w "*" trips 1 hash "*) ok ;;
*) bad reference "c_station printed '$ref'" ;;
esac
for r in run-cxx-shared run-cxx-static run-cmake-shared run-cmake-static; do
    [ -f "$scratch/$r.log" ] || continue
    got=$(cat "$scratch/$r.log")
    [ "$got" = "$ref" ] && ok || bad "$r-line" "printed '$got', C printed '$ref'"
done

# The version file follows the SONAME: before 1.0 a request for 0.MINOR[.PATCH]
# is met by 0.MINOR.x (x >= PATCH) only (CMake's SameMinorVersion); from 1.0
# on by MAJOR.x.y (SameMajorVersion).
cfgver=$dest$prefix/lib/cmake/pcsim/pcsimConfigVersion.cmake
version_check() { # requested, want TRUE|FALSE
    got=$(cmake -DPACKAGE_FIND_VERSION="$1" -DCFG="$cfgver" -P $H/cmake/version_probe.cmake 2>&1)
    [ "$got" = "$2" ] && ok || bad version-file "find_package(pcsim $1): compatible '$got', want $2"
}
version_check "$series" TRUE
version_check "$ver" TRUE
version_check "$major.$minor.$((patch + 1))" FALSE
version_check "$((major + 1)).0" FALSE
if [ "$major" = 0 ]; then
    version_check "0.$((minor + 1))" FALSE
    version_check "0.$minor...0.$((minor + 1))" TRUE
    version_check "0.$minor...<0.$minor.$patch" FALSE
    if [ "$minor" -gt 0 ]; then
        version_check "0.$((minor - 1))" FALSE
        version_check "0.$((minor - 1))...0.$((minor + 1))" FALSE
    fi
else
    version_check "$major.$((minor + 1))" FALSE
    [ "$major" -gt 1 ] && version_check "$((major - 1)).0" FALSE
fi

echo "consumers: every host printed: $ref"
echo "consumers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
