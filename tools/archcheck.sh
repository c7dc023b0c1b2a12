#!/bin/sh
# Architecture check: enforces docs/ARCHITECTURE.md section 1's dependency wall.
# Usage: tools/archcheck.sh [ROOT]   (ROOT defaults to the repository root)
# Prints "file:line: rule: detail" for each violation; exits 1 if any.
#
# Rules
#   physics-include  physics/ includes only engine core headers, physics headers
#                    and plain C headers: no snapshot/exec/profile/cli/station, no
#                    engine internals, no threading or time headers.
#   engine-layer     engine/ includes no physics/, snapshot/, exec/, profile/,
#                    cli/ and no public header other than the core's.
#   infra-physics    snapshot/ and exec/ include nothing from physics.
#   thread-create    only exec/ creates threads (library and host program).
#   clock-read       only profile/, bench/, stress/, cli/ read clocks (not
#                    engine, physics, snapshot, exec or station).
#   libc-random      no rand()/random()/srand()/time() in engine/, physics/
#                    or station/.
#   station-layer    station/ (the station library) includes nothing from cli/.
#   sync-layer       sync/ (delta sync, a reader of snapshots) includes only
#                    plain C headers, its own sync/*.h and the engine core and
#                    snapshot public headers (pcsim/snapshot.h, pcsim/sync.h):
#                    no physics, station, exec, profile or cli, no internals.
#   public-dep-type  include/pcsim/ exposes no ck, hwloc, mimalloc, jansson,
#                    xxHash or OpenMP type or header.
#   kernel-pure      physics/<domain>/kernels/ (code that never touches a world)
#                    includes only plain C headers, headers in its own kernels/
#                    folder and kernel public headers: pcsim/status.h, math.h,
#                    rng.h, export.h, and any include/pcsim/ header that is not
#                    an engine or infrastructure header and itself includes only
#                    plain C and kernel public headers. So no world, system,
#                    store, channel, command, event or job header reaches a
#                    kernel, directly or through a public header.
#   cli-public       cli/ (the host program) includes only public headers
#                    (pcsim/*.h), its own cli/*.h and system headers: no
#                    engine, physics, station, snapshot, exec or profile
#                    internals, so it is a host like any other.
#   lib-compiled     every .c under a library folder (engine physics snapshot
#                    exec profile station sync) is in the Makefile's release, asan and tsan
#                    library object lists (LIB_OBJ, ASAN_LIB_OBJ, TSAN_LIB_OBJ),
#                    as printed by make itself; checked when ROOT has a Makefile.
set -u
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT" || exit 2

CORE='status|math|rng|clock|world|system|command|event|channel|job|export|version|persist|plugin|entity|structure'
INFRA='snapshot|exec|profile|thread|scenario|station|pcsim'
fail=0

# Source files of a layer, comments stripped, as "file:line:text".
# One awk for all the files of a call (a process per file was most of the
# check's time); FNR == 1 starts each file outside a comment.
code() {
    for dir in "$@"; do
        [ -d "$dir" ] || continue
        find "$dir" -type f \( -name '*.c' -o -name '*.h' \) | sort
    done | tr '\n' '\0' | xargs -0 -r awk '
        FNR == 1 { inc = 0 }
        {
            line = $0; out = "";
            while (length(line) > 0) {
                if (inc) {
                    e = index(line, "*/");
                    if (e == 0) { line = ""; break }
                    line = substr(line, e + 2); inc = 0; continue
                }
                s = index(line, "/*"); d = index(line, "//");
                if (d > 0 && (s == 0 || d < s)) { out = out substr(line, 1, d - 1); line = ""; break }
                if (s > 0) { out = out substr(line, 1, s - 1); line = substr(line, s + 2); inc = 1; continue }
                out = out line; line = ""
            }
            print FILENAME ":" FNR ":" out
        }'
}

report() { # rule, detail; reads file:line:text lines on stdin
    while IFS= read -r hit; do
        echo "${hit%%:*}:$(echo "$hit" | cut -d: -f2): $1: $2"
        echo x >> "$TMPF"
    done
}

TMPF=$(mktemp)
trap 'rm -f "$TMPF"' EXIT

INC='^[^:]*:[0-9]*:[[:space:]]*#[[:space:]]*include'

code physics | grep -E "$INC" |
    grep -E '"(snapshot|exec|profile|cli|station)/|"engine/|<pcsim/('"$INFRA"')\.h>|"pcsim/('"$INFRA"')\.h"|<(pthread|threads|time|sys/time|stdatomic|unistd)\.h>' |
    report physics-include "physics may include only engine core headers, physics headers and plain C headers"

