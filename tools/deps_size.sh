#!/bin/sh
# Measure what each set of tools/deps.sh would download and install on a
# fresh Debian: README.md's "Dependencies" table comes from this script.
# Usage: tools/deps_size.sh
#
# "Fresh" is this machine's packages of Priority required (and Essential),
# closed under their installed dependencies: the set a minimal Debian image
# (debootstrap --variant=minbase, the debian:bookworm container) starts
# with. apt is pointed at a dpkg status file holding only those, and asked
# what `apt-get install --no-install-recommends` (as deps.sh runs it) would
# fetch: --print-uris gives each .deb's download size, apt-cache show its
# Installed-Size. Nothing is downloaded or installed; the package lists must
# be current (apt-get update).
set -eu
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=/var/lib/dpkg/status

# The baseline: required and essential packages and what they depend on.
awk 'BEGIN { RS = ""; FS = "\n" }
     /\nStatus: install ok installed/ && (/\nPriority: required/ || /\nEssential: yes/) {
         sub(/^Package: /, "", $1); print $1 }' "$status" > "$tmp/seed"
# shellcheck disable=SC2046 # package names
apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances $(cat "$tmp/seed") 2>/dev/null |
    grep -v '^[ <]' | sort -u > "$tmp/base"
awk 'NR == FNR { keep[$1] = 1; next }
     { split($0, l, "\n"); p = l[1]; sub(/^Package: /, "", p); sub(/:.*/, "", p) }
     p in keep { printf "%s\n\n", $0 }' "$tmp/base" RS="" "$status" > "$tmp/status"
echo "baseline: $(wc -l < "$tmp/base") packages (Priority required and their dependencies)"

measure() { # set name, packages...
    name=$1
    shift
    # shellcheck disable=SC2068
    apt-get install --print-uris -qq -y --no-install-recommends -o Dir::State::status="$tmp/status" \
        $@ > "$tmp/uris"
    n=$(grep -c "^'" "$tmp/uris" || true)
    dl=$(awk '{ s += $3 } END { printf "%.0f", s / 1e6 }' "$tmp/uris")
    # The same install simulated names the packages (candidate versions), for their Installed-Size.
    # shellcheck disable=SC2068
    apt-get install -s -qq -y --no-install-recommends -o Dir::State::status="$tmp/status" $@ |
        sed -n 's/^Inst \([^ ]*\) .*/\1/p' > "$tmp/names"
    inst=$(xargs apt-cache show --no-all-versions < "$tmp/names" 2>/dev/null |
        awk '/^Installed-Size:/ { s += $2 } END { printf "%.0f", s / 1024 }')
    printf '%-6s %4s packages  %5s MB download  %5s MB installed\n' "$name" "$n" "$dl" "$inst"
}
for s in run bench test; do
    # shellcheck disable=SC2046
    measure "$s" $("$here/deps.sh" "$s" --list)
done
