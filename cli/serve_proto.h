/**
 * @file serve_proto.h
 * @brief The `pcsim serve` wire protocol: frame splitting, message decoding
 *        and the JSON writer for replies (docs/protocol.md).
 *
 * Pure functions over bytes: no socket, no world, no allocation outside
 * jansson's parse of one bounded message. The network code (cli/serve_net.c)
 * and the fuzz target (tests/fuzz/fuzz_serve.c) call exactly these, so what
 * the fuzzer checks is what the server runs.
 *
 * A frame is a 4-byte big-endian payload length L, 1 <= L <=
 * SERVE_MAX_MESSAGE, then L bytes of one JSON object. The decoder turns a
 * payload into a serve_msg whose every field is checked against its range,
 * or into a serve_err naming the field, the value and what is allowed.
 */
#ifndef PCS_CLI_SERVE_PROTO_H
#define PCS_CLI_SERVE_PROTO_H

#include <stddef.h>
#include <stdint.h>

/** Protocol versions this server speaks (hello negotiates the highest common). */
#define SERVE_PROTO_VERSION 1u
/** Largest payload of a frame in either direction, bytes (64 KiB). */
#define SERVE_MAX_MESSAGE 65536u
/** Frame header: the payload length, 4 bytes big-endian. */
#define SERVE_FRAME_HEADER 4u
/** Most channels one observe or subscribe names: keeps an observation
 *  (at most 26 bytes a value) well under SERVE_MAX_MESSAGE. */
#define SERVE_MAX_CHANNELS 1024u
/** Longest channel or target name (command.h: names are 1..127 chars). */
#define SERVE_NAME_MAX 127u
/** Longest command name (pcs_scenario_action.command holds 31). */
#define SERVE_COMMAND_MAX 31u
/** Longest token (and token file line), bytes. */
#define SERVE_TOKEN_MAX 256u
/** Longest save name: [A-Za-z0-9_-], 1..64 chars. */
#define SERVE_SAVE_NAME_MAX 64u
/** Most ticks one step may ask for. */
#define SERVE_STEP_MAX 1000000u
/** Largest subscription period, ticks. */
#define SERVE_EVERY_MAX 1000000u
/** Highest version number a hello may list. */
#define SERVE_VERSION_LIST_MAX 32u
/** Largest request id (exact in a double, so any JSON client keeps it). */
#define SERVE_ID_MAX ((uint64_t)1 << 53)

/** Message types, client to server. */
typedef enum serve_type {
    SERVE_MSG_HELLO = 1,
    SERVE_MSG_RESET,
    SERVE_MSG_STEP,
    SERVE_MSG_OBSERVE,
    SERVE_MSG_ACT,
    SERVE_MSG_LOAD,
    SERVE_MSG_SAVE,
    SERVE_MSG_CLOSE,
    SERVE_MSG_SUBSCRIBE,
} serve_type;

/** What a hello asks to be. */
typedef enum serve_role {
    SERVE_ROLE_OBSERVE = 0, /**< read only (the default) */
    SERVE_ROLE_CONTROL = 1, /**< may reset, step, act, load and save */
} serve_role;

/** One decoded client message; which fields mean something depends on type. */
typedef struct serve_msg {
    serve_type type;
    int has_id;  /**< "id" given: echoed in the reply */
    uint64_t id; /**< 0..SERVE_ID_MAX */
    /* hello */
    uint32_t versions;               /**< bit v: version v listed (1..31) */
    int has_token;                   /**< "token" given */
    char token[SERVE_TOKEN_MAX + 1]; /**< NUL-terminated */
    serve_role role;                 /**< "role": "observe" or "control" */
    /* reset */
    int has_seed;
    uint64_t seed; /**< 0..2^63-1 */
    /* step */
    uint32_t n;    /**< 1..SERVE_STEP_MAX (default 1) */
    int want_hash; /**< "hash": true */
    /* observe, subscribe */
    int has_channels;                        /**< "channels" given */
    uint32_t n_channels;                     /**< 1..SERVE_MAX_CHANNELS */
    uint32_t channel_at[SERVE_MAX_CHANNELS]; /**< offset of each name in names */
    char names[SERVE_MAX_MESSAGE];           /**< the names, each NUL-terminated */
    uint32_t every;                          /**< subscribe: 0 (stop) .. SERVE_EVERY_MAX */
    /* act */
    char target[SERVE_NAME_MAX + 1];
    char command[SERVE_COMMAND_MAX + 1];
    double value; /**< finite; 0 when absent */
    /* load, save */
    char name[SERVE_SAVE_NAME_MAX + 1];
} serve_msg;

