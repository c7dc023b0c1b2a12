/**
 * @file flocking.c
 * @brief 2-D boids on a torus with a uniform neighbour grid.
 *
 * Step = (1) bin every agent of the current buffer into grid cells with a
 * stable counting sort (order[] lists agents cell by cell, ascending index
 * within a cell); (2) for each agent, visit the distinct cells of its 3 x 3
 * block in a fixed order and accumulate the neighbour sums; (3) write the new
 * velocity and position into the other buffer. Cells are at least one radius
 * wide, so the 3 x 3 block holds every neighbour; when the grid has fewer than
 * 3 cells on an axis the block is just the distinct cells, so nobody is
 * counted twice. Step (2)-(3) reads only the previous buffer and the grid, so
 * it can run on OpenMP threads without changing a bit of the result.
 *
 * Mirror symmetry: the domain is centred on 0, the wrap test is symmetric
 * (x > w/2 or x < -w/2), and every formula commutes with negation, so two
 * agents that mirror each other in x stay exact mirrors.
 *
 * Load check (registered worlds): the header's buffer index 0 or 1 and pad
 * 0; both buffers finite; in the current one every agent inside the domain
 * ([-w/2, w/2] x [-h/2, h/2]: the wrap keeps it closed) with a speed of at
 * most max_speed (the step's cap, with a rounding ulp).
 */
#include <float.h>
#include <string.h>

#include "physics/demo/model_common.h"
#include "pcsim/flocking.h"
#include "pcsim/math.h"
#include "pcsim/persist.h"
#include "pcsim/rng.h"

enum { FX = 0, FY = 1, FVX = 2, FVY = 3, FIELDS = 4 };

/* The model's stores once registered, in base.part_id. */
enum { PART_HDR, PART_AGENTS, PART_CELL, PART_ORDER, PART_START, PART_CURSOR, PARTS };
_Static_assert(PARTS <= PCS_MODEL_PARTS_MAX, "model_common holds every part");

struct pcs_flocking {
    pcs_model_base base; /* first: name, owned parts (standalone), store ids */
    uint32_t n;
    double width, height, half_w, half_h;
    double r2;         /* radius squared */
    double sep_d2_min; /* (1e-9 radius)^2: floor of the separation denominator */
    double w_align, w_cohesion, w_separation, max_speed, dt;
    uint32_t threads;
    uint32_t ncx, ncy;
    double cell_w, cell_h;
    pcs_model_header *hdr;
    double *agents;   /* 2 buffers x 4 fields x n */
    uint32_t *cell;   /* n: cell of each agent, current step */
    uint32_t *order;  /* n: agents sorted by cell */
    uint32_t *start;  /* ncells + 1: first slot of each cell in order[] */
    uint32_t *cursor; /* ncells: fill position during the sort */
};

static double *flock_field(const pcs_flocking *m, uint32_t buf, int field)
{
    return m->agents + ((size_t)buf * FIELDS + (size_t)field) * m->n;
}

pcs_status pcs_flocking_default(pcs_flocking_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_flocking_default: cfg is NULL");
    *cfg = (pcs_flocking_def){.agents = 256,
                              .width_m = 100.0,
                              .height_m = 100.0,
                              .radius_m = 5.0,
                              .w_align = 1.0,
                              .w_cohesion = 0.5,
                              .w_separation = 2.0,
                              .max_speed_m_s = 5.0,
                              .dt_s = 0.05,
                              .seed = 1,
                              .entity_id = 0,
                              .threads = 1,
                              .name = NULL};
    return PCS_OK;
}

/* v in [lo, hi]; NaN fails. */
static pcs_status range(const char *fn, const char *field, double v, double lo, double hi)
{
    if (v >= lo && v <= hi)
        return PCS_OK;
    return pcs_error_set(PCS_E_INVAL, "%s: %s = %g; allowed [%g, %g]", fn, field, v, lo, hi);
}

