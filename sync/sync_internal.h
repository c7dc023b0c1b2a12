/**
 * @file sync_internal.h
 * @brief The hub's and the client's state, shared by sync/hub.c,
 *        sync/client.c and sync/encode.c (the decoder keeps its own).
 *
 * Budgets are kept in millibytes (int64) so that refills by whole ticks are
 * exact integer sums: a client's buckets, and so its messages, depend only
 * on the ticks it was called at, never on floating-point accumulation order.
 */
#ifndef PCS_SYNC_INTERNAL_H
#define PCS_SYNC_INTERNAL_H

#include <stdint.h>

#include "pcsim/snapshot.h"
#include "pcsim/sync.h"

struct pcs_sync_hub {
    const pcs_snapshot_pool *pool;
    pcs_reader *reader;   /* the hub's own reader (the hub's thread) */
    double dt_s;          /* tick length, s */
    uint64_t layout;      /* pcs_snapshot_layout_version */
    uint32_t n_channels;  /* channels in the frame */
    double *frame;        /* newest values, by channel id */
    uint64_t tick;        /* tick of frame */
    int have_frame;       /* an update succeeded */
    uint32_t n_rec;       /* recorder channels */
    uint32_t *rec_ids;    /* their channel ids */
    uint32_t ring_cap;    /* points the ring holds */
    double *ring_values;  /* ring_cap x n_rec, point s at row s % ring_cap */
    uint64_t *ring_ticks; /* tick of each row's point */
    uint64_t samples;     /* points sampled so far (all time) */
    uint64_t rec_period;  /* sampling period, ticks */
    uint64_t last_period; /* tick / rec_period of the last point */
};

/** The oldest sample the ring still holds. */
static inline uint64_t sync_hub_oldest(const pcs_sync_hub *h)
{
    return h->samples > h->ring_cap ? h->samples - h->ring_cap : 0;
}

/** One subscribed channel, with what was last sent and its counters. */
typedef struct sync_slot {
    uint32_t channel;
    uint8_t cls;       /* pcs_sync_class */
    uint8_t prio;      /* 0 near .. 2 far */
    uint8_t raw;       /* the value last sent was an escape (or none yet): q counts from 0 */
    uint8_t delivered; /* delivered at least once (for the gap counter) */
    uint32_t rec;      /* RECORDER: index among the hub's recorder channels */
    double quantum;    /* 0: exact */
    double deadband;   /* send when |v - sent| >= deadband */
    int64_t q;         /* quantised value last sent (0 after an escape) */
    double sent;       /* the value the client holds */
    uint64_t next_due; /* tick at which it is next evaluated */
    uint64_t deliveries, sends, deferred, last_tick, max_gap;
} sync_slot;

/** Serving ranks (client.c serve_rank): events, 3 priorities x (gauge,
 *  display), then acoustics and player. */
#define SYNC_RANKS 8u

/** Where a client is in its session. */
enum sync_phase { SYNC_PH_LAYOUT, SYNC_PH_KEYFRAME, SYNC_PH_HISTORY, SYNC_PH_RUN };

struct pcs_sync_client {
    pcs_sync_hub *hub;
    uint32_t n_slots;
    sync_slot *slots;
    uint32_t n_rec;      /* RECORDER slots */
    uint32_t *rec_slots; /* their slot indices, in slot order */
    uint32_t *order;     /* non-recorder slots in the order the budget serves them */
    uint32_t n_order;
    uint32_t rank_end[SYNC_RANKS]; /* order[rank_end[r-1] .. rank_end[r]) is rank r */
    uint8_t *picked;               /* scratch: slot chosen for this DELTA, and its payer + 1 */
    int64_t *cost;                 /* scratch: millibytes charged per picked slot */
    size_t layout_len;             /* exact LAYOUT size */
    size_t message_max;            /* largest message */
    enum sync_phase phase;
    uint8_t seq;              /* next message's sequence number */
    uint64_t last_msg_tick;   /* tick of the previous message */
    uint64_t last_write_tick; /* for the heartbeat */
    uint64_t delta_tick;      /* tick whose DELTA pass ran (+1: none yet) */
    int delta_done;
    int keyframe_wanted;
    uint64_t next_sample; /* next recorder point to send */
    uint64_t next_batch;  /* tick at which the next recorder batch is due */
    /* periods, ticks */
    uint64_t p_gauge[3]; /* 10, 5, 2 Hz */
    uint64_t p_display, p_acoustic, p_player, p_batch, heartbeat, escalate, recover;
    /* budget, millibytes */
    int64_t tokens[PCS_SYNC_BUCKETS], cap[PCS_SYNC_BUCKETS], per_tick[PCS_SYNC_BUCKETS];
    uint64_t refill_tick;
    /* degradation */
    uint32_t level;
    uint64_t last_escalate; /* tick of the last rise (+ escalate <= now to rise again) */
    int have_escalated;
    uint64_t calm_since; /* tick since which instruments stayed >= half full */
    int calm;
    uint64_t level_tick; /* tick up to which level_ticks are counted */
    pcs_sync_client_stats st;
};

/** Gauge period of priority @p prio at level @p level, as an index 0..2 into p_gauge. */
static inline unsigned sync_gauge_step(uint32_t level, uint32_t prio)
{
    /* Rows: level; columns: priority 0, 1, 2 (sync.h's table). */
    static const uint8_t step[PCS_SYNC_LEVELS][3] = {
        {0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {0, 1, 2}, {0, 2, 2}, {1, 2, 2}, {2, 2, 2},
    };
    return step[level][prio];
}

/** Period in ticks of @p hz at @p dt_s: max(1, round(1 / (hz * dt_s))). */
uint64_t sync_period_ticks(double hz, double dt_s);

#endif
