/**
 * @file rayaabb.c
 * @brief 2-D ray/AABB slab test and a brute-force ray caster.
 *
 * Why this form of the slab test: intervals start as [0, DBL_MAX], so an
 * origin inside the box yields t = 0 and boxes behind the origin miss; every
 * comparison is inclusive, so touching the closed box counts as a hit. An
 * axis whose direction component is 0 never divides: the ray is either inside
 * that slab for all t or never. Because every coordinate is bounded by
 * PCS_RAYAABB_COORD_MAX, (bound - origin) is finite, and dividing it by a
 * non-zero component gives a finite or infinite t but never NaN; a slab that
 * starts at t = +inf lies beyond DBL_MAX and is reported as a miss.
 *
 * Load check (registered worlds): ray and box counts at most the capacities;
 * every live ray and box passes the init functions' rules (coordinates
 * within PCS_RAYAABB_COORD_MAX, a non-zero direction, no inverted box); every
 * live ray's hit a miss (t = -1, PCS_RAYAABB_NONE) or a live box with t in
 * [0, DBL_MAX]; pads 0.
 */
#include <float.h>
#include <string.h>

#include "physics/demo/model_common.h"
#include "pcsim/persist.h"
#include "pcsim/rayaabb.h"

typedef struct rayaabb_header {
    uint32_t n_rays;
    uint32_t n_boxes;
    uint64_t steps;
} rayaabb_header;

typedef struct rayaabb_hit {
    double t;     /* entry parameter; -1 on a miss */
    uint32_t box; /* PCS_RAYAABB_NONE on a miss */
    uint32_t pad; /* 0: hashed byte for byte */
} rayaabb_hit;

/* The caster's stores once registered, in base.part_id. */
enum { PART_HDR, PART_RAYS, PART_BOXES, PART_HITS, PARTS };
_Static_assert(PARTS <= PCS_MODEL_PARTS_MAX, "model_common holds every part");

struct pcs_rayaabb {
    pcs_model_base base; /* first: name, owned parts (standalone), store ids */
    pcs_rayaabb_def def; /* its def, the name at base.name (model_common.h layout.def_at) */
    rayaabb_header *hdr;
    pcs_rayaabb_ray *rays;
    pcs_rayaabb_box *boxes;
    rayaabb_hit *hits;
};

/* Finite and within the coordinate limit; NaN fails the comparison. */
static int coord_ok(double v)
{
    return v >= -PCS_RAYAABB_COORD_MAX && v <= PCS_RAYAABB_COORD_MAX;
}

static pcs_status coord_check(const char *fn, const char *field, double v)
{
    if (coord_ok(v))
        return PCS_OK;
    return pcs_error_set(PCS_E_INVAL, "%s: %s = %g; must be finite with |%s| <= %g", fn, field, v,
                         field, PCS_RAYAABB_COORD_MAX);
}

/* A ray's and a box's four coordinates as the messages name them, in the
 * order both the calls' checks and the load check test them. */
static const char *const ray_field[4] = {"ox", "oy", "dx", "dy"};
static const char *const box_field[4] = {"min_x", "min_y", "max_x", "max_y"};

/* The four coordinates of a ray or a box, named in @p field, in order; the
 * first out of range is the one reported. */
static pcs_status coords_check(const char *fn, const char *const field[4], const double v[4])
{
    pcs_status st = PCS_OK;
    for (int i = 0; st == PCS_OK && i < 4; i++)
        st = coord_check(fn, field[i], v[i]);
    return st;
}

static pcs_status ray_check(const char *fn, const pcs_rayaabb_ray *r)
{
    if (!r)
        return pcs_error_set(PCS_E_INVAL, "%s: ray is NULL", fn);
    pcs_status st = coords_check(fn, ray_field, (const double[4]){r->ox, r->oy, r->dx, r->dy});
    if (st == PCS_OK && r->dx == 0.0 && r->dy == 0.0)
        return pcs_error_set(PCS_E_INVAL, "%s: direction (dx, dy) = (0, 0); must be non-zero", fn);
    return st;
}

static pcs_status box_check(const char *fn, const pcs_rayaabb_box *b)
{
    if (!b)
        return pcs_error_set(PCS_E_INVAL, "%s: box is NULL", fn);
    pcs_status st =
        coords_check(fn, box_field, (const double[4]){b->min_x, b->min_y, b->max_x, b->max_y});
    if (st != PCS_OK)
        return st;
    if (b->min_x > b->max_x)
        return pcs_error_set(PCS_E_INVAL, "%s: inverted box: min_x = %g > max_x = %g", fn, b->min_x,
                             b->max_x);
    if (b->min_y > b->max_y)
        return pcs_error_set(PCS_E_INVAL, "%s: inverted box: min_y = %g > max_y = %g", fn, b->min_y,
                             b->max_y);
    return PCS_OK;
}

