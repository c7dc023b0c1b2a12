/**
 * @file test_entity.c
 * @brief The entity table (pcsim/entity.h): ids never reused and stale
 *        handles refused over 1e6 create/destroy cycles (property test),
 *        names after removals, the generation wrap, forged handles, no
 *        allocation after the build, and the station's devices by name.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"
#include "tests/prop.h"

static pcs_world *world_with_generations(uint32_t capacity, uint32_t generation_max)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    pcs_world *w = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK)
        return NULL;
    pcs_entity_table_def d = pcs_entity_table_default();
    d.capacity = capacity;
    d.generation_max = generation_max;
    if (pcs_entity_table_add(w, &d) != PCS_OK) {
        pcs_world_destroy(w);
        return NULL;
    }
    return w;
}

static pcs_world *world_with_table(uint32_t capacity)
{
    return world_with_generations(capacity, UINT32_MAX);
}

static pcs_status create_named(pcs_world *w, const char *name, pcs_entity_handle *h)
{
    pcs_entity_def d = pcs_entity_default();
    d.name = name;
    return pcs_entity_create(w, &d, h);
}

/* ---- property: 1e6 create/destroy cycles of the table alone -------------- */

#define CASES 10u
#define CREATES_PER_CASE 100000u /* CASES x this = 1e6 cycles */

typedef struct churn {
    pcs_entity_handle *live; /* the model: live handles, any order */
    uint64_t *live_id;
    uint32_t n_live;
    pcs_entity_handle *stale; /* every destroyed handle of the case */
    uint64_t *stale_id;
    uint32_t n_stale;
} churn;

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Stale handle i is refused: pcs_entity_id (the bare test every handle
 * passes, engine/entity.c live_rec) always; with @p full also the
 * messages' path and the id index (formatting an error costs more than the
 * table operation, so the churn samples it). */
static int stale_refused(prop *p, pcs_world *w, const churn *c, uint32_t i, int full)
{
    pcs_entity_handle h = c->stale[i];
    pcs_entity_handle found;
    if (pcs_entity_id(w, h) != 0)
        return prop_fail(p, "stale handle (%u, %u) of id %llu accepted", h.index, h.generation,
                         (unsigned long long)c->stale_id[i]);
    if (!full)
        return 0;
    if (pcs_entity_check(w, h) != PCS_E_NOTFOUND)
        return prop_fail(p, "stale handle (%u, %u) of id %llu accepted", h.index, h.generation,
                         (unsigned long long)c->stale_id[i]);
    if (pcs_entity_find_id(w, c->stale_id[i], &found) != PCS_E_NOTFOUND)
        return prop_fail(p, "destroyed id %llu still found", (unsigned long long)c->stale_id[i]);
    return 0;
}

/* 1 created, 0 refused as full (checked), -1 failed. */
static int do_create(prop *p, pcs_world *w, churn *c, uint64_t *expect_id, uint32_t capacity)
{
    char name[32];
    snprintf(name, sizeof name, "e%llu", (unsigned long long)*expect_id);
    pcs_entity_handle h;
    pcs_status st = create_named(w, name, &h);
    if (st == PCS_E_OVERFLOW) /* only when every slot is live or retired */
        return c->n_live + pcs_entity_retired(w) == capacity
                   ? 0
                   : -prop_fail(p, "overflow with %u live, %u retired of %u", c->n_live,
                                pcs_entity_retired(w), capacity);
    if (st != PCS_OK)
        return -prop_fail(p, "create %s: %s", name, pcs_last_error());
    uint64_t id = pcs_entity_id(w, h);
    if (id != *expect_id) /* monotonic and never reused: exactly the next one */
        return -prop_fail(p, "created id %llu, expected %llu", (unsigned long long)id,
                          (unsigned long long)*expect_id);
    (*expect_id)++;
    c->live[c->n_live] = h;
    c->live_id[c->n_live++] = id;
    return 1;
}

