/**
 * @file persist.c
 * @brief Versioned, checksummed world save files, written atomically (see persist.h).
 *
 * Loading stages everything in a private buffer and validates it in full
 * before the first byte of the world changes: there is no partially loaded
 * world. The one exception is a save whose structure log extends the
 * world's (persist.h, "Loads that change the structure"): only a world
 * that never ticked and took no load takes it; the header, the table, every section's
 * checksum and every log entry are checked first, then the entries are
 * re-applied, and a refusal after that marks the world unusable
 * (after_replay) rather than leave it to run half changed. Those checks
 * read the file in pieces, the table included (its size, or the section
 * count its header claims, costs time, not memory).
 *
 * A save of this world has one exact size (header, table and every section
 * are fixed by its stores, jobs and entity table), so the loader reads at
 * most that many bytes and one more, whatever the file claims or the file
 * system says: a huge or growing file costs no more memory than a valid
 * one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "engine/entity_internal.h"
#include "engine/load_check.h"
#include "engine/persist_internal.h"
#include "engine/safe_file.h"
#include "engine/world_internal.h"
#include "pcsim/persist.h"
#include "pcsim/structure.h"

static const char magic[8] = {'P', 'C', 'S', 'I', 'M', 'S', 'V', '1'};

typedef struct file_header {
    char magic[8];
    uint32_t version;
    uint32_t n_sections;
    uint64_t tick;
    uint64_t seed;
    uint64_t build_hash;
    uint32_t layout;
    uint32_t reserved;
} file_header;

typedef struct section_rec {
    char name[64];
    uint64_t offset;
    uint64_t bytes;
    uint64_t elem_size;
    uint64_t count;
    uint64_t checksum;
} section_rec;

_Static_assert(sizeof(file_header) == 48 && sizeof(section_rec) == 104,
               "save format v2 layout (persist.h)");

/* Job sections carry this header before the input copy. */
typedef struct job_state {
    uint32_t pending;
    uint32_t reserved;
    uint64_t submit_tick;
} job_state;

/* The events section carries this header before its event_capacity slots:
 * the last completed tick's events first, zeros after them. */
typedef struct events_head {
    uint32_t count;    /* events in the list, <= event_capacity */
    uint32_t reserved; /* 0 */
    uint64_t tick;     /* the tick they happened on: the save tick - 1 (0 when none) */
} events_head;

/* The structure log's section (only when the log is not empty, after the
 * events): this head, then the applied commands in order. */
typedef struct log_head {
    uint32_t count;    /* entries, 1..structure_log_capacity */
    uint32_t reserved; /* 0 */
} log_head;

/* Storage for a section's head while it is written or checked. */
typedef union section_head {
    job_state job;
    events_head events;
    log_head log;
    pcs_entity_save_head entities;
} section_head;

#define EVENTS_SECTION "events:previous"
#define LOG_SECTION "structure:log"

/* The world's sections in a fixed order: state stores by id, then jobs by
 * id, then the entity table when the world has one (layout 3), then the
 * last completed tick's events (layout 2), then the structure log when it
 * is not empty. */
typedef struct section_src {
    char name[64];
    const void *head; /* job_state, pcs_entity_save_head, events_head; NULL for stores */
    size_t head_bytes;
    const void *data;
    size_t data_bytes; /* elem_size * count, less zero_bytes */
    size_t zero_bytes; /* zeros written after data (the events' unused slots) */
    size_t elem_size;
    size_t count;
} section_src;

static uint32_t count_state_stores(const pcs_world *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->n_stores; i++)
        n += w->stores[i].kind == PCS_STORE_STATE;
    return n;
}

/* The structure log's section is there only when the log holds changes, so
 * saves of worlds without structural change have no such section. */
static uint32_t has_log(const pcs_world *w)
{
    return pcs_structure_log_count(w) ? 1u : 0u;
}

static uint32_t count_sections(const pcs_world *w)
{
    return count_state_stores(w) + w->n_jobs + (w->entities ? 1u : 0u) + 1u + has_log(w);
}

/* Index of the events section: last, or before the structure log. */
static uint32_t events_index(const pcs_world *w)
{
    return count_sections(w) - 1u - has_log(w);
}

/* The entity table's section: just before the events; only with a table. */
static uint32_t entity_section_index(const pcs_world *w)
{
    return events_index(w) - 1u;
}

static void log_section(const pcs_world *w, section_src *s, log_head *lh)
{
    *lh = (log_head){.count = pcs_structure_log_count(w)};
    snprintf(s->name, sizeof s->name, "%s", LOG_SECTION);
    s->head = lh;
    s->head_bytes = sizeof *lh;
    s->data = pcs_structure_log_data(w);
    s->elem_size = sizeof(pcs_command);
    s->count = lh->count;
    s->data_bytes = (size_t)lh->count * sizeof(pcs_command);
}

/* The entity table: its head and every slot record (entity_internal.h). */
static void entity_section(const pcs_world *w, section_src *s, pcs_entity_save_head *head)
{
    snprintf(s->name, sizeof s->name, "%s", PCS_ENTITY_SECTION);
    s->data = pcs_entity_save_view(w->entities, head);
    s->head = head;
    s->head_bytes = sizeof *head;
    s->elem_size = PCS_ENTITY_SAVE_REC;
    s->count = head->capacity;
    s->data_bytes = (size_t)head->capacity * PCS_ENTITY_SAVE_REC;
}

/* The events section: every slot of the buffer, so its size is fixed by the
 * world (the loader's bound), with the unused slots written as zeros. */
