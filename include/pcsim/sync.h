/**
 * @file sync.h
 * @brief Delta sync: per-client subscriptions turned into compact quantised
 *        delta messages within a per-client byte budget, and their decoder.
 *
 * A host that feeds remote views of a running world (a browser control room,
 * a network recorder) sends each client only what it looks at: the channels
 * it subscribed, each rounded to its quantum, each at its rate class, and
 * only when it moved by more than its deadband since the value last sent.
 * This module is transport-free: it writes and reads byte messages; the host
 * frames them (one WebSocket binary message per sync message) and sends them.
 * The wire format is specified in docs/sync.md; web/sync.js decodes it in a
 * browser or node and yields the same values as pcs_sync_decode, bit for bit.
 *
 *     pcs_sync_hub_def hd = pcs_sync_hub_default();
 *     hd.dt_s = cfg.dt_s;  hd.recorder_ids = rec;  hd.n_recorders = 4;
 *     pcs_sync_hub *hub;     pcs_sync_hub_create(pool, &hd, &hub);
 *     pcs_sync_client_def cd = pcs_sync_client_default();
 *     cd.channels = subs;  cd.n_channels = n;
 *     pcs_sync_client *c;    pcs_sync_client_add(hub, &cd, &c);   // subscribe
 *     uint8_t *buf = malloc(pcs_sync_client_message_max(c));
 *     each pacing step (for example every publication, or 10 times a second):
 *         pcs_sync_hub_update(hub);                                // one snapshot read
 *         for each client c:
 *             size_t len;
 *             while (pcs_sync_encode(c, buf, cap, &len) == PCS_OK && len > 0)
 *                 send(buf, len);
 *     pcs_sync_client_destroy(c); pcs_sync_hub_destroy(hub);
 *
 * Objects. A hub belongs to one snapshot pool: it owns a pcs_reader, the
 * newest frame of every channel (one copy-out read per pcs_sync_hub_update,
 * lock-free, never blocking the tick) and the recorder history ring (fixed
 * size, allocated at create). A client is one subscriber of a hub: its
 * channel list (slots, in the order given), the values it was last sent, its
 * schedule and its token buckets. A decoder is the receiving end.
 *
 * Time. Everything in the protocol and in the scheduling is simulated time:
 * tick numbers of the snapshot the values come from (pcs_view.tick), rates
 * in updates per simulated second, budgets in bytes per simulated second.
 * The library reads no clock, so a run encodes the same bytes whatever the
 * host's speed or load (determinism). A host running at k times real time
 * sends k times the bytes per wall second; that is the host's choice.
 *
 * Rate classes (pcs_sync_class) and their rates (dt_s = tick length):
 *  - GAUGE 10 Hz, degradable by priority to 5 Hz then 2 Hz (below);
 *  - DISPLAY 2 Hz; PLAYER 10 Hz (player bucket); ACOUSTIC 10 Hz (acoustics
 *    bucket, reserved for sound emitters);
 *  - RECORDER: the hub samples 1 point per simulated second into its ring;
 *    a client gets the new points in batches every 5 s (RECORDER messages);
 *  - EVENT (alarms, lamps, mimic states): checked at every encode, sent on
 *    the tick it changes, never delayed by the budget.
 * A rate of f Hz is a period of max(1, round(1 / (f * dt_s))) ticks; a slot
 * of period p is due at ticks that are multiples of p (so all 10 Hz slots
 * share one message). A due slot is evaluated: if its value moved by at
 * least its deadband since the value last sent (or its kind changed between
 * finite, non-finite and raw) it is sent; either way the client's value is
 * now within the deadband of the truth at that tick (a "delivery"). When
 * nothing at all was written for a simulated second, the encoder writes an
 * empty DELTA (a heartbeat: the tick, 4 bytes or so), so a viewer always
 * knows how far the world has run.
 *
 * Quantisation. A slot with quantum Q > 0 sends q = round(v / Q) (half away
 * from zero) as the difference from the q last sent, zigzag varint coded;
 * the decoded value is the double product q * Q, which the encoder keeps as
 * the value last sent. So at each delivery |decoded - true| <= max(deadband,
 * Q / 2) (< deadband when not sent, <= Q / 2 when sent): the error never
 * accumulates. Q = 0 sends the raw double (8 bytes)
 * whenever its bits change (status words, exact values). Non-finite values
 * and |v / Q| >= 2^50 go raw too.
 *
 * Budget. Each client has four token buckets, in bytes per simulated second
 * (pcs_sync_budget, defaults 1400 instruments, 400 acoustics, 100 player,
 * 148 reserve: 2048 in all), each as deep as burst_s seconds of its rate and
 * full at subscribe. GAUGE, DISPLAY, RECORDER and EVENT values and message
 * framing are paid from instruments; ACOUSTIC from acoustics; PLAYER from
 * player; keyframes asked for with pcs_sync_client_request_keyframe from the
 * reserve. An item whose bucket cannot pay it is deferred: it stays due and
 * is retried at the next encode (its staleness grows); a full bucket pays
 * any item, even one larger than the bucket (the bucket goes into debt). EVENT items are never
 * deferred: what instruments cannot pay, the reserve pays, into debt if it
 * must. Within a message, items are chosen by priority (0 near first), so
 * near instruments starve last. The subscribe setup (LAYOUT, the first
 * KEYFRAME and the recorder history) is not charged; it is counted apart
 * (pcs_sync_client_stats.setup_bytes).
 *
 * Degradation. A client has a level 0..PCS_SYNC_LEVEL_MAX that sets its
 * gauges' rates (level: priority 2, 1, 0 gauge rates):
 *     0: 10 10 10   1: 5 10 10   2: 2 10 10   3: 2 5 10
 *     4: 2  2 10    5: 2  2  5   6: 2  2  2
 * so far gauges fall to 5 Hz, then 2 Hz, before nearer ones do. The level
 * rises by one when an instrument item is deferred (at most once per
 * PCS_SYNC_ESCALATE_S) and falls by one after the instruments bucket has
 * stayed at least half full for PCS_SYNC_RECOVER_S. Displays, recorders
 * and events keep their rates at every level (recorders may be late, never
 * thinned: their points wait in the ring).
 *
 * Threads. A hub and its clients are used from one thread at a time (the
 * host's sender thread; a host with several sender threads makes one hub per
 * thread). Decoders are independent: one thread at a time each.
 * Memory. pcs_sync_hub_create and pcs_sync_client_add allocate everything
 * they will use (C allocator); pcs_sync_hub_update and pcs_sync_encode
 * allocate nothing. pcs_sync_decoder_create allocates for its limits;
 * pcs_sync_decode allocates nothing.
 *
 * Errors. Calls return a pcs_status and leave a message in pcs_last_error()
 * naming the object, the field, the value and the allowed range; the
 * decoder's messages name the message type, the byte offset and what was
 * wrong. The library never prints.
 */
