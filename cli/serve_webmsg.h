/**
 * @file serve_webmsg.h
 * @brief The control room page's messages to the server (internal to cli/):
 *        one text WebSocket message decoded into a checked web_msg, or a
 *        refusal naming the field, the value and what is allowed
 *        (docs/protocol.md, "HTTP and WebSocket").
 *
 * Pure: bytes in, struct out, jansson's parse of one bounded message and
 * nothing else (no socket, no world). cli/serve_web.c, the unit tests
 * (tests/test_web_msg.c) and the fuzz target (tests/fuzz/fuzz_web.c) call
 * exactly this.
 */
#ifndef PCS_CLI_SERVE_WEBMSG_H
#define PCS_CLI_SERVE_WEBMSG_H

#include <stddef.h>
#include <stdint.h>

#include "cli/serve_proto.h"

/** Largest WebSocket message a page may send, bytes. */
#define WEB_MAX_MESSAGE 65536u
/** Most channels one subscribe names (the sync library's slot limit). */
#define WEB_SLOTS_MAX 1024u

typedef enum web_msg_type {
    WEB_MSG_SUBSCRIBE = 1,
    WEB_MSG_ACT = 2,
    WEB_MSG_KEYFRAME = 3,
} web_msg_type;

/** One decoded page message; which fields mean something depends on type. */
typedef struct web_msg {
    web_msg_type type;
    int has_id;
    uint64_t id; /**< 0..SERVE_ID_MAX */
    /* act */
    char target[SERVE_NAME_MAX + 1];
    char command[SERVE_COMMAND_MAX + 1];
    double value; /**< finite; 0 when absent */
    /* subscribe */
    uint32_t n;                                  /**< 1..WEB_SLOTS_MAX */
    uint32_t name_at[WEB_SLOTS_MAX];             /**< offset of each name in names */
    uint8_t rate_class[WEB_SLOTS_MAX];           /**< 0 gauge, 1 display, 2 recorder, 3 event */
    uint8_t priority[WEB_SLOTS_MAX];             /**< 0..2 */
    char names[WEB_MAX_MESSAGE + WEB_SLOTS_MAX]; /**< each NUL-terminated */
} web_msg;

/** Why a message was refused: code (bad_json, bad_message, unknown_type), text. */
typedef struct web_err {
    const char *code;
    char message[256];
} web_err;

/**
 * Decode one text message of @p len bytes. @return 0, or -1 with @p err
 * set. Every refusal here is fatal for the page (docs/protocol.md). Never
 * reads past @p len.
 */
int web_msg_decode(const char *data, size_t len, web_msg *out, web_err *err);

/** Name @p i of a decoded subscribe (i < n). */
static inline const char *web_msg_channel(const web_msg *m, uint32_t i)
{
    return m->names + m->name_at[i];
}

#endif