static void events_section(const pcs_world *w, section_src *s, events_head *eh)
{
    uint32_t n;
    const pcs_event *ev = pcs_events_last_completed(w, &n);
    *eh = (events_head){.count = n, .tick = n ? ev[0].tick : 0};
    snprintf(s->name, sizeof s->name, "%s", EVENTS_SECTION);
    s->head = eh;
    s->head_bytes = sizeof *eh;
    s->data = ev;
    s->elem_size = sizeof(pcs_event);
    s->count = w->cfg.event_capacity;
    s->data_bytes = (size_t)n * sizeof(pcs_event);
    s->zero_bytes = (size_t)(w->cfg.event_capacity - n) * sizeof(pcs_event);
}

static void section_of(const pcs_world *w, uint32_t k, section_src *s, section_head *hd)
{
    memset(s, 0, sizeof *s);
    if (has_log(w) && k == count_sections(w) - 1u) {
        log_section(w, s, &hd->log);
        return;
    }
    if (k == events_index(w)) {
        events_section(w, s, &hd->events);
        return;
    }
    if (w->entities && k == entity_section_index(w)) {
        entity_section(w, s, &hd->entities);
        return;
    }
    for (uint32_t i = 0; i < w->n_stores; i++) {
        const pcs_store_rec *st = &w->stores[i];
        if (st->kind != PCS_STORE_STATE)
            continue;
        if (k-- == 0) {
            snprintf(s->name, sizeof s->name, "store:%s", st->name);
            s->data = st->data;
            s->elem_size = st->elem_size;
            s->count = st->count;
            s->data_bytes = st->elem_size * st->count;
            return;
        }
    }
    const pcs_job_rec *j = &w->jobs[k];
    job_state *js = &hd->job;
    snprintf(s->name, sizeof s->name, "job:%s", j->desc.name);
    js->pending = (uint32_t)j->pending;
    js->reserved = 0;
    js->submit_tick = j->submit_tick;
    s->head = js;
    s->head_bytes = sizeof *js;
    s->data = j->input;
    s->elem_size = j->desc.input_bytes;
    s->count = 1;
    s->data_bytes = j->desc.input_bytes;
}

static size_t meta_bytes(uint32_t n)
{
    return sizeof(file_header) + (size_t)n * sizeof(section_rec) + sizeof(uint64_t);
}

/* Bytes section k of @p w takes in a save: its head and its data. */
static uint64_t section_bytes(const pcs_world *w, uint32_t k)
{
    section_src s;
    section_head hd;
    section_of(w, k, &s, &hd);
    return s.head_bytes + s.data_bytes + s.zero_bytes;
}

/* The exact size of a save of @p w: nothing larger is ever read. */
static uint64_t save_bytes(const pcs_world *w)
{
    uint32_t n = count_sections(w);
    uint64_t total = meta_bytes(n);
    for (uint32_t k = 0; k < n; k++)
        total += section_bytes(w, k);
    return total;
}

static const unsigned char zeros[4096];

static uint64_t section_checksum(const section_src *s)
{
    XXH3_state_t h;
    XXH3_64bits_reset(&h);
    if (s->head_bytes)
        XXH3_64bits_update(&h, s->head, s->head_bytes);
    if (s->data_bytes)
        XXH3_64bits_update(&h, s->data, s->data_bytes);
    for (size_t left = s->zero_bytes; left > 0;) {
        size_t n = left < sizeof zeros ? left : sizeof zeros;
        XXH3_64bits_update(&h, zeros, n);
        left -= n;
    }
    return XXH3_64bits_digest(&h);
}

/* These two return their constant rather than pcs_error_set's result, which
 * is the same value but opaque to clang-analyzer across files: it then
 * followed "error returned PCS_OK" paths into NULL buffers. */
static pcs_status io_error(const char *what, const char *path)
{
    pcs_error_set(PCS_E_IO, "%s '%s': %s", what, path, strerror(errno));
    return PCS_E_IO;
}

static pcs_status write_all(FILE *f, const void *p, size_t n, const char *path)
{
    if (n && fwrite(p, 1, n, f) != n)
        return io_error("cannot write", path);
    return PCS_OK;
}

static pcs_status write_file(const pcs_world *w, FILE *f, const char *path)
{
    uint32_t n = count_sections(w);
    file_header h = {.version = PCS_SAVE_VERSION,
                     .n_sections = n,
                     .tick = w->clock.tick,
                     .seed = w->cfg.seed,
                     .build_hash = w->cfg.build_hash,
                     .layout = PCS_SAVE_LAYOUT};
    memcpy(h.magic, magic, sizeof magic);
    XXH3_state_t meta;
    XXH3_64bits_reset(&meta);
    XXH3_64bits_update(&meta, &h, sizeof h);
    pcs_status st = write_all(f, &h, sizeof h, path);
    uint64_t offset = meta_bytes(n);
    for (uint32_t k = 0; k < n && st == PCS_OK; k++) {
        section_src s;
        section_head hd;
        section_of(w, k, &s, &hd);
        section_rec r = {.offset = offset,
                         .bytes = s.head_bytes + s.data_bytes + s.zero_bytes,
                         .elem_size = s.elem_size,
                         .count = s.count,
                         .checksum = section_checksum(&s)};
        memcpy(r.name, s.name, sizeof r.name);
        offset += r.bytes;
        XXH3_64bits_update(&meta, &r, sizeof r);
        st = write_all(f, &r, sizeof r, path);
    }
    uint64_t meta_sum = XXH3_64bits_digest(&meta);
    if (st == PCS_OK)
        st = write_all(f, &meta_sum, sizeof meta_sum, path);
    for (uint32_t k = 0; k < n && st == PCS_OK; k++) {
        section_src s;
        section_head hd;
        section_of(w, k, &s, &hd);
        st = write_all(f, s.head, s.head_bytes, path);
        if (st == PCS_OK)
            st = write_all(f, s.data, s.data_bytes, path);
        for (size_t left = s.zero_bytes; left > 0 && st == PCS_OK;) {
            size_t chunk = left < sizeof zeros ? left : sizeof zeros;
            st = write_all(f, zeros, chunk, path);
            left -= chunk;
        }
    }
    return st;
}