#ifndef PCSIM_SYNC_H
#define PCSIM_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/snapshot.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Wire-format version (the high nibble of every message's first byte). */
#define PCS_SYNC_VERSION 1u
/** Largest message either side accepts, bytes (the decoder refuses larger). */
#define PCS_SYNC_MESSAGE_MAX 131072u
/** Most slots (subscribed channels) one client may have. */
#define PCS_SYNC_SLOTS_MAX 1024u
/** Most recorder channels a hub keeps history for, and a client subscribes. */
#define PCS_SYNC_RECORDERS_MAX 64u
/** Most points one RECORDER message carries (longer history: several messages). */
#define PCS_SYNC_RECORDER_CHUNK 128u
/** Longest channel name or unit carried in a LAYOUT message, bytes. */
#define PCS_SYNC_NAME_MAX 255u
/** Highest priority number (0 near .. 2 far). */
#define PCS_SYNC_PRIORITY_MAX 2u
/** Highest degradation level (see the file comment's table). */
#define PCS_SYNC_LEVEL_MAX 6u
/** Array sizes in the stats: rate classes, buckets, levels (0..LEVEL_MAX). */
#define PCS_SYNC_CLASSES 6u
#define PCS_SYNC_BUCKETS 4u
#define PCS_SYNC_LEVELS 7u
/** Quantised values stay below this magnitude (2^50); larger go raw. */
#define PCS_SYNC_Q_LIMIT 1125899906842624.0

