#!/bin/sh
# Runs README.md's shell blocks verbatim, as a new user pastes them (issue 17:
# `make test` runs README's blocks for C++/CMake, Python and `serve`). The one
# place README blocks are parsed: the `readme` suite and the `python` suite
# (python/tests/run_suite.sh) both call it.
#
# Usage: tools/readme_blocks.sh [-lv] [-f FILE] [-C DIR] [-R REPO] [-t SECONDS] HEADING[=N]...
#   HEADING    a heading's text, exactly ("From C++ and CMake"). Its section
#              is the text up to the next heading of any level (a subsection's
#              blocks are the subsection's). It must appear once and hold at
#              least one block; with =N exactly N, so a README edit that drops
#              or re-fences a block fails here instead of going untested.
#   -f FILE    the Markdown file (default: this repository's README.md)
#   -C DIR     run the blocks in DIR (default: a fresh scratch copy of the
#              files a clone of the working tree has, with build/ a link to
#              this repository's build/, or to $B when set as for make, so
#              the blocks' `make` finds it built)
#   -R REPO    a git tree that must be as it was after the blocks ran, but
#              for its build/ and .venv/ (default: this repository)
#   -t SECONDS the time limit of each block (default 180)
#   -v         show every block's output (a failing block's last 40 lines
#              are shown anyway)
#   -l         list the selected blocks (heading, file:line, shell, first
#              line) and run nothing
#
# A block is a fence whose info string is `sh` (run with `sh -eu`, dash on
# Debian: POSIX only) or `bash` (`bash -eu`); other fences are not run. Each
# block runs in its own shell, in README order, all in the same directory (a
# later block sees what an earlier one left, as in a terminal), with stdin
# from /dev/null, in a process group of its own: a block that leaves a
# process running fails, and the process is killed. The environment is the
# caller's less what make or a test harness would leak into a new user's
# shell (MAKEFLAGS, PKG_CONFIG_PATH, LD_LIBRARY_PATH, PCSIM_LIBRARY, ...),
# and TMPDIR is a directory of this run's, removed at its end.
# Exit status: 0 when every block exited 0; 1 when one failed, timed out,
# left a process or changed REPO; 2 on a usage or README error (a heading
# missing or twice, no block, a wrong count, an unclosed fence).
set -u
me=tools/readme_blocks.sh
repo=$(cd "$(dirname "$0")/.." && pwd)
readme=$repo/README.md
dir=
check=$repo
check_given=
secs=180
list=0
verbose=0
usage() {
    echo "usage: $me [-lv] [-f FILE] [-C DIR] [-R REPO] [-t SECONDS] HEADING[=N]..." >&2
    exit 2
}
while getopts lvf:C:R:t: opt; do
    case $opt in
    l) list=1 ;;
    v) verbose=1 ;;
    f) readme=$OPTARG ;;
    C) dir=$OPTARG ;;
    R) check=$OPTARG check_given=1 ;;
    t) secs=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
