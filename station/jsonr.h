/**
 * @file jsonr.h
 * @brief Checked reads from a JSON document, with errors that name the file,
 *        the JSON path and the reason (for scenario files).
 *
 * Every getter returns 0 on success and -1 after recording the first error in
 * the context; optional fields that are absent leave *out unchanged, so the
 * caller sets defaults first and reads over them.
 */
#ifndef PCS_STATION_JSONR_H
#define PCS_STATION_JSONR_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct jr_ctx {
    const char *file; /* shown in messages */
    char path[256];   /* current JSON path, e.g. $.units[1].rods */
    char msg[1280];   /* first error */
    int failed;
} jr_ctx;

/** Default of jr_load_file's size limit (and of `pcsim run --max-scenario-bytes`). */
#define JR_DEFAULT_MAX_BYTES ((size_t)4 << 20)

/**
 * Parse @p text (NULL: read @p file with the default size limit). Syntax
 * errors report file:line:column, the JSON path there and what was expected.
 */
json_t *jr_load(jr_ctx *c, const char *file, const char *text);

/**
 * Read @p file (a regular file of at most @p max_bytes, checked with fstat
 * before anything is read or parsed) and parse it as jr_load_buffer does.
 */
json_t *jr_load_file(jr_ctx *c, const char *file, size_t max_bytes);

/**
 * Parse @p len bytes at @p data (need not be NUL-terminated), shown as
 * @p file in messages. Numbers whose text a double cannot hold (non-zero but
 * converting to 0 or a subnormal, overflowing, or an integer outside int64)
 * do not fail here: they stay in the document as markers that the getters
 * below refuse with the number's text, the JSON path and the field's range.
 * Returns the root object, or NULL with c->msg set.
 */
json_t *jr_load_buffer(jr_ctx *c, const char *file, const char *data, size_t len);

/** Record an error at the current path (first error wins). Returns -1. */
int jr_fail(jr_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Descend into a key or an index; returns the previous path length for jr_pop. */
size_t jr_push_key(jr_ctx *c, const char *key);
size_t jr_push_index(jr_ctx *c, size_t i);
void jr_pop(jr_ctx *c, size_t len);

/** Refuse keys of @p obj not in the NULL-terminated @p allowed list. */
int jr_only_keys(jr_ctx *c, json_t *obj, const char *const *allowed);

/** Optional number in [lo, hi]. */
int jr_num(jr_ctx *c, json_t *obj, const char *key, double lo, double hi, double *out);
/** Required number in [lo, hi]. */
int jr_num_req(jr_ctx *c, json_t *obj, const char *key, double lo, double hi, double *out);
/** Optional integer in [lo, hi]. */
int jr_u32(jr_ctx *c, json_t *obj, const char *key, uint32_t lo, uint32_t hi, uint32_t *out);
int jr_u64(jr_ctx *c, json_t *obj, const char *key, uint64_t *out);
/** Optional / required string (borrowed from the document). */
int jr_str(jr_ctx *c, json_t *obj, const char *key, const char **out);
int jr_str_req(jr_ctx *c, json_t *obj, const char *key, const char **out);
/** Optional object or array; NULL when absent (check c->failed for a type error). */
json_t *jr_obj(jr_ctx *c, json_t *obj, const char *key);
json_t *jr_arr(jr_ctx *c, json_t *obj, const char *key);
/** Reads the fields of one section object; nonzero after an error. */
typedef int (*jr_fields_fn)(jr_ctx *c, json_t *obj, void *out);
/**
 * Optional object section @p key of @p obj: absent, 0. Otherwise its keys are
 * checked against the NULL-terminated @p allowed and @p fields reads it with
 * the path at the object (both run, so the first error is the first in the
 * object). Returns 0, or -1 after an error.
 */
int jr_section(jr_ctx *c, json_t *obj, const char *key, const char *const *allowed,
               jr_fields_fn fields, void *out);

/** Type of a table field (jr_field). */
typedef enum jr_type { JR_NUM, JR_U32, JR_U64 } jr_type;

/** One optional scalar field of a section, read as jr_num / jr_u32 / jr_u64
 *  would: its key, its type, its range [lo, hi] (JR_U32: whole numbers;
 *  JR_U64: none) and where it goes (offsetof in the section's struct). */
typedef struct jr_field {
    const char *key;
    jr_type type;
    double lo, hi;
    size_t offset;
} jr_field;

/** Most fields one table section may list. */
#define JR_TABLE_MAX 16

/**
 * jr_section for a section that is a table of scalar fields: the table gives
 * both the allowed keys (in its order) and the reads, each into
 * (char *)out + offset, in table order. Returns 0, or -1 after an error.
 */
int jr_table_section(jr_ctx *c, json_t *obj, const char *key, const jr_field *fields, size_t n,
                     void *out);

/** Reads item @p i of an array section; nonzero (and the error recorded) to stop. */
typedef int (*jr_item_fn)(jr_ctx *c, json_t *item, size_t i, void *out);
/**
 * Optional array section @p key of @p obj of at most @p max items (@p what
 * names them in the message "N <what>; at most <max>"): absent, 0. Otherwise
 * @p item reads each in order with the path at it, stopping at the first
 * error. Returns 0, or -1 after an error.
 */
int jr_array_section(jr_ctx *c, json_t *obj, const char *key, size_t max, const char *what,
                     jr_item_fn item, void *out);

/** Optional array of exactly @p n numbers in [lo, hi]. */
int jr_num_array(jr_ctx *c, json_t *obj, const char *key, size_t n, double lo, double hi,
                 double *out);

#endif