/** Rates of the classes, updates per simulated second. */
#define PCS_SYNC_GAUGE_HZ 10.0
#define PCS_SYNC_GAUGE_MID_HZ 5.0 /**< a degraded gauge's first step */
#define PCS_SYNC_GAUGE_LOW_HZ 2.0 /**< a degraded gauge's second step */
#define PCS_SYNC_DISPLAY_HZ 2.0
#define PCS_SYNC_ACOUSTIC_HZ 10.0
#define PCS_SYNC_PLAYER_HZ 10.0
#define PCS_SYNC_RECORDER_HZ 1.0      /**< hub default sampling rate */
#define PCS_SYNC_RECORDER_BATCH_S 5.0 /**< a client's recorder batch period */
/** Degradation: rise at most once per this, fall after this with the
 *  instruments bucket at least half full throughout; simulated seconds. */
#define PCS_SYNC_ESCALATE_S 1.0
#define PCS_SYNC_RECOVER_S 2.0

/** Message types (the low nibble of a message's first byte; docs/sync.md). */
typedef enum pcs_sync_msg_type {
    PCS_SYNC_MSG_LAYOUT = 1,   /**< slots: channel ids, classes, quanta, names, units */
    PCS_SYNC_MSG_KEYFRAME = 2, /**< every slot's value, absolute */
    PCS_SYNC_MSG_DELTA = 3,    /**< the slots that changed, as quantised differences */
    PCS_SYNC_MSG_RECORDER = 4, /**< recorder points (history on subscribe, then batches) */
} pcs_sync_msg_type;

/** Rate classes of a slot. */
typedef enum pcs_sync_class {
    PCS_SYNC_GAUGE = 0,    /**< 10 Hz, degraded by priority when instruments run dry */
    PCS_SYNC_DISPLAY = 1,  /**< digital display, 2 Hz */
    PCS_SYNC_RECORDER = 2, /**< chart recorder: hub samples, 5 s batches, history */
    PCS_SYNC_EVENT = 3,    /**< alarm, lamp, mimic state: on the tick it changes */
    PCS_SYNC_ACOUSTIC = 4, /**< sound emitter, 10 Hz, acoustics bucket */
    PCS_SYNC_PLAYER = 5,   /**< the client's own state, 10 Hz, player bucket */
    PCS_SYNC_CLASS_COUNT = 6
} pcs_sync_class;

/** Token buckets of a client. */
typedef enum pcs_sync_bucket {
    PCS_SYNC_BUCKET_INSTRUMENTS = 0,
    PCS_SYNC_BUCKET_ACOUSTICS = 1,
    PCS_SYNC_BUCKET_PLAYER = 2,
    PCS_SYNC_BUCKET_RESERVE = 3,
    PCS_SYNC_BUCKET_COUNT = 4
} pcs_sync_bucket;

typedef struct pcs_sync_hub pcs_sync_hub;
typedef struct pcs_sync_client pcs_sync_client;
typedef struct pcs_sync_decoder pcs_sync_decoder;

/* ------------------------------------------------------------------ hub */

