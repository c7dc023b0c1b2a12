#!/bin/sh
# Proves tools/archcheck.sh fires: each fixture under tests/fixtures/arch/<rule>/
# must fail with "<rule>" in the output, and the clean fixture must pass.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX="$HERE/../tests/fixtures/arch"
status=0
for dir in "$FIX"/*/; do
    rule=$(basename "$dir")
    out=$("$HERE/archcheck.sh" "$dir" 2>&1)
    rc=$?
    if [ "$rule" = clean ]; then
        if [ $rc -ne 0 ]; then
            echo "archcheck selftest: clean fixture flagged:"; echo "$out"; status=1
        fi
    elif [ $rc -eq 0 ] || ! echo "$out" | grep -q ": $rule: "; then
        echo "archcheck selftest: rule $rule did not fire on its violator:"; echo "$out"; status=1
    else
        echo "archcheck selftest: $rule fires ($(echo "$out" | grep -c ": $rule: ") hit(s), e.g. $(echo "$out" | grep ": $rule: " | head -1 | sed "s|$FIX/||"))"
    fi
done
[ $status -eq 0 ] && echo "archcheck selftest: every rule fires on its violator"
exit $status
