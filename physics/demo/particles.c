/**
 * @file particles.c
 * @brief Integer grid particles bouncing off walls and obstacles.
 *
 * Particles never interact, so each one's step depends only on its own state
 * and the (constant during a step) cell map: no double buffer is needed and
 * the update order is irrelevant. Motion is split into unit moves per axis
 * (see particles.h) so that every bounce is decided by one cell lookup.
 *
 * Load check (registered worlds): count at most the capacity, pad 0; cells 0
 * or 1; every live particle inside the grid, off obstacles, with each
 * velocity component within +-PCS_PARTICLES_SPEED_MAX (as pcs_particles_spawn
 * requires; a step keeps all three).
 */
#include <string.h>

#include "physics/demo/model_common.h"
#include "pcsim/particles.h"
#include "pcsim/persist.h"

typedef struct particles_header {
    uint32_t count;
    uint32_t pad;
    uint64_t steps;
} particles_header;

typedef struct particle {
    int32_t x, y, vx, vy;
} particle;

/* The model's stores once registered, in base.part_id. */
enum { PART_HDR, PART_CELLS, PART_PARTS, PARTS };
_Static_assert(PARTS <= PCS_MODEL_PARTS_MAX, "model_common holds every part");

struct pcs_particles {
    pcs_model_base base;   /* first: name, owned parts (standalone), store ids */
    pcs_particles_def def; /* its def, the name at base.name (model_common.h layout.def_at) */
    particles_header *hdr;
    uint8_t *cells; /* width * height, 1 = obstacle */
    particle *parts;
};

pcs_status pcs_particles_default(pcs_particles_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_particles_default: cfg is NULL");
    *cfg = (pcs_particles_def){.width = 32, .height = 16, .max_particles = 64, .name = NULL};
    return PCS_OK;
}

/* The header, the obstacle grid and the particle slots (model_common.h). */
static uint32_t particles_parts(void *model, pcs_model_part *p)
{
    pcs_particles *m = model;
    size_t ncells = (size_t)m->def.width * m->def.height;
    p[PART_HDR] = (pcs_model_part){"hdr", sizeof(particles_header), 1, PCS_STORE_STATE, &m->hdr};
    p[PART_CELLS] = (pcs_model_part){"cells", 1, ncells, PCS_STORE_STATE, &m->cells};
    p[PART_PARTS] = (pcs_model_part){"parts", sizeof(particle), m->def.max_particles,
                                     PCS_STORE_STATE, &m->parts};
    return PARTS;
}

static pcs_status check_config(const char *fn, const void *def)
{
    const pcs_particles_def *cfg = def;
    const pcs_model_count counts[] = {
        {"width", cfg->width, 1, PCS_PARTICLES_SIDE_MAX, NULL, NULL},
        {"height", cfg->height, 1, PCS_PARTICLES_SIDE_MAX, NULL, NULL},
        {"max_particles", cfg->max_particles, 1, PCS_PARTICLES_MAX, NULL, NULL},
    };
    return pcs_model_counts_check(fn, counts, sizeof counts / sizeof counts[0]);
}

void pcs_particles_destroy(pcs_particles *m)
{
    pcs_model_free(m);
}

/* Particles in use, never past capacity even if a loaded store says so. */
static uint32_t live(const pcs_particles *m)
{
    return m->hdr->count < m->def.max_particles ? m->hdr->count : m->def.max_particles;
}

static int occupied(const pcs_particles *m, uint32_t x, uint32_t y)
{
    for (uint32_t i = 0; i < live(m); i++)
        if (m->parts[i].x == (int32_t)x && m->parts[i].y == (int32_t)y)
            return 1;
    return 0;
}

pcs_status pcs_particles_set_obstacle(pcs_particles *m, uint32_t x, uint32_t y, int on)
{
    static const char fn[] = "pcs_particles_set_obstacle";
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "%s: model is NULL", fn);
    if (x >= m->def.width || y >= m->def.height)
        return pcs_error_set(PCS_E_INVAL, "%s: cell (%u, %u) outside the %u x %u grid", fn, x, y,
                             m->def.width, m->def.height);
    if (on && occupied(m, x, y))
        return pcs_error_set(PCS_E_INVAL, "%s: cell (%u, %u) holds a particle", fn, x, y);
    m->cells[(size_t)y * m->def.width + x] = on ? 1u : 0u;
    return PCS_OK;
}

/* Check the map's shape and characters; on success every cell (x, y) is at
 * map[y * (width + 1) + x]. */