pcs_status pcs_world_save(const pcs_world *w, const char *path)
{
    if (!w || !path || !path[0])
        return pcs_error_set(PCS_E_INVAL, "pcs_world_save: world or path is NULL/empty");
    pcs_status st = pcs_world_usable(w, "pcs_world_save");
    if (st != PCS_OK)
        return st;
    pcs_atomic_file *f = NULL;
    st = pcs_atomic_file_create(path, &f);
    if (st != PCS_OK)
        return st;
    st = write_file(w, pcs_atomic_file_stream(f), path);
    if (st != PCS_OK) {
        pcs_atomic_file_discard(f); /* the message names the write that failed */
        return st;
    }
    return pcs_atomic_file_commit(f);
}

/* Read at most one byte more than this world's save can have; *file_bytes is
 * the larger of what fstat said and what was read, for the trailing-byte
 * count. */
static pcs_status read_file(const pcs_world *w, const char *path, unsigned char **buf, size_t *len,
                            uint64_t *file_bytes)
{
    int fd = -1;
    uint64_t size = 0;
    pcs_status st = pcs_open_regular(path, "load", &fd, &size);
    if (st != PCS_OK)
        return st;
    size_t cap = (size_t)save_bytes(w) + 1u;
    unsigned char *b = malloc(cap);
    if (!b)
        st = pcs_error_set(PCS_E_NOMEM, "pcs_world_load: no memory for %zu bytes", cap);
    size_t got = 0;
    if (st == PCS_OK)
        st = pcs_read_upto(fd, b, cap, &got, "load", path);
    close(fd);
    if (st != PCS_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = got;
    *file_bytes = size > got ? size : got;
    return PCS_OK;
}

static pcs_status corrupt(const char *path, const char *why)
{
    pcs_error_set(PCS_E_CORRUPT, "load '%s': %s", path, why);
    return PCS_E_CORRUPT;
}

static pcs_status refuse(pcs_status st, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "load '<path>': <why>" with status @p st; returns @p st (see io_error). */
static pcs_status refuse(pcs_status st, const char *path, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    pcs_error_set(st, "load '%s': %s", path, why);
    return st;
}

/* The file's section count differs from the world's: name the entity table
 * when it is the difference (the table's names are read unchecked, for the
 * message only: the load is refused either way). */
static pcs_status sections_differ(const pcs_world *w, const char *path, const unsigned char *b,
                                  size_t len, uint32_t file_n)
{
    uint32_t n = count_sections(w);
    int file_has = 0;
    for (uint32_t k = 0; k < file_n && (k + 1u) * sizeof(section_rec) <= len - sizeof(file_header);
         k++)
        file_has |= strncmp((const char *)b + sizeof(file_header) + k * sizeof(section_rec),
                            PCS_ENTITY_SECTION, sizeof(((section_rec *)0)->name)) == 0;
    if (file_has && !w->entities && file_n == n + 1u)
        return refuse(PCS_E_CORRUPT, path,
                      "the file has an entity table (section '" PCS_ENTITY_SECTION
                      "'); this world has none (pcs_entity_table_add at build)");
    if (!file_has && w->entities && file_n + 1u == n)
        return refuse(PCS_E_CORRUPT, path,
                      "this world has an entity table (capacity %u); the file has no section "
                      "'" PCS_ENTITY_SECTION "'",
                      pcs_entity_capacity(w));
    return refuse(PCS_E_CORRUPT, path,
                  "file has %u sections, this world has %u (different scenario?)", file_n, n);
}

/* Magic, versions, section count, header checksum, seed, tick and build hash. */
static pcs_status check_header(const pcs_world *w, const char *path, const unsigned char *b,
                               size_t len)
{
    file_header h;
    if (len < sizeof h)
        return corrupt(path, "file is shorter than its header (truncated)");
    memcpy(&h, b, sizeof h);
    if (memcmp(h.magic, magic, sizeof magic) != 0)
        return corrupt(path, "not a pcsim save file (bad magic)");
    if (h.version != PCS_SAVE_VERSION)
        return refuse(PCS_E_VERSION, path, "file version %u, this build reads %u", h.version,
                      PCS_SAVE_VERSION);
    uint32_t n = count_sections(w);
    if (h.n_sections != n && h.layout != PCS_SAVE_LAYOUT)
        /* An older layout has other sections: say so rather than "different scenario". */
        return refuse(PCS_E_VERSION, path,
                      "section layout %u, this build reads layout %u (%u sections, this world "
                      "has %u)",
                      h.layout, PCS_SAVE_LAYOUT, h.n_sections, n);
    if (h.n_sections != n)
        return sections_differ(w, path, b, len, h.n_sections);
    size_t meta = meta_bytes(n) - sizeof(uint64_t);
    if (len < meta + sizeof(uint64_t))
        return corrupt(path, "section table is truncated");
    uint64_t want;
    memcpy(&want, b + meta, sizeof want);
    if (XXH3_64bits(b, meta) != want)
        return corrupt(path, "header checksum mismatch");
    if (h.layout != PCS_SAVE_LAYOUT || h.reserved != 0)
        return refuse(PCS_E_VERSION, path,
                      "section layout %u (reserved %u), this build reads layout %u (reserved 0)",
                      h.layout, h.reserved, PCS_SAVE_LAYOUT);
    if (h.seed != w->cfg.seed || h.tick > PCS_CLOCK_TICK_MAX)
        /* The seed is part of the scenario: models may seed streams from
         * it after the load, so another seed cannot resume the same run. */
        return refuse(PCS_E_CORRUPT, path,
                      "saved at tick %llu with world seed %llu; this world has seed %llu and "
                      "ticks up to %llu (different scenario?)",
                      (unsigned long long)h.tick, (unsigned long long)h.seed,
                      (unsigned long long)w->cfg.seed, (unsigned long long)PCS_CLOCK_TICK_MAX);
    if (h.build_hash != w->cfg.build_hash)
        return refuse(PCS_E_CORRUPT, path,
                      "saved from build hash 0x%016llx; this world's build hash is 0x%016llx "
                      "(built from another scenario?)",
                      (unsigned long long)h.build_hash, (unsigned long long)w->cfg.build_hash);
    return PCS_OK;
}

/* Every table entry against the world's section k, at the offset where the
 * previous one ended: sections lie back to back in table order. */
static pcs_status check_table(const pcs_world *w, const char *path, const section_rec *t)
{
    uint32_t n = count_sections(w);
    uint64_t offset = meta_bytes(n);
    for (uint32_t k = 0; k < n; k++) {
        section_src s;
        section_head hd;
        section_of(w, k, &s, &hd);
        uint64_t bytes = s.head_bytes + s.data_bytes + s.zero_bytes;
        if (w->entities && k == entity_section_index(w) && t[k].count != s.count &&
            strncmp(t[k].name, s.name, sizeof t[k].name) == 0)
            return refuse(PCS_E_CORRUPT, path,
                          "section '" PCS_ENTITY_SECTION "': the file's entity table has capacity "
                          "%llu; this world's has %zu",
                          (unsigned long long)t[k].count, s.count);
        if (strncmp(t[k].name, s.name, sizeof t[k].name) != 0 || t[k].elem_size != s.elem_size ||
            t[k].count != s.count || t[k].bytes != bytes)
            return refuse(PCS_E_CORRUPT, path,
                          "section %u is '%.64s' of %llu elements of %llu bytes (%llu bytes); "
                          "the world expects '%s' of %zu elements of %zu bytes (%llu bytes)",
                          k, t[k].name, (unsigned long long)t[k].count,
                          (unsigned long long)t[k].elem_size, (unsigned long long)t[k].bytes,
                          s.name, s.count, s.elem_size, (unsigned long long)bytes);
        if (t[k].offset != offset)
            return refuse(PCS_E_CORRUPT, path,
                          "section '%s' starts at byte %llu; the previous one ends at %llu", s.name,
                          (unsigned long long)t[k].offset, (unsigned long long)offset);
        offset += bytes;
    }
    return PCS_OK;
}

/* Check the header, the table, the file's size and every section's checksum.
 * @p len bytes were read (at most save_bytes + 1); the file has @p file_bytes. */
static pcs_status validate(const pcs_world *w, const char *path, const unsigned char *b, size_t len,
                           uint64_t file_bytes, const section_rec **table)
{
    pcs_status st = check_header(w, path, b, len);
    const section_rec *t = (const section_rec *)(const void *)(b + sizeof(file_header));
    if (st == PCS_OK)
        st = check_table(w, path, t);
    if (st != PCS_OK)
        return st;
    uint64_t want = save_bytes(w);
    if (file_bytes > want)
        return refuse(PCS_E_CORRUPT, path,
                      "%llu trailing bytes after the last section (file is %llu bytes; a save "
                      "of this world is %llu)",
                      (unsigned long long)(file_bytes - want), (unsigned long long)file_bytes,
                      (unsigned long long)want);
    uint32_t n = count_sections(w);
    for (uint32_t k = 0; k < n; k++) {
        const char *name = t[k].name;
        int nl = (int)strnlen(name, sizeof t[k].name);
        if (t[k].offset > len || t[k].bytes > len - t[k].offset)
            return refuse(PCS_E_CORRUPT, path,
                          "section '%.*s' runs past the end of the file (truncated: file is "
                          "%llu bytes, a save of this world is %llu)",
                          nl, name, (unsigned long long)file_bytes, (unsigned long long)want);
        if (XXH3_64bits(b + t[k].offset, t[k].bytes) != t[k].checksum)
            return refuse(PCS_E_CORRUPT, path, "section '%.*s' checksum mismatch", nl, name);
    }
    *table = t;
    return PCS_OK;
}

/* Copy every section into one buffer, each at a 16-byte aligned offset, so
 * load checks can read the staged values as typed arrays. Every size here
 * comes from the world: the offset tables have one entry per store and job,
 * and check_table has made each section's bytes the world's own. */
static pcs_status stage(const pcs_world *w, const unsigned char *b, const section_rec *t,
                        pcs_load_view **out)
{
    uint32_t n = count_sections(w);
    size_t total = 0;
    for (uint32_t k = 0; k < n; k++)
        total += (t[k].bytes + 15u) & ~(size_t)15u;
    size_t tables =
        (size_t)w->n_stores * sizeof(size_t) + (size_t)w->n_jobs * (sizeof(size_t) + sizeof(int));
    pcs_load_view *v = malloc(sizeof *v + tables + 16u + total);
    if (!v)
        return pcs_error_set(PCS_E_NOMEM, "pcs_world_load: no memory to stage %zu bytes", total);
    v->w = w;
    v->store_off = (size_t *)(void *)(v + 1);
    v->job_off = v->store_off + w->n_stores;
    v->job_pending = (int *)(void *)(v->job_off + w->n_jobs);
    unsigned char *base =
        (unsigned char *)(((uintptr_t)(v->job_pending + w->n_jobs) + 15u) & ~(uintptr_t)15u);
    v->base = base;
    size_t off = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < w->n_stores; i++) {
        v->store_off[i] = SIZE_MAX;
        if (w->stores[i].kind != PCS_STORE_STATE)
            continue;
        memcpy(base + off, b + t[k].offset, t[k].bytes);
        v->store_off[i] = off;
        off += (t[k].bytes + 15u) & ~(size_t)15u;
        k++;
    }
    for (uint32_t j = 0; j < w->n_jobs; j++, k++) {
        job_state js;
        memcpy(&js, b + t[k].offset, sizeof js);
        memcpy(base + off, b + t[k].offset + sizeof js, t[k].bytes - sizeof js);
        v->job_off[j] = off;
        v->job_pending[j] = (int)js.pending;
        off += (t[k].bytes + 15u) & ~(size_t)15u;
    }
    *out = v;
    return PCS_OK;
}

/* The events section's head: a count the buffer holds, reserved 0, every
 * event of the save tick - 1, and zeros in the unused slots. */
static pcs_status check_events(const pcs_world *w, const unsigned char *b, const section_rec *t,
                               uint64_t tick, const char *path)
{
    const section_rec *ev = &t[events_index(w)];
    events_head eh;
    memcpy(&eh, b + ev->offset, sizeof eh);
    uint64_t want_tick = eh.count ? tick - 1u : 0u;
    if (eh.count > w->cfg.event_capacity || eh.reserved != 0 || (eh.count && tick == 0) ||
        eh.tick != want_tick)
        return refuse(PCS_E_CORRUPT, path,
                      "section '" EVENTS_SECTION "': count %u (allowed 0..%u, 0 at tick 0), "
                      "reserved %u (allowed 0), tick %llu (allowed %llu: the save tick %llu - 1)",
                      eh.count, w->cfg.event_capacity, eh.reserved, (unsigned long long)eh.tick,
                      (unsigned long long)want_tick, (unsigned long long)tick);
    const unsigned char *src = b + ev->offset + sizeof eh;
    for (uint32_t i = 0; i < eh.count; i++) {
        pcs_event e;
        memcpy(&e, src + (size_t)i * sizeof e, sizeof e);
        if (e.tick != want_tick)
            return refuse(PCS_E_CORRUPT, path,
                          "section '" EVENTS_SECTION "': event %u has tick %llu (allowed %llu)", i,
                          (unsigned long long)e.tick, (unsigned long long)want_tick);
    }
    size_t used = (size_t)eh.count * sizeof(pcs_event);
    for (size_t i = used; i < ev->bytes - sizeof eh; i++)
        if (src[i] != 0)
            return refuse(PCS_E_CORRUPT, path,
                          "section '" EVENTS_SECTION "': byte %zu of the unused slots (after "
                          "the list's %u events) is %u (allowed 0)",
                          i - used, eh.count, src[i]);
    return PCS_OK;
}

/* Pending flags and submit ticks are checked here, since the engine owns them. */
static pcs_status check_jobs(const pcs_world *w, const unsigned char *b, const section_rec *t,
                             uint64_t tick, const char *path)
{
    uint32_t first_job = count_state_stores(w);
    for (uint32_t j = 0; j < w->n_jobs; j++) {
        job_state js;
        memcpy(&js, b + t[first_job + j].offset, sizeof js);
        if (js.pending > 1u || js.reserved != 0u || (js.pending && js.submit_tick > tick)) {
            char why[256];
            snprintf(why, sizeof why,
                     "section 'job:%s': pending %u (allowed 0 or 1), submit "
                     "tick %llu (allowed up to the save tick %llu)",
                     w->jobs[j].desc.name, js.pending, (unsigned long long)js.submit_tick,
                     (unsigned long long)tick);
            return corrupt(path, why);
        }
    }
    return PCS_OK;
}

static void apply(pcs_world *w, const pcs_load_view *v, const unsigned char *b,
                  const section_rec *t, uint64_t tick)
{
    uint32_t first_job = count_state_stores(w);
    for (uint32_t i = 0; i < w->n_stores; i++)
        if (v->store_off[i] != SIZE_MAX)
            memcpy(w->stores[i].data, v->base + v->store_off[i],
                   w->stores[i].elem_size * w->stores[i].count);
    for (uint32_t j = 0; j < w->n_jobs; j++) {
        pcs_job_rec *jr = &w->jobs[j];
        job_state js;
        memcpy(&js, b + t[first_job + j].offset, sizeof js);
        jr->pending = (int)js.pending;
        jr->submit_tick = js.submit_tick;
        memcpy(jr->input, v->base + v->job_off[j], jr->desc.input_bytes);
    }
    const section_rec *ev = &t[events_index(w)];
    events_head eh;
    memcpy(&eh, b + ev->offset, sizeof eh);
    /* The events after the head are not aligned in the file: stage each one. */
    const unsigned char *src = b + ev->offset + sizeof eh;
    for (uint32_t i = 0; i < eh.count; i++)
        memcpy(&w->events_prev[i], src + (size_t)i * sizeof(pcs_event), sizeof(pcs_event));
    pcs_events_restore(w, w->events_prev, eh.count);
    w->clock.tick = tick;
}

/* The entity table's section, checked in full and staged by engine/entity.c. */
static pcs_status stage_entities(const pcs_world *w, const unsigned char *b, const section_rec *t,
                                 const char *path, pcs_entity_stage **out)
{
    if (!w->entities)
        return PCS_OK;
    const section_rec *es = &t[entity_section_index(w)];
    pcs_status st = pcs_entity_load_stage(w, b + es->offset, es->bytes, out);
    return st == PCS_OK ? PCS_OK : refuse(st, path, "%s", pcs_last_error());
}

size_t pcs_persist_reseal(unsigned char *b, size_t len)
{
    file_header h;
    if (len < sizeof h + sizeof(uint64_t))
        return 0;
    memcpy(&h, b, sizeof h);
    if (h.n_sections > (len - sizeof h - sizeof(uint64_t)) / sizeof(section_rec))
        return 0;
    size_t meta = sizeof h + (size_t)h.n_sections * sizeof(section_rec);
    size_t fixed = 0;
    for (uint32_t k = 0; k < h.n_sections; k++) {
        section_rec r;
        memcpy(&r, b + sizeof h + k * sizeof r, sizeof r);
        if (r.offset > len || r.bytes > len - r.offset)
            continue;
        r.checksum = XXH3_64bits(b + r.offset, r.bytes);
        memcpy(b + sizeof h + k * sizeof r, &r, sizeof r);
        fixed++;
    }
    uint64_t sum = XXH3_64bits(b, meta);
    memcpy(b + meta, &sum, sizeof sum);
    return fixed;
}

/* ---- The structure log (structure.h, "Saves and replay") --------------------
 * A save's size and sections follow from the world's structure, so before
 * the load proper the world is brought to the save's structure: the save's
 * log must extend the world's own, and the entries the world has not applied
 * are applied (pcs_structure_replay), before any store is restored. Only a
 * file whose header and table check out (magic, version, seed, build hash,
 * table checksum) is replayed from; anything else is left to the load
 * proper to refuse with its own message. */

/* @p n bytes at @p off; PCS_E_CORRUPT when the file is shorter. */
static pcs_status read_at(int fd, void *buf, size_t n, uint64_t off, const char *path)
{
    for (size_t done = 0; done < n;) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (got < 0)
            return io_error("cannot read", path);
        if (got == 0)
            return corrupt(path, "section '" LOG_SECTION "' runs past the end of the file");
        done += (size_t)got;
    }
    return PCS_OK;
}

