#!/bin/sh
# Model-check the spin models in verify/ (verify/README.md).
# Usage: verify/check.sh quick|full [BUILD_DIR]
#   quick: depth-bounded search (-m$QUICK_DEPTH), pan built with -O0 (it
#          compiles in a second); `make test` runs it as suite verify-quick.
#   full:  exhaustive search (`make verify`): pan built with -O2, a depth
#          limit far above the deepest state, and a run whose depth limit was
#          reached counts as a failure.
# Every model must pass (no error) and every broken variant must be REJECTED
# (spin finds an assertion violation); a broken variant that passes is a
# failure. Prints one line per run; exits 1 if any line says FAIL.
# The runs are independent: VERIFY_JOBS (default 2, the cores `make test`
# has) of them go at once, each a `check.sh --one` child; the table is
# printed in the order below once all are done.
set -u
one=0
if [ "${1:-}" = --one ]; then
    one=1
    shift
fi
mode=${1:-quick}
build=${2:-build}
here=$(cd "$(dirname "$0")" && pwd)
out="$build/verify"
mkdir -p "$out"

case "$mode" in
quick)
    CFLAGS_PAN="-O0"
    DEPTH=200
    HASH=-w20
    ;;
full)
    CFLAGS_PAN="-O2"
    DEPTH=100000
    HASH=-w24
    ;;
*)
    echo "usage: $0 quick|full [BUILD_DIR]" >&2
    exit 2
    ;;
esac
# SAFETY: assertions and end states only (no cycles needed: every process
# ends); COLLAPSE: state compression; VECTORSZ: state vectors are < 200 bytes;
# MEMLIM (MB): pan stops rather than take the machine's memory.
PAN_DEFS="-DSAFETY -DCOLLAPSE -DVECTORSZ=1024 -DMEMLIM=4096"

failed=0

# run MODEL VARIANT EXPECT [spin -D flags...]; EXPECT is pass or reject.
run() {
    model=$1 variant=$2 expect=$3
    shift 3
    dir="$out/$model-$variant"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$here/$model.pml" "$dir/"
    if ! (cd "$dir" && spin -a "$@" "$model.pml" > spin.log 2>&1); then
        echo "FAIL $model $variant: spin -a failed:"
        cat "$dir/spin.log"
        failed=1
        return
    fi
    # shellcheck disable=SC2086
    if ! (cd "$dir" && gcc $CFLAGS_PAN -w $PAN_DEFS -o pan pan.c > cc.log 2>&1); then
        echo "FAIL $model $variant: gcc pan.c failed:"
        cat "$dir/cc.log"
        failed=1
        return
    fi
    start=$(date +%s.%N)
    (cd "$dir" && ./pan -m$DEPTH $HASH -n > pan.log 2>&1)
    end=$(date +%s.%N)
    secs=$(awk "BEGIN { printf \"%.1f\", $end - $start }")
    log="$dir/pan.log"
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" | tail -1)
    states=$(awk '/states, stored/ { print $1 }' "$log" | tail -1)
    depth=$(sed -n 's/.*depth reached \([0-9]*\),.*/\1/p' "$log" | tail -1)
    violated=$(grep -m1 -E 'assertion violated|invalid end state|out of memory' "$log" | sed 's/^pan:1: //')
    result=pass
    [ "${errors:-x}" = 0 ] || result=reject
    detail=""
    verdict=ok
    if [ -z "$errors" ]; then
        verdict=FAIL
        detail="pan did not finish: $(tail -3 "$log" | tr '\n' ' ')"
    elif [ "$result" != "$expect" ]; then
        verdict=FAIL
        if [ "$expect" = reject ]; then
            detail="broken variant NOT rejected"
        else
            detail="$violated (trail: $dir/$model.pml.trail)"
        fi
    elif [ "$result" = reject ]; then
        detail="$violated"
    fi
    if [ "$mode" = full ] && [ "$result" = pass ] && grep -q 'max search depth too small' "$log"; then
        verdict=FAIL
        detail="depth limit $DEPTH reached: not exhaustive"
    fi
    if grep -q 'out of memory\|Search not completed' "$log" && [ "$result" = pass ]; then
        verdict=FAIL
        detail="search not completed (memory limit)"
    fi
    [ "$verdict" = ok ] || failed=1
    printf '%-16s %-26s %-8s %-9s %11s %6s %8s  %s%s\n' "$model" "$variant" "$expect" "$result" \
        "${states:-?}" "${depth:-?}" "$secs" "$([ "$verdict" = ok ] || echo 'FAIL: ')" "$detail"
}