/** Why a frame or message was refused: a code from docs/protocol.md and a sentence. */
typedef struct serve_err {
    const char *code; /**< "bad_frame", "too_large", "bad_json", "bad_message", ... */
    char message[320];
} serve_err;

/** Result of looking for a frame at the start of a buffer. */
typedef enum serve_frame {
    SERVE_FRAME_MORE = 0,  /**< not a whole frame yet: read more */
    SERVE_FRAME_OK = 1,    /**< a whole frame: header + *payload_len bytes */
    SERVE_FRAME_EMPTY = 2, /**< the header says 0 bytes */
    SERVE_FRAME_LARGE = 3, /**< the header says more than SERVE_MAX_MESSAGE */
} serve_frame;

/**
 * Look at the first @p len bytes of @p buf. SERVE_FRAME_OK sets
 * *payload_len; the payload starts at buf + SERVE_FRAME_HEADER. EMPTY and
 * LARGE are decided from the header alone (the length is in *payload_len),
 * so a peer cannot make the server buffer an oversized frame.
 */
serve_frame serve_frame_next(const uint8_t *buf, size_t len, uint32_t *payload_len);

/**
 * Decode one payload into @p out. @return 0, or -1 with @p err set: the
 * payload is not a JSON object (bad_json), or a field is missing, of the
 * wrong type, out of range or unknown (bad_message), or the type is unknown
 * (unknown_type). Never reads past @p len; @p out is fully written on 0.
 */
int serve_msg_decode(const uint8_t *payload, size_t len, serve_msg *out, serve_err *err);

/** The type's name on the wire ("step"), or "?" */
const char *serve_type_name(serve_type t);

/** Name @p i of a decoded observe or subscribe (i < n_channels). */
static inline const char *serve_msg_channel(const serve_msg *m, uint32_t i)
{
    return m->names + m->channel_at[i];
}

/* ---- Writing replies ------------------------------------------------------
 * A reply is built into a fixed buffer: the 4 header bytes are reserved,
 * JSON is appended, and serve_out_finish writes the length. Overflow is
 * sticky (ok = 0) rather than truncating silently. */

/** A reply being written. */
typedef struct serve_out {
    char *buf;  /**< SERVE_FRAME_HEADER + cap bytes */
    size_t cap; /**< payload capacity */
    size_t len; /**< payload bytes written */
    int ok;     /**< 0 once something did not fit */
} serve_out;

/** Start a reply in @p buf (@p size bytes, header included) with `{"type":"<type>"`. */
void serve_out_begin(serve_out *o, char *buf, size_t size, const char *type);
/** Append `,"key":` then the value. */
void serve_out_str(serve_out *o, const char *key, const char *value);
void serve_out_u64(serve_out *o, const char *key, uint64_t value);
void serve_out_f64(serve_out *o, const char *key, double value); /* null if not finite */
void serve_out_bool(serve_out *o, const char *key, int value);
void serve_out_hex(serve_out *o, const char *key, uint64_t value); /* "%016x" string */
/** Append `,"key":[v0,v1,...]` (non-finite values as null). */
void serve_out_f64s(serve_out *o, const char *key, const double *v, uint32_t n);
/** Close the object and write the header. @return the frame's total size, or 0 on overflow. */
size_t serve_out_finish(serve_out *o);

#endif
