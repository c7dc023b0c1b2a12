#!/bin/sh
# Proves tools/archcheck.sh fires: each fixture under tests/fixtures/arch/<rule>/
# must fail with "<rule>" in the output, naming every file of it called bad*
# (a fixture may hold several violators, one per way to break the rule), and
# the clean fixture must pass.
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
        for bad in $(cd "$dir" && find . -type f -name 'bad*' | sed 's|^\./||' | sort); do
            if ! echo "$out" | grep -q "^$bad:[0-9]*: $rule: "; then
                echo "archcheck selftest: rule $rule did not flag its violator $bad:"; echo "$out"; status=1
            fi
        done
        echo "archcheck selftest: $rule fires ($(echo "$out" | grep -c ": $rule: ") hit(s), e.g. $(echo "$out" | grep ": $rule: " | head -1 | sed "s|$FIX/||"))"
    fi
done
[ $status -eq 0 ] && echo "archcheck selftest: every rule fires on its violator"
exit $status