static int do_destroy(prop *p, pcs_world *w, churn *c, uint64_t pick)
{
    uint32_t k = (uint32_t)(pick % c->n_live);
    pcs_entity_handle h = c->live[k];
    if (pcs_entity_destroy(w, h) != PCS_OK)
        return prop_fail(p, "destroy (%u, %u): %s", h.index, h.generation, pcs_last_error());
    c->stale[c->n_stale] = h;
    c->stale_id[c->n_stale++] = c->live_id[k];
    c->live[k] = c->live[c->n_live - 1];
    c->live_id[k] = c->live_id[--c->n_live];
    int full = (c->n_stale & 15) == 0;
    if (full && pcs_entity_destroy(w, h) != PCS_E_NOTFOUND)
        return prop_fail(p, "second destroy of (%u, %u) accepted", h.index, h.generation);
    return stale_refused(p, w, c, c->n_stale - 1, full);
}

/* A live entity is found by its name and id; a destroyed one's name is gone. */
static int names_agree(prop *p, pcs_world *w, const churn *c, uint64_t r)
{
    char name[32];
    pcs_entity_handle h;
    if (c->n_live) {
        uint32_t k = (uint32_t)(r % c->n_live);
        snprintf(name, sizeof name, "e%llu", (unsigned long long)c->live_id[k]);
        if (pcs_entity_find(w, name, &h) != PCS_OK || h.index != c->live[k].index ||
            h.generation != c->live[k].generation)
            return prop_fail(p, "live %s not found by name: %s", name, pcs_last_error());
        if (pcs_entity_find_id(w, c->live_id[k], &h) != PCS_OK || h.index != c->live[k].index)
            return prop_fail(p, "live id %llu not found", (unsigned long long)c->live_id[k]);
    }
    if (c->n_stale) {
        uint32_t k = (uint32_t)((r >> 32) % c->n_stale);
        snprintf(name, sizeof name, "e%llu", (unsigned long long)c->stale_id[k]);
        if (pcs_entity_find(w, name, &h) != PCS_E_NOTFOUND)
            return prop_fail(p, "destroyed %s still found by name", name);
    }
    return 0;
}

/* Churn until CREATES_PER_CASE creates, or until the table is dead (every
 * slot retired: only with a small generation_max). */
static int churn_case(prop *p, pcs_world *w, churn *c, uint32_t capacity, uint64_t seed)
{
    uint64_t expect_id = 1, creates = 0, s = seed;
    while (creates < CREATES_PER_CASE) {
        uint64_t r = next_rand(&s);
        /* The live count wanders over the whole table: bursts of creates
         * and of destroys, biased by where it is. */
        int create = c->n_live == 0 || (r % capacity) >= c->n_live;
        int rc = create ? do_create(p, w, c, &expect_id, capacity) : do_destroy(p, w, c, r >> 20);
        if (rc < 0 || (!create && rc))
            return 1;
        if (create && rc == 0 && c->n_live == 0)
            break; /* dead: every slot retired, checked by do_create */
        creates += (uint64_t)(create && rc == 1);
        if (!create && c->n_live == 0 && pcs_entity_retired(w) == capacity)
            break;
        /* An old handle, checked while its slot may hold a later entity. */
        if (c->n_stale && stale_refused(p, w, c, (uint32_t)((r >> 40) % c->n_stale), 0))
            return 1;
        if (pcs_entity_count(w) != c->n_live)
            return prop_fail(p, "count %u, model %u", pcs_entity_count(w), c->n_live);
        if ((creates & 1023) == 0 && names_agree(p, w, c, next_rand(&s)))
            return 1;
    }
    for (uint32_t i = 0; i < c->n_stale; i++) /* every stale handle of the case, at the end */
        if (stale_refused(p, w, c, i, (i & 63) == 0))
            return 1;
    return 0;
}