# --one MODE BUILD MODEL VARIANT EXPECT [FLAGS...]: one run, its table line on
# stdout; exit 1 if it failed.
if [ $one = 1 ]; then
    shift 2
    run "$@"
    exit $failed
fi

# The runs, one line each: MODEL VARIANT EXPECT [spin -D flags...].
specs() {
    spec snapshot_pool correct pass
    spec snapshot_pool BROKEN_UNVALIDATED_VIEW reject -DBROKEN_UNVALIDATED_VIEW
    spec snapshot_pool PUBLISH_EARLY reject -DPUBLISH_EARLY
    spec snapshot_pool RELAXED_DATA reject -DRELAXED_DATA
    spec snapshot_pool COPY_AFTER_CHECK reject -DCOPY_AFTER_CHECK
    # The reader wait (snapshot/wake.h): waiters against the writer, no readers.
    WAIT="-DNREAD=0 -DNWAIT=2 -DNPUB=2 -DNBKT=1"
    # shellcheck disable=SC2086
    spec snapshot_pool wait pass $WAIT
    # shellcheck disable=SC2086
    spec snapshot_pool WAKE_BEFORE_STORE reject $WAIT -DWAKE_BEFORE_STORE
    # shellcheck disable=SC2086
    spec snapshot_pool NO_PASS_ON reject $WAIT -DNO_PASS_ON
    # The change of layout (snapshot/relayout.c, hazard.c): one read per
    # reader in the quick run (6 s at -O0), two in the full one.
    if [ "$mode" = full ]; then
        spec snapshot_layout correct pass
    else
        spec snapshot_layout correct pass -DREADS=1
    fi
    spec snapshot_layout FREE_UNSCANNED reject -DFREE_UNSCANNED
    spec snapshot_layout NO_RECHECK reject -DNO_RECHECK
    spec commands_ring correct pass
    spec commands_ring BROKEN_LOAD_STORE reject -DBROKEN_LOAD_STORE
    spec commands_ring BROKEN_RELEASE_EARLY reject -DBROKEN_RELEASE_EARLY
    spec commands_ring STRICT_REFUSAL reject -DSTRICT_REFUSAL
    if [ "$mode" = full ]; then
        # The memory model matters: under plain SC the relaxed-data bug is invisible.
        spec snapshot_pool RELAXED_DATA+SC_ONLY pass -DRELAXED_DATA -DSC_ONLY
        # Larger instances: more data words; two buffers (safety does not need three).
        spec snapshot_pool wide-NDATA2 pass -DNDATA=2
        spec snapshot_pool buffers-2 pass -DNBUF=2 -DNPUB=3
        # The wait with two buckets and three or four publications (a waiter
        # woken early by its bucket's earlier publication), three waiters in one
        # bucket, and readers and waiters together.
        spec snapshot_pool wait-NPUB3 pass -DNREAD=0 -DNWAIT=2 -DNPUB=3
        spec snapshot_pool wait-NPUB4 pass -DNREAD=0 -DNWAIT=2 -DNPUB=4
        spec snapshot_pool wait-NWAIT3 pass -DNREAD=0 -DNWAIT=3 -DNPUB=2 -DNBKT=1
        spec snapshot_pool readers+waiters pass -DNREAD=1 -DNWAIT=2 -DNPUB=2 -DNBKT=1
        # The SPSC ring with a wider ring than its capacity (3 in 4 slots) and
        # longer batches against the drain's two a tick.
        spec commands_ring spsc-CAP3-MS4 pass -DCAP1=3 -DMS=4
    fi
}
spec() { echo "$*"; }

list="$out/runs"
specs > "$list"
rm -f "$out"/*.line "$out"/*.status
# Each child's table line goes to OUT/MODEL-VARIANT.line, its status to .status.
# shellcheck disable=SC2016 # $0 and $@ belong to the child shell
xargs -L 1 -P "${VERIFY_JOBS:-2}" sh -c \
    'f="$2/verify/$3-$4"; "$0" --one "$@" > "$f.line" 2>&1; echo $? > "$f.status"' \
    "$here/check.sh" "$mode" "$build" < "$list"
printf '%-16s %-26s %-8s %-9s %11s %6s %8s  %s\n' model variant expect result states depth seconds detail
while read -r model variant _; do
    f="$out/$model-$variant"
    if [ -f "$f.line" ]; then cat "$f.line"; else echo "FAIL $model $variant: did not run"; fi
    [ "$(cat "$f.status" 2>/dev/null)" = 0 ] || failed=1
done < "$list"

if [ "$failed" != 0 ]; then
    echo "verify ($mode): FAILED (logs and trails in $out/)"
    exit 1
fi
echo "verify ($mode): all models pass and every broken variant is rejected"