/* Every field of the save's log: kinds, ticks, each kind's validate (the
 * target and arguments), and the world's log a prefix.
 * An entry may carry the save tick itself: a change applied by an attempt
 * at that tick that then failed (the clock did not advance). */
static pcs_status check_log(const pcs_world *w, const char *path, const pcs_command *e, uint32_t n,
                            uint64_t save_tick)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t prev = i ? e[i - 1].tick : 0;
        if (!pcs_structure_kind_name(w, e[i].kind) || e[i].reserved != 0 ||
            e[i].source_class != 0 || e[i].source_id != 0 || e[i].seq != 0 ||
            e[i].tick > save_tick || e[i].tick < prev)
            return refuse(PCS_E_CORRUPT, path,
                          "section '" LOG_SECTION "': entry %u has kind %u (%s), reserved %u "
                          "(allowed 0), source (%u, %u) seq %llu (allowed 0: the log keeps "
                          "no transport), tick %llu (allowed %llu up to the save tick %llu)",
                          i, e[i].kind,
                          pcs_structure_kind_name(w, e[i].kind) ? "structural"
                                                                : "not a structural kind here",
                          e[i].reserved, e[i].source_class, e[i].source_id,
                          (unsigned long long)e[i].seq, (unsigned long long)e[i].tick,
                          (unsigned long long)prev, (unsigned long long)save_tick);
        if (pcs_structure_validate(w, &e[i]) != PCS_OK)
            return refuse(PCS_E_CORRUPT, path,
                          "section '" LOG_SECTION "': entry %u (%s, tick %llu): %s", i,
                          pcs_structure_kind_name(w, e[i].kind), (unsigned long long)e[i].tick,
                          pcs_last_error());
    }
    uint32_t mine = pcs_structure_log_count(w);
    const pcs_command *own = pcs_structure_log_data(w);
    if (mine > n)
        return refuse(PCS_E_CORRUPT, path,
                      "the save's structure log has %u entries; this world has applied %u "
                      "(entry %u: tick %llu, kind %u is not in the save)",
                      n, mine, n, (unsigned long long)own[n].tick, own[n].kind);
    for (uint32_t i = 0; i < mine; i++)
        if (memcmp(&own[i], &e[i], sizeof own[i]) != 0)
            return refuse(PCS_E_CORRUPT, path,
                          "this world's structure log is not a prefix of the save's: entry %u "
                          "differs (world: tick %llu, kind %u; save: tick %llu, kind %u)",
                          i, (unsigned long long)own[i].tick, own[i].kind,
                          (unsigned long long)e[i].tick, e[i].kind);
    return PCS_OK;
}

