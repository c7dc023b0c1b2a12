/**
 * @file record.c
 * @brief Records delta-sync streams of the real station for the JavaScript
 *        decoder's test (tests/sync_js_test.sh) and writes what the C
 *        decoder made of every message.
 *
 * Usage: sync-record STREAM C_OUT [SECONDS]
 *        sync-record --replay FILE...   (sessions in fuzz_sync_decode's format)
 *
 * Two clients of the control room (tests/sync_room.h) follow the default
 * scenario for SECONDS (default 120) with u2 pump 2 tripped 5 s in:
 * stream 0 the typical room at full budget, stream 1 the fine room (quanta
 * / 10) at half budget, so deferrals and degradation levels shape it. Every
 * 97th message of stream 1 is preceded by a damaged copy (truncated, a byte
 * flipped, or a byte appended, in turn), which both decoders must treat
 * alike; after a refusal the recorder asks the encoder for a keyframe, as a
 * host would. STREAM holds records [u8 stream][u32 length LE][message];
 * C_OUT one line per record (tests/sync_js/check.mjs writes the same from
 * web/sync.js): "S I refused" or "S I ok TYPE TICK NVALUES HASH [FIRST
 * NPOINTS LOST PHASH]", HASH an FNV-1a over every slot value's bits (NaN as
 * 0x7ff8000000000000) and value tick, PHASH over the points; then per stream
 * a final line of every value's bits in hex.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/sync_room.h"

typedef struct rec_stream {
    sync_room room;
    room_client rc;
    uint32_t id;
    uint64_t index;
    int refused_last;
} rec_stream;

static uint32_t fnv_word(uint32_t h, uint32_t w)
{
    return (h ^ w) * 16777619u;
}

static uint32_t fnv_double(uint32_t h, double v)
{
    uint64_t bits;
    if (isnan(v))
        bits = UINT64_C(0x7ff8000000000000);
    else
        memcpy(&bits, &v, sizeof bits);
    h = fnv_word(h, (uint32_t)bits);
    return fnv_word(h, (uint32_t)(bits >> 32));
}

static void put_record(FILE *f, uint32_t id, const uint8_t *b, size_t len)
{
    uint8_t head[5] = {(uint8_t)id, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                       (uint8_t)(len >> 24)};
    fwrite(head, 1, 5, f);
    fwrite(b, 1, len, f);
}

static void decode_one(rec_stream *s, FILE *out, const uint8_t *b, size_t len)
{
    pcs_sync_decoded info;
    uint64_t i = s->index++;
    if (pcs_sync_decode(s->rc.d, b, len, &info) != PCS_OK) {
        fprintf(out, "%u %" PRIu64 " refused\n", s->id, i);
        s->refused_last = 1;
        return;
    }
    uint32_t h = 2166136261u;
    for (uint32_t k = 0; k < pcs_sync_decoder_slot_count(s->rc.d); k++) {
        h = fnv_double(h, pcs_sync_decoder_value(s->rc.d, k));
        uint64_t t = pcs_sync_decoder_value_tick(s->rc.d, k);
        h = fnv_word(fnv_word(h, (uint32_t)t), (uint32_t)(t >> 32));
    }
    fprintf(out, "%u %" PRIu64 " ok %u %" PRIu64 " %u %08x", s->id, i, info.type, info.tick,
            info.n_values, h);
    if (info.type == PCS_SYNC_MSG_RECORDER) {
        uint32_t ph = 2166136261u;
        for (uint32_t k = 0; k < pcs_sync_decoder_slot_count(s->rc.d); k++)
            for (uint32_t p = 0; p < info.n_points; p++) {
                uint64_t t;
                double v;
                if (pcs_sync_decoder_point(s->rc.d, k, p, &t, &v) != PCS_OK)
                    break;
                ph = fnv_word(fnv_double(ph, v), (uint32_t)t);
            }
        fprintf(out, " %" PRIu64 " %u %" PRIu64 " %08x", info.first_sample, info.n_points,
                info.lost, ph);
    }
    fputc('\n', out);
}

/* "S final" and every slot value's bits. */
static void print_final(const rec_stream *s, FILE *out)
{
    fprintf(out, "%u final", s->id);
    for (uint32_t i = 0; i < pcs_sync_decoder_slot_count(s->rc.d); i++) {
        double v = pcs_sync_decoder_value(s->rc.d, i);
        uint64_t bits;
        if (isnan(v))
            bits = UINT64_C(0x7ff8000000000000);
        else
            memcpy(&bits, &v, sizeof bits);
        fprintf(out, " %016" PRIx64, bits);
    }
    fputc('\n', out);
}