typedef struct churn_mode {
    uint32_t cap_lo, cap_hi;
    int small_generations; /* generation_max drawn in [1, 64], else UINT32_MAX */
} churn_mode;

static int churn_property(prop *p, void *ctx)
{
    const churn_mode *m = ctx;
    uint32_t capacity = (uint32_t)prop_int(p, m->cap_lo, m->cap_hi);
    uint32_t gen_max = m->small_generations ? (uint32_t)prop_int(p, 1, 64) : UINT32_MAX;
    uint64_t seed = prop_u64(p, UINT64_MAX);
    prop_note(p, "capacity %u, generation_max %u, seed %llu", capacity, gen_max,
              (unsigned long long)seed);
    pcs_world *w = world_with_generations(capacity, gen_max);
    churn c = {.live = calloc(capacity, sizeof *c.live),
               .live_id = calloc(capacity, sizeof *c.live_id),
               .stale = calloc(2 * CREATES_PER_CASE, sizeof *c.stale),
               .stale_id = calloc(2 * CREATES_PER_CASE, sizeof *c.stale_id)};
    int rc = !w || !c.live || !c.live_id || !c.stale || !c.stale_id
                 ? prop_fail(p, "setup: %s", pcs_last_error())
                 : churn_case(p, w, &c, capacity, seed);
    free(c.live);
    free(c.live_id);
    free(c.stale);
    free(c.stale_id);
    pcs_world_destroy(w);
    return rc;
}

static void ids_never_reused_stale_handles_refused_over_1e6_cycles(void)
{
    /* Default generations: no slot retires, so each case makes exactly
     * CREATES_PER_CASE creates: 1e6 over the cases. */
    churn_mode m = {64, 2048, 0};
    prop_config cfg;
    prop_config_default(&cfg, "entity_churn");
    cfg.cases = CASES;
    cfg.max_shrink_runs = 50; /* a run is 1e5 cycles */
    prop_result res;
    cr_assert_eq(prop_check(&cfg, churn_property, &m, &res), 0, "%s", res.message);
}

static void churn_through_generation_wrap_retires_slots_and_refuses_every_stale_handle(void)
{
    /* Small tables with 1..64 generations a slot: they churn until every
     * slot has retired; no stale handle, from any generation, is accepted. */
    churn_mode m = {1, 64, 1};
    prop_config cfg;
    prop_config_default(&cfg, "entity_churn_wrap");
    cfg.cases = 50;
    prop_result res;
    cr_assert_eq(prop_check(&cfg, churn_property, &m, &res), 0, "%s", res.message);
}

/* ---- names, recreate, wrap, forged handles --------------------------------- */