static pcs_status check_config(const char *fn, const void *def)
{
    const pcs_flocking_def *c = def;
    const pcs_model_count counts[] = {
        {"agents", c->agents, 1, PCS_FLOCKING_AGENTS_MAX, NULL, NULL},
        {"threads", c->threads, 1, PCS_FLOCKING_THREADS_MAX, NULL, NULL},
    };
    pcs_status st = pcs_model_counts_check(fn, counts, sizeof counts / sizeof counts[0]);
    if (st == PCS_OK)
        st = range(fn, "width_m", c->width_m, 1e-3, 1e6);
    if (st == PCS_OK)
        st = range(fn, "height_m", c->height_m, 1e-3, 1e6);
    if (st != PCS_OK)
        return st;
    double half_min = 0.5 * pcs_fmin(c->width_m, c->height_m);
    st = range(fn, "radius_m", c->radius_m, 1e-6, half_min);
    if (st == PCS_OK)
        st = range(fn, "w_align", c->w_align, 0.0, 1e3);
    if (st == PCS_OK)
        st = range(fn, "w_cohesion", c->w_cohesion, 0.0, 1e3);
    if (st == PCS_OK)
        st = range(fn, "w_separation", c->w_separation, 0.0, 1e3);
    if (st != PCS_OK)
        return st;
    if (!(c->max_speed_m_s > 0.0 && c->max_speed_m_s <= 1e6))
        return pcs_error_set(PCS_E_INVAL, "%s: max_speed_m_s = %g; allowed (0, 1e6]", fn,
                             c->max_speed_m_s);
    if (!(c->dt_s > 0.0 && c->dt_s <= 10.0))
        return pcs_error_set(PCS_E_INVAL, "%s: dt_s = %g; allowed (0, 10]", fn, c->dt_s);
    if (c->max_speed_m_s * c->dt_s > half_min)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: max_speed_m_s * dt_s = %g m; allowed <= min(width, height) / "
                             "2 = %g m (one wrap per step)",
                             fn, c->max_speed_m_s * c->dt_s, half_min);
    return PCS_OK;
}

/* Grid cells per side: at least one radius wide, at most GRID_SIDE_MAX per
 * side, and at most about 4 cells per agent so clearing the grid never costs
 * more than the agents do. */
static void choose_grid(pcs_flocking *m, double radius)
{
    double fx = pcs_floor(m->width / radius), fy = pcs_floor(m->height / radius);
    double side = (double)PCS_FLOCKING_GRID_SIDE_MAX;
    fx = pcs_clamp(fx, 1.0, side);
    fy = pcs_clamp(fy, 1.0, side);
    double cap = 4.0 * (double)m->n + 64.0;
    if (fx * fy > cap) {
        double f = pcs_sqrt(cap / (fx * fy));
        fx = pcs_fmax(1.0, pcs_floor(fx * f));
        fy = pcs_fmax(1.0, pcs_floor(fy * f));
    }
    m->ncx = (uint32_t)fx;
    m->ncy = (uint32_t)fy;
    m->cell_w = m->width / fx;
    m->cell_h = m->height / fy;
}

static void seed_agents(pcs_flocking *m, uint64_t seed, uint64_t entity_id)
{
    pcs_rng rng;
    pcs_rng_seed(&rng, seed, entity_id, 0);
    double *x = flock_field(m, 0, FX), *y = flock_field(m, 0, FY);
    double *vx = flock_field(m, 0, FVX), *vy = flock_field(m, 0, FVY);
    for (uint32_t i = 0; i < m->n; i++) {
        x[i] = (pcs_rng_uniform(&rng) - 0.5) * m->width;
        y[i] = (pcs_rng_uniform(&rng) - 0.5) * m->height;
        double angle = 2.0 * PCS_PI * pcs_rng_uniform(&rng);
        double speed = m->max_speed * pcs_rng_uniform(&rng);
        vx[i] = speed * pcs_cos(angle);
        vy[i] = speed * pcs_sin(angle);
    }
}

/* The header, the double-buffered agent fields and the four grid arrays
 * (scratch: rebuilt every step) (model_common.h). */
static uint32_t flocking_parts(void *model, pcs_model_part *p)
{
    pcs_flocking *m = model;
    size_t ncells = (size_t)m->ncx * m->ncy, fields = (size_t)2 * FIELDS * m->n;
    const pcs_store_kind scratch = PCS_STORE_SCRATCH;
    const size_t u32 = sizeof(uint32_t);
    p[PART_HDR] = (pcs_model_part){"hdr", sizeof(pcs_model_header), 1, PCS_STORE_STATE, &m->hdr};
    p[PART_AGENTS] =
        (pcs_model_part){"agents", sizeof(double), fields, PCS_STORE_STATE_F64, &m->agents};
    p[PART_CELL] = (pcs_model_part){"cell", u32, m->n, scratch, &m->cell};
    p[PART_ORDER] = (pcs_model_part){"order", u32, m->n, scratch, &m->order};
    p[PART_START] = (pcs_model_part){"start", u32, ncells + 1, scratch, &m->start};
    p[PART_CURSOR] = (pcs_model_part){"cursor", u32, ncells, scratch, &m->cursor};
    return PARTS;
}