pcs_status pcs_rayaabb_ray_check(const pcs_rayaabb_ray *ray)
{
    return ray_check("pcs_rayaabb_ray_check", ray);
}

pcs_status pcs_rayaabb_box_check(const pcs_rayaabb_box *box)
{
    return box_check("pcs_rayaabb_box_check", box);
}

pcs_status pcs_rayaabb_ray_init(pcs_rayaabb_ray *ray, double ox, double oy, double dx, double dy)
{
    if (!ray)
        return pcs_error_set(PCS_E_INVAL, "pcs_rayaabb_ray_init: ray is NULL");
    pcs_rayaabb_ray r = {ox, oy, dx, dy};
    pcs_status st = ray_check("pcs_rayaabb_ray_init", &r);
    if (st == PCS_OK)
        *ray = r;
    return st;
}

pcs_status pcs_rayaabb_box_init(pcs_rayaabb_box *box, double min_x, double min_y, double max_x,
                                double max_y)
{
    if (!box)
        return pcs_error_set(PCS_E_INVAL, "pcs_rayaabb_box_init: box is NULL");
    pcs_rayaabb_box b = {min_x, min_y, max_x, max_y};
    pcs_status st = box_check("pcs_rayaabb_box_init", &b);
    if (st == PCS_OK)
        *box = b;
    return st;
}

/* Narrow [*lo, *hi] to the t where o + t d lies in [mn, mx]; 0 once empty. */
static inline int slab(double o, double d, double mn, double mx, double *lo, double *hi)
{
    if (d == 0.0)
        return o >= mn && o <= mx;
    double t1 = (mn - o) / d;
    double t2 = (mx - o) / d;
    if (t1 > t2) {
        double s = t1;
        t1 = t2;
        t2 = s;
    }
    if (t1 > *lo)
        *lo = t1;
    if (t2 < *hi)
        *hi = t2;
    return *lo <= *hi;
}

int pcs_rayaabb_intersect(const pcs_rayaabb_ray *ray, const pcs_rayaabb_box *box, double *t)
{
    double lo = 0.0, hi = DBL_MAX;
    if (!slab(ray->ox, ray->dx, box->min_x, box->max_x, &lo, &hi))
        return 0;
    if (!slab(ray->oy, ray->dy, box->min_y, box->max_y, &lo, &hi))
        return 0;
    if (t)
        *t = lo;
    return 1;
}

/* ---- caster ------------------------------------------------------------ */

static const rayaabb_hit rayaabb_miss = {-1.0, PCS_RAYAABB_NONE, 0};

pcs_status pcs_rayaabb_default(pcs_rayaabb_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_rayaabb_default: cfg is NULL");
    *cfg = (pcs_rayaabb_def){.max_rays = 64, .max_boxes = 64, .name = NULL};
    return PCS_OK;
}

/* The header, the rays, the boxes and each ray's hit (model_common.h). */
static uint32_t rayaabb_parts(void *model, pcs_model_part *p)
{
    pcs_rayaabb *m = model;
    const pcs_store_kind f64 = PCS_STORE_STATE_F64;
    p[PART_HDR] = (pcs_model_part){"hdr", sizeof(rayaabb_header), 1, PCS_STORE_STATE, &m->hdr};
    p[PART_RAYS] =
        (pcs_model_part){"rays", sizeof(pcs_rayaabb_ray), m->def.max_rays, f64, &m->rays};
    p[PART_BOXES] =
        (pcs_model_part){"boxes", sizeof(pcs_rayaabb_box), m->def.max_boxes, f64, &m->boxes};
    p[PART_HITS] =
        (pcs_model_part){"hits", sizeof(rayaabb_hit), m->def.max_rays, PCS_STORE_STATE, &m->hits};
    return PARTS;
}

static pcs_status check_config(const char *fn, const void *def)
{
    const pcs_rayaabb_def *cfg = def;
    const pcs_model_count counts[] = {
        {"max_rays", cfg->max_rays, 1, PCS_RAYAABB_RAYS_MAX, NULL, NULL},
        {"max_boxes", cfg->max_boxes, 1, PCS_RAYAABB_BOXES_MAX, NULL, NULL},
    };
    return pcs_model_counts_check(fn, counts, sizeof counts / sizeof counts[0]);
}

