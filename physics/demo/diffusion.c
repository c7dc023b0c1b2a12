/**
 * @file diffusion.c
 * @brief 2-D scalar diffusion: explicit 4-neighbour step, no-flux boundary.
 *
 * The step is written so that every cell, interior or boundary, evaluates the
 * same expression in the same order (cell_update below); a boundary simply
 * passes the cell itself as its missing neighbour, whose difference term is
 * then exactly 0. That keeps the boundary conservative and lets the row loop
 * run on any number of OpenMP threads with bit-identical results: no cell
 * reads anything another thread writes, and no reduction is involved.
 *
 * Load check (registered worlds): the header's buffer index 0 or 1 and pad
 * 0; every value of both fields finite (pcs_diffusion_set admits any finite
 * value, and the step, a convex combination for coeff <= 0.25, keeps them).
 */
#include <float.h>
#include <string.h>

#include "physics/demo/model_common.h"
#include "pcsim/diffusion.h"
#include "pcsim/math.h"
#include "pcsim/persist.h"

/* The model's stores once registered, in base.part_id. */
enum { PART_HDR, PART_U0, PART_U1, PARTS };
_Static_assert(PARTS <= PCS_MODEL_PARTS_MAX, "model_common holds every part");

struct pcs_diffusion {
    pcs_model_base base;   /* first: name, owned parts (standalone), store ids */
    pcs_diffusion_def def; /* its def, the name at base.name (model_common.h layout.def_at) */
    double *buf[2];        /* the two fields; point into stores once registered */
    pcs_model_header *hdr; /* step count and current field; a store once registered */
};

pcs_status pcs_diffusion_default(pcs_diffusion_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_diffusion_default: cfg is NULL");
    *cfg = (pcs_diffusion_def){.nx = 64, .ny = 64, .coeff = 0.2, .threads = 1, .name = NULL};
    return PCS_OK;
}

static pcs_status check_config(const char *fn, const void *def)
{
    const pcs_diffusion_def *cfg = def;
    const pcs_model_count counts[] = {
        {"nx", cfg->nx, 1, PCS_DIFFUSION_SIDE_MAX, NULL, NULL},
        {"ny", cfg->ny, 1, PCS_DIFFUSION_SIDE_MAX, NULL, NULL},
        {"nx * ny", (uint64_t)cfg->nx * cfg->ny, 1, PCS_DIFFUSION_CELLS_MAX, "cells", NULL},
        {"threads", cfg->threads, 1, PCS_DIFFUSION_THREADS_MAX, NULL, NULL},
    };
    pcs_status st = pcs_model_counts_check(fn, counts, sizeof counts / sizeof counts[0]);
    if (st != PCS_OK)
        return st;
    /* Written as a negated range test so NaN fails it too. */
    if (!(cfg->coeff >= 0.0 && cfg->coeff <= 0.25))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: coeff = %g; allowed [0, 0.25] (explicit stability limit)", fn,
                             cfg->coeff);
    return PCS_OK;
}

/* The header and the two fields (model_common.h). */
static uint32_t diffusion_parts(void *model, pcs_model_part *p)
{
    pcs_diffusion *m = model;
    size_t n = (size_t)m->def.nx * m->def.ny;
    p[PART_HDR] = (pcs_model_part){"hdr", sizeof(pcs_model_header), 1, PCS_STORE_STATE, &m->hdr};
    p[PART_U0] = (pcs_model_part){"u0", sizeof(double), n, PCS_STORE_STATE_F64, &m->buf[0]};
    p[PART_U1] = (pcs_model_part){"u1", sizeof(double), n, PCS_STORE_STATE_F64, &m->buf[1]};
    return PARTS;
}

void pcs_diffusion_destroy(pcs_diffusion *m)
{
    pcs_model_free(m);
}

/* Fixed summation order (left, right, up, down) for every cell. */
static inline double cell_update(double l, double c, double r, double u, double d, double k)
{
    return c + k * ((((l - c) + (r - c)) + (u - c)) + (d - c));
}

/* One output row from the rows above (up), at (mid) and below (dn); at the
 * grid's top or bottom edge the caller passes mid as up or dn. */