/** What a hub reads and keeps. */
typedef struct pcs_sync_hub_def {
    /** Tick length of the world, s (pcs_world_def.dt_s); required, > 0. */
    double dt_s;
    /** Channels the hub samples into its history ring (the only channels a
     *  client may subscribe as RECORDER); may be NULL with n_recorders 0. */
    const uint32_t *recorder_ids;
    uint32_t n_recorders; /**< [0, PCS_SYNC_RECORDERS_MAX] */
    /** History kept, simulated s; default 600 (10 minutes); (0, 86400]. */
    double history_s;
    /** Sampling rate of the ring, points per simulated s; default 1; (0, 1000]. */
    double recorder_hz;
} pcs_sync_hub_def;

/** Defaults: dt_s 0 (set it), no recorders, 600 s of history at 1 Hz. */
PCS_API pcs_sync_hub_def pcs_sync_hub_default(void);

/**
 * Create a hub reading @p pool (which must outlive it). Opens a reader and
 * allocates the frame (8 bytes per channel of the pool) and the history
 * ring (ceil(history_s * recorder_hz) points of n_recorders values + tick).
 * Any thread; then use the hub from one thread at a time.
 * @return PCS_E_INVAL (NULL, dt_s, history_s or recorder_hz out of range,
 *         n_recorders above the limit, recorder_ids NULL with n > 0),
 *         PCS_E_NOTFOUND (a recorder id >= the pool's channel count, named),
 *         PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_sync_hub_create(const pcs_snapshot_pool *pool, const pcs_sync_hub_def *def,
                                       pcs_sync_hub **out);

/** Destroy a hub (NULL ignored). Destroy its clients first. */
PCS_API void pcs_sync_hub_destroy(pcs_sync_hub *hub);

/**
 * Read the newest publication of every channel into the hub's frame (one
 * pcs_snapshot_read: lock-free, the tick never waits) and, when the frame's
 * tick entered a new recorder period since the last sample (period =
 * max(1, round(1 / (recorder_hz * dt_s))) ticks; period number = tick /
 * period), append one history point (the frame's values of the recorder
 * channels, with the frame's tick). Call it at least
 * as often as the recorder rate to keep every point (a host pacing at
 * 10 Hz does). Allocates nothing.
 * @return PCS_OK; PCS_E_INVAL for NULL; PCS_E_STATE before the first
 *         publication; PCS_E_RATE as pcs_snapshot_read.
 */
PCS_API pcs_status pcs_sync_hub_update(pcs_sync_hub *hub);

/** Tick of the hub's frame (0 before the first update; 0 for NULL). */
PCS_API uint64_t pcs_sync_hub_tick(const pcs_sync_hub *hub);

/** Channel @p channel's value in the hub's frame; NaN for NULL or out of range. */
PCS_API double pcs_sync_hub_value(const pcs_sync_hub *hub, uint32_t channel);

/** Channels in the hub's frame (the pool's count); 0 for NULL. */
PCS_API uint32_t pcs_sync_hub_channel_count(const pcs_sync_hub *hub);

/** History points sampled so far (all time, not only those still in the ring). */
PCS_API uint64_t pcs_sync_hub_samples(const pcs_sync_hub *hub);

/* --------------------------------------------------------------- client */

/** One subscribed channel (a slot of the client, in the order given). */
typedef struct pcs_sync_channel {
    uint32_t channel;    /**< channel id in the hub's pool */
    uint32_t rate_class; /**< a pcs_sync_class */
    uint32_t priority;   /**< 0 near .. PCS_SYNC_PRIORITY_MAX far */
    /** Resolution, the channel's unit; 0: exact (raw double on every change).
     *  Finite, >= 0. pcs_sync_quantum_suggest gives one per unit. */
    double quantum;
    /** Send when |value - value last sent| >= deadband; 0: the quantum.
     *  Finite, >= 0 (for quantum 0 any bit change is sent). */
    double deadband;
} pcs_sync_channel;