void pcs_rayaabb_destroy(pcs_rayaabb *m)
{
    pcs_model_free(m);
}

/* The caster's two lists: the same rules (a bounded count in the header, a
 * checked element) for different element types. */
enum list { RAYS, BOXES };

/* Write @p elem into list @p l of @p m: at a new slot when @p set_at is
 * NULL (a ray also gets a fresh miss as its hit), else over element
 * *set_at, which must exist. The new slot's index goes to @p out_index
 * when given. Checks in the order the calls document: the caster, the
 * index (set), the element, the room (add). */
static pcs_status list_put(const char *fn, pcs_rayaabb *m, enum list l, const void *elem,
                           const uint32_t *set_at, uint32_t *out_index)
{
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "%s: caster is NULL", fn);
    uint32_t *n = l == RAYS ? &m->hdr->n_rays : &m->hdr->n_boxes;
    if (set_at && *set_at >= *n)
        return pcs_error_set(PCS_E_INVAL, "%s: index = %u; allowed [0, %u)", fn, *set_at, *n);
    pcs_status st = l == RAYS ? ray_check(fn, elem) : box_check(fn, elem);
    if (st != PCS_OK)
        return st;
    const uint32_t max = l == RAYS ? m->def.max_rays : m->def.max_boxes;
    if (!set_at && *n >= max)
        return pcs_error_set(PCS_E_OVERFLOW, "%s: caster '%s' is full (%s = %u)", fn, m->base.name,
                             l == RAYS ? "max_rays" : "max_boxes", max);
    const uint32_t i = set_at ? *set_at : (*n)++;
    if (l == RAYS)
        m->rays[i] = *(const pcs_rayaabb_ray *)elem;
    else
        m->boxes[i] = *(const pcs_rayaabb_box *)elem;
    if (l == RAYS && !set_at)
        m->hits[i] = rayaabb_miss;
    if (out_index)
        *out_index = i;
    return PCS_OK;
}

pcs_status pcs_rayaabb_add_ray(pcs_rayaabb *m, const pcs_rayaabb_ray *ray, uint32_t *index)
{
    return list_put("pcs_rayaabb_add_ray", m, RAYS, ray, NULL, index);
}

pcs_status pcs_rayaabb_add_box(pcs_rayaabb *m, const pcs_rayaabb_box *box, uint32_t *index)
{
    return list_put("pcs_rayaabb_add_box", m, BOXES, box, NULL, index);
}

pcs_status pcs_rayaabb_set_ray(pcs_rayaabb *m, uint32_t index, const pcs_rayaabb_ray *ray)
{
    return list_put("pcs_rayaabb_set_ray", m, RAYS, ray, &index, NULL);
}

pcs_status pcs_rayaabb_set_box(pcs_rayaabb *m, uint32_t index, const pcs_rayaabb_box *box)
{
    return list_put("pcs_rayaabb_set_box", m, BOXES, box, &index, NULL);
}

pcs_status pcs_rayaabb_step(pcs_rayaabb *m)
{
    if (!m)
        return pcs_error_set(PCS_E_INVAL, "pcs_rayaabb_step: caster is NULL");
    /* Counts may come from a loaded store: never trust them past capacity. */
    uint32_t nr = m->hdr->n_rays < m->def.max_rays ? m->hdr->n_rays : m->def.max_rays;
    uint32_t nb = m->hdr->n_boxes < m->def.max_boxes ? m->hdr->n_boxes : m->def.max_boxes;
    for (uint32_t i = 0; i < nr; i++) {
        rayaabb_hit best = rayaabb_miss;
        for (uint32_t j = 0; j < nb; j++) {
            double t;
            if (pcs_rayaabb_intersect(&m->rays[i], &m->boxes[j], &t) &&
                (best.box == PCS_RAYAABB_NONE || t < best.t)) {
                best.t = t;
                best.box = j;
            }
        }
        m->hits[i] = best;
    }
    m->hdr->steps++;
    return PCS_OK;
}

int pcs_rayaabb_result(const pcs_rayaabb *m, uint32_t index, double *t, uint32_t *box)
{
    if (!m || index >= m->hdr->n_rays || index >= m->def.max_rays)
        return 0;
    const rayaabb_hit *h = &m->hits[index];
    if (h->box == PCS_RAYAABB_NONE)
        return 0;
    if (t)
        *t = h->t;
    if (box)
        *box = h->box;
    return 1;
}

uint64_t pcs_rayaabb_steps(const pcs_rayaabb *m)
{
    return m ? m->hdr->steps : 0;
}

static pcs_status rayaabb_system(pcs_world *w, void *ctx)
{
    (void)w;
    return pcs_rayaabb_step(ctx);
}