static void recreating_a_name_gives_a_new_id_and_the_old_handle_fails(void)
{
    pcs_world *w = world_with_table(4);
    cr_assert_not_null(w);
    pcs_entity_handle a, b, f;
    cr_assert_eq(create_named(w, "pump", &a), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(create_named(w, "pump", &f), PCS_E_INVAL, "a live name is unique");
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_entity_create: name 'pump' is taken by entity 1 (index 0, generation 1)");
    cr_assert_eq(pcs_entity_destroy(w, a), PCS_OK);
    cr_assert_eq(pcs_entity_find(w, "pump", &f), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "pcs_entity_find: no entity named 'pump'");
    cr_assert_eq(create_named(w, "pump", &b), PCS_OK, "%s", pcs_last_error());
    /* The freed slot is reused (oldest free first) with the next generation. */
    cr_assert_eq(b.index, 0);
    cr_assert_eq(b.generation, 2);
    cr_assert_eq(pcs_entity_id(w, b), 2, "a new id, not 1 again");
    cr_assert_eq(pcs_entity_find(w, "pump", &f), PCS_OK);
    cr_assert(f.index == b.index && f.generation == b.generation);
    pcs_entity_info info;
    cr_assert_eq(pcs_entity_get(w, a, &info), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "entity handle (index 0, generation 1) is stale: slot 0 is "
                                       "at generation 2 (entity 2 'pump')");
    cr_assert_eq(pcs_entity_find_id(w, 1, &f), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_entity_find_id: no live entity with id 1 (ids issued: 1..2)");
    pcs_world_destroy(w);
}

static void name_lookup_after_removals_finds_every_survivor(void)
{
    /* 200 names, every third destroyed: the backward-shift deletion must
     * leave every other probe chain intact. */
    pcs_world *w = world_with_table(256);
    cr_assert_not_null(w);
    pcs_entity_handle h[200];
    char name[32];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "u%d.dev%d", i % 4 + 1, i);
        cr_assert_eq(create_named(w, name, &h[i]), PCS_OK, "%s", pcs_last_error());
    }
    for (int i = 0; i < 200; i += 3)
        cr_assert_eq(pcs_entity_destroy(w, h[i]), PCS_OK);
    cr_assert_eq(pcs_entity_count(w), 200 - 67);
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "u%d.dev%d", i % 4 + 1, i);
        pcs_entity_handle f;
        pcs_status st = pcs_entity_find(w, name, &f);
        if (i % 3 == 0) {
            cr_assert_eq(st, PCS_E_NOTFOUND, "%s was destroyed", name);
            continue;
        }
        cr_assert_eq(st, PCS_OK, "%s: %s", name, pcs_last_error());
        cr_assert(f.index == h[i].index && f.generation == h[i].generation, "%s", name);
        cr_assert_eq(pcs_entity_find_id(w, (uint64_t)i + 1, &f), PCS_OK, "id %d", i + 1);
        cr_assert_eq(f.index, h[i].index);
    }
    pcs_world_destroy(w);
}

static void a_slot_retires_at_its_last_generation_instead_of_wrapping(void)
{
    /* The command-packable configuration (entity.h, "Generation wrap"). */
    pcs_world *w = world_with_generations(1, PCS_TARGET_GENERATION_MAX);
    cr_assert_not_null(w);
    pcs_entity_handle h = {0, 0}, first = {0, 0};
    for (uint32_t g = 1; g <= PCS_TARGET_GENERATION_MAX; g++) {
        cr_assert_eq(create_named(w, "x", &h), PCS_OK, "generation %u: %s", g, pcs_last_error());
        cr_assert_eq(h.generation, g);
        if (g == 1)
            first = h;
        cr_assert_eq(pcs_entity_destroy(w, h), PCS_OK);
    }
    cr_assert_eq(pcs_entity_retired(w), 1);
    cr_assert_eq(create_named(w, "x", &h), PCS_E_OVERFLOW);
    cr_assert_str_eq(pcs_last_error(), "pcs_entity_create: 'x': the entity table is full (1 "
                                       "slots: 0 live, 1 retired by generation wrap)");
    cr_assert_eq(pcs_entity_check(w, first), PCS_E_NOTFOUND, "generation 1 never comes back");
    cr_assert_eq(pcs_entity_check(w, (pcs_entity_handle){0, PCS_TARGET_GENERATION_MAX}),
                 PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "entity handle (index 0, generation 4095) is stale: slot 0 "
                                       "is at generation 4095 (retired)");
    pcs_world_destroy(w);
}

