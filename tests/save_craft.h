/**
 * @file save_craft.h
 * @brief Edit a save image as an attacker would: find a section by name,
 *        overwrite bytes in it, recompute the checksums. For the crafted-save
 *        tests, the save fuzzer and the property tests.
 *
 * Format dependency (read this before the save format changes): the helpers
 * rely only on the section table's records being, in the file's byte order
 * (little-endian, as written by engine/persist.c),
 *
 *     char name[64] (NUL-padded); u64 offset; u64 bytes; u64 checksum
 *
 * with offset and bytes locating the section's data inside the file, and on
 * sections being named "store:<store name>" or "job:<job name>". They do not
 * depend on the size or fields of the file header in front of the table: a
 * record is found by its NUL-padded name and accepted only if its offset and
 * size lie inside the image and past the record itself. A job section's data
 * starts with SAVE_CRAFT_JOB_HEAD bytes of engine state (pending flag,
 * reserved, submit tick) before the job's input copy. Checksums are
 * recomputed by pcs_persist_reseal (engine/persist_internal.h), which the
 * engine keeps in step with its own format.
 */
#ifndef PCS_TESTS_SAVE_CRAFT_H
#define PCS_TESTS_SAVE_CRAFT_H

#include <stddef.h>

/** Bytes in front of a job section's input copy (u32 pending, u32 reserved, u64 submit tick). */
#define SAVE_CRAFT_JOB_HEAD 16u

/**
 * Find section @p section_name ("store:u1.hyd.mass", "job:u1.xenon") in the
 * save image @p b of @p len bytes; set its data @p offset and size @p bytes.
 * @return 1 if found, 0 if not (or if its record points outside the image).
 */
int save_craft_find(const unsigned char *b, size_t len, const char *section_name, size_t *offset,
                    size_t *bytes);

/**
 * Copy @p n bytes of @p value to byte @p at of section @p section_name and
 * reseal the image's checksums.
 * @return 1 on success, 0 if the section is missing or [at, at + n) is not inside it.
 */
int save_craft_patch(unsigned char *b, size_t len, const char *section_name, size_t at,
                     const void *value, size_t n);

/** Read a whole file into a malloc'd buffer (*len bytes); NULL on failure. */
unsigned char *save_craft_read(const char *path, size_t *len);

/** Write @p len bytes to @p path (replacing it); 1 on success. */
int save_craft_write(const char *path, const unsigned char *b, size_t len);

#endif