/* The model's values from its def, the grid included (pcs_model_kind.init). */
static void flocking_init(void *model, const void *def)
{
    pcs_flocking *m = model;
    const pcs_flocking_def *cfg = def;
    m->n = cfg->agents;
    m->width = cfg->width_m;
    m->height = cfg->height_m;
    m->half_w = 0.5 * cfg->width_m;
    m->half_h = 0.5 * cfg->height_m;
    m->r2 = cfg->radius_m * cfg->radius_m;
    m->sep_d2_min = (1e-9 * cfg->radius_m) * (1e-9 * cfg->radius_m);
    m->w_align = cfg->w_align;
    m->w_cohesion = cfg->w_cohesion;
    m->w_separation = cfg->w_separation;
    m->max_speed = cfg->max_speed_m_s;
    m->dt = cfg->dt_s;
    m->threads = cfg->threads;
    choose_grid(m, cfg->radius_m);
}

/* The agents' first positions and velocities (pcs_model_kind.start). */
static pcs_status flocking_start(const char *fn, void *model, const void *def)
{
    (void)fn;
    const pcs_flocking_def *cfg = def;
    seed_agents(model, cfg->seed, cfg->entity_id);
    return PCS_OK;
}

void pcs_flocking_destroy(pcs_flocking *m)
{
    pcs_model_free(m);
}

/* Cell index of coordinate p; plain comparisons (no libm call) because this
 * runs per agent per step. p == +half, or NaN/outside values from a loaded
 * store, land on a valid edge cell. */
static uint32_t cell_coord(double p, double half, double cell, uint32_t cells)
{
    double c = (p + half) / cell;
    if (!(c > 0.0))
        return 0;
    if (c >= (double)cells)
        return cells - 1u;
    return (uint32_t)c;
}