static void forged_and_null_handles_are_refused_by_name(void)
{
    pcs_world *w = world_with_table(8);
    cr_assert_not_null(w);
    pcs_entity_handle h;
    cr_assert_eq(create_named(w, "a", &h), PCS_OK);
    pcs_entity_info info;
    cr_assert_eq(pcs_entity_get(w, (pcs_entity_handle){8, 1}, &info), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(),
                     "entity handle (index 8, generation 1) is outside the table (capacity 8)");
    cr_assert_eq(pcs_entity_check(w, (pcs_entity_handle){0, 0}), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "entity handle (index 0, generation 0) is null");
    cr_assert_eq(pcs_entity_check(w, (pcs_entity_handle){0, 7}), PCS_E_NOTFOUND, "future gen");
    cr_assert_str_eq(pcs_last_error(), "entity handle (index 0, generation 7) is stale: slot 0 is "
                                       "at generation 1 (entity 1 'a')");
    cr_assert_eq(pcs_entity_check(w, (pcs_entity_handle){3, 1}), PCS_E_NOTFOUND, "unused slot");
    cr_assert_str_eq(pcs_last_error(), "entity handle (index 3, generation 1) is stale: slot 3 is "
                                       "at generation 1 (free)");
    /* A handle round-trips through a command's 32-bit target field. */
    pcs_entity_handle back = pcs_target_id_load(pcs_target_id_store(h));
    cr_assert_eq(pcs_entity_check(w, back), PCS_OK);
    pcs_world_destroy(w);
}