[ -f "$readme" ] || {
    echo "$me: $readme: no such file" >&2
    exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-readme.XXXXXX") || exit 2
pgid=
cleanup() {
    [ -n "$pgid" ] && kill -KILL "-$pgid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Extract one section's blocks into $work/blocks/K.sh or K.bash, K counting
# on from $2, and append "K<TAB>line<TAB>shell<TAB>heading" to $work/index
# (line: the block's first line in the file). Fences are tracked, so a
# `# comment` inside a block is no heading.
# The blocks' mktemp directories go under $work/tmp (TMPDIR), so a block that
# fails before its own `rm -rf "$scratch"` leaves nothing behind.
mkdir "$work/blocks" "$work/tmp"
: > "$work/index"
extract() { # heading, first K, wanted count ("" for any)
    awk -v want="$1" -v k="$2" -v count="$3" -v dir="$work/blocks" -v idx="$work/index" \
        -v file="$readme" -v me="$me" '
    function fail(msg) { print file ":" msg > "/dev/stderr"; bad = 1; exit 2 }
    fence {
        if ($0 ~ /^```[ \t]*$/) {
            fence = 0
            if (out != "") close(out)
            out = ""
        } else if (out != "")
            print > out
        next
    }
    /^```/ {
        fence = 1
        fline = NR
        info = $0
        sub(/^```[ \t]*/, "", info)
        sub(/[ \t].*$/, "", info)
        if (on && (info == "sh" || info == "bash")) {
            n++
            out = dir "/" k "." info
            printf "%d\t%d\t%s\t%s\n", k, NR + 1, info, want >> idx
            k++
        }
        next
    }
    /^#+[ \t]/ {
        h = $0
        sub(/^#+[ \t]+/, "", h)
        sub(/[ \t]+#+[ \t]*$/, "", h)
        sub(/[ \t]+$/, "", h)
        on = (h == want)
        if (on) {
            if (at) fail(NR ": heading \"" want "\" again (first at line " at ")")
            at = NR
        }
    }
    END {
        if (bad) exit 2
        if (fence) fail(fline ": fence never closed")
        if (!at) fail(" no heading \"" want "\" (renamed or removed? " me " runs its blocks)")
        if (n == 0) fail(at ": \"" want "\" holds no ```sh or ```bash block")
        if (count != "" && n != count + 0)
            fail(at ": \"" want "\" holds " n " shell blocks, " count " expected")
    }' "$readme"
}
k=1
for arg; do
    heading=${arg%=*} count=
    [ "$heading" != "$arg" ] && count=${arg##*=}
    case $count in *[!0-9]*) usage ;; esac
    extract "$heading" "$k" "$count" || exit 2
    k=$(($(wc -l < "$work/index") + 1))
done

name=${readme##*/}
first_line() { sed -n '/[^[:space:]]/{p;q}' "$1"; }
if [ "$list" = 1 ]; then
    while IFS="$(printf '\t')" read -r k line sh heading; do
        printf '%s\t%s:%s\t%s\t%s\n' "$heading" "$name" "$line" "$sh" "$(first_line "$work/blocks/$k.$sh")"
    done < "$work/index"
    exit 0
fi

# The tree the blocks must leave alone: tracked changes, untracked files and
# ignored directories, build/ and .venv/ excepted.
tree_state() {
    git -C "$check" status --porcelain --untracked-files=all &&
        git -C "$check" status --porcelain --ignored | grep '^!!' | grep -v -x -e '!! build/' -e '!! .venv/'
    return 0
}
if git -C "$check" rev-parse --git-dir > /dev/null 2>&1; then
    tree_state > "$work/before"
elif [ -n "$check_given" ]; then
    echo "$me: $check is not a git work tree (-R)" >&2
    exit 2
else
    echo "$me: $check is not a git work tree: not checking that the blocks leave it alone"
    check=
fi

# The default directory: what a clone of the working tree holds (tracked and
# untracked-but-not-ignored files, mtimes kept so make sees build/ up to
# date), and build/ linked to this repository's.
if [ -z "$dir" ]; then
    B=${B:-build}
    case $B in /*) build=$B ;; *) build=$repo/$B ;; esac
    [ -d "$build" ] || {
        echo "$me: $build missing: run make first (the blocks reuse it)" >&2
        exit 2
    }
    dir=$work/repo
    mkdir "$dir"
    git -C "$repo" rev-parse --git-dir > /dev/null 2>&1 || {
        echo "$me: $repo is not a git work tree: give -C DIR (the default copies what git tracks)" >&2
        exit 2
    }
    # shellcheck disable=SC2016 # $f is the inner shell's
    git -C "$repo" ls-files -z --cached --others --exclude-standard |
        (cd "$repo" && xargs -0 sh -c 'for f; do { [ -e "$f" ] || [ -L "$f" ]; } && printf "%s\0" "$f"; done' sh |
            tar --null -T - -cf -) | tar -C "$dir" -xf - || exit 2
    ln -s "$build" "$dir/build"
fi
[ -d "$dir" ] || {
    echo "$me: $dir: no such directory (-C)" >&2
    exit 2
}
echo "$me: $# section(s) of $name, each block verbatim in $dir"

failed=0
tree=0
now() { date +%s.%N; }
# The processes of group $1 still running (zombies, dead but not yet reaped
# by init, are not), a line each.
group_left() {
    ps -e -o pgid=,stat=,pid=,args= |
        awk -v g="$1" '$1 == g && $2 !~ /^Z/ { $1 = $2 = ""; print "   " $0 }'
}
while IFS="$(printf '\t')" read -r k line sh heading; do
    f=$work/blocks/$k.$sh
    log=$work/$k.log
    echo "== $heading ($name:$line, $sh -eu): $(first_line "$f")"
    start=$(now)
    # timeout makes itself a process group leader, so $! names the group.
    (cd "$dir" && exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u GNUMAKEFLAGS \
        -u MAKEFILES -u PKG_CONFIG_PATH -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_SYSROOT_DIR \
        -u CMAKE_PREFIX_PATH -u LD_LIBRARY_PATH -u LIBRARY_PATH -u CPATH -u PCSIM_LIBRARY \
        -u PCSIM_BUILD -u PCSIM_EXPECT_INSTALLED -u PYTHONPATH -u VIRTUAL_ENV TMPDIR="$work/tmp" \
        timeout -k 5 "$secs" "$sh" -eu "$f") < /dev/null > "$log" 2>&1 &
    pgid=$!
    wait "$pgid"
    rc=$?
    took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    why=
    case $rc in
    0) ;;
    124 | 137) why="timed out after $secs s" ;;
    *) why="exit status $rc" ;;
    esac
    # (dash's kill takes no "--": -PGID is the group.)
    left=$(group_left "$pgid")
    if [ -n "$left" ]; then
        kill -TERM "-$pgid" 2>/dev/null
        # Up to a second for the group to leave on TERM, then KILL.
        i=0
        while [ "$i" -lt 10 ] && [ -n "$(group_left "$pgid")" ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -KILL "-$pgid" 2>/dev/null
        why="${why:+$why; }left running (now killed):
$left"
    fi
    pgid=
    if [ -z "$why" ]; then
        echo "   ok, exit status 0, $took s"
        [ "$verbose" = 1 ] && sed 's/^/    | /' "$log"
    else
        failed=$((failed + 1))
        echo "   FAIL ($name:$line, \"$heading\") after $took s: $why"
        echo "   its output's last 40 lines:"
        tail -40 "$log" | sed 's/^/    | /'
    fi
done < "$work/index"

[ -n "$check" ] && tree_state > "$work/after"
if [ -n "$check" ] && ! cmp -s "$work/before" "$work/after"; then
    tree=1
    echo "FAIL: the blocks changed $check (only build/ and .venv/ may change); git status before -> after:"
    diff "$work/before" "$work/after" | sed -n 's/^[<>]/    &/p'
fi
blocks=$(wc -l < "$work/index")
if [ "$failed" -gt 0 ]; then
    echo "$me: $failed of $blocks block(s) of $name failed"
elif [ "$tree" = 1 ]; then
    echo "$me: all $blocks block(s) of $name exited 0, but changed $check"
else
    echo "$me: all $blocks block(s) of $name passed"
fi
[ "$failed" -eq 0 ] && [ "$tree" = 0 ]