/* The log section @p r of a save at tick @p save_tick: read, its size,
 * checksum, head and every entry checked; *@p out the entries (free()). */
static pcs_status read_log(const pcs_world *w, const char *path, int fd, const section_rec *r,
                           uint64_t save_tick, pcs_command **out)
{
    uint32_t cap = w->cfg.structure_log_capacity;
    uint64_t count = r->count;
    if (r->elem_size != sizeof(pcs_command) || count == 0 || count > cap ||
        r->bytes != sizeof(log_head) + count * sizeof(pcs_command))
        return refuse(PCS_E_CORRUPT, path,
                      "section '" LOG_SECTION "' has %llu entries of %llu bytes (%llu bytes); "
                      "allowed 1..%u entries (structure_log_capacity) of %zu bytes, %zu + 64 "
                      "per entry",
                      (unsigned long long)count, (unsigned long long)r->elem_size,
                      (unsigned long long)r->bytes, cap, sizeof(pcs_command), sizeof(log_head));
    unsigned char *b = malloc((size_t)r->bytes);
    pcs_command *e = (pcs_command *)malloc((size_t)count * sizeof *e);
    pcs_status st =
        b && e ? read_at(fd, b, (size_t)r->bytes, r->offset, path)
               : pcs_error_set(PCS_E_NOMEM, "pcs_world_load: no memory for the structure log");
    log_head lh = {0};
    if (st == PCS_OK)
        memcpy(&lh, b, sizeof lh);
    if (st == PCS_OK && XXH3_64bits(b, (size_t)r->bytes) != r->checksum)
        st = refuse(PCS_E_CORRUPT, path, "section '" LOG_SECTION "' checksum mismatch");
    else if (st == PCS_OK && (lh.count != count || lh.reserved != 0))
        st = refuse(PCS_E_CORRUPT, path,
                    "section '" LOG_SECTION "': count %u (the table says %llu), reserved %u "
                    "(allowed 0)",
                    lh.count, (unsigned long long)count, lh.reserved);
    if (st == PCS_OK) {
        memcpy(e, b + sizeof lh, (size_t)count * sizeof *e); /* aligned copies */
        st = check_log(w, path, e, (uint32_t)count, save_tick);
    }
    free(b);
    if (st != PCS_OK) {
        free(e);
        return st;
    }
    *out = e;
    return PCS_OK;
}