static void fields_rows_owner_and_argument_errors(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    pcs_world *w;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_entity_def d = pcs_entity_default();
    cr_assert_eq(d.store, PCS_ENTITY_NO_STORE);
    cr_assert_eq(pcs_entity_create(w, &d, NULL), PCS_E_STATE, "no table yet");
    cr_assert_str_eq(pcs_last_error(), "pcs_entity_create: the world has no entity table "
                                       "(pcs_entity_table_add at build)");
    pcs_entity_table_def td = pcs_entity_table_default();
    cr_assert_eq(td.capacity, 4096);
    cr_assert_eq(td.generation_max, UINT32_MAX);
    td.generation_max = 0;
    cr_assert_eq(pcs_entity_table_add(w, &td), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_entity_table_add: generation_max 0 is outside [1, 4294967295]");
    td.generation_max = UINT32_MAX;
    td.capacity = 0;
    cr_assert_eq(pcs_entity_table_add(w, &td), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_entity_table_add: capacity 0 is outside [1, 1048575]");
    td.capacity = 16;
    cr_assert_eq(pcs_entity_table_add(w, &td), PCS_OK);
    cr_assert_eq(pcs_entity_table_add(w, &td), PCS_E_STATE);
    uint32_t store;
    cr_assert_eq(pcs_store_register(w, "pumps.speed", sizeof(double), 4, PCS_STORE_STATE, &store),
                 PCS_OK);

    pcs_entity_handle unit, pump;
    d.name = "u1";
    d.kind = 1;
    cr_assert_eq(pcs_entity_create(w, &d, &unit), PCS_OK);
    d = pcs_entity_default();
    d.name = "u1.pump3";
    d.kind = 2;
    d.owner = 99;
    cr_assert_eq(pcs_entity_create(w, &d, &pump), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_entity_create: 'u1.pump3': owner 99 is not a live "
                                       "entity");
    d.owner = pcs_entity_id(w, unit);
    d.store = store + 1;
    cr_assert_eq(pcs_entity_create(w, &d, &pump), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_entity_create: store 1 is not registered (1 stores)");
    d.store = store;
    d.row = 2;
    cr_assert_eq(pcs_entity_create(w, &d, &pump), PCS_OK, "%s", pcs_last_error());
    d.name = "bad name";
    cr_assert_eq(pcs_entity_create(w, &d, NULL), PCS_E_INVAL, "names follow pcs_name_check");

    pcs_entity_info info;
    cr_assert_eq(pcs_entity_get(w, pump, &info), PCS_OK);
    cr_assert_eq(info.id, 2);
    cr_assert_str_eq(info.name, "u1.pump3");
    cr_assert_eq(info.kind, 2);
    cr_assert_eq(info.owner, 1);
    cr_assert_eq(info.store, store);
    cr_assert_eq(info.row, 2);
    cr_assert_eq(pcs_entity_set_row(w, pump, store, 3), PCS_OK);
    cr_assert_eq(pcs_entity_get(w, pump, &info), PCS_OK);
    cr_assert_eq(info.row, 3);
    cr_assert_eq(pcs_entity_set_row(w, pump, 7, 0), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_get(w, unit, &info), PCS_OK);
    cr_assert_str_eq(info.name, "u1");
    cr_assert_eq(info.owner, 0);
    cr_assert_eq(info.store, PCS_ENTITY_NO_STORE);
    pcs_world_destroy(w);
}

static void create_and_destroy_after_the_seal_allocate_nothing(void)
{
    pcs_world *w = world_with_table(64);
    cr_assert_not_null(w);
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    pcs_entity_table_def td = pcs_entity_table_default();
    cr_assert_eq(pcs_entity_table_add(w, &td), PCS_E_STATE, "sealed");
    uint64_t heap = pcs_world_alloc_count(w);
    pcs_test_alloc_begin();
    char name[32];
    for (int i = 0; i < 10000; i++) {
        pcs_entity_handle h, f;
        snprintf(name, sizeof name, "dev%d", i % 17);
        cr_assert_eq(create_named(w, name, &h), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_entity_find(w, name, &f), PCS_OK);
        cr_assert_eq(pcs_entity_destroy(w, h), PCS_OK);
    }
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(mallocs, 0, "%llu allocations", (unsigned long long)mallocs);
    cr_assert_eq(pcs_world_alloc_count(w), heap, "no world-heap allocation");
    cr_assert_eq(pcs_entity_count(w), 0);
    pcs_world_destroy(w);
}

/* ---- the station's devices ------------------------------------------------- */

Test(entity, station_devices_are_found_by_name_and_stay_valid_for_100_ticks)
{
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_default(&scn), PCS_OK, "%s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cfg.workers = 0;
    pcs_world *w;
    pcs_station *st;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    cr_assert_eq(pcs_station_add(w, scn, &st), PCS_OK, "%s", pcs_last_error());
    cr_assert_geq(pcs_station_unit_count(st), 2, "the default scenario has a u2");

    static const struct {
        const char *name;
        uint32_t kind;
        const char *owner;
    } devices[] = {
        {"u1", PCS_STATION_ENTITY_UNIT, NULL},
        {"u2", PCS_STATION_ENTITY_UNIT, NULL},
        {"u2.pump2", PCS_STATION_ENTITY_PUMP, "u2"},
        {"u1.pump4", PCS_STATION_ENTITY_PUMP, "u1"},
        {"u1.loop1.flow.B", PCS_STATION_ENTITY_SENSOR, "u1"},
        {"u2.alarm.flow_low.2", PCS_STATION_ENTITY_ALARM, "u2"},
    };
    enum { N = sizeof devices / sizeof devices[0] };
    pcs_entity_handle h[N];
    uint64_t ids[N];
    for (int i = 0; i < N; i++) {
        cr_assert_eq(pcs_entity_find(w, devices[i].name, &h[i]), PCS_OK, "%s", pcs_last_error());
        pcs_entity_info info;
        cr_assert_eq(pcs_entity_get(w, h[i], &info), PCS_OK);
        cr_assert_str_eq(info.name, devices[i].name);
        cr_assert_eq(info.kind, devices[i].kind, "%s", devices[i].name);
        pcs_entity_handle o;
        uint64_t owner = 0;
        if (devices[i].owner) {
            cr_assert_eq(pcs_entity_find(w, devices[i].owner, &o), PCS_OK);
            owner = pcs_entity_id(w, o);
        }
        cr_assert_eq(info.owner, owner, "%s", devices[i].name);
        pcs_target_id t;
        cr_assert_eq(pcs_command_target_find(w, devices[i].name, &t), PCS_OK,
                     "every entity name is a command target");
        ids[i] = info.id;
    }
    cr_assert_eq(ids[0], 1, "u1 is the first entity");

    /* A sensor's row is where its measured value lives. */
    pcs_entity_info info;
    cr_assert_eq(pcs_entity_get(w, h[4], &info), PCS_OK);
    uint32_t sid, store, row;
    const pcs_sensors *sensors = pcs_plant_sensors(pcs_station_plant(st));
    cr_assert_eq(pcs_sensor_find(sensors, "u1.loop1.flow.B", &sid), PCS_OK);
    cr_assert_eq(pcs_sensor_value_ref(sensors, sid, &store, &row), PCS_OK);
    cr_assert_eq(info.store, store);
    cr_assert_eq(info.row, row);

    /* Every unit, pump, valve, sensor and alarm: units x (1 + loops pumps +
     * loops MSIVs + loops SG PORVs + 1 steam dump) + sensors + alarms (the
     * default's units are all steam-side; tests/test_station_entities.c
     * counts each kind by hand). */
    uint32_t expect =
        pcs_sensor_count(sensors) + pcs_alarm_count(pcs_plant_alarms(pcs_station_plant(st)));
    for (uint32_t u = 0; u < pcs_station_unit_count(st); u++)
        expect += 2 + 3 * pcs_plant_unit_get(pcs_station_plant(st), u)->n_loops;
    cr_assert_eq(pcs_entity_count(w), expect);

    for (int t = 0; t < 100; t++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "tick %d: %s", t, pcs_last_error());
    for (int i = 0; i < N; i++) {
        cr_assert_eq(pcs_entity_check(w, h[i]), PCS_OK, "%s: %s", devices[i].name,
                     pcs_last_error());
        cr_assert_eq(pcs_entity_id(w, h[i]), ids[i]);
        pcs_entity_handle again;
        cr_assert_eq(pcs_entity_find(w, devices[i].name, &again), PCS_OK);
        cr_assert(again.index == h[i].index && again.generation == h[i].generation);
    }
    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
}

static void null_world_and_missing_table_are_errors_not_crashes(void)
{
    pcs_entity_handle h = {0, 1};
    pcs_entity_info info;
    pcs_entity_def d = pcs_entity_default();
    cr_assert_eq(pcs_entity_create(NULL, &d, &h), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_entity_create: world is NULL");
    cr_assert_eq(pcs_entity_destroy(NULL, h), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_check(NULL, h), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_get(NULL, h, &info), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_find(NULL, "u1", &h), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_find_id(NULL, 1, &h), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_set_row(NULL, h, 0, 0), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_table_add(NULL, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_id(NULL, h), 0);
    cr_assert_eq(pcs_entity_count(NULL), 0);
    cr_assert_eq(pcs_entity_capacity(NULL), 0);
    cr_assert_eq(pcs_entity_retired(NULL), 0);

    pcs_world *w = world_with_table(4);
    cr_assert_not_null(w);
    cr_assert_eq(pcs_entity_create(w, NULL, &h), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_get(w, h, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_find(w, NULL, &h), PCS_E_INVAL);
    cr_assert_eq(pcs_entity_find_id(w, 0, &h), PCS_E_NOTFOUND, "id 0 is never issued");
    pcs_world_destroy(w);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* Ids are never reused, generations retire slots, names find survivors, stale, forged and null
 * handles are refused. */
Test(entity, ids_generations_names_and_stale_handles)
{
    ids_never_reused_stale_handles_refused_over_1e6_cycles();
    churn_through_generation_wrap_retires_slots_and_refuses_every_stale_handle();
    recreating_a_name_gives_a_new_id_and_the_old_handle_fails();
    name_lookup_after_removals_finds_every_survivor();
    a_slot_retires_at_its_last_generation_instead_of_wrapping();
    forged_and_null_handles_are_refused_by_name();
}

/* Fields, rows and owners, the argument errors, allocation after the seal, and a null world or
 * missing table. */
Test(entity, fields_rows_allocation_and_argument_errors)
{
    fields_rows_owner_and_argument_errors();
    create_and_destroy_after_the_seal_allocate_nothing();
    null_world_and_missing_table_are_errors_not_crashes();
}