static void diffuse_row(const double *restrict up, const double *restrict mid,
                        const double *restrict dn, double *restrict out, size_t nx, double k)
{
    if (nx == 1) {
        out[0] = cell_update(mid[0], mid[0], mid[0], up[0], dn[0], k);
        return;
    }
    out[0] = cell_update(mid[0], mid[0], mid[1], up[0], dn[0], k);
    /* At -O2 gcc vectorizes only loops without a scalar remainder; the simd
     * pragma asks for vector code anyway. Lanes are independent cells, so
     * the arithmetic (and every result bit) is the same as the scalar loop. */
    const size_t end = nx - 1;
#if defined(_OPENMP) && !defined(__clang__) /* clang 14 refuses it: -Wpass-failed */
#pragma omp simd
#endif
    for (size_t x = 1; x < end; x++)
        out[x] = cell_update(mid[x - 1], mid[x], mid[x + 1], up[x], dn[x], k);
    out[end] = cell_update(mid[end - 1], mid[end], mid[end], up[end], dn[end], k);
}

pcs_status pcs_diffusion_step(pcs_diffusion *m)
{
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "pcs_diffusion_step: model is NULL");
    uint32_t cur = m->hdr->cur & 1u;
    const double *src = m->buf[cur];
    double *dst = m->buf[cur ^ 1u];
    const size_t nx = m->def.nx;
    const long ny = (long)m->def.ny;
    const double k = m->def.coeff;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads((int)m->def.threads) if (m->def.threads > 1)
#endif
    for (long y = 0; y < ny; y++) {
        const double *mid = src + (size_t)y * nx;
        const double *up = y > 0 ? mid - nx : mid;
        const double *dn = y + 1 < ny ? mid + nx : mid;
        diffuse_row(up, mid, dn, dst + (size_t)y * nx, nx, k);
    }
    m->hdr->cur = cur ^ 1u;
    m->hdr->steps++;
    return PCS_OK;
}

pcs_status pcs_diffusion_set(pcs_diffusion *m, uint32_t x, uint32_t y, double value)
{
    static const char fn[] = "pcs_diffusion_set";
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "%s: model is NULL", fn);
    if (x >= m->def.nx || y >= m->def.ny)
        return pcs_error_set(PCS_E_INVAL, "%s: cell (%u, %u) outside the %u x %u grid", fn, x, y,
                             m->def.nx, m->def.ny);
    if (!pcs_isfinite(value))
        return pcs_error_set(PCS_E_INVAL, "%s: value at (%u, %u) = %g; must be finite", fn, x, y,
                             value);
    m->buf[m->hdr->cur & 1u][(size_t)y * m->def.nx + x] = value;
    return PCS_OK;
}

double pcs_diffusion_get(const pcs_diffusion *m, uint32_t x, uint32_t y)
{
    if (!m || x >= m->def.nx || y >= m->def.ny)
        return 0.0;
    return m->buf[m->hdr->cur & 1u][(size_t)y * m->def.nx + x];
}

const double *pcs_diffusion_field(const pcs_diffusion *m)
{
    return m ? m->buf[m->hdr->cur & 1u] : NULL;
}

double pcs_diffusion_total(const pcs_diffusion *m)
{
    if (!m)
        return 0.0;
    const double *u = m->buf[m->hdr->cur & 1u];
    size_t n = (size_t)m->def.nx * m->def.ny;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += u[i];
    return sum;
}

uint64_t pcs_diffusion_steps(const pcs_diffusion *m)
{
    return m ? m->hdr->steps : 0;
}

static pcs_status diffusion_system(pcs_world *w, void *ctx)
{
    (void)w;
    return pcs_diffusion_step(ctx);
}

static pcs_status diffusion_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_diffusion *m = ctx;
    const uint32_t *id = m->base.part_id;
    size_t n = (size_t)m->def.nx * m->def.ny;
    pcs_status st = pcs_model_header_check(m->base.name, pcs_load_view_store(v, id[PART_HDR]));
    for (int b = PART_U0; st == PCS_OK && b <= PART_U1; b++)
        st = pcs_load_check_f64(pcs_store_name(w, id[b]), "value", pcs_load_view_store(v, id[b]), n,
                                1, -DBL_MAX, DBL_MAX, 0);
    return st;
}

static const pcs_model_kind diffusion_kind = {
    .name = "diffusion",
    .layout = {.size = sizeof(pcs_diffusion),
               .def_name = offsetof(pcs_diffusion_def, name),
               .def_at = offsetof(pcs_diffusion, def),
               .def_size = sizeof(pcs_diffusion_def)},
    .setup = {.check = check_config},
    .state = {.parts = diffusion_parts,
              .system = diffusion_system,
              .load_check = diffusion_load_check},
};

pcs_status pcs_diffusion_create(const pcs_diffusion_def *cfg, pcs_diffusion **out)
{
    return pcs_model_create(&diffusion_kind, cfg, out);
}

pcs_status pcs_diffusion_add(pcs_world *w, pcs_diffusion *m, pcs_stage stage, int32_t priority)
{
    return pcs_model_add(&diffusion_kind, w, m, stage, priority);
}