/** Bytes per simulated second of each bucket, and their depth. */
typedef struct pcs_sync_budget {
    uint32_t instruments_bps; /**< gauges, displays, recorders, events, framing; default 1400 */
    uint32_t acoustics_bps;   /**< sound emitters; default 400 */
    uint32_t player_bps;      /**< the client's own state; default 100 */
    uint32_t reserve_bps;     /**< requested keyframes, event overflow; default 148 */
    /** Each bucket holds burst_s seconds of its rate; default 1; (0, 60]. */
    double burst_s;
} pcs_sync_budget;

/** The budget: 1400 + 400 + 100 + 148 = 2048 B/s, 1 s deep. */
PCS_API pcs_sync_budget pcs_sync_budget_default(void);

/** A subscription. */
typedef struct pcs_sync_client_def {
    const pcs_sync_channel *channels; /**< n_channels slots (copied at add) */
    uint32_t n_channels;              /**< [1, PCS_SYNC_SLOTS_MAX] */
    pcs_sync_budget budget;           /**< pcs_sync_budget_default() */
} pcs_sync_client_def;

/** Defaults: no channels, pcs_sync_budget_default(). */
PCS_API pcs_sync_client_def pcs_sync_client_default(void);

/**
 * A quantum for a channel of unit @p unit suited to a control-room display
 * (about 1e-4 of a typical full scale): "W" 1e5, "Pa" 1e3, "K" 0.01, "kg/s"
 * 0.1, "m" 1e-3, "m3/s" 1e-4, "s" 0.01, "1/s" 1e-4, "" (fractions) 1e-4,
 * others 1e-3; NULL is "". U32 channels (states, flags, counts) should use
 * 1: exact for integers, and a change costs 1 or 2 bytes, not 9.
 */
PCS_API double pcs_sync_quantum_suggest(const char *unit);

/**
 * Subscribe: add a client of @p hub with @p def's slots. Queues the setup
 * that the first pcs_sync_encode calls write: LAYOUT, a KEYFRAME of the
 * hub's frame, then the recorder history the ring holds (several RECORDER
 * messages if it is long). A reconnecting client is a new client: it
 * resumes from that keyframe. Allocates all the client will use.
 * Hub's thread.
 * @return PCS_E_INVAL (NULL, n_channels 0 or above PCS_SYNC_SLOTS_MAX, a
 *         class, priority, quantum or deadband out of range, a budget field
 *         out of range, more than PCS_SYNC_RECORDERS_MAX recorder slots, a
 *         name or unit longer than PCS_SYNC_NAME_MAX, a LAYOUT that would
 *         exceed PCS_SYNC_MESSAGE_MAX; the message names the slot index and
 *         field); PCS_E_NOTFOUND (a channel id >= the pool's count, or a
 *         RECORDER slot whose channel the hub does not record; named);
 *         PCS_E_STATE (the hub was never updated); PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_sync_client_add(pcs_sync_hub *hub, const pcs_sync_client_def *def,
                                       pcs_sync_client **out);

/** Unsubscribe and free (NULL ignored). */
PCS_API void pcs_sync_client_destroy(pcs_sync_client *c);

/** Slots of the client (its n_channels); 0 for NULL. */
PCS_API uint32_t pcs_sync_client_slot_count(const pcs_sync_client *c);

/**
 * Largest message this client's pcs_sync_encode can write, bytes (<=
 * PCS_SYNC_MESSAGE_MAX): give it a buffer this large. 0 for NULL.
 */
PCS_API size_t pcs_sync_client_message_max(const pcs_sync_client *c);

