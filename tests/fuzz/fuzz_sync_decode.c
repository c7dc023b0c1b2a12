/**
 * @file fuzz_sync_decode.c
 * @brief libFuzzer target: the delta-sync decoder (sync/decode.c), which
 *        reads every byte a sync server sends a viewer (docs/sync.md).
 *
 * An input is a session: records [u16 length, little-endian][message], the
 * last one taking whatever bytes remain, fed in order to one decoder (limits
 * 128 slots, 8 recorders) made for the input. Seeds are real sessions of the
 * station's control room (tests/fuzz/make_sync_seeds.sh), so the fuzzer
 * starts from valid LAYOUT, KEYFRAME, DELTA and RECORDER messages.
 *
 * Checked per message, beyond "no crash, no leak, no undefined behaviour, no
 * read outside the message" (each message is copied into a buffer of its
 * exact size, so ASan sees any overread):
 *  - a refusal has a documented status (CORRUPT, OVERFLOW, VERSION) and a
 *    message naming the decoder; the decoder then refuses DELTA and RECORDER
 *    until a KEYFRAME or LAYOUT is accepted;
 *  - an accepted message has a known type; after a LAYOUT every slot has a
 *    class, priority and finite quantum in range and a name and unit of at
 *    most 255 bytes, and the slot count is within the limits; a KEYFRAME
 *    wrote every slot; ticks never go back within a session; a RECORDER's
 *    points are 1..128, readable for every RECORDER slot, in strictly
 *    increasing ticks no later than the message's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/sync.h"
#include "tests/fuzz/fuzz_common.h"

#define MAX_SLOTS 128u
#define MAX_REC 8u

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check_layout(const pcs_sync_decoder *d)
{
    uint32_t n = pcs_sync_decoder_slot_count(d), rec = 0;
    if (n == 0 || n > MAX_SLOTS)
        fuzz_fail("accepted a LAYOUT of %u slots", n);
    for (uint32_t i = 0; i < n; i++) {
        pcs_sync_slot_info s;
        if (pcs_sync_decoder_slot(d, i, &s) != PCS_OK)
            fuzz_fail("slot %u of %u not readable", i, n);
        if (s.rate_class >= PCS_SYNC_CLASS_COUNT || s.priority > PCS_SYNC_PRIORITY_MAX ||
            !isfinite(s.quantum) || s.quantum < 0.0 || strlen(s.name) > PCS_SYNC_NAME_MAX ||
            strlen(s.unit) > PCS_SYNC_NAME_MAX)
            fuzz_fail("slot %u: class %u priority %u quantum %g", i, s.rate_class, s.priority,
                      s.quantum);
        if (!isnan(pcs_sync_decoder_value(d, i)))
            fuzz_fail("slot %u has a value right after its LAYOUT", i);
        rec += s.rate_class == PCS_SYNC_RECORDER;
    }
    if (rec > MAX_REC)
        fuzz_fail("accepted %u RECORDER slots", rec);
}

static void check_points(const pcs_sync_decoder *d, const pcs_sync_decoded *info)
{
    if (info->n_points == 0 || info->n_points > PCS_SYNC_RECORDER_CHUNK)
        fuzz_fail("accepted a RECORDER of %u points", info->n_points);
    for (uint32_t i = 0; i < pcs_sync_decoder_slot_count(d); i++) {
        pcs_sync_slot_info s;
        pcs_sync_decoder_slot(d, i, &s);
        if (s.rate_class != PCS_SYNC_RECORDER)
            continue;
        uint64_t prev = 0;
        for (uint32_t k = 0; k < info->n_points; k++) {
            uint64_t t;
            double v;
            if (pcs_sync_decoder_point(d, i, k, &t, &v) != PCS_OK)
                fuzz_fail("point %u of slot %u not readable", k, i);
            if ((k > 0 && t <= prev) || t > info->tick)
                fuzz_fail("point %u tick %llu after %llu (message tick %llu)", k,
                          (unsigned long long)t, (unsigned long long)prev,
                          (unsigned long long)info->tick);
            prev = t;
        }
    }
}

/* Feed one message; keep the session's expectations in *synced and *tick. */
static void feed(pcs_sync_decoder *d, const uint8_t *msg, size_t len, int *synced, uint64_t *tick)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        abort();
    memcpy(copy, msg, len);
    pcs_sync_decoded info;
    pcs_status st = pcs_sync_decode(d, copy, len, &info);
    free(copy);
    if (st != PCS_OK) {
        if (st != PCS_E_CORRUPT && st != PCS_E_OVERFLOW && st != PCS_E_VERSION)
            fuzz_fail("refused with status %d", (int)st);
        if (strncmp(pcs_last_error(), "pcs_sync_decode: ", 17) != 0)
            fuzz_fail("refusal message '%s'", pcs_last_error());
        *synced = 0;
        return;
    }
    if (info.type < PCS_SYNC_MSG_LAYOUT || info.type > PCS_SYNC_MSG_RECORDER)
        fuzz_fail("accepted type %u", info.type);
    if (info.type == PCS_SYNC_MSG_LAYOUT) {
        check_layout(d);
        *synced = 0;
    } else {
        if (info.type != PCS_SYNC_MSG_KEYFRAME && !*synced)
            fuzz_fail("accepted type %u while unsynchronised", info.type);
        if (info.tick < *tick)
            fuzz_fail("tick went back from %llu to %llu", (unsigned long long)*tick,
                      (unsigned long long)info.tick);
        if (info.type == PCS_SYNC_MSG_KEYFRAME) {
            if (info.n_values != pcs_sync_decoder_slot_count(d))
                fuzz_fail("a KEYFRAME wrote %u of %u slots", info.n_values,
                          pcs_sync_decoder_slot_count(d));
            *synced = 1;
        }
        if (info.type == PCS_SYNC_MSG_DELTA && info.n_values > pcs_sync_decoder_slot_count(d))
            fuzz_fail("a DELTA wrote %u values", info.n_values);
        if (info.type == PCS_SYNC_MSG_RECORDER)
            check_points(d, &info);
    }
    *tick = info.tick;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcs_sync_decoder_limits lim = {.max_slots = MAX_SLOTS, .max_recorders = MAX_REC};
    pcs_sync_decoder *d;
    if (pcs_sync_decoder_create(&lim, &d) != PCS_OK)
        fuzz_fail("decoder: %s", pcs_last_error());
    int synced = 0;
    uint64_t tick = 0;
    size_t p = 0;
    while (p < size) {
        size_t len = size - p;
        if (len >= 2) {
            size_t want = (size_t)data[p] | (size_t)data[p + 1] << 8;
            p += 2;
            len = want < size - p ? want : size - p;
        } else {
            p += len;
            len = 0;
            break;
        }
        feed(d, data + p, len, &synced, &tick);
        p += len;
    }
    pcs_sync_decoder_destroy(d);
    return 0;
}