code engine | grep -E "$INC" |
    grep -E '"(physics|snapshot|exec|profile|cli|station)/|[<"]pcsim/' | grep -vE '[<"]pcsim/('"$CORE"')\.h[>"]' |
    report engine-layer "engine includes only its own and the core public headers"

code snapshot exec | grep -E "$INC" |
    grep -E '"(physics|station)/|[<"]pcsim/' | grep -vE '[<"]pcsim/('"$CORE"'|'"$INFRA"')\.h[>"]' |
    report infra-physics "snapshot/ and exec/ know nothing about physics"

code cli | grep -E "$INC" |
    grep -E '"' | grep -vE '#[[:space:]]*include[[:space:]]*"(pcsim|cli)/[A-Za-z0-9_]+\.h"' |
    report cli-public "cli/ includes only public headers (pcsim/*.h), its own cli/*.h and system headers"

code cli | grep -E "$INC" |
    grep -E '<(engine|physics|station|snapshot|exec|profile)/' |
    report cli-public "cli/ includes only public headers (pcsim/*.h), its own cli/*.h and system headers"

code station | grep -E "$INC" | grep -E '[<"]cli/' |
    report station-layer "station/ is library code: it includes nothing from cli/"

code sync | grep -E "$INC" |
    grep -E '"' | grep -vE '#[[:space:]]*include[[:space:]]*"(pcsim/('"$CORE"'|snapshot|sync)|sync/[A-Za-z0-9_]+)\.h"' |
    report sync-layer "sync/ includes only plain C headers, sync/*.h and the core and snapshot public headers"

code sync | grep -E "$INC" |
    grep -E '<(pcsim|engine|physics|station|snapshot|exec|profile|cli)/' |
    report sync-layer "sync/ includes only plain C headers, sync/*.h and the core and snapshot public headers"

code engine physics snapshot profile station sync cli |
    grep -E '(pthread_create|thrd_create|[^_a-z]clone[[:space:]]*\(|[^_a-z]fork[[:space:]]*\()' |
    report thread-create "only exec/ creates threads"

code engine physics snapshot exec station sync |
    grep -E '(clock_gettime|gettimeofday|timespec_get|[^_a-z.]clock[[:space:]]*\([[:space:]]*\)|__rdtsc|rdtsc|CLOCK_MONOTONIC|CLOCK_REALTIME|[^_a-z.>]time[[:space:]]*\()' |
    report clock-read "only profile/, bench/, stress/ and cli/ read clocks"

code engine physics station sync |
    grep -E '[^_a-z.>](rand|random|srand|srandom|drand48|time)[[:space:]]*\(' |
    report libc-random "use pcs_rng streams; no libc randomness or time in simulation code"

code include/pcsim |
    grep -E '<(ck_[a-z_]*|hwloc|mimalloc|jansson|xxhash|xxh3|omp)\.h>|[^a-z_](ck_[a-z_]+_t|hwloc_[a-z_]+_t|mi_heap_t|json_t|XXH[0-9A-Za-z_]*_t|omp_lock_t)' |
    report public-dep-type "public headers expose no dependency types"

# ---- kernel-pure ----
# Standard C headers a kernel may use; threads, time, signals, locales and
# atomics are not among them.
STDC='assert|complex|ctype|errno|fenv|float|inttypes|iso646|limits|math|stdalign|stdarg|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|tgmath|uchar|wchar|wctype'

# "file target" per include line: target is <name.h> or "path.h" as written.
includes() {
    code "$@" | grep -E "$INC" |
        sed -nE 's/^([^:]*):([0-9]*):[[:space:]]*#[[:space:]]*include[[:space:]]*([<"][^>"]*[>"]).*/\1 \2 \3/p'
}

# Public header name (pcsim/NAME.h) of a target, or nothing.
pcsim_name() {
    echo "$1" | sed -nE 's/^[<"]pcsim\/([A-Za-z0-9_]+)\.h[>"]$/\1/p'
}

is_stdc() {
    echo "$1" | grep -qE '^<('"$STDC"')\.h>$'
}