/**
 * Ask for a KEYFRAME (the client lost state, or its decoder refused a
 * message). It is written by the next encode the reserve bucket can pay
 * for (before any DELTA of that encode), and it counts as a delivery of
 * every non-recorder slot. Hub's thread.
 * @return PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_sync_client_request_keyframe(pcs_sync_client *c);

/**
 * Write the client's next message for the hub's current frame into @p buf
 * (@p cap bytes) and set @p len to its length; 0 when nothing more is due at
 * this frame. Call it in a loop until len is 0: one call writes one message
 * (in this order: setup LAYOUT, KEYFRAME, history RECORDER chunks, a
 * requested KEYFRAME, the DELTA of due slots, the RECORDER batch due).
 * Refills the buckets by the ticks since the last call; evaluates due slots;
 * adjusts the degradation level. Allocates nothing; reads only the hub.
 * Hub's thread.
 * @return PCS_OK; PCS_E_INVAL (NULL, or cap below
 *         pcs_sync_client_message_max: the message names both).
 */
PCS_API pcs_status pcs_sync_encode(pcs_sync_client *c, uint8_t *buf, size_t cap, size_t *len);

/** A client's counters (for a status line, a benchmark, a test). */
typedef struct pcs_sync_client_stats {
    uint64_t messages;                       /**< messages written */
    uint64_t bytes;                          /**< bytes written, setup included */
    uint64_t setup_bytes;                    /**< LAYOUT, first KEYFRAME, history */
    uint64_t class_bytes[PCS_SYNC_CLASSES];  /**< value bytes by class (not setup) */
    uint64_t framing_bytes;                  /**< message headers (not setup) */
    uint64_t keyframe_bytes;                 /**< requested keyframes */
    uint64_t bucket_spent[PCS_SYNC_BUCKETS]; /**< bytes paid from each bucket */
    double bucket_tokens[PCS_SYNC_BUCKETS];  /**< bytes in each bucket now (< 0: debt) */
    uint64_t deferred;                       /**< items deferred for lack of tokens */
    uint64_t keyframes;                      /**< keyframes written, setup included */
    uint64_t recorder_points;                /**< recorder points sent */
    uint64_t recorder_lost;                  /**< points overwritten in the ring before sent */
    uint32_t level;                          /**< degradation level now */
    uint32_t max_level;                      /**< highest level reached */
    uint64_t level_ticks[PCS_SYNC_LEVELS];   /**< ticks spent at each level */
    uint64_t first_tick;                     /**< tick of the subscribe keyframe */
    uint64_t last_tick;                      /**< tick of the last encode */
} pcs_sync_client_stats;

/** Copy @p c's counters. @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_sync_client_stats_get(const pcs_sync_client *c, pcs_sync_client_stats *out);

/** One slot's counters. */
typedef struct pcs_sync_slot_stats {
    uint64_t deliveries;    /**< evaluations (sent or within deadband) incl. keyframes;
                                 for recorders: points sent */
    uint64_t sends;         /**< values written (keyframes included) */
    uint64_t deferred;      /**< times it was due and its bucket could not pay */
    uint64_t last_tick;     /**< tick of the last delivery (recorder: of its last point) */
    uint64_t max_gap_ticks; /**< largest gap between successive deliveries, ticks */
    double sent_value;      /**< the value the client holds (decoded), channel unit */
    uint32_t period_ticks;  /**< the slot's current period, ticks (0 for EVENT) */
} pcs_sync_slot_stats;

/** Copy slot @p slot's counters. @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (slot out of range). */
PCS_API pcs_status pcs_sync_slot_stats_get(const pcs_sync_client *c, uint32_t slot,
                                           pcs_sync_slot_stats *out);

/* -------------------------------------------------------------- decoder */

/** Limits a decoder accepts (a LAYOUT above them is refused); 0 = the maximum. */
typedef struct pcs_sync_decoder_limits {
    uint32_t max_slots;     /**< (0, PCS_SYNC_SLOTS_MAX] */
    uint32_t max_recorders; /**< (0, PCS_SYNC_RECORDERS_MAX] */
} pcs_sync_decoder_limits;

/** Create a decoder with @p lim (NULL: the maximums); allocates for them.
 *  @return PCS_E_INVAL (NULL out, a limit above its maximum), PCS_E_NOMEM. */