/* XXH3 of the file's @p bytes at @p off, read in pieces (a claimed size
 * costs time, not memory). */
static pcs_status hash_range(int fd, uint64_t off, uint64_t bytes, const char *path, uint64_t *out)
{
    unsigned char buf[65536];
    XXH3_state_t h;
    XXH3_64bits_reset(&h);
    for (uint64_t done = 0; done < bytes;) {
        size_t chunk = bytes - done < sizeof buf ? (size_t)(bytes - done) : sizeof buf;
        pcs_status st = read_at(fd, buf, chunk, off + done, path);
        if (st != PCS_OK)
            return st;
        XXH3_64bits_update(&h, buf, chunk);
        done += chunk;
    }
    *out = XXH3_64bits_digest(&h);
    return PCS_OK;
}

/* Record @p k of the file's table (checked by the caller's table checksum). */
static pcs_status table_rec(int fd, uint32_t k, const char *path, section_rec *r)
{
    return read_at(fd, r, sizeof *r, sizeof(file_header) + (uint64_t)k * sizeof *r, path);
}

/* Every section the file's own table lists, before the structure changes:
 * back to back from the end of the table, the last ending at the end of the
 * file, and each one's checksum, read in pieces (nothing is kept, so a large
 * file costs time, not memory). The world's own sections are not known yet:
 * the load proper checks names and sizes against them after the replay. */
