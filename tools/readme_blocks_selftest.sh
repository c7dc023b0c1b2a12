#!/bin/sh
# Proves tools/readme_blocks.sh fails when it should: each section of
# tests/readme_fixture.md is a case with its exit status (0 pass, 1 a block
# failed, 2 a README error) and a line its output must hold; a failing block
# must stop at its first failing command, a stray process must be killed, and
# every case must take seconds. Usage: tools/readme_blocks_selftest.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool=$here/readme_blocks.sh
fixture=$(cd "$here/../tests" && pwd)/readme_fixture.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcsim-readme-selftest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/tree"
git -C "$tmp/tree" init -q || exit 1
status=0
n=0

# case NAME STATUS PATTERN [readme_blocks.sh arguments]: runs the tool on the
# fixture in a fresh directory, with $tmp/tree as the tree to keep unchanged.
case_() {
    name=$1 want=$2 pattern=$3
    shift 3
    n=$((n + 1))
    run=$tmp/run$n
    mkdir "$run"
    out=$("$tool" -f "$fixture" -C "$run" -R "$tmp/tree" -t 2 "$@" 2>&1)
    rc=$?
    if [ "$rc" != "$want" ] || ! printf '%s\n' "$out" | grep -q -e "$pattern"; then
        echo "readme_blocks selftest: $name: exit status $rc (want $want), output (want a line with '$pattern'):"
        printf '%s\n' "$out" | sed 's/^/    | /'
        status=1
        return 1
    fi
    echo "readme_blocks selftest: $name: exit status $rc, $(printf '%s\n' "$out" | grep -m1 -e "$pattern" | sed 's/^ *//')"
}

case_ "fences tracked" 0 "^Passes	readme_fixture.md:24	bash	\\[\\[ " -l "Passes=2"
case_ "passing blocks" 0 "all 2 block(s) of readme_fixture.md passed" "Passes=2"
if case_ "failing block" 1 "FAIL (readme_fixture.md:30, \"Fails midway\") after [0-9.]* s: exit status 1" "Fails midway"; then
    [ ! -e "$run/reached.txt" ] || {
        echo "readme_blocks selftest: failing block: ran on past its failing command (sh -e)"
        status=1
    }
fi
case_ "later blocks still run" 1 "1 of 3 block(s) of readme_fixture.md failed" "Fails midway" "Passes=2"
if case_ "stray process" 1 "left running (now killed)" "Leaves a process running"; then
    pid=$(cat "$run/background.pid")
    # Gone, or a zombie that init has not reaped yet.
    ps -o stat= -p "$pid" | grep -qv '^Z' && {
        echo "readme_blocks selftest: stray process: pid $pid still runs"
        kill "$pid"
        status=1
    }
fi
case_ "time limit" 1 "timed out after 1 s" -t 1 "Hangs"
case_ "tree changed" 1 "exited 0, but changed $tmp/tree" -C "$tmp/tree" "Writes into the tree"
case_ "missing heading" 2 "readme_fixture.md: no heading \"Gone\"" "Gone"
case_ "no shell block" 2 "readme_fixture.md:[0-9]*: \"No shell block\" holds no" "No shell block"
case_ "wrong count" 2 "holds 2 shell blocks, 3 expected" "Passes=3"
case_ "heading twice" 2 "heading \"Twice\" again" "Twice"
printf '## Open\n\n```sh\necho never closed\n' > "$tmp/open.md"
case_ "unclosed fence" 2 "open.md:3: fence never closed" -f "$tmp/open.md" "Open"

[ $status -eq 0 ] && echo "readme_blocks selftest: all $n cases behave"
exit $status
