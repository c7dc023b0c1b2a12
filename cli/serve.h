/**
 * @file serve.h
 * @brief `pcsim serve` (internal to cli/): the options, the world thread and
 *        the one request slot through which the network thread asks it for
 *        something.
 *
 * Two threads (docs/protocol.md, "Threads"):
 *  - the world thread (cli/serve_world.c) creates, ticks, resets, loads,
 *    saves and destroys the world and its station; nothing else touches them;
 *  - the network thread (cli/serve_net.c, the process's main thread) runs the
 *    libuv loop. It reads observations through snapshot readers on the
 *    world's pool and submits commands through one command source, both
 *    handed to it by the world thread with each build, as docs/ARCHITECTURE.md
 *    intends network threads to. What needs the world itself (a step, a
 *    reset, resolving a command name on the station) goes through the request
 *    slot below: one request at a time, because only the one controlling
 *    client may make them and it waits for each reply.
 */
#ifndef PCS_CLI_SERVE_H
#define PCS_CLI_SERVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "cli/hist.h"
#include "cli/serve_proto.h"
#include "pcsim/pcsim.h"
#include "pcsim/station.h"

/** Send-queue bound per client, bytes (--send-queue). */
#define SERVE_SEND_QUEUE_DEFAULT ((size_t)1 << 20)
/** How long a send queue may stay full before the client is dropped, ms. */
#define SERVE_SLOW_MS_DEFAULT 5000u
/** Default --max-clients. */
#define SERVE_MAX_CLIENTS_DEFAULT 64u
/** Capacity of the network thread's command source: acts queued for one tick. */
#define SERVE_SOURCE_CAPACITY 1024u
/** Command source of the server: class 3 (a run's script is 2), id 1. */
#define SERVE_SOURCE_CLASS 3u

typedef enum serve_mode {
    SERVE_MODE_STEP = 0, /**< lock-step: the world ticks only when the controller steps */
    SERVE_MODE_FREE = 1, /**< runs by itself, paced by --speed (pcs_world_advance) */
    SERVE_MODE_FAST = 2, /**< runs by itself as fast as it can, unpaced */
} serve_mode;

/** "step", "free" or "fast", as --mode spells it and the hellos report it. */
const char *serve_mode_name(serve_mode m);

/** Options of `pcsim serve`. */
typedef struct serve_opts {
    const char *scenario; /**< file, or NULL for the built-in station */
    const char *bind;     /**< address to listen on */
    int port;             /**< 0: any free port (printed, and written to port_file); -1: none */
    const char *port_file;
    int http_port;                   /**< --http: page and WebSocket port; -1: none, 0: any */
    const char *http_port_file;      /**< --http-port-file */
    char token[SERVE_TOKEN_MAX + 1]; /**< from --token FILE */
    int has_token;
    int read_only;
    uint32_t max_clients;
    serve_mode mode;
    double speed;         /**< free mode: simulated s per wall s, [PCS_SPEED_MIN, PCS_SPEED_MAX] */
    const char *save_dir; /**< where save and load put NAME.save; NULL: refused */
    size_t send_queue;    /**< bytes */
    uint32_t slow_ms;     /**< ms a full queue is tolerated */
    size_t max_scenario_bytes;
    int quiet;
    double rate;    /**< --rate: acts per simulated second, 0 none; < 0: the scenario's */
    uint32_t burst; /**< --burst; 0: the scenario's */
} serve_opts;

/** What the world thread hands the network thread with each build. */
typedef struct serve_world_info {
    pcs_snapshot_pool *pool;    /**< the world's snapshot pool (readers open on it) */
    pcs_command_source *source; /**< the network thread's command source */
    double rate_per_s;          /**< its rate limit (0: none) and burst */
    uint32_t burst;
    double dt_s;
    uint64_t seed;
    uint32_t n_channels;
    uint64_t layout;            /**< pcs_snapshot_layout_version */
    uint64_t generation;        /**< 1 for the first build, +1 per reset */
    const pcs_station *station; /**< for pcs_event_describe (any thread while it lives) */
    uint32_t units;             /**< plant units of the station */
} serve_world_info;

typedef enum serve_req_kind {
    SERVE_REQ_ACT = 1, /**< resolve target + command + value on the station */
    SERVE_REQ_STEP,    /**< tick n times */
    SERVE_REQ_RESET,   /**< build a new world (optionally another seed) */
    SERVE_REQ_LOAD,    /**< pcs_world_load(path) */
    SERVE_REQ_SAVE,    /**< pcs_world_save(path) */
} serve_req_kind;

