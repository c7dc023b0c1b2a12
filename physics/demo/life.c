/**
 * @file life.c
 * @brief Game of Life (B3/S23): synchronous double-buffered generations.
 *
 * Rows are processed with three row pointers (above, current, below). For a
 * dead boundary the row above the top and below the bottom is a constant zero
 * row; for a wrapping grid it is the opposite edge's row. Within a row the
 * interior columns use one branch-free sum of the 8 neighbours; only the two
 * edge columns look at the boundary rule. Each output cell depends only on the
 * previous buffer, so the row loop can run on OpenMP threads with results
 * independent of the thread count.
 *
 * Load check (registered worlds): the header's buffer index 0 or 1 and pad
 * 0; every cell of both buffers 0 or 1 (the neighbour sums add cells, so any
 * other byte would miscount).
 */
#include <stdlib.h>
#include <string.h>

#include "physics/demo/model_common.h"
#include "pcsim/life.h"
#include "pcsim/persist.h"

/* The model's stores once registered, in base.part_id. */
enum { PART_HDR, PART_C0, PART_C1, PARTS };
_Static_assert(PARTS <= PCS_MODEL_PARTS_MAX, "model_common holds every part");

struct pcs_life {
    pcs_model_base base; /* first: name, owned parts (standalone), store ids */
    pcs_life_def def;    /* its def, the name at base.name (model_common.h layout.def_at) */
    uint8_t *buf[2];
    pcs_model_header *hdr;
    uint8_t *zero_row; /* width zero bytes: the dead world beyond the edge */
};

pcs_status pcs_life_default(pcs_life_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_life_default: cfg is NULL");
    *cfg = (pcs_life_def){
        .width = 64, .height = 64, .boundary = PCS_LIFE_DEAD, .threads = 1, .name = NULL};
    return PCS_OK;
}

static pcs_status check_config(const char *fn, const void *def)
{
    const pcs_life_def *cfg = def;
    if (cfg->boundary != PCS_LIFE_DEAD && cfg->boundary != PCS_LIFE_WRAP)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: boundary = %d; allowed PCS_LIFE_DEAD (0) or PCS_LIFE_WRAP (1)",
                             fn, (int)cfg->boundary);
    uint32_t lo = cfg->boundary == PCS_LIFE_WRAP ? 3u : 1u;
    const char *note = "for this boundary";
    const pcs_model_count counts[] = {
        {"width", cfg->width, lo, PCS_LIFE_SIDE_MAX, NULL, note},
        {"height", cfg->height, lo, PCS_LIFE_SIDE_MAX, NULL, note},
        {"width * height", (uint64_t)cfg->width * cfg->height, 1, PCS_LIFE_CELLS_MAX, "cells",
         NULL},
        {"threads", cfg->threads, 1, PCS_LIFE_THREADS_MAX, NULL, NULL},
    };
    return pcs_model_counts_check(fn, counts, sizeof counts / sizeof counts[0]);
}

/* The header and the two grids (model_common.h). */
static uint32_t life_parts(void *model, pcs_model_part *p)
{
    pcs_life *m = model;
    size_t n = (size_t)m->def.width * m->def.height;
    p[PART_HDR] = (pcs_model_part){"hdr", sizeof(pcs_model_header), 1, PCS_STORE_STATE, &m->hdr};
    p[PART_C0] = (pcs_model_part){"c0", 1, n, PCS_STORE_STATE, &m->buf[0]};
    p[PART_C1] = (pcs_model_part){"c1", 1, n, PCS_STORE_STATE, &m->buf[1]};
    return PARTS;
}

/* The row of dead cells beyond the edge: not a part, it stays with the
 * model when it is added (pcs_model_kind.start). */
static pcs_status life_start(const char *fn, void *model, const void *def)
{
    (void)def;
    pcs_life *m = model;
    m->zero_row = calloc(m->def.width, 1);
    if (!m->zero_row)
        return pcs_error_set(PCS_E_NOMEM, "%s: no memory for a row of %u cells", fn, m->def.width);
    return PCS_OK;
}

void pcs_life_destroy(pcs_life *m)
{
    if (m)
        free(m->zero_row); /* kept when registered: the step reads it */
    pcs_model_free(m);
}