/* Stable counting sort of the agents by cell. */
static void build_grid(pcs_flocking *m, const double *x, const double *y)
{
    uint32_t ncells = m->ncx * m->ncy;
    memset(m->start, 0, ((size_t)ncells + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t cx = cell_coord(x[i], m->half_w, m->cell_w, m->ncx);
        uint32_t cy = cell_coord(y[i], m->half_h, m->cell_h, m->ncy);
        m->cell[i] = cy * m->ncx + cx;
        m->start[m->cell[i] + 1]++;
    }
    for (uint32_t c = 0; c < ncells; c++) {
        m->start[c + 1] += m->start[c];
        m->cursor[c] = m->start[c];
    }
    for (uint32_t i = 0; i < m->n; i++)
        m->order[m->cursor[m->cell[i]]++] = i;
}

/* Distinct cell coordinates of the 3-wide block around c (fewer if the grid is narrow). */
static uint32_t block(uint32_t c, uint32_t cells, uint32_t out[3])
{
    if (cells < 3) {
        for (uint32_t k = 0; k < cells; k++)
            out[k] = k;
        return cells;
    }
    out[0] = c == 0 ? cells - 1 : c - 1;
    out[1] = c;
    out[2] = c + 1 == cells ? 0 : c + 1;
    return 3;
}

/* Bring x in [-2 half, 2 half] back into [-half, half] on the torus of width
 * size: the shortest offset for a raw difference, the wrapped coordinate for
 * a moved position. */
static inline double torus_wrap(double x, double half, double size)
{
    if (x > half)
        return x - size;
    if (x < -half)
        return x + size;
    return x;
}

typedef struct flock_sums {
    uint32_t n;
    double vx, vy; /* sum of neighbour velocities */
    double dx, dy; /* sum of offsets to neighbours */
    double sx, sy; /* sum of d / max(|d|^2, e^2) over non-coincident neighbours */
} flock_sums;

static void neighbour_sums(const pcs_flocking *m, const double *const src[FIELDS], uint32_t i,
                           flock_sums *s)
{
    const double xi = src[FX][i], yi = src[FY][i];
    uint32_t cols[3], rows[3];
    uint32_t home = m->cell[i];
    uint32_t ncol = block(home % m->ncx, m->ncx, cols);
    uint32_t nrow = block(home / m->ncx, m->ncy, rows);
    *s = (flock_sums){0};
    for (uint32_t r = 0; r < nrow; r++) {
        for (uint32_t c = 0; c < ncol; c++) {
            uint32_t cell = rows[r] * m->ncx + cols[c];
            for (uint32_t k = m->start[cell]; k < m->start[cell + 1]; k++) {
                uint32_t j = m->order[k];
                if (j == i)
                    continue;
                double dx = torus_wrap(src[FX][j] - xi, m->half_w, m->width);
                double dy = torus_wrap(src[FY][j] - yi, m->half_h, m->height);
                double d2 = dx * dx + dy * dy;
                if (!(d2 < m->r2))
                    continue;
                s->n++;
                s->vx += src[FVX][j];
                s->vy += src[FVY][j];
                s->dx += dx;
                s->dy += dy;
                if (d2 > 0.0) {
                    double q = d2 > m->sep_d2_min ? d2 : m->sep_d2_min;
                    s->sx += dx / q;
                    s->sy += dy / q;
                }
            }
        }
    }
}

static void update_agent(const pcs_flocking *m, const double *const src[FIELDS],
                         double *const dst[FIELDS], uint32_t i)
{
    flock_sums s;
    neighbour_sums(m, src, i, &s);
    double vx = src[FVX][i], vy = src[FVY][i];
    double ax = 0.0, ay = 0.0;
    if (s.n > 0) {
        double inv = 1.0 / (double)s.n;
        ax = m->w_align * (s.vx * inv - vx) + m->w_cohesion * (s.dx * inv) - m->w_separation * s.sx;
        ay = m->w_align * (s.vy * inv - vy) + m->w_cohesion * (s.dy * inv) - m->w_separation * s.sy;
    }
    vx += m->dt * ax;
    vy += m->dt * ay;
    double speed = pcs_sqrt(vx * vx + vy * vy);
    if (speed > m->max_speed) {
        double scale = m->max_speed / speed;
        vx *= scale;
        vy *= scale;
    }
    dst[FVX][i] = vx;
    dst[FVY][i] = vy;
    dst[FX][i] = torus_wrap(src[FX][i] + m->dt * vx, m->half_w, m->width);
    dst[FY][i] = torus_wrap(src[FY][i] + m->dt * vy, m->half_h, m->height);
}

pcs_status pcs_flocking_step(pcs_flocking *m)
{
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "pcs_flocking_step: model is NULL");
    uint32_t cur = m->hdr->cur & 1u;
    const double *const src[FIELDS] = {flock_field(m, cur, FX), flock_field(m, cur, FY),
                                       flock_field(m, cur, FVX), flock_field(m, cur, FVY)};
    double *const dst[FIELDS] = {flock_field(m, cur ^ 1u, FX), flock_field(m, cur ^ 1u, FY),
                                 flock_field(m, cur ^ 1u, FVX), flock_field(m, cur ^ 1u, FVY)};
    build_grid(m, src[FX], src[FY]);
    const long n = (long)m->n;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads((int)m->threads) if (m->threads > 1)
#endif
    for (long i = 0; i < n; i++)
        update_agent(m, src, dst, (uint32_t)i);
    m->hdr->cur = cur ^ 1u;
    m->hdr->steps++;
    return PCS_OK;
}

pcs_status pcs_flocking_set_agent(pcs_flocking *m, uint32_t i, double x_m, double y_m,
                                  double vx_m_s, double vy_m_s)
{
    static const char fn[] = "pcs_flocking_set_agent";
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "%s: model is NULL", fn);
    if (i >= m->n)
        return pcs_error_set(PCS_E_INVAL, "%s: agent %u; allowed [0, %u)", fn, i, m->n);
    pcs_status st = range(fn, "x_m", x_m, -m->half_w, m->half_w);
    if (st == PCS_OK)
        st = range(fn, "y_m", y_m, -m->half_h, m->half_h);
    if (st == PCS_OK)
        st = range(fn, "vx_m_s", vx_m_s, -m->max_speed, m->max_speed);
    if (st == PCS_OK)
        st = range(fn, "vy_m_s", vy_m_s, -m->max_speed, m->max_speed);
    if (st != PCS_OK)
        return st;
    double speed = pcs_sqrt(vx_m_s * vx_m_s + vy_m_s * vy_m_s);
    if (speed > m->max_speed)
        return pcs_error_set(PCS_E_INVAL, "%s: agent %u speed = %g m/s; allowed [0, %g]", fn, i,
                             speed, m->max_speed);
    uint32_t cur = m->hdr->cur & 1u;
    flock_field(m, cur, FX)[i] = x_m;
    flock_field(m, cur, FY)[i] = y_m;
    flock_field(m, cur, FVX)[i] = vx_m_s;
    flock_field(m, cur, FVY)[i] = vy_m_s;
    return PCS_OK;
}