/** One request and, once done, its reply. */
typedef struct serve_req {
    serve_req_kind kind;
    uint32_t n;
    int want_hash;
    int has_seed;
    uint64_t seed;
    char target[SERVE_NAME_MAX + 1];
    char command[SERVE_COMMAND_MAX + 1];
    double value;
    char path[4096];
    /* reply */
    pcs_status status;
    char error[PCS_LAST_ERROR_MAX];
    pcs_command cmd;       /**< act: the resolved command */
    uint64_t tick;         /**< the world's next tick after the request */
    uint64_t hash;         /**< state hash, when asked */
    serve_world_info info; /**< reset: the new world's (or the old one's if it failed) */
} serve_req;

/* cli/serve_pace.c: free mode's pacing through the library's
 * pcs_world_advance (world.h), plus the server's lag rule. */

/** Behind by more than this much wall time, the backlog is dropped. */
#define SERVE_PACE_MAX_LAG_S 1.0

typedef struct serve_pace {
    uint64_t last_ns; /**< wall time of the previous advance */
    uint64_t dropped; /**< ticks dropped by the lag rule so far */
    uint64_t drops;   /**< times the lag rule dropped a backlog */
} serve_pace;

/** Start pacing afresh at @p now_ns: nothing owed (pcs_world_pacing_reset). */
void serve_pace_start(serve_pace *p, pcs_world *w, uint64_t now_ns);

/**
 * Account the wall time since the previous call and run at most one due
 * tick (pcs_world_advance with max_ticks 1, so the caller can answer
 * requests and announce each tick between ticks). A backlog worth more than
 * SERVE_PACE_MAX_LAG_S of wall time at the world's speed is dropped with
 * pcs_world_pacing_reset. @p due receives the wall time the next tick is
 * due (0: at once). @return the tick's status (pcs_world_advance).
 */
pcs_status serve_pace_advance(serve_pace *p, pcs_world *w, uint64_t now_ns,
                              pcs_world_advance_result *r, uint64_t *due);

/** The world thread and what it shares with the network thread. */
typedef struct serve_world {
    pthread_mutex_t mu;
    pthread_cond_t cv; /**< a request, or stop (CLOCK_MONOTONIC for pacing) */
    int pending;       /**< req holds a request for the world thread */
    int done;          /**< req holds a reply for the network thread */
    int stop;
    serve_req req;
    _Atomic uint64_t tick;        /**< the world's next tick */
    _Atomic uint32_t subscribers; /**< clients with a subscription: tick notices wanted */
    uv_async_t *reply_async;      /**< sent when a reply is ready */
    uv_async_t *tick_async;       /**< sent after a tick while anyone subscribes */
    /* the world thread's own */
    const serve_opts *opt;
    const pcs_scenario *scn;
    pcs_world *world;
    pcs_station *station;
    pcs_thread *thread;
    serve_world_info info;
    hist tick_ns;    /**< wall time of each tick and its notice, ns (the stop summary) */
    serve_pace pace; /**< free mode's pacing (serve_pace.c) */
    /* start-up handshake */
    int ready; /**< 1 built, -1 failed */
    char start_error[PCS_LAST_ERROR_MAX];
} serve_world;

/**
 * Start the world thread on @p scn and wait for its first build. @return 0,
 * or -1 with the reason in sw->start_error (the thread has then exited).
 * On success sw->info is the first build's.
 */
int serve_world_start(serve_world *sw, const serve_opts *opt, const pcs_scenario *scn,
                      uv_async_t *reply_async, uv_async_t *tick_async);

/** Hand @p req to the world thread (none may be pending). Network thread. */
void serve_world_submit(serve_world *sw, const serve_req *req);

/** Take the reply, if there is one. @return 1 when @p out was filled. Network thread. */
int serve_world_take(serve_world *sw, serve_req *out);

/** Stop the world thread, destroy the world and join. Close every reader first. */
void serve_world_stop(serve_world *sw);

/** Monotonic wall time, ns. */
uint64_t serve_now_ns(void);

/* cli/serve_net.c: listen, serve until SIGINT/SIGTERM. @return exit code. */
int serve_net_run(const serve_opts *opt, const pcs_scenario *scn);

int cmd_serve(int argc, char **argv);

#endif