static pcs_status check_map(const pcs_particles *m, const char *map)
{
    static const char fn[] = "pcs_particles_load_map";
    const char *p = map;
    for (uint32_t y = 0; y < m->def.height; y++) {
        for (uint32_t x = 0; x < m->def.width; x++, p++) {
            if (*p == '\0' && x == 0)
                return pcs_error_set(PCS_E_INVAL, "%s: map has %u lines; want height = %u", fn, y,
                                     m->def.height);
            if (*p == '\0' || *p == '\n')
                return pcs_error_set(PCS_E_INVAL, "%s: line %u has %u chars; want width = %u", fn,
                                     y + 1, x, m->def.width);
            if (*p != '#' && *p != '.')
                return pcs_error_set(PCS_E_INVAL,
                                     "%s: line %u column %u is '%c'; allowed '#' or '.'", fn, y + 1,
                                     x + 1, *p);
        }
        if (*p == '\n')
            p++;
        else if (*p != '\0')
            return pcs_error_set(PCS_E_INVAL, "%s: line %u is longer than width = %u", fn, y + 1,
                                 m->def.width);
        else if (y + 1 < m->def.height)
            return pcs_error_set(PCS_E_INVAL, "%s: map has %u lines; want height = %u", fn, y + 1,
                                 m->def.height);
    }
    if (*p != '\0')
        return pcs_error_set(PCS_E_INVAL, "%s: more than height = %u lines", fn, m->def.height);
    for (uint32_t i = 0; i < live(m); i++) {
        const particle *q = &m->parts[i];
        if (map[(size_t)q->y * (m->def.width + 1u) + (size_t)q->x] == '#')
            return pcs_error_set(PCS_E_INVAL, "%s: obstacle at (%d, %d) on particle %u", fn, q->x,
                                 q->y, i);
    }
    return PCS_OK;
}

pcs_status pcs_particles_load_map(pcs_particles *m, const char *map)
{
    if (!m || !map)
        return pcs_error_set(PCS_E_INVAL, "pcs_particles_load_map: model or map is NULL");
    pcs_status st = check_map(m, map);
    if (st != PCS_OK)
        return st;
    for (uint32_t y = 0; y < m->def.height; y++)
        for (uint32_t x = 0; x < m->def.width; x++)
            m->cells[(size_t)y * m->def.width + x] =
                map[(size_t)y * (m->def.width + 1u) + x] == '#';
    return PCS_OK;
}

static int blocked(const pcs_particles *m, int32_t x, int32_t y)
{
    if (x < 0 || y < 0 || (uint32_t)x >= m->def.width || (uint32_t)y >= m->def.height)
        return 1;
    return m->cells[(size_t)y * m->def.width + (size_t)x] != 0;
}

pcs_status pcs_particles_spawn(pcs_particles *m, int32_t x, int32_t y, int32_t vx, int32_t vy,
                               uint32_t *index)
{
    static const char fn[] = "pcs_particles_spawn";
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "%s: model is NULL", fn);
    if (x < 0 || y < 0 || (uint32_t)x >= m->def.width || (uint32_t)y >= m->def.height)
        return pcs_error_set(PCS_E_INVAL, "%s: (%d, %d) outside the %u x %u grid", fn, x, y,
                             m->def.width, m->def.height);
    if (blocked(m, x, y))
        return pcs_error_set(PCS_E_INVAL, "%s: (%d, %d) is an obstacle", fn, x, y);
    if (vx < -PCS_PARTICLES_SPEED_MAX || vx > PCS_PARTICLES_SPEED_MAX ||
        vy < -PCS_PARTICLES_SPEED_MAX || vy > PCS_PARTICLES_SPEED_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: velocity (%d, %d); each allowed [-%d, %d]", fn, vx,
                             vy, PCS_PARTICLES_SPEED_MAX, PCS_PARTICLES_SPEED_MAX);
    if (m->hdr->count >= m->def.max_particles)
        return pcs_error_set(PCS_E_OVERFLOW, "%s: '%s' is full (max_particles = %u)", fn,
                             m->base.name, m->def.max_particles);
    uint32_t i = m->hdr->count++;
    m->parts[i] = (particle){x, y, vx, vy};
    if (index)
        *index = i;
    return PCS_OK;
}

pcs_status pcs_particles_get(const pcs_particles *m, uint32_t i, int32_t *x, int32_t *y,
                             int32_t *vx, int32_t *vy)
{
    if (!m || i >= live(m))
        return pcs_error_set(PCS_E_INVAL, "pcs_particles_get: NULL model or no particle %u", i);
    const particle *p = &m->parts[i];
    if (x)
        *x = p->x;
    if (y)
        *y = p->y;
    if (vx)
        *vx = p->vx;
    if (vy)
        *vy = p->vy;
    return PCS_OK;
}

/* Unit moves along one axis; (*pos, *vel) is the moving coordinate, and
 * (ax, ay) says which axis it is (1, 0) for x, (0, 1) for y. */
static void move_axis(const pcs_particles *m, particle *p, int32_t *pos, int32_t *vel, int32_t ax,
                      int32_t ay)
{
    int32_t units = *vel < 0 ? -*vel : *vel;
    for (int32_t k = 0; k < units; k++) {
        int32_t dir = *vel > 0 ? 1 : -1;
        if (blocked(m, p->x + ax * dir, p->y + ay * dir)) {
            *vel = -*vel;
            dir = -dir;
            if (blocked(m, p->x + ax * dir, p->y + ay * dir))
                return; /* walled in on both sides along this axis */
        }
        *pos += dir;
    }
}