/* coords_check for a loaded element @p i of store "<instance>.<part>". */
static pcs_status coords_load_check(const pcs_rayaabb *m, const char *part, uint32_t i,
                                    const char *const field[4], const double c[4])
{
    for (int k = 0; k < 4; k++)
        if (!coord_ok(c[k]))
            return pcs_model_bad(m->base.name, part, i, field[k], c[k],
                                 "finite, |v| <= PCS_RAYAABB_COORD_MAX");
    return PCS_OK;
}

static pcs_status ray_load_check(const pcs_rayaabb *m, const pcs_rayaabb_ray *r, uint32_t i)
{
    pcs_status st =
        coords_load_check(m, "rays", i, ray_field, (const double[4]){r->ox, r->oy, r->dx, r->dy});
    if (st == PCS_OK && r->dx == 0.0 && r->dy == 0.0)
        return pcs_model_bad(m->base.name, "rays", i, "dx, dy", 0.0, "a non-zero direction");
    return st;
}

static pcs_status box_load_check(const pcs_rayaabb *m, const pcs_rayaabb_box *b, uint32_t i)
{
    pcs_status st = coords_load_check(m, "boxes", i, box_field,
                                      (const double[4]){b->min_x, b->min_y, b->max_x, b->max_y});
    if (st != PCS_OK)
        return st;
    if (b->min_x > b->max_x)
        return pcs_model_bad(m->base.name, "boxes", i, "min_x", b->min_x, "<= max_x");
    if (b->min_y > b->max_y)
        return pcs_model_bad(m->base.name, "boxes", i, "min_y", b->min_y, "<= max_y");
    return PCS_OK;
}

static pcs_status hit_load_check(const pcs_rayaabb *m, const rayaabb_hit *h, uint32_t n_boxes,
                                 uint32_t i)
{
    int miss = h->box == PCS_RAYAABB_NONE && h->t == -1.0;
    int hit = h->box < n_boxes && h->t >= 0.0 && h->t <= DBL_MAX;
    if (h->pad != 0u || !(miss || hit))
        return pcs_model_bad(m->base.name, "hits", i, "box", h->box,
                             "a live box with t in [0, DBL_MAX], or a miss (NONE, t = -1)");
    return PCS_OK;
}

static pcs_status rayaabb_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    (void)w;
    const pcs_rayaabb *m = ctx;
    const uint32_t *id = m->base.part_id;
    const rayaabb_header *h = pcs_load_view_store(v, id[PART_HDR]);
    if (h->n_rays > m->def.max_rays)
        return pcs_model_bad(m->base.name, "hdr", 0, "n_rays", h->n_rays, "at most max_rays");
    if (h->n_boxes > m->def.max_boxes)
        return pcs_model_bad(m->base.name, "hdr", 0, "n_boxes", h->n_boxes, "at most max_boxes");
    const pcs_rayaabb_ray *rays = pcs_load_view_store(v, id[PART_RAYS]);
    const pcs_rayaabb_box *boxes = pcs_load_view_store(v, id[PART_BOXES]);
    const rayaabb_hit *hits = pcs_load_view_store(v, id[PART_HITS]);
    pcs_status st = PCS_OK;
    for (uint32_t j = 0; st == PCS_OK && j < h->n_boxes; j++)
        st = box_load_check(m, &boxes[j], j);
    for (uint32_t i = 0; st == PCS_OK && i < h->n_rays; i++) {
        st = ray_load_check(m, &rays[i], i);
        if (st == PCS_OK)
            st = hit_load_check(m, &hits[i], h->n_boxes, i);
    }
    return st;
}

static const pcs_model_kind rayaabb_kind = {
    .name = "rayaabb",
    .what = "caster",
    .layout = {.size = sizeof(pcs_rayaabb),
               .def_name = offsetof(pcs_rayaabb_def, name),
               .def_at = offsetof(pcs_rayaabb, def),
               .def_size = sizeof(pcs_rayaabb_def)},
    .setup = {.check = check_config},
    .state = {.parts = rayaabb_parts, .system = rayaabb_system, .load_check = rayaabb_load_check},
};

pcs_status pcs_rayaabb_create(const pcs_rayaabb_def *cfg, pcs_rayaabb **out)
{
    return pcs_model_create(&rayaabb_kind, cfg, out);
}

pcs_status pcs_rayaabb_add(pcs_world *w, pcs_rayaabb *m, pcs_stage stage, int32_t priority)
{
    return pcs_model_add(&rayaabb_kind, w, m, stage, priority);
}