/* B3/S23. */
static inline uint8_t life_rule(uint8_t alive, unsigned neighbours)
{
    /* bitwise, not short-circuit: keeps the row loop branch-free */
    return (uint8_t)((neighbours == 3u) | ((alive != 0) & (neighbours == 2u)));
}

/* Live cells in column x of the three rows. */
static inline unsigned column3(const uint8_t *up, const uint8_t *mid, const uint8_t *dn, size_t x)
{
    return (unsigned)up[x] + mid[x] + dn[x];
}

/* Neighbour count of an edge column, where left or right may be outside. */
static unsigned edge_count(const uint8_t *up, const uint8_t *mid, const uint8_t *dn, size_t x,
                           size_t w, int wrap)
{
    unsigned n = (unsigned)up[x] + dn[x];
    if (x > 0)
        n += column3(up, mid, dn, x - 1);
    else if (wrap)
        n += column3(up, mid, dn, w - 1);
    if (x + 1 < w)
        n += column3(up, mid, dn, x + 1);
    else if (wrap)
        n += column3(up, mid, dn, 0);
    return n;
}

static void life_row(const uint8_t *restrict up, const uint8_t *restrict mid,
                     const uint8_t *restrict dn, uint8_t *restrict out, size_t w, int wrap)
{
    out[0] = life_rule(mid[0], edge_count(up, mid, dn, 0, w, wrap));
    /* simd: vector code at -O2 as well (see diffusion.c); lanes are independent. */
    const size_t end = w - 1;               /* w >= 1 here; for w == 1 the loop is empty */
#if defined(_OPENMP) && !defined(__clang__) /* clang 14 refuses it: -Wpass-failed */
#pragma omp simd
#endif
    for (size_t x = 1; x < end; x++) {
        unsigned n = (unsigned)up[x - 1] + up[x] + up[x + 1] + mid[x - 1] + mid[x + 1] + dn[x - 1] +
                     dn[x] + dn[x + 1];
        out[x] = life_rule(mid[x], n);
    }
    if (w > 1)
        out[w - 1] = life_rule(mid[w - 1], edge_count(up, mid, dn, w - 1, w, wrap));
}

pcs_status pcs_life_step(pcs_life *m)
{
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "pcs_life_step: model is NULL");
    uint32_t cur = m->hdr->cur & 1u;
    const uint8_t *src = m->buf[cur];
    uint8_t *dst = m->buf[cur ^ 1u];
    const size_t w = m->def.width;
    const long h = (long)m->def.height;
    const int wrap = m->def.boundary == PCS_LIFE_WRAP;
    const uint8_t *zero = m->zero_row;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads((int)m->def.threads) if (m->def.threads > 1)
#endif
    for (long y = 0; y < h; y++) {
        const uint8_t *mid = src + (size_t)y * w;
        const uint8_t *up = y > 0 ? mid - w : (wrap ? src + (size_t)(h - 1) * w : zero);
        const uint8_t *dn = y + 1 < h ? mid + w : (wrap ? src : zero);
        life_row(up, mid, dn, dst + (size_t)y * w, w, wrap);
    }
    m->hdr->cur = cur ^ 1u;
    m->hdr->steps++;
    return PCS_OK;
}

pcs_status pcs_life_set(pcs_life *m, uint32_t x, uint32_t y, int alive)
{
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "pcs_life_set: model is NULL");
    if (x >= m->def.width || y >= m->def.height)
        return pcs_error_set(PCS_E_INVAL, "pcs_life_set: cell (%u, %u) outside the %u x %u grid", x,
                             y, m->def.width, m->def.height);
    m->buf[m->hdr->cur & 1u][(size_t)y * m->def.width + x] = alive ? 1u : 0u;
    return PCS_OK;
}

int pcs_life_get(const pcs_life *m, uint32_t x, uint32_t y)
{
    if (!m || x >= m->def.width || y >= m->def.height)
        return 0;
    return m->buf[m->hdr->cur & 1u][(size_t)y * m->def.width + x] != 0;
}