# Kernel public headers, by fixpoint over include/pcsim/: start from the four
# that are kernel headers by definition, add a header when every include of it
# is plain C or already a kernel header. Engine and infrastructure headers
# (world, system, command, event, channel, job, clock, persist, ...) never are.
PUBINC=$(includes include/pcsim)
# The fixpoint in one awk (a shell loop with a sed and a grep per include was
# half of the check's time); KHDR is " name name ... ", as the loop below reads it.
KHDR=$(echo "$PUBINC" | awk -v ex="^($CORE|$INFRA)\$" -v stdc="^<($STDC)\\.h>\$" '
    NF >= 3 {
        n = $1; sub(/.*\//, "", n); sub(/\.h$/, "", n)
        hdr[n] = 1; inc[n, ++cnt[n]] = $3
    }
    END {
        k["status"] = k["math"] = k["rng"] = k["export"] = 1
        for (grow = 1; grow;) {
            grow = 0
            for (n in hdr) {
                if ((n in k) || n ~ ex)
                    continue
                ok = 1
                for (i = 1; i <= cnt[n] && ok; i++) {
                    t = inc[n, i]
                    if (t ~ stdc)
                        continue
                    if (t ~ /^[<"]pcsim\/[A-Za-z0-9_]+\.h[>"]$/) {
                        tn = t; sub(/^[<"]pcsim\//, "", tn); sub(/\.h[>"]$/, "", tn)
                        if (tn in k)
                            continue
                    }
                    ok = 0
                }
                if (ok) { k[n] = 1; grow = 1 }
            }
        }
        printf " "
        for (n in k) printf "%s ", n
    }')

KERNEL_DIRS=$(find physics -type d -name kernels 2>/dev/null | sort)
if [ -n "$KERNEL_DIRS" ]; then
    # shellcheck disable=SC2086 # one word per folder
    includes $KERNEL_DIRS | while read -r f line t; do
        dir=$(dirname "$f")
        tn=$(pcsim_name "$t")
        path=$(echo "$t" | sed -E 's/^"(.*)"$/\1/')
        if is_stdc "$t"; then continue; fi
        if [ -n "$tn" ]; then
            case "$KHDR" in *" $tn "*) continue ;; esac
            why="pcsim/$tn.h is not a kernel public header (an engine or world-bound header, or one that includes such a header)"
        elif [ "$path" != "$t" ] && { [ "$(dirname "$path")" = "$dir" ] ||
              { [ "$(dirname "$path")" = . ] && [ -f "$dir/$path" ]; }; }; then
            continue
        else
            why="$t is none of: a C header kernels may use (STDC), a header in $dir/, a kernel public header"
        fi
        echo "$f:$line: kernel-pure: $why"
        echo x >> "$TMPF"
    done
fi

# ---- lib-compiled ----
# make prints its own object lists (an extra makefile adds the printing
# target), so the check sees exactly what the build links, whatever the
# Makefile's globbing. Each library .c must map to $(B)/obj/X.o,
# $(B)/asan/obj/X.o and $(B)/tsan/obj/X.o.
LIB_DIRS='engine physics snapshot exec profile station sync'
if [ -f Makefile ]; then
    printf '%s\n' '__archcheck_lib_objs:' \
        '	@echo "B $(B)"' '	@echo "release $(LIB_OBJ)"' \
        '	@echo "asan $(ASAN_LIB_OBJ)"' '	@echo "tsan $(TSAN_LIB_OBJ)"' > "$TMPF.mk"
    objs=$(MAKEFLAGS='' MAKELEVEL='' make -s --no-print-directory -f Makefile -f "$TMPF.mk" \
        __archcheck_lib_objs 2>/dev/null)
    rc=$?
    rm -f "$TMPF.mk"
    b=$(echo "$objs" | sed -n 's/^B //p')
    if [ $rc -ne 0 ] || [ -z "$b" ]; then
        echo "Makefile:1: lib-compiled: make could not print B, LIB_OBJ, ASAN_LIB_OBJ, TSAN_LIB_OBJ"
        echo x >> "$TMPF"
    else
        # One awk over (the objects make lists, then every library .c's three
        # expected objects), not a grep per object.
        # shellcheck disable=SC2086 # one word per folder
        for d in $LIB_DIRS; do [ -d "$d" ] && find "$d" -name '*.c'; done | sort |
            { echo "$objs"; echo "--"; cat; } |
            awk -v b="$b" '
                !sources && ($1 == "release" || $1 == "asan" || $1 == "tsan") {
                    for (i = 2; i <= NF; i++) have[$1 " " $i] = 1
                    next
                }
                !sources && $0 == "--" { sources = 1; next }
                sources {
                    o = substr($0, 1, length($0) - 2) ".o"
                    split("release asan tsan", v, " ")
                    split(b "/obj " b "/asan/obj " b "/tsan/obj", dir, " ")
                    for (k = 1; k <= 3; k++)
                        if (!((v[k] " " dir[k] "/" o) in have))
                            print $0 ":1: lib-compiled: no " dir[k] "/" o " in the Makefile'"'"'s " v[k] \
                                " library objects, so it is never compiled there"
                }' > "$TMPF.miss"
        if [ -s "$TMPF.miss" ]; then
            cat "$TMPF.miss"
            sed 's/.*/x/' "$TMPF.miss" >> "$TMPF"
        fi
        rm -f "$TMPF.miss"
    fi
fi

if [ -s "$TMPF" ]; then
    echo "archcheck: $(wc -l < "$TMPF") violation(s)" >&2
    exit 1
fi
echo "archcheck: clean"
