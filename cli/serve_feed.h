/**
 * @file serve_feed.h
 * @brief The values a page subscribed, as messages (internal to cli/): the
 *        one place the WebSocket feed is encoded (cli/serve_feed.c, on the
 *        library's delta sync, include/pcsim/sync.h), so cli/serve_web.c
 *        knows nothing of the wire format.
 *
 * A hub belongs to one world generation's snapshot pool and reads it once
 * per pace; a feed client is one page's subscription on it. Everything here
 * runs on the network thread.
 */
#ifndef PCS_CLI_SERVE_FEED_H
#define PCS_CLI_SERVE_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/pcsim.h"

typedef struct feed_hub feed_hub;
/** A page's subscription: the library's sync client itself (opaque here). */
typedef struct pcs_sync_client feed_client;

/** Rate classes a page may ask for (the sync library's classes). */
typedef enum feed_class {
    FEED_GAUGE = 0,    /**< 10 Hz */
    FEED_DISPLAY = 1,  /**< 2 Hz */
    FEED_RECORDER = 2, /**< trend point 1 Hz */
    FEED_EVENT = 3,    /**< on change (alarms, lamps) */
} feed_class;

/** One subscribed channel. */
typedef struct feed_slot {
    uint32_t channel;
    feed_class rate_class;
    uint32_t priority; /**< 0 near .. 2 far */
} feed_slot;

/** Most slots of one page. */
#define FEED_SLOTS_MAX 1024u

/** What the feed's wire format is called in the page's hello. */
extern const char *const feed_format;

/** A hub on @p pool recording @p recorders (trend history). NULL on failure. */
feed_hub *feed_hub_create(const pcs_snapshot_pool *pool, double dt_s, const uint32_t *recorders,
                          uint32_t n_recorders);
void feed_hub_destroy(feed_hub *hub);
/** Read the newest publication. @return 0, or -1 before the first one. */
int feed_hub_update(feed_hub *hub);

/** Subscribe (after a successful feed_hub_update). @return NULL with the
 *  reason in @p err. */
feed_client *feed_client_add(feed_hub *hub, const feed_slot *slots, uint32_t n, char *err,
                             size_t err_len);
void feed_client_destroy(feed_client *c);
/** Largest message feed_encode writes for this client, bytes. */
size_t feed_message_max(const feed_client *c);
/** The client's next message for the hub's frame into @p buf; *len 0 when
 *  nothing more is due. *binary: send as a binary WebSocket message. */
int feed_encode(feed_client *c, uint8_t *buf, size_t cap, size_t *len, int *binary);
/** Ask for a keyframe at the next encode. */
void feed_keyframe(feed_client *c);
/** The budget state for the status line, as a JSON object's members
 *  ("\"level\":0,..."), into @p out. */
void feed_budget_json(const feed_client *c, char *out, size_t len);

#endif
