/**
 * @file test_abi.c
 * @brief The public-struct layout table (pcsim/abi.h): rows that match the
 *        headers' documented sizes and hand-computed offsets, every struct
 *        defined in include/pcsim/ present (counted here from the header
 *        files, independently of tools/abi_table.awk), and a table a binding
 *        can walk (struct row first, members in order, inside the struct).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/abi.h"

static const pcs_abi_field *row(const char *type, const char *field)
{
    uint32_t n;
    const pcs_abi_field *t = pcs_abi_layout(&n);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(t[i].type, type) == 0 && strcmp(t[i].field, field) == 0)
            return &t[i];
    return NULL;
}

static void expect(const char *type, const char *field, uint32_t offset, uint32_t size)
{
    const pcs_abi_field *r = row(type, field);
    cr_assert_not_null(r, "no row %s.%s", type, field);
    cr_expect_eq(r->offset, offset, "%s.%s offset %u, want %u", type, field, r->offset, offset);
    cr_expect_eq(r->size, size, "%s.%s size %u, want %u", type, field, r->size, size);
}

/* command.h: "A command: 64 bytes of plain data", laid out by hand:
 * u32 kind @0, u16 source_class @4, u16 reserved @6, u32 source_id @8,
 * u32 target @12, u64 seq @16, u64 tick @24, double args[4] @32. */
Test(abi, command_layout_by_hand)
{
    expect("pcs_command", "", 8, 64);
    expect("pcs_command", "kind", 0, 4);
    expect("pcs_command", "source_class", 4, 2);
    expect("pcs_command", "reserved", 6, 2);
    expect("pcs_command", "source_id", 8, 4);
    expect("pcs_command", "target", 12, 4);
    expect("pcs_command", "seq", 16, 8);
    expect("pcs_command", "tick", 24, 8);
    expect("pcs_command", "args", 32, 32);
}

/* event.h: "An event: 48 bytes": u32 kind @0, u32 subject @4, u64 tick @8,
 * double values[4] @16. And this header's own row type (two pointers, two
 * u32: 24 bytes on LP64). */
Test(abi, event_and_self_layout_by_hand)
{
    expect("pcs_event", "", 8, 48);
    expect("pcs_event", "kind", 0, 4);
    expect("pcs_event", "subject", 4, 4);
    expect("pcs_event", "tick", 8, 8);
    expect("pcs_event", "values", 16, 32);
    expect("pcs_abi_field", "", 8, 24);
    expect("pcs_abi_field", "offset", 16, 4);
    expect("pcs_abi_field", "size", 20, 4);
    cr_expect_null(row("pcs_command", "no_such_member"));
}

/* Each struct: its own row, then its members, offsets increasing, each
 * member inside the struct; no struct twice. */
Test(abi, table_is_walkable)
{
    uint32_t n = 0;
    const pcs_abi_field *t = pcs_abi_layout(&n);
    cr_assert_gt(n, 100u);
    cr_assert_eq(pcs_abi_layout(NULL), t);
    cr_assert_str_empty(t[0].field, "the table starts with a struct row");
    uint32_t size = 0, last_end = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (t[i].field[0] == '\0') {
            for (uint32_t j = 0; j < i; j++)
                cr_assert(t[j].field[0] != '\0' || strcmp(t[j].type, t[i].type) != 0,
                          "struct %s listed twice", t[i].type);
            size = t[i].size;
            last_end = 0;
            cr_expect_gt(t[i].size, 0u, "%s", t[i].type);
            continue;
        }
        cr_assert_str_eq(t[i].type, t[i - 1].type, "member %s.%s away from its struct row",
                         t[i].type, t[i].field);
        cr_expect_geq(t[i].offset, last_end, "%s.%s overlaps the member before it", t[i].type,
                      t[i].field);
        cr_expect_leq(t[i].offset + t[i].size, size, "%s.%s ends past sizeof", t[i].type,
                      t[i].field);
        last_end = t[i].offset + t[i].size;
    }
}

/* Every "struct pcs_X {" in the headers of include/pcsim/ has a row, and no other
 * struct does: counted from the header text itself. */
Test(abi, every_header_struct_is_listed)
{
    DIR *d = opendir("include/pcsim");
    cr_assert_not_null(d, "run from the repository root (include/pcsim)");
    uint32_t defined = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".h") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "include/pcsim/%s", e->d_name);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            char tag[128];
            const char *s = strstr(line, "struct pcs_");
            /* A definition: the tag followed by " {" on the same line. */
            if (s && sscanf(s, "struct %127[a-z0-9_] {", tag) == 1 && strchr(s, '{')) {
                defined++;
                cr_expect_not_null(row(tag, ""), "%s: struct %s is not in pcs_abi_layout", path,
                                   tag);
            }
        }
        fclose(f);
    }
    closedir(d);
    uint32_t n = 0, structs = 0;
    const pcs_abi_field *t = pcs_abi_layout(&n);
    for (uint32_t i = 0; i < n; i++)
        structs += t[i].field[0] == '\0';
    cr_expect_eq(structs, defined, "%u struct rows, %u definitions in include/pcsim", structs,
                 defined);
}
