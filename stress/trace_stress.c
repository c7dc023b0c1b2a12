/**
 * @file trace_stress.c
 * @brief Stress test of the trace session (profile/trace.c): span recorders on two threads
 *        race a controller that begins and ends sessions.
 *
 * The claim: pcs_profile_trace_end never reads or frees the span buffer while a
 * recorder is writing into it (the seq_cst writers/state handshake), every
 * begin/end pair succeeds, and every file written is valid trace JSON whose
 * spans plus dropped spans never exceed what the buffer could see. Under
 * ThreadSanitizer (make stress-tsan) a missing happens-before edge between a
 * recorder's slot write and end's read would be reported as a race.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/profile.h"
#include "stress/stress.h"

#define TS_SPANS 64u
#define TS_CHECK_EVERY 25u /* parse every 25th session's file; the rest overwrite a scratch file */

enum {
    TS_RECORDED = 0, /* span taken while a session recorded */
    TS_IDLE = 1,     /* span begun with no session: nothing recorded */
    TS_SESSION = 2,  /* begin + end succeeded */
    TS_FILE_OK = 3,  /* parsed file is valid with sane counts */
    TS_BEGIN_ERR = 10,
    TS_END_ERR = 11,
    TS_FILE_BAD = 12,
};

/* Trace files are written through the atomic writer, which refuses to
 * replace a device: unchecked sessions go to a scratch file, not /dev/null. */
typedef struct ts_shared {
    char path[64];
    char scratch[64];
} ts_shared;

static int make_temp(char *path, size_t len)
{
    snprintf(path, len, "/tmp/pcsim_stress_trace_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static void *ts_setup(void)
{
    ts_shared *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (make_temp(s->path, sizeof s->path) != 0) {
        free(s);
        return NULL;
    }
    if (make_temp(s->scratch, sizeof s->scratch) != 0) {
        remove(s->path);
        free(s);
        return NULL;
    }
    return s;
}

static void ts_teardown(void *p)
{
    ts_shared *s = p;
    if (pcs_profile_tracing())
        pcs_profile_trace_end();
    remove(s->path);
    remove(s->scratch);
    free(s);
}

static void ts_recorder(void *p, pcs_stress_ctl *ctl)
{
    (void)p;
    uint64_t i = 0;
    while (pcs_stress_running(ctl)) {
        pcs_profile_span s = pcs_profile_span_begin("stress.span", "stress", i++);
        pcs_stress_record(ctl, s.name ? TS_RECORDED : TS_IDLE);
        pcs_profile_span_end(&s);
    }
}

/* Valid JSON; X events + dropped = spans claimed, and X events <= buffer size. */
static int file_ok(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root)
        return 0;
    json_t *events = json_object_get(root, "traceEvents");
    json_t *dropped = json_object_get(json_object_get(root, "otherData"), "dropped_spans");
    size_t n_x = 0, i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        n_x += ph && strcmp(ph, "X") == 0;
    }
    int ok = json_is_array(events) && json_is_integer(dropped) && n_x <= TS_SPANS &&
             (json_integer_value(dropped) == 0 || n_x == TS_SPANS);
    json_decref(root);
    return ok;
}

static void ts_controller(void *p, pcs_stress_ctl *ctl)
{
    ts_shared *s = p;
    for (uint64_t k = 0; pcs_stress_running(ctl); k++) {
        int check = k % TS_CHECK_EVERY == 0;
        if (pcs_profile_trace_begin_n(check ? s->path : s->scratch, TS_SPANS) != PCS_OK) {
            pcs_stress_record(ctl, TS_BEGIN_ERR);
            continue;
        }
        for (int spin = 0; spin < 4000; spin++) /* let recorders in */
            pcs_stress_pause();
        if (pcs_profile_trace_end() != PCS_OK) {
            pcs_stress_record(ctl, TS_END_ERR);
            continue;
        }
        pcs_stress_record(ctl, TS_SESSION);
        if (check)
            pcs_stress_record(ctl, file_ok(s->path) ? TS_FILE_OK : TS_FILE_BAD);
    }
}

static const pcs_stress_outcome ts_outcomes[] = {
    {TS_RECORDED, PCS_STRESS_ACCEPTABLE, "span during a session", "recorded or dropped"},
    {TS_IDLE, PCS_STRESS_ACCEPTABLE, "span between sessions", "nothing recorded"},
    {TS_SESSION, PCS_STRESS_ACCEPTABLE, "begin + end ok", "a session opened and written"},
    {TS_FILE_OK, PCS_STRESS_ACCEPTABLE, "file valid", "valid JSON, spans within the buffer"},
    {TS_BEGIN_ERR, PCS_STRESS_FORBIDDEN, "begin failed", "no other session was running"},
    {TS_END_ERR, PCS_STRESS_FORBIDDEN, "end failed", "the session it opened was gone"},
    {TS_FILE_BAD, PCS_STRESS_FORBIDDEN, "file invalid", "not JSON, or more spans than slots"},
};

static const pcs_stress_test ts_test = {
    .name = "profile.trace_sessions",
    .description = "2 threads record spans while a third begins and ends trace sessions: "
                   "end never races a recorder, every file is valid.",
    .style = PCS_STRESS_SOAK,
    .weight = 1.0,
    .n_actors = 3,
    .actors = {ts_controller, ts_recorder, ts_recorder},
    .outcomes = ts_outcomes,
    .n_outcomes = sizeof ts_outcomes / sizeof ts_outcomes[0],
    .setup = ts_setup,
    .teardown = ts_teardown,
};
PCS_STRESS_REGISTER(ts_test)