PCS_API pcs_status pcs_sync_decoder_create(const pcs_sync_decoder_limits *lim,
                                           pcs_sync_decoder **out);

/** Destroy a decoder (NULL ignored). */
PCS_API void pcs_sync_decoder_destroy(pcs_sync_decoder *d);

/** What one decoded message did. */
typedef struct pcs_sync_decoded {
    uint32_t type;         /**< a pcs_sync_msg_type */
    uint32_t n_values;     /**< slot values written (KEYFRAME: all; DELTA: the changed) */
    uint64_t tick;         /**< the message's tick */
    uint32_t n_points;     /**< RECORDER: points carried (pcs_sync_decoder_point) */
    uint64_t first_sample; /**< RECORDER: absolute number of the first point */
    uint64_t lost;         /**< RECORDER: points skipped since the previous one (ring overrun) */
} pcs_sync_decoded;

/**
 * Decode one message of @p len bytes and apply it. All or nothing: a refused
 * message changes no value. Refused (PCS_E_CORRUPT unless said otherwise;
 * the message names the type, byte offset and reason): a length of 0 or
 * above PCS_SYNC_MESSAGE_MAX (PCS_E_OVERFLOW), another version
 * (PCS_E_VERSION), an unknown type, a truncated field, a
 * varint longer than needed for 64 bits or above 2^53, a slot or count out
 * of range, a tick going back, a sequence gap (a message lost or reordered),
 * a quantised value reaching 2^50, trailing bytes, a LAYOUT above the
 * limits (PCS_E_OVERFLOW), a KEYFRAME before a LAYOUT, or a DELTA or RECORDER
 * before a KEYFRAME. After a refusal the decoder takes nothing but a
 * KEYFRAME (the host asks the encoder for one) or a LAYOUT. Never reads
 * outside [msg, msg + len). Allocates nothing.
 * @param info may be NULL.
 */
PCS_API pcs_status pcs_sync_decode(pcs_sync_decoder *d, const uint8_t *msg, size_t len,
                                   pcs_sync_decoded *info);

/** Slots of the current layout (0 before a LAYOUT or for NULL). */
PCS_API uint32_t pcs_sync_decoder_slot_count(const pcs_sync_decoder *d);

/** A slot as the LAYOUT described it; name and unit live until the next LAYOUT. */
typedef struct pcs_sync_slot_info {
    uint32_t channel;    /**< channel id at the sender */
    uint32_t rate_class; /**< a pcs_sync_class */
    uint32_t priority;   /**< 0..PCS_SYNC_PRIORITY_MAX */
    double quantum;      /**< 0: raw */
    const char *name;    /**< NUL-terminated */
    const char *unit;    /**< NUL-terminated */
} pcs_sync_slot_info;

/** Describe slot @p slot. @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (out of range). */
PCS_API pcs_status pcs_sync_decoder_slot(const pcs_sync_decoder *d, uint32_t slot,
                                         pcs_sync_slot_info *out);

/** Slot @p slot's value (NaN before its first value, out of range or NULL). */
PCS_API double pcs_sync_decoder_value(const pcs_sync_decoder *d, uint32_t slot);

/** Tick of the message that last wrote slot @p slot (0 if none). */
PCS_API uint64_t pcs_sync_decoder_value_tick(const pcs_sync_decoder *d, uint32_t slot);

/** Tick of the last accepted message (0 before any). */
PCS_API uint64_t pcs_sync_decoder_tick(const pcs_sync_decoder *d);

/**
 * Point @p i (< info.n_points) of recorder slot @p slot from the last
 * RECORDER message: its tick and value. Valid until the next decode.
 * @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (i out of range, or @p slot
 *         not a RECORDER slot).
 */
PCS_API pcs_status pcs_sync_decoder_point(const pcs_sync_decoder *d, uint32_t slot, uint32_t i,
                                          uint64_t *tick, double *value);

#ifdef __cplusplus
}
#endif

#endif
