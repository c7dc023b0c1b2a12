/**
 * @file wire.h
 * @brief The wire primitives of docs/sync.md: varints, zigzag, little-endian
 *        f64/u64, and the "val" coding of one slot value, for writing into a
 *        bounded buffer and reading from one without ever leaving it.
 *
 * Writers assume the caller reserved room (the encoder sizes every message
 * from per-item upper bounds: a varint is at most 8 bytes here because
 * every value it codes is below 2^53, a val at most 9). Readers take a cursor
 * (pointer, end) and fail rather than read past end; their failures carry a
 * short reason the decoder turns into its message.
 */
#ifndef PCS_SYNC_WIRE_H
#define PCS_SYNC_WIRE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** Varints code values below 2^53 (JavaScript's exact integers) in <= 8 bytes. */
#define SYNC_VARINT_LIMIT (UINT64_C(1) << 53)
#define SYNC_VARINT_MAX_BYTES 8u
/** A val is a varint, or the escape 1 and 8 bytes: at most 9 bytes. */
#define SYNC_VAL_MAX_BYTES 9u

/** Bytes varint @p v takes. */
static inline size_t sync_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80u) {
        v >>= 7;
        n++;
    }
    return n;
}

/** Write varint @p v at @p p; return the byte after it. */
static inline uint8_t *sync_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80u) {
        *p++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t sync_zigzag(int64_t n)
{
    return n >= 0 ? (uint64_t)n << 1 : (((uint64_t)(-(n + 1))) << 1) | 1u;
}

static inline int64_t sync_unzigzag(uint64_t z)
{
    return (z & 1u) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
}

static inline uint8_t *sync_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static inline uint8_t *sync_put_f64(uint8_t *p, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return sync_put_u64(p, bits);
}

/** Quantised val: k (absolute or a difference), coded as zigzag(k) * 2. */
static inline uint8_t *sync_put_qval(uint8_t *p, int64_t k)
{
    return sync_put_varint(p, sync_zigzag(k) << 1);
}

static inline size_t sync_qval_len(int64_t k)
{
    return sync_varint_len(sync_zigzag(k) << 1);
}

/** Escape val: 1, then the exact double. */
static inline uint8_t *sync_put_raw(uint8_t *p, double d)
{
    *p++ = 1u;
    return sync_put_f64(p, d);
}

/* ------------------------------------------------------------ reading */

/** A read cursor over [p, end). */
typedef struct sync_cursor {
    const uint8_t *p;
    const uint8_t *begin;
    const uint8_t *end;
} sync_cursor;

static inline size_t sync_offset(const sync_cursor *c)
{
    return (size_t)(c->p - c->begin);
}

/** Read a varint (docs/sync.md: <= 8 bytes, < 2^53, minimal).
 *  @return NULL, or the reason it is malformed. */
static inline const char *sync_get_varint(sync_cursor *c, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < SYNC_VARINT_MAX_BYTES; i++) {
        if (c->p >= c->end)
            return "truncated varint";
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7fu) << (7u * i);
        if ((b & 0x80u) == 0) {
            if (i > 0 && b == 0)
                return "varint not minimal";
            if (v >= SYNC_VARINT_LIMIT)
                return "varint above 2^53";
            *out = v;
            return NULL;
        }
    }
    return "varint longer than 8 bytes";
}

static inline const char *sync_get_u8(sync_cursor *c, uint8_t *out)
{
    if (c->p >= c->end)
        return "truncated byte";
    *out = *c->p++;
    return NULL;
}

static inline const char *sync_get_u64(sync_cursor *c, uint64_t *out)
{
    if ((size_t)(c->end - c->p) < 8u)
        return "truncated 8-byte field";
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += 8;
    *out = v;
    return NULL;
}

static inline const char *sync_get_f64(sync_cursor *c, double *out)
{
    uint64_t bits;
    const char *e = sync_get_u64(c, &bits);
    if (e)
        return e;
    memcpy(out, &bits, sizeof *out);
    return NULL;
}

/** One val: *raw = 1 and *d for an escape; else *raw = 0 and *k. */
static inline const char *sync_get_val(sync_cursor *c, int *raw, int64_t *k, double *d)
{
    uint64_t v;
    const char *e = sync_get_varint(c, &v);
    if (e)
        return e;
    if (v & 1u) {
        if (v != 1u)
            return "odd val other than the escape 1";
        *raw = 1;
        return sync_get_f64(c, d);
    }
    *raw = 0;
    *k = sync_unzigzag(v >> 1);
    return NULL;
}

/** |q| below 2^50: what both sides keep quantised. */
static inline int sync_q_ok(int64_t q)
{
    return q > -(INT64_C(1) << 50) && q < (INT64_C(1) << 50);
}

#endif