pcs_status pcs_flocking_get_agent(const pcs_flocking *m, uint32_t i, double *x_m, double *y_m,
                                  double *vx_m_s, double *vy_m_s)
{
    if (!m || i >= m->n)
        return pcs_error_set(PCS_E_INVAL, "pcs_flocking_get_agent: NULL model or agent %u", i);
    uint32_t cur = m->hdr->cur & 1u;
    if (x_m)
        *x_m = flock_field(m, cur, FX)[i];
    if (y_m)
        *y_m = flock_field(m, cur, FY)[i];
    if (vx_m_s)
        *vx_m_s = flock_field(m, cur, FVX)[i];
    if (vy_m_s)
        *vy_m_s = flock_field(m, cur, FVY)[i];
    return PCS_OK;
}

uint32_t pcs_flocking_count(const pcs_flocking *m)
{
    return m ? m->n : 0;
}

uint64_t pcs_flocking_steps(const pcs_flocking *m)
{
    return m ? m->hdr->steps : 0;
}

void pcs_flocking_grid_size(const pcs_flocking *m, uint32_t *cells_x, uint32_t *cells_y)
{
    if (cells_x)
        *cells_x = m ? m->ncx : 0;
    if (cells_y)
        *cells_y = m ? m->ncy : 0;
}

static pcs_status flocking_system(pcs_world *w, void *ctx)
{
    (void)w;
    return pcs_flocking_step(ctx);
}

static pcs_status agent_check(const pcs_flocking *m, const double *a, uint32_t cur, uint32_t i)
{
    size_t base = (size_t)cur * FIELDS * m->n;
    const double half[2] = {m->half_w, m->half_h};
    char allowed[64];
    for (int f = FX; f <= FY; f++) {
        double x = a[base + (size_t)f * m->n + i];
        snprintf(allowed, sizeof allowed, "[%.9g, %.9g] (the domain)", -half[f], half[f]);
        if (!(x >= -half[f] && x <= half[f]))
            return pcs_model_bad(m->base.name, "agents", base + (size_t)f * m->n + i,
                                 f == FX ? "x m" : "y m", x, allowed);
    }
    double vx = a[base + (size_t)FVX * m->n + i], vy = a[base + (size_t)FVY * m->n + i];
    double speed = pcs_sqrt(vx * vx + vy * vy);
    snprintf(allowed, sizeof allowed, "[0, %.9g] m/s (max_speed)", m->max_speed);
    if (!(speed <= m->max_speed * (1.0 + 1e-12)))
        return pcs_model_bad(m->base.name, "agents", base + (size_t)FVX * m->n + i, "speed m/s",
                             speed, allowed);
    return PCS_OK;
}

static pcs_status flocking_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_flocking *m = ctx;
    const uint32_t *id = m->base.part_id;
    const pcs_model_header *h = pcs_load_view_store(v, id[PART_HDR]);
    const double *a = pcs_load_view_store(v, id[PART_AGENTS]);
    pcs_status st = pcs_model_header_check(m->base.name, h);
    if (st == PCS_OK)
        st = pcs_load_check_f64(pcs_store_name(w, id[PART_AGENTS]), "agent field", a,
                                (size_t)2 * FIELDS * m->n, 1, -DBL_MAX, DBL_MAX, 0);
    for (uint32_t i = 0; st == PCS_OK && i < m->n; i++)
        st = agent_check(m, a, h->cur, i);
    return st;
}

static const pcs_model_kind flocking_kind = {
    .name = "flocking",
    .layout = {.size = sizeof(pcs_flocking), .def_name = offsetof(pcs_flocking_def, name)},
    .setup = {.check = check_config, .init = flocking_init, .start = flocking_start},
    .state = {.parts = flocking_parts,
              .system = flocking_system,
              .load_check = flocking_load_check},
};

pcs_status pcs_flocking_create(const pcs_flocking_def *cfg, pcs_flocking **out)
{
    return pcs_model_create(&flocking_kind, cfg, out);
}

pcs_status pcs_flocking_add(pcs_world *w, pcs_flocking *m, pcs_stage stage, int32_t priority)
{
    return pcs_model_add(&flocking_kind, w, m, stage, priority);
}