static pcs_status check_file_sections(const char *path, int fd, uint64_t file_bytes, uint32_t n)
{
    uint64_t offset = sizeof(file_header) + (uint64_t)n * sizeof(section_rec) + sizeof(uint64_t);
    for (uint32_t k = 0; k < n; k++) {
        section_rec t;
        uint64_t sum = 0;
        pcs_status st = table_rec(fd, k, path, &t);
        if (st != PCS_OK)
            return st;
        int nl = (int)strnlen(t.name, sizeof t.name);
        if (t.offset != offset || t.bytes > file_bytes - offset)
            return refuse(PCS_E_CORRUPT, path,
                          "section %u '%.*s' is %llu bytes at byte %llu; allowed: at byte %llu "
                          "(where the previous one ends), within the file's %llu bytes",
                          k, nl, t.name, (unsigned long long)t.bytes, (unsigned long long)t.offset,
                          (unsigned long long)offset, (unsigned long long)file_bytes);
        st = hash_range(fd, offset, t.bytes, path, &sum);
        if (st != PCS_OK)
            return st;
        if (sum != t.checksum)
            return refuse(PCS_E_CORRUPT, path, "section '%.*s' checksum mismatch", nl, t.name);
        offset += t.bytes;
    }
    if (offset != file_bytes)
        return refuse(PCS_E_CORRUPT, path,
                      "%llu trailing bytes after the last section (file is %llu bytes, its "
                      "sections end at %llu)",
                      (unsigned long long)(file_bytes - offset), (unsigned long long)file_bytes,
                      (unsigned long long)offset);
    return PCS_OK;
}

/* A save whose log extends this world's: only a fresh world, one that
 * never ticked and holds no accepted load, takes it (persist.h, "Loads that
 * change the structure"): a refusal after the replay leaves the world
 * unusable, and a loaded world would lose the state it took. */
static pcs_status check_fresh(const pcs_world *w, const char *path, uint32_t n_save)
{
    uint32_t mine = pcs_structure_log_count(w);
    if (!w->sealed && !w->loaded)
        return PCS_OK;
    return refuse(PCS_E_STATE, path,
                  "the save has %u structural changes this world lacks (its log has %u, this "
                  "world's %u), and this world %s (tick %llu): re-applying them here "
                  "could not be undone if the save were then refused. Load into a freshly built "
                  "world of the same scenario and seed, and swap it in on success (as `pcsim "
                  "serve` and the Python Station.load do); this world is unchanged",
                  n_save - mine, n_save, mine, w->sealed ? "has ticked" : "holds an accepted load",
                  (unsigned long long)w->clock.tick);
}

/* The log section @p last (the last of the file's @p n) of a save at tick
 * @p save_tick: checked, with every section of the file when the world
 * lacks entries, and the entries it lacks applied; *@p replayed counts
 * them. */
static pcs_status replay_log(pcs_world *w, const char *path, int fd, uint64_t file_bytes,
                             const section_rec *last, uint32_t n, uint64_t save_tick,
                             uint32_t *replayed)
{
    pcs_command *e = NULL;
    pcs_status st = read_log(w, path, fd, last, save_tick, &e);
    if (st != PCS_OK)
        return st;
    uint32_t count = (uint32_t)last->count, mine = pcs_structure_log_count(w);
    if (count > mine)
        st = check_fresh(w, path, count);
    if (st == PCS_OK && count > mine)
        st = check_file_sections(path, fd, file_bytes, n);
    if (st == PCS_OK && count > mine) {
        *replayed = count - mine;
        st = pcs_structure_replay(w, e + mine, count - mine);
        if (st != PCS_OK)
            st = pcs_error_set(st, "load '%s': re-applying the save's structure log: %s", path,
                               pcs_last_error());
    }
    free(e);
    return st;
}

/* The file is read twice (replay_structure, then the load proper), and a
 * save may replace it in between (pcs_world_save renames over the path):
 * the log read now must be the one the world was brought to. Its size is
 * already checked against the world's (check_table). */
