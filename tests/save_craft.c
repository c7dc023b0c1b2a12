/**
 * @file save_craft.c
 * @brief Find, patch and reseal sections of a save image (see save_craft.h
 *        for the one format assumption this relies on).
 */
#include "tests/save_craft.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/persist_internal.h"

enum { SC_NAME = 64, SC_RECORD = SC_NAME + 3 * 8 };

/* A record at @p at names @p want (NUL-padded to 64 bytes) and points inside
 * the image, past its own end. */
static int record_at(const unsigned char *b, size_t len, size_t at, const char *want,
                     size_t want_len, size_t *offset, size_t *bytes)
{
    if (memcmp(b + at, want, want_len) != 0)
        return 0;
    for (size_t i = want_len; i < SC_NAME; i++)
        if (b[at + i] != 0)
            return 0;
    uint64_t off, n;
    memcpy(&off, b + at + SC_NAME, sizeof off);
    memcpy(&n, b + at + SC_NAME + 8, sizeof n);
    if (off < at + SC_RECORD || off > len || n > len - off)
        return 0;
    *offset = (size_t)off;
    *bytes = (size_t)n;
    return 1;
}

int save_craft_find(const unsigned char *b, size_t len, const char *section_name, size_t *offset,
                    size_t *bytes)
{
    size_t want_len = strlen(section_name);
    if (!b || want_len == 0 || want_len >= SC_NAME || len < SC_RECORD)
        return 0;
    for (size_t at = 0; at + SC_RECORD <= len; at++)
        if (record_at(b, len, at, section_name, want_len, offset, bytes))
            return 1;
    return 0;
}

int save_craft_patch(unsigned char *b, size_t len, const char *section_name, size_t at,
                     const void *value, size_t n)
{
    size_t off = 0, bytes = 0;
    if (!save_craft_find(b, len, section_name, &off, &bytes) || at > bytes || n > bytes - at)
        return 0;
    memcpy(b + off + at, value, n);
    return pcs_persist_reseal(b, len) > 0;
}

unsigned char *save_craft_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *b = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1)) != NULL &&
        fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        *len = (size_t)n;
    return b;
}

/* In place, then cut to @p len: not fopen "wb", since ext4 flushes a file
 * truncated to zero and rewritten at its close (auto_da_alloc), a disk
 * write for each crafted copy a test loads. */
int save_craft_write(const char *path, const unsigned char *b, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    if (fd < 0)
        return 0;
    int ok = pwrite(fd, b, len, 0) == (ssize_t)len && ftruncate(fd, (off_t)len) == 0;
    return close(fd) == 0 && ok;
}