/* Walk the pattern; when apply is 0 only check it. */
static pcs_status life_pattern(pcs_life *m, uint32_t x0, uint32_t y0, const char *pattern,
                               int apply)
{
    uint64_t x = x0, y = y0;
    for (const char *p = pattern; *p; p++) {
        if (*p == '\n') {
            x = x0;
            y++;
            continue;
        }
        if (*p != 'o' && *p != 'O' && *p != '.')
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_life_load: character '%c' at offset %td; allowed "
                                 "'o', 'O', '.', newline",
                                 *p, p - pattern);
        if (x >= m->def.width || y >= m->def.height)
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_life_load: pattern cell (%llu, %llu) outside the %u x %u "
                                 "grid",
                                 (unsigned long long)x, (unsigned long long)y, m->def.width,
                                 m->def.height);
        if (apply)
            m->buf[m->hdr->cur & 1u][(size_t)y * m->def.width + x] = *p != '.';
        x++;
    }
    return PCS_OK;
}

pcs_status pcs_life_load(pcs_life *m, uint32_t x0, uint32_t y0, const char *pattern)
{
    if (!m || !pattern)
        return pcs_error_set(PCS_E_INVAL, "pcs_life_load: model or pattern is NULL");
    pcs_status st = life_pattern(m, x0, y0, pattern, 0);
    if (st != PCS_OK)
        return st;
    return life_pattern(m, x0, y0, pattern, 1);
}

pcs_status pcs_life_render(const pcs_life *m, char *buf, size_t cap)
{
    if (!m || !buf)
        return pcs_error_set(PCS_E_INVAL, "pcs_life_render: model or buf is NULL");
    size_t need = ((size_t)m->def.width + 1) * m->def.height + 1;
    if (cap < need)
        return pcs_error_set(PCS_E_INVAL, "pcs_life_render: cap = %zu bytes; need %zu", cap, need);
    const uint8_t *c = m->buf[m->hdr->cur & 1u];
    char *o = buf;
    for (uint32_t y = 0; y < m->def.height; y++) {
        for (uint32_t x = 0; x < m->def.width; x++)
            *o++ = c[(size_t)y * m->def.width + x] ? 'o' : '.';
        *o++ = '\n';
    }
    *o = '\0';
    return PCS_OK;
}

uint64_t pcs_life_population(const pcs_life *m)
{
    if (!m)
        return 0;
    const uint8_t *c = m->buf[m->hdr->cur & 1u];
    size_t n = (size_t)m->def.width * m->def.height;
    uint64_t pop = 0;
    for (size_t i = 0; i < n; i++)
        pop += c[i] != 0;
    return pop;
}

uint64_t pcs_life_steps(const pcs_life *m)
{
    return m ? m->hdr->steps : 0;
}

const uint8_t *pcs_life_cells(const pcs_life *m)
{
    return m ? m->buf[m->hdr->cur & 1u] : NULL;
}

static pcs_status life_system(pcs_world *w, void *ctx)
{
    (void)w;
    return pcs_life_step(ctx);
}

static pcs_status life_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    (void)w;
    const pcs_life *m = ctx;
    const uint32_t *id = m->base.part_id;
    size_t n = (size_t)m->def.width * m->def.height;
    pcs_status st = pcs_model_header_check(m->base.name, pcs_load_view_store(v, id[PART_HDR]));
    for (int b = PART_C0; st == PCS_OK && b <= PART_C1; b++) {
        const uint8_t *c = pcs_load_view_store(v, id[b]);
        for (size_t i = 0; i < n; i++)
            if (c[i] > 1u)
                return pcs_model_bad(m->base.name, b == PART_C1 ? "c1" : "c0", i, "cell", c[i],
                                     "0 or 1");
    }
    return st;
}

static const pcs_model_kind life_kind = {
    .name = "life",
    .layout = {.size = sizeof(pcs_life),
               .def_name = offsetof(pcs_life_def, name),
               .def_at = offsetof(pcs_life, def),
               .def_size = sizeof(pcs_life_def)},
    .setup = {.check = check_config, .start = life_start},
    .state = {.parts = life_parts, .system = life_system, .load_check = life_load_check},
};

pcs_status pcs_life_create(const pcs_life_def *cfg, pcs_life **out)
{
    return pcs_model_create(&life_kind, cfg, out);
}

pcs_status pcs_life_add(pcs_world *w, pcs_life *m, pcs_stage stage, int32_t priority)
{
    return pcs_model_add(&life_kind, w, m, stage, priority);
}
