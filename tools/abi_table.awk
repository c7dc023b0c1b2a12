# Rows of the public-struct layout table (pcsim/abi.h, station/abi.c).
# Usage: awk -f tools/abi_table.awk build/gen/public.i > build/gen/abi_table.inc
#
# The input is every include/pcsim/*.h preprocessed without the C library
# (the Makefile's $(B)/gen/public.i). For every definition `struct pcs_X { ... }`
# it prints PCS_ABI_STRUCT(pcs_X) and one PCS_ABI_FIELD(pcs_X, member) per
# member, in declaration order; station/abi.c turns them into sizeof and
# offsetof, so the compiler that builds the library measures the layout and
# nothing here is written by hand. The Python package (python/pcsim/_abi.py)
# checks its own cffi parse of the same headers against the table, field by
# field, so a member this script missed is reported there.
#
# What a member declaration may look like here (the public headers' style):
# `T name;`, `T a, b;`, `T name[N][M];`, `T (*fn)(params);` and declarations
# spread over lines. Nested struct or union definitions are refused (exit 1)
# rather than guessed.
{ text = text " " $0 }

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# The identifier at the end of s ("const char *const name" -> "name").
function last_ident(s,    m) {
    s = trim(s)
    if (!match(s, /[A-Za-z_][A-Za-z_0-9]*$/)) return ""
    return substr(s, RSTART, RLENGTH)
}

function members(tag, body,    fp, name, n, decls, i, j, d, parts, np) {
    # T (*fn)(params) -> T fn
    while (match(body, /\([ ]*\*[ ]*[A-Za-z_][A-Za-z_0-9]*[ ]*\)[ ]*\([^()]*\)/)) {
        fp = substr(body, RSTART, RLENGTH)
        match(fp, /\*[ ]*[A-Za-z_][A-Za-z_0-9]*/)
        name = trim(substr(fp, RSTART + 1, RLENGTH - 1))
        match(body, /\([ ]*\*[ ]*[A-Za-z_][A-Za-z_0-9]*[ ]*\)[ ]*\([^()]*\)/)
        body = substr(body, 1, RSTART - 1) " " name " " substr(body, RSTART + RLENGTH)
    }
    gsub(/\[[^]]*\]/, "", body) # array bounds
    if (body ~ /[{}()]/) {
        printf "tools/abi_table.awk: struct %s: a member this script cannot read: %s\n", tag, body > "/dev/stderr"
        exit 1
    }
    n = split(body, decls, ";")
    for (i = 1; i <= n; i++) {
        d = trim(decls[i])
        if (d == "") continue
        np = split(d, parts, ",")
        for (j = 1; j <= np; j++) {
            name = last_ident(parts[j])
            if (name == "") {
                printf "tools/abi_table.awk: struct %s: no member name in '%s'\n", tag, d > "/dev/stderr"
                exit 1
            }
            printf "PCS_ABI_FIELD(%s, %s)\n", tag, name
        }
    }
}

END {
    rest = text
    count = 0
    while (match(rest, /struct[ ]+pcs_[A-Za-z_0-9]+[ ]*\{/)) {
        head = substr(rest, RSTART, RLENGTH)
        rest = substr(rest, RSTART + RLENGTH)
        tag = head
        sub(/^struct[ ]+/, "", tag)
        sub(/[ ]*\{$/, "", tag)
        close_at = index(rest, "}")
        body = substr(rest, 1, close_at - 1)
        if (body ~ /\{/) {
            printf "tools/abi_table.awk: struct %s: nested definitions are not supported\n", tag > "/dev/stderr"
            exit 1
        }
        rest = substr(rest, close_at + 1)
        printf "PCS_ABI_STRUCT(%s)\n", tag
        members(tag, body)
        count++
    }
    if (count == 0) {
        print "tools/abi_table.awk: no struct pcs_* definition in the input" > "/dev/stderr"
        exit 1
    }
}