/* A damaged copy of message @p b: kind 0 truncated, 1 a byte flipped, 2 a byte added. */
static size_t damage(uint8_t *dst, const uint8_t *b, size_t len, uint64_t n)
{
    memcpy(dst, b, len);
    switch (n % 3) {
    case 0:
        return len > 1 ? len - 1 : len;
    case 1:
        dst[len / 2] ^= 0x5a;
        return len;
    default:
        dst[len] = 0x00;
        return len + 1;
    }
}

static void pump(rec_stream *s, FILE *stream, FILE *out, int damaging)
{
    static uint8_t bad[PCS_SYNC_MESSAGE_MAX + 1];
    static uint64_t damaged;
    size_t len;
    room_client *rc = &s->rc;
    while (pcs_sync_encode(rc->c, rc->buf, rc->cap, &len) == PCS_OK && len > 0) {
        if (damaging && s->index % 97 == 96) {
            size_t n = damage(bad, rc->buf, len, damaged++);
            put_record(stream, s->id, bad, n);
            decode_one(s, out, bad, n);
        }
        put_record(stream, s->id, rc->buf, len);
        decode_one(s, out, rc->buf, len);
        if (s->refused_last) {
            pcs_sync_client_request_keyframe(rc->c);
            s->refused_last = 0;
        }
    }
}

static int open_stream(rec_stream *s, uint32_t id, double scale, pcs_sync_budget b, uint64_t ticks)
{
    s->id = id;
    if (sync_room_build(&s->room, 120.0, scale) ||
        room_client_open(&s->rc, &s->room, b, ticks + 1)) {
        fprintf(stderr, "sync-record: %s\n", s->room.err);
        return -1;
    }
    return 0;
}

static int step_room(sync_room *r, uint64_t t)
{
    if (t == 100) {
        pcs_command c;
        if (pcs_station_command(r->st, "u2.pump2", "pump_trip", 0.0, &c) != PCS_OK ||
            pcs_command_submit(r->world, &c) != PCS_OK)
            return -1;
    }
    return pcs_world_tick(r->world) == PCS_OK && pcs_sync_hub_update(r->hub) == PCS_OK ? 0 : -1;
}

/* Replay mode: each FILE is a session in fuzz_sync_decode's format
 * ([u16 length][message] records, the last taking the rest), decoded by a
 * fresh decoder of the default limits; lines as above with the file's
 * index as the stream. */
static int replay(int n, char **files, FILE *out)
{
    static uint8_t data[1u << 20];
    for (int k = 0; k < n; k++) {
        FILE *f = fopen(files[k], "rb");
        if (!f) {
            perror(files[k]);
            return 2;
        }
        size_t size = fread(data, 1, sizeof data, f);
        fclose(f);
        static rec_stream s;
        memset(&s, 0, sizeof s);
        s.id = (uint32_t)k;
        if (pcs_sync_decoder_create(NULL, &s.rc.d) != PCS_OK)
            return 2;
        for (size_t p = 0; p + 2 <= size;) {
            size_t want = (size_t)data[p] | (size_t)data[p + 1] << 8;
            p += 2;
            size_t len = want < size - p ? want : size - p;
            uint8_t *copy = malloc(len ? len : 1);
            memcpy(copy, data + p, len);
            decode_one(&s, out, copy, len);
            free(copy);
            p += len;
        }
        print_final(&s, out);
        pcs_sync_decoder_destroy(s.rc.d);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--replay") == 0)
        return replay(argc - 2, argv + 2, stdout);
    if (argc < 3) {
        fprintf(stderr, "usage: sync-record STREAM C_OUT [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 3 ? atof(argv[3]) : 120.0;
    FILE *stream = fopen(argv[1], "wb"), *out = fopen(argv[2], "w");
    if (!stream || !out) {
        perror("sync-record");
        return 2;
    }
    static rec_stream s[2];
    pcs_sync_budget half = {.instruments_bps = 700,
                            .acoustics_bps = 200,
                            .player_bps = 50,
                            .reserve_bps = 74,
                            .burst_s = 1.0};
    uint64_t ticks = (uint64_t)llround(seconds / 0.05);
    if (open_stream(&s[0], 0, 1.0, pcs_sync_budget_default(), ticks) ||
        open_stream(&s[1], 1, 0.1, half, ticks))
        return 1;
    pump(&s[0], stream, out, 0);
    pump(&s[1], stream, out, 1);
    for (uint64_t t = 1; t <= ticks; t++)
        for (int k = 0; k < 2; k++) {
            if (step_room(&s[k].room, t)) {
                fprintf(stderr, "sync-record: tick %" PRIu64 ": %s\n", t, pcs_last_error());
                return 1;
            }
            pump(&s[k], stream, out, k == 1);
        }
    for (int k = 0; k < 2; k++) {
        print_final(&s[k], out);
        room_client_close(&s[k].rc);
        sync_room_destroy(&s[k].room);
    }
    fclose(stream);
    fclose(out);
    return 0;
}