static pcs_status check_log_same(const pcs_world *w, const unsigned char *b, const section_rec *t,
                                 const char *path)
{
    if (!has_log(w))
        return PCS_OK;
    const unsigned char *e = b + t[count_sections(w) - 1u].offset + sizeof(log_head);
    const pcs_command *own = pcs_structure_log_data(w);
    for (uint32_t i = 0; i < pcs_structure_log_count(w); i++)
        if (memcmp(e + (size_t)i * sizeof *own, &own[i], sizeof *own) != 0)
            return refuse(PCS_E_CORRUPT, path,
                          "section '" LOG_SECTION "': entry %u differs from the one re-applied "
                          "from this file at the start of the load (world: tick %llu, kind %u); "
                          "was the file saved over during the load?",
                          i, (unsigned long long)own[i].tick, own[i].kind);
    return PCS_OK;
}

/* *@p replayed: the structural changes re-applied (0 when none were). */
static pcs_status replay_structure(pcs_world *w, const char *path, uint32_t *replayed)
{
    int fd = -1;
    uint64_t size = 0;
    if (pcs_open_regular(path, "load", &fd, &size) != PCS_OK)
        return PCS_OK; /* the load proper reports it */
    file_header h;
    section_rec last;
    pcs_status st = PCS_OK;
    int ok = size >= sizeof h && read_at(fd, &h, sizeof h, 0, path) == PCS_OK &&
             memcmp(h.magic, magic, sizeof magic) == 0 && h.version == PCS_SAVE_VERSION &&
             h.seed == w->cfg.seed && h.build_hash == w->cfg.build_hash && h.n_sections > 0 &&
             h.n_sections <= (size - sizeof h) / sizeof last;
    /* The table is hashed in pieces and read a record at a time: the count
     * the header claims costs time, never memory. */
    uint64_t meta = ok ? sizeof h + (uint64_t)h.n_sections * sizeof last : 0;
    uint64_t want = 0, sum = 1;
    ok = ok && hash_range(fd, 0, meta, path, &sum) == PCS_OK &&
         read_at(fd, &want, sizeof want, meta, path) == PCS_OK &&
         table_rec(fd, h.n_sections - 1u, path, &last) == PCS_OK;
    if (ok && sum == want) {
        uint32_t mine = pcs_structure_log_count(w);
        if (strncmp(last.name, LOG_SECTION, sizeof last.name) == 0)
            st = replay_log(w, path, fd, size, &last, h.n_sections, h.tick, replayed);
        else if (mine)
            st = refuse(PCS_E_CORRUPT, path,
                        "the save has no structure log; this world has applied %u structural "
                        "changes (entry 0: tick %llu, kind %u)",
                        mine, (unsigned long long)pcs_structure_log_data(w)[0].tick,
                        pcs_structure_log_data(w)[0].kind);
    }
    if (st == PCS_OK)
        pcs_error_clear(); /* a read that failed here is the load proper's to report */
    close(fd);
    return st;
}

/* A load refused after it re-applied @p replayed structural changes leaves
 * a world that is neither its scenario's nor the save's: mark it so that it
 * never ticks or saves again (persist.h). Returns @p st, message kept. */
static pcs_status after_replay(pcs_world *w, const char *path, uint32_t replayed, pcs_status st)
{
    if (st == PCS_OK || replayed == 0)
        return st;
    char why[sizeof w->unusable];
    snprintf(why, sizeof why,
             "a load of '%s' re-applied %u of the save's structural changes and was then "
             "refused (%s); this world's structure is half the save's: build a fresh world",
             path, replayed, pcs_last_error());
    pcs_world_mark_unusable(w, why);
    return st;
}

pcs_status pcs_world_load(pcs_world *w, const char *path)
{
    if (!w || !path || !path[0])
        return pcs_error_set(PCS_E_INVAL, "pcs_world_load: world or path is NULL/empty");
    unsigned char *b = NULL;
    size_t len = 0;
    uint64_t file_bytes = 0;
    pcs_status st = pcs_world_usable(w, "pcs_world_load");
    uint32_t replayed = 0;
    if (st == PCS_OK)
        st = replay_structure(w, path, &replayed); /* first: it sets the world's sections */
    if (st == PCS_OK)
        st = read_file(w, path, &b, &len, &file_bytes);
    if (st != PCS_OK)
        return after_replay(w, path, replayed, st);
    const section_rec *t = NULL;
    st = validate(w, path, b, len, file_bytes, &t);
    file_header h = {0};
    if (st == PCS_OK)
        memcpy(&h, b, sizeof h);
    if (st == PCS_OK)
        st = check_log_same(w, b, t, path);
    if (st == PCS_OK)
        st = check_jobs(w, b, t, h.tick, path);
    if (st == PCS_OK)
        st = check_events(w, b, t, h.tick, path);
    pcs_entity_stage *es = NULL;
    if (st == PCS_OK)
        st = stage_entities(w, b, t, path, &es);
    pcs_load_view *v = NULL;
    if (st == PCS_OK)
        st = stage(w, b, t, &v);
    if (st == PCS_OK && (st = pcs_load_checks_run(w, v)) != PCS_OK)
        st = pcs_error_set(PCS_E_CORRUPT, "load '%s': %s", path, pcs_last_error());
    if (st == PCS_OK) {
        pcs_jobs_before_load(w); /* an executor may be reading job inputs */
        apply(w, v, b, t, h.tick);
        if (es)
            pcs_entity_load_apply(w, es);
        pcs_structure_drop_queued(w); /* accepted by a failed tick of the replaced world */
        pcs_command_carry_clear(w);   /* the events of that failed tick's commands */
        st = pcs_jobs_after_load(w);
        w->loaded = 1; /* applied: no longer fresh, whatever the jobs said */
    }
    free(es);
    free(v);
    free(b);
    return after_replay(w, path, replayed, st);
}