pcs_status pcs_particles_step(pcs_particles *m)
{
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "pcs_particles_step: model is NULL");
    uint32_t n = live(m);
    for (uint32_t i = 0; i < n; i++) {
        particle *p = &m->parts[i];
        move_axis(m, p, &p->x, &p->vx, 1, 0);
        move_axis(m, p, &p->y, &p->vy, 0, 1);
    }
    m->hdr->steps++;
    return PCS_OK;
}

pcs_status pcs_particles_render(const pcs_particles *m, char *buf, size_t cap)
{
    if (!m || !buf)
        return pcs_error_set(PCS_E_INVAL, "pcs_particles_render: model or buf is NULL");
    size_t line = (size_t)m->def.width + 1;
    size_t need = line * m->def.height + 1;
    if (cap < need)
        return pcs_error_set(PCS_E_INVAL, "pcs_particles_render: cap = %zu bytes; need %zu", cap,
                             need);
    for (uint32_t y = 0; y < m->def.height; y++) {
        for (uint32_t x = 0; x < m->def.width; x++)
            buf[y * line + x] = m->cells[(size_t)y * m->def.width + x] ? '#' : '.';
        buf[y * line + m->def.width] = '\n';
    }
    for (uint32_t i = 0; i < live(m); i++) {
        const particle *p = &m->parts[i];
        if (!blocked(m, p->x, p->y)) /* always true; guards a corrupt loaded store */
            buf[(size_t)p->y * line + (size_t)p->x] = 'o';
    }
    buf[need - 1] = '\0';
    return PCS_OK;
}

uint32_t pcs_particles_count(const pcs_particles *m)
{
    return m ? live(m) : 0;
}

uint64_t pcs_particles_steps(const pcs_particles *m)
{
    return m ? m->hdr->steps : 0;
}

static pcs_status particles_system(pcs_world *w, void *ctx)
{
    (void)w;
    return pcs_particles_step(ctx);
}

static pcs_status particle_check(const pcs_particles *m, const uint8_t *cells, const particle *q,
                                 uint32_t i)
{
    const int32_t s = PCS_PARTICLES_SPEED_MAX;
    char allowed[64];
    snprintf(allowed, sizeof allowed, "[0, %u)", m->def.width);
    if (q->x < 0 || (uint32_t)q->x >= m->def.width)
        return pcs_model_bad(m->base.name, "parts", i, "x", q->x, allowed);
    snprintf(allowed, sizeof allowed, "[0, %u)", m->def.height);
    if (q->y < 0 || (uint32_t)q->y >= m->def.height)
        return pcs_model_bad(m->base.name, "parts", i, "y", q->y, allowed);
    if (q->vx < -s || q->vx > s || q->vy < -s || q->vy > s)
        return pcs_model_bad(m->base.name, "parts", i, q->vx < -s || q->vx > s ? "vx" : "vy",
                             q->vx < -s || q->vx > s ? q->vx : q->vy, "[-64, 64]");
    if (cells[(size_t)q->y * m->def.width + (size_t)q->x])
        return pcs_model_bad(m->base.name, "parts", i, "cell under the particle", 1.0,
                             "0 (no particle on an obstacle)");
    return PCS_OK;
}

static pcs_status particles_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    (void)w;
    const pcs_particles *m = ctx;
    const particles_header *h = pcs_load_view_store(v, m->base.part_id[PART_HDR]);
    const uint8_t *cells = pcs_load_view_store(v, m->base.part_id[PART_CELLS]);
    const particle *parts = pcs_load_view_store(v, m->base.part_id[PART_PARTS]);
    char allowed[64];
    snprintf(allowed, sizeof allowed, "[0, %u] (max_particles)", m->def.max_particles);
    if (h->count > m->def.max_particles)
        return pcs_model_bad(m->base.name, "hdr", 0, "count", h->count, allowed);
    if (h->pad != 0u)
        return pcs_model_bad(m->base.name, "hdr", 0, "pad", h->pad, "0");
    size_t n = (size_t)m->def.width * m->def.height;
    for (size_t i = 0; i < n; i++)
        if (cells[i] > 1u)
            return pcs_model_bad(m->base.name, "cells", i, "cell", cells[i], "0 or 1");
    for (uint32_t i = 0; i < h->count; i++) {
        pcs_status st = particle_check(m, cells, &parts[i], i);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

static const pcs_model_kind particles_kind = {
    .name = "particles",
    .layout = {.size = sizeof(pcs_particles),
               .def_name = offsetof(pcs_particles_def, name),
               .def_at = offsetof(pcs_particles, def),
               .def_size = sizeof(pcs_particles_def)},
    .setup = {.check = check_config},
    .state = {.parts = particles_parts,
              .system = particles_system,
              .load_check = particles_load_check},
};

pcs_status pcs_particles_create(const pcs_particles_def *cfg, pcs_particles **out)
{
    return pcs_model_create(&particles_kind, cfg, out);
}

pcs_status pcs_particles_add(pcs_world *w, pcs_particles *m, pcs_stage stage, int32_t priority)
{
    return pcs_model_add(&particles_kind, w, m, stage, priority);
}
