/**
 * @file test_properties.c
 * @brief Properties of whole worlds, checked on generated cases with the
 *        runner of tests/prop.h: save/load round trips, journal replay,
 *        corrupted saves and the command drain order.
 *
 * Case counts keep the file near 15 s in the release build and under a minute
 * with ASan; PCS_PROP_CASES=<n> runs more (a soak), PCS_PROP_SEED=<s> one.
 * Station worlds are built small (one unit, one or two loops, a short settle)
 * wherever the property holds for every size.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/station.h"
#include "engine/persist_internal.h"
#include "pcsim/pcsim.h"
#include "pcsim/plant.h"
#include "tests/prop.h"
#include "tests/control_fixture.h"

/* ---- a small station and the commands an operator could send it ---- */

/* One instrumented unit with @p n_loops loops, no worker threads (so an
 * isolated run may fork it). NULL with the error message on failure. */
static pcs_world *pp_station_cfg(uint32_t n_loops, uint32_t per_tick, uint32_t mpsc_capacity)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    cfg.commands_per_tick = per_tick;
    cfg.mpsc_capacity = mpsc_capacity;
    cfg.seed = 11;
    cfg.journal_capacity = 4096;
    pcs_world *w = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK)
        return NULL;
    pcs_plant_unit_def u;
    pcs_plant_unit_default(&u);
    u.primary.n_loops = n_loops;
    u.core.nominal_power_w = n_loops * PCS_PLANT_LOOP_RATING_W; /* rated for its loops */
    if (pcs_station_water_table(&u.primary.table) != PCS_OK)    /* one table for every case */
        return NULL;
    pcs_plant *p = NULL;
    if (pcs_plant_add(w, &u, 1, &p) != PCS_OK || pcs_plant_instrument(w, p, NULL) != PCS_OK) {
        pcs_world_destroy(w);
        return NULL;
    }
    return w;
}

static pcs_world *pp_station(uint32_t n_loops)
{
    return pp_station_cfg(n_loops, 512, 4096);
}

/* The station's command kinds and target ids follow only from how it is
 * built (registration order), so a command resolved on a reference station
 * of n_loops is valid on every station of n_loops: the property a journal
 * replay relies on, exercised here on every drawn plan. */
static const pcs_world *pp_reference(uint32_t n_loops)
{
    static pcs_world *ref[PCS_PLANT_MAX_LOOPS + 1];
    if (!ref[n_loops])
        ref[n_loops] = pp_station(n_loops);
    cr_assert_not_null(ref[n_loops], "%s", pcs_last_error());
    return ref[n_loops];
}

/* Stations the properties below take fresh, built once before their cases
 * fork (prop.h "Isolation"): each case's child starts from a copy of a world
 * never ticked, the state a build leaves, without settling its primary again
 * (0.2 s a build, 40 builds a property). fresh[k][n]: the k-th station of n
 * loops; the reference stations are built here too, as a child's would be
 * lost with it. */
#define PP_FRESH 2
typedef struct pp_fresh {
    pcs_world *w[PP_FRESH][PCS_PLANT_MAX_LOOPS + 1];
} pp_fresh;

static void pp_fresh_build(pp_fresh *f, uint32_t max_loops, uint32_t n_fresh)
{
    memset(f, 0, sizeof *f);
    for (uint32_t n = 1; n <= max_loops; n++) {
        (void)pp_reference(n);
        for (uint32_t k = 0; k < n_fresh; k++) {
            f->w[k][n] = pp_station(n);
            cr_assert_not_null(f->w[k][n], "station of %u loops: %s", n, pcs_last_error());
        }
    }
}

static void pp_fresh_destroy(pp_fresh *f)
{
    for (uint32_t k = 0; k < PP_FRESH; k++)
        for (uint32_t n = 0; n <= PCS_PLANT_MAX_LOOPS; n++)
            pcs_world_destroy(f->w[k][n]);
}

/* Op @p op of @p family on the target named @p name; a name the station does
 * not have (drawn on purpose) gets an id no target has, refused at stage 1. */
static void pp_resolve(pcs_command *c, uint32_t n_loops, const char *family, uint32_t op,
                       const char *name)
{
    const pcs_world *w = pp_reference(n_loops);
    pcs_target_id id = {PCS_TARGET_MAX, 1};
    cr_assert_eq(pcs_command_kind_find(w, family, op, &c->kind), PCS_OK, "%s", pcs_last_error());
    if (!name || pcs_command_target_find(w, name, &id) != PCS_OK)
        id = (pcs_target_id){PCS_TARGET_MAX, 1};
    c->target = pcs_target_id_store(id);
}

/* "u1" for -1, else bank b's target ("u1.D"), or one past the last bank. */
static const char *pp_bank(int64_t b, char *buf, size_t n)
{
    pcs_plant_unit_def u;
    pcs_plant_unit_default(&u);
    if (b < 0)
        return "u1";
    snprintf(buf, n, "u1.%s", b < (int64_t)u.core.n_banks ? u.core.banks[b].name : "nobank");
    return buf;
}

/* A command of any kind the station handles, with targets and arguments
 * drawn in and a little outside the valid ranges (refusals are part of the
 * property). Written to @p desc for the report. */
static pcs_command pp_command(prop *p, uint32_t n_loops, char *desc, size_t desc_n)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    const pcs_world *ref = pp_reference(n_loops);
    char name[64];
    uint32_t pump = (uint32_t)prop_int(p, 1, n_loops + 1); /* n_loops + 1: no such pump */
    snprintf(name, sizeof name, "u1.pump%u", pump);
    uint32_t op;
    uint32_t pick = (uint32_t)prop_pick(p, 13);
    switch (pick) {
    case 0: /* rod position */
    case 1: /* rod speed */
        op = pick == 0 ? PCS_UNIT_OP_ROD_POSITION : PCS_UNIT_OP_ROD_SPEED;
        pp_resolve(&c, n_loops, PCS_UNIT_COMMANDS, op,
                   pp_bank(prop_int(p, -1, 4), name, sizeof name));
        c.args[0] = prop_double(p, 0.0, 1.0);
        break;
    case 2:
        pp_resolve(&c, n_loops, PCS_UNIT_COMMANDS, PCS_UNIT_OP_SCRAM,
                   prop_int(p, 1, 2) == 1 ? "u1" : "u2");
        break;
    case 3:
        pp_resolve(&c, n_loops, PCS_UNIT_COMMANDS, PCS_UNIT_OP_RESET, "u1");
        break;
    case 4:
        pp_resolve(&c, n_loops, PCS_UNIT_COMMANDS, PCS_UNIT_OP_BORON, "u1");
        c.args[0] = prop_double(p, 0.0, 3000.0);
        break;
    case 5:
        pp_resolve(&c, n_loops, PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_PUMP_TRIP, name);
        break;
    case 6:
        pp_resolve(&c, n_loops, PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_PUMP_START, name);
        c.args[0] = prop_double(p, 0.0, 1.0);
        break;
    case 7:
        pp_resolve(&c, n_loops, PCS_PZR_CONTROL_COMMANDS, PCS_PZR_CONTROL_OP_HEATERS, "u1");
        c.args[0] = prop_double(p, 0.0, 2e6);
        break;
    case 8: /* spray demand, a little outside the accepted range too */
        pp_resolve(&c, n_loops, PCS_PZR_CONTROL_COMMANDS, PCS_PZR_CONTROL_OP_SPRAY, "u1");
        c.args[0] = prop_double(p, -0.1, 1.1);
        break;
    case 9:
        pp_resolve(&c, n_loops, PCS_PLANT_COMMANDS, PCS_PLANT_OP_SG_PRESSURE, "u1");
        c.args[0] = prop_double(p, 5.5e6, 7.5e6);
        break;
    case 10:
        op = PCS_SENSOR_OP_STUCK + (uint32_t)prop_int(p, 0, 4);
        pp_resolve(&c, n_loops, PCS_SENSOR_COMMANDS, op,
                   ctl_element_name(ref, "sensors.value", (uint32_t)prop_int(p, 0, 40)));
        c.args[0] = prop_double(p, -5.0, 5.0);
        break;
    case 11:
        op = PCS_PROTECTION_TRIP_OP_BYPASS + (uint32_t)prop_int(p, 0, 2);
        pp_resolve(&c, n_loops, PCS_PROTECTION_TRIP_COMMANDS, op,
                   op == PCS_PROTECTION_TRIP_OP_RESET
                       ? "u1"
                       : ctl_element_name(ref, "rps.word", (uint32_t)prop_int(p, 0, 12)));
        c.args[0] = (double)prop_int(p, -1, 4);
        break;
    default:
        op = PCS_ALARM_OP_ACK + (uint32_t)prop_int(p, 0, 5);
        pp_resolve(&c, n_loops, PCS_ALARM_COMMANDS, op,
                   op == PCS_ALARM_OP_ACK_ALL
                       ? "u1"
                       : ctl_element_name(ref, "alarms.state", (uint32_t)prop_int(p, 0, 20)));
        c.args[0] = prop_double(p, 0.0, 30.0);
        break;
    }
    snprintf(desc, desc_n, "kind %u target %u args %.9g %.9g", c.kind, c.target, c.args[0],
             c.args[1]);
    return c;
}

/* A drawn run: commands at drawn ticks in [0, ticks). */
#define PP_MAX_CMDS 8
typedef struct pp_plan {
    uint32_t n_loops;
    uint64_t ticks;
    uint32_t n_cmds;
    uint64_t at[PP_MAX_CMDS];
    pcs_command cmd[PP_MAX_CMDS];
} pp_plan;

/* One to max_loops loops, each unit rated for its loops. */
static void pp_draw_plan(prop *p, pp_plan *pl, uint32_t max_loops, int64_t max_ticks)
{
    pl->n_loops = (uint32_t)prop_int(p, 1, max_loops);
    pl->ticks = (uint64_t)prop_int(p, 0, max_ticks);
    pl->n_cmds = (uint32_t)prop_int(p, 0, PP_MAX_CMDS);
    prop_note(p, "%u loops, %llu ticks, %u commands", pl->n_loops, (unsigned long long)pl->ticks,
              pl->n_cmds);
    for (uint32_t i = 0; i < pl->n_cmds; i++) {
        char d[160];
        prop_span_begin(p);
        pl->at[i] = (uint64_t)prop_int(p, 0, (int64_t)pl->ticks);
        pl->cmd[i] = pp_command(p, pl->n_loops, d, sizeof d);
        prop_span_end(p);
        prop_note(p, "  before tick %llu: %s", (unsigned long long)pl->at[i], d);
    }
}

/* Tick @p w to the plan's end, submitting each command before its tick
 * (commands are drawn in any tick order). */
static pcs_status pp_run_plan(pcs_world *w, const pp_plan *pl)
{
    for (uint64_t t = 0; t <= pl->ticks; t++) {
        for (uint32_t i = 0; i < pl->n_cmds; i++)
            if (pl->at[i] == t)
                (void)pcs_command_submit(w, &pl->cmd[i]); /* kind always valid: accepted */
        if (t == pl->ticks)
            break;
        pcs_status st = pcs_world_tick(w);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

static unsigned char *pp_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = n > 0 ? malloc((size_t)n) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = b ? (size_t)n : 0;
    return b;
}

static int pp_write_file(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = n ? fwrite(b, 1, n, f) : 0;
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

/* ---- 1. save -> load -> save is byte-identical ---- */

/* Isolated (in a forked child): a and b are the child's copies of two fresh
 * stations (pp_fresh), left for the child's exit to free. */
static int save_load_save(prop *p, void *ctx)
{
    const pp_fresh *fresh = ctx;
    pp_plan pl;
    pp_draw_plan(p, &pl, 3, 60);
    char a_path[64], b_path[64];
    snprintf(a_path, sizeof a_path, "/tmp/pcsim-prop-a-%d.save", (int)getpid());
    snprintf(b_path, sizeof b_path, "/tmp/pcsim-prop-b-%d.save", (int)getpid());
    pcs_world *a = fresh->w[0][pl.n_loops], *b = fresh->w[1][pl.n_loops];
    int failed = 0;
    unsigned char *ia = NULL, *ib = NULL;
    size_t na = 0, nb = 0;
    if (pp_run_plan(a, &pl) != PCS_OK) {
        failed = prop_fail(p, "tick: %s", pcs_last_error());
    } else if (pcs_world_save(a, a_path) != PCS_OK || pcs_world_load(b, a_path) != PCS_OK ||
               pcs_world_save(b, b_path) != PCS_OK) {
        failed = prop_fail(p, "save/load: %s", pcs_last_error());
    } else {
        ia = pp_read_file(a_path, &na);
        ib = pp_read_file(b_path, &nb);
        if (!ia || !ib || na != nb) {
            failed = prop_fail(p, "saves differ in size: %zu then %zu bytes", na, nb);
        } else if (memcmp(ia, ib, na) != 0) {
            size_t k = 0;
            while (ia[k] == ib[k])
                k++;
            failed = prop_fail(p, "saves differ first at byte %zu of %zu", k, na);
        } else if (pcs_world_state_hash(a) != pcs_world_state_hash(b)) {
            failed = prop_fail(p, "state hashes differ after the load");
        }
    }
    free(ia);
    free(ib);
    unlink(a_path);
    unlink(b_path);
    return failed;
}

Test(properties, save_load_save_is_byte_identical)
{
    static pp_fresh fresh;
    pp_fresh_build(&fresh, 3, 2);
    prop_config cfg;
    prop_config_default(&cfg, "save_load_save");
    cfg.cases = 20;
    cfg.isolate = 1;
    cfg.timeout_s = 20;
    cfg.max_shrink_runs = 150;
    prop_result res;
    int failed = prop_check(&cfg, save_load_save, &fresh, &res);
    pp_fresh_destroy(&fresh);
    cr_assert_eq(failed, 0, "%s (seed %llu)", res.message, (unsigned long long)res.seed);
}

/* ---- 2. an accepted command sequence replays to the same hash ---- */

/* World a takes the plan's commands through a small shared ring and a small
 * source with a low drain limit, so some are refused (ring full), some wait
 * for later ticks and some are rejected by their handlers. Its journal,
 * resubmitted into a fresh world b before each entry's effective tick, must
 * give the same journal and the same state hash. */
#define PP_JOURNAL_MAX 64
static int journal_replays(prop *p, void *ctx)
{
    const pp_fresh *fresh = ctx; /* isolated: b is the child's copy of a fresh station */
    pp_plan pl;
    pp_draw_plan(p, &pl, 3, 40);
    uint32_t per_tick = (uint32_t)prop_int(p, 1, 4), ring = (uint32_t)prop_int(p, 1, 8);
    uint32_t src_cap = (uint32_t)prop_int(p, 1, 4);
    int via_source[PP_MAX_CMDS];
    for (uint32_t i = 0; i < pl.n_cmds; i++)
        via_source[i] = prop_bool(p);
    prop_note(p, "commands_per_tick %u, shared ring %u, source ring %u", per_tick, ring, src_cap);

    pcs_world *a = pp_station_cfg(pl.n_loops, per_tick, ring), *b = fresh->w[0][pl.n_loops];
    pcs_command_source *src = NULL;
    int failed = 0;
    if (!a || pcs_command_source_open(a, 1, 7, src_cap, &src) != PCS_OK) {
        failed = prop_fail(p, "build: %s", pcs_last_error());
        goto done;
    }
    uint32_t refused = 0;
    for (uint64_t t = 0; t <= pl.ticks && !failed; t++) {
        for (uint32_t i = 0; i < pl.n_cmds; i++)
            if (pl.at[i] == t) {
                pcs_status st = via_source[i] ? pcs_command_source_submit(src, &pl.cmd[i])
                                              : pcs_command_submit(a, &pl.cmd[i]);
                refused += st == PCS_E_RATE;
            }
        if (t < pl.ticks && pcs_world_tick(a) != PCS_OK)
            failed = prop_fail(p, "tick %llu of a: %s", (unsigned long long)t, pcs_last_error());
    }
    pcs_command ja[PP_JOURNAL_MAX], jb[PP_JOURNAL_MAX];
    uint64_t ca = 0, cb = 0;
    uint32_t na = pcs_journal_read(a, &ca, ja, PP_JOURNAL_MAX, NULL);
    prop_note(p, "%u refused, %u journaled", refused, na);
    uint32_t k = 0;
    for (uint64_t t = 0; t < pl.ticks && !failed; t++) {
        for (; k < na && ja[k].tick == t; k++)
            if (pcs_command_submit(b, &ja[k]) != PCS_OK)
                failed = prop_fail(p, "replay submit of entry %u: %s", k, pcs_last_error());
        if (pcs_world_tick(b) != PCS_OK)
            failed = prop_fail(p, "tick %llu of b: %s", (unsigned long long)t, pcs_last_error());
    }
    if (failed)
        goto done;
    uint32_t nb = pcs_journal_read(b, &cb, jb, PP_JOURNAL_MAX, NULL);
    if (nb != na)
        failed = prop_fail(p, "replay journaled %u commands, the run %u", nb, na);
    for (uint32_t i = 0; i < na && !failed; i++)
        if (jb[i].tick != ja[i].tick || jb[i].kind != ja[i].kind || jb[i].target != ja[i].target ||
            memcmp(jb[i].args, ja[i].args, sizeof ja[i].args) != 0)
            failed = prop_fail(p,
                               "journal entry %u: replay kind %u at tick %llu, run kind %u at "
                               "tick %llu",
                               i, jb[i].kind, (unsigned long long)jb[i].tick, ja[i].kind,
                               (unsigned long long)ja[i].tick);
    if (!failed && pcs_world_state_hash(a) != pcs_world_state_hash(b))
        failed = prop_fail(p, "state hash %016llx after the run, %016llx after the replay",
                           (unsigned long long)pcs_world_state_hash(a),
                           (unsigned long long)pcs_world_state_hash(b));
done:
    pcs_world_destroy(a);
    return failed;
}

Test(properties, accepted_commands_replay_to_the_same_hash)
{
    static pp_fresh fresh;
    pp_fresh_build(&fresh, 3, 1);
    prop_config cfg;
    prop_config_default(&cfg, "journal_replays");
    cfg.cases = 20; /* each case builds and settles its world a (0.2 s); b is fresh */
    cfg.isolate = 1;
    cfg.timeout_s = 20;
    cfg.max_shrink_runs = 150;
    prop_result res;
    int failed = prop_check(&cfg, journal_replays, &fresh, &res);
    pp_fresh_destroy(&fresh);
    cr_assert_eq(failed, 0, "%s (seed %llu)", res.message, (unsigned long long)res.seed);
}

/* ---- 3. a corrupted save never changes the world ---- */

/* Save format version 2 (include/pcsim/persist.h, engine/persist.c): a
 * 48-byte header (magic[8], u32 version, u32 sections, u64 tick, u64 seed,
 * u64 build hash, u32 layout, u32 reserved), then per section name[64], u64
 * offset, u64 bytes, u64 elem_size, u64 count, u64 checksum (104 bytes). */
enum { PP_HEADER = 48, PP_ENTRY = 104, PP_MAX_SECTIONS = 256 };

typedef struct pp_section {
    char name[64];
    uint64_t offset, bytes;
} pp_section;

typedef struct pp_save {
    pcs_world *w;
    unsigned char *image;
    size_t len;
    uint64_t hash, tick;
    uint32_t n_sections;
    pp_section sec[PP_MAX_SECTIONS];
} pp_save;

static const double pp_doubles[] = {0.0,      -0.0,      -1.0,   1.0,      1e-300,
                                    5e-324,   1e300,     -1e300, 1.79e308, NAN,
                                    INFINITY, -INFINITY, 1e9,    -1e9,     9007199254740992.0};
static const uint32_t pp_u32s[] = {
    0u, 1u, 2u, 40u, 64u, 65535u, 1000000u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};

/* Apply one drawn corruption to b[0..*len) (capacity *len + 64). */
static void pp_corrupt(prop *p, const pp_save *s, unsigned char *b, size_t *len)
{
    uint32_t what = prop_pick(p, 5);
    switch (what) {
    case 0:   /* a double inside a section */
    case 1: { /* a uint32 inside a section */
        const pp_section *sec = &s->sec[prop_pick(p, s->n_sections)];
        int dbl = what == 0;
        size_t width = dbl ? 8 : 4;
        if (sec->bytes < width)
            return;
        uint64_t at = sec->offset + width * prop_u64(p, sec->bytes / width - 1);
        if (at + width > *len)
            return;
        if (dbl) {
            double v = pp_doubles[prop_pick(p, sizeof pp_doubles / sizeof pp_doubles[0])], old;
            memcpy(&old, b + at, 8);
            memcpy(b + at, &v, 8);
            prop_note(p, "  %s element %llu (double): %.17g -> %.17g", sec->name,
                      (unsigned long long)((at - sec->offset) / 8), old, v);
        } else {
            uint32_t v = pp_u32s[prop_pick(p, sizeof pp_u32s / sizeof pp_u32s[0])], old;
            memcpy(&old, b + at, 4);
            memcpy(b + at, &v, 4);
            prop_note(p, "  %s element %llu (uint32): %u -> %u", sec->name,
                      (unsigned long long)((at - sec->offset) / 4), old, v);
        }
        return;
    }
    case 2: { /* a bit anywhere */
        size_t at = (size_t)prop_u64(p, *len - 1);
        unsigned bit = (unsigned)prop_int(p, 0, 7);
        b[at] ^= (unsigned char)(1u << bit);
        const pp_section *in = NULL;
        for (uint32_t k = 0; k < s->n_sections; k++)
            if (at >= s->sec[k].offset && at - s->sec[k].offset < s->sec[k].bytes)
                in = &s->sec[k];
        prop_note(p, "  flip bit %u of byte %zu (%s, byte %llu)", bit, at,
                  in ? in->name : "header/table",
                  in ? (unsigned long long)(at - in->offset) : 0ull);
        return;
    }
    case 3: { /* truncate */
        size_t n = (size_t)prop_u64(p, *len - 1);
        prop_note(p, "  truncate %zu -> %zu bytes", *len, n);
        *len = n;
        return;
    }
    default: { /* append */
        size_t n = (size_t)prop_int(p, 1, 64);
        prop_bytes(p, b + *len, n);
        prop_note(p, "  append %zu bytes", n);
        *len += n;
        return;
    }
    }
}

static int corrupted_save_changes_nothing(prop *p, void *ctx)
{
    const pp_save *s = ctx;
    int reseal = prop_int(p, 0, 3) != 0; /* mostly: reach the contents */
    uint32_t n = (uint32_t)prop_int(p, 1, 3);
    unsigned char *b = malloc(s->len + 64 * 3);
    size_t len = s->len;
    memcpy(b, s->image, len);
    prop_note(p, "%u corruptions, %s:", n, reseal ? "resealed" : "checksums left as they are");
    for (uint32_t i = 0; i < n && len > 0; i++) {
        prop_span_begin(p);
        pp_corrupt(p, s, b, &len);
        prop_span_end(p);
    }
    if (reseal)
        pcs_persist_reseal(b, len);
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-prop-c-%d.save", (int)getpid());
    int failed = 0;
    if (pp_write_file(path, b, len) != 0) {
        failed = prop_fail(p, "cannot write %s", path);
    } else {
        pcs_status st = pcs_world_load(s->w, path);
        if (st != PCS_OK) {
            if (pcs_world_state_hash(s->w) != s->hash || pcs_world_clock(s->w)->tick != s->tick)
                failed = prop_fail(p, "a refused load changed the world: %s", pcs_last_error());
        } else {
            prop_note(p, "accepted; ticking twice");
            for (int t = 0; t < 2 && !failed; t++)
                if ((st = pcs_world_tick(s->w)) != PCS_OK)
                    failed = prop_fail(p, "tick %d after an accepted load: %s (%s)", t,
                                       pcs_status_str(st), pcs_last_error());
        }
    }
    unlink(path);
    free(b);
    return failed;
}

/* Runs every case in a forked child (a crash or a hang in the model is a
 * failure of the property that shrinks; the parent's world stays pristine). */
Test(properties, corrupted_save_never_changes_the_world)
{
    static pp_save s;
    s.w = pp_station(2);
    cr_assert_not_null(s.w, "%s", pcs_last_error());
    pcs_command trip =
        ctl_make(s.w, PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_PUMP_TRIP, "u1.pump2", 0.0);
    for (int t = 0; t < 60; t++) {
        if (t == 10)
            cr_assert_eq(pcs_command_submit(s.w, &trip), PCS_OK);
        cr_assert_eq(pcs_world_tick(s.w), PCS_OK, "%s", pcs_last_error());
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-prop-v-%d.save", (int)getpid());
    cr_assert_eq(pcs_world_save(s.w, path), PCS_OK, "%s", pcs_last_error());
    s.image = pp_read_file(path, &s.len);
    unlink(path);
    cr_assert_not_null(s.image);
    memcpy(&s.n_sections, s.image + 12, 4);
    cr_assert(s.n_sections > 0 && s.n_sections <= PP_MAX_SECTIONS);
    for (uint32_t k = 0; k < s.n_sections; k++) {
        const unsigned char *e = s.image + PP_HEADER + (size_t)k * PP_ENTRY;
        memcpy(s.sec[k].name, e, 64);
        s.sec[k].name[63] = '\0';
        memcpy(&s.sec[k].offset, e + 64, 8);
        memcpy(&s.sec[k].bytes, e + 72, 8);
    }
    s.hash = pcs_world_state_hash(s.w);
    s.tick = pcs_world_clock(s.w)->tick;

    prop_config cfg;
    prop_config_default(&cfg, "corrupted_save");
    cfg.cases = 200;
    cfg.isolate = 1;
    cfg.timeout_s = 20;
    cfg.max_shrink_runs = 300;
    prop_result res;
    int failed = prop_check(&cfg, corrupted_save_changes_nothing, &s, &res);
    free(s.image);
    pcs_world_destroy(s.w);
    cr_assert_eq(failed, 0, "%s (seed %llu)", res.message, (unsigned long long)res.seed);
}

/* ---- 4. the drain order is a pure function of the submitted set ---- */

/* Lanes: up to four opened sources plus the shared ring (the last lane).
 * Batches of commands are submitted lane by lane in three schedules (a drawn
 * interleaving, one thread per lane, lanes in reverse), each batch followed
 * by drawn ticks, then ticks until nothing is pending. Every schedule must
 * apply (and reject) the same commands on the same ticks in the same order;
 * the drawn schedule is also checked against the documented sort, (source
 * class, source id, sequence) within a tick. */
enum {
    PD_KIND_RECORD = 1,
    PD_KIND_REFUSE = 2,
    PD_MAX_LANES = 5,
    PD_MAX_BATCHES = 3,
    PD_MAX_PER_BATCH = 12,
    PD_MAX_APPLIED = PD_MAX_BATCHES * PD_MAX_PER_BATCH
};

typedef struct pd_case {
    uint32_t per_tick, ring, n_src;
    uint16_t cls[PD_MAX_LANES];
    uint32_t id[PD_MAX_LANES], cap[PD_MAX_LANES];
    uint32_t n_batches, ticks_after[PD_MAX_BATCHES], n_cmds[PD_MAX_BATCHES];
    uint32_t lane[PD_MAX_BATCHES][PD_MAX_PER_BATCH];
    uint32_t kind[PD_MAX_BATCHES][PD_MAX_PER_BATCH];
    uint32_t order[PD_MAX_BATCHES][PD_MAX_PER_BATCH]; /* drawn interleaving */
} pd_case;

typedef struct pd_applied {
    uint64_t tick;
    uint32_t label, kind;
    uint16_t cls;
    uint32_t id;
    uint64_t seq;
} pd_applied;

typedef struct pd_log {
    pd_applied a[PD_MAX_APPLIED];
    uint32_t n;
    int refused[PD_MAX_APPLIED];
} pd_log;

static pcs_status pd_record(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w;
    pd_log *l = ctx;
    if (l->n < PD_MAX_APPLIED)
        l->a[l->n++] =
            (pd_applied){c->tick, c->target, c->kind, c->source_class, c->source_id, c->seq};
    return c->kind == PD_KIND_REFUSE ? PCS_E_INVAL : PCS_OK;
}

typedef struct pd_world {
    pcs_world *w;
    pcs_command_source *src[PD_MAX_LANES];
    pd_log *log;
} pd_world;

static int pd_submit(pd_world *pw, const pd_case *c, uint32_t b, uint32_t i)
{
    pcs_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = c->kind[b][i];
    cmd.target = b * PD_MAX_PER_BATCH + i; /* the label */
    uint32_t lane = c->lane[b][i];
    pcs_command_source *s = lane < c->n_src ? pw->src[lane] : NULL;
    pcs_status st = s ? pcs_command_source_submit(s, &cmd) : pcs_command_submit(pw->w, &cmd);
    pw->log->refused[cmd.target] = st == PCS_E_RATE;
    return st == PCS_OK || st == PCS_E_RATE ? 0 : -1;
}

typedef struct pd_thread {
    pd_world *pw;
    const pd_case *c;
    uint32_t b, lane;
    int bad;
} pd_thread;

static void *pd_lane_thread(void *arg)
{
    pd_thread *t = arg;
    for (uint32_t i = 0; i < t->c->n_cmds[t->b]; i++)
        if (t->c->lane[t->b][i] == t->lane)
            t->bad |= pd_submit(t->pw, t->c, t->b, i);
    return NULL;
}

/* Submit batch @p b in schedule @p how: 0 drawn interleaving, 1 threads, 2 lanes reversed. */
static int pd_submit_batch(pd_world *pw, const pd_case *c, uint32_t b, int how)
{
    int bad = 0;
    if (how == 0) {
        for (uint32_t i = 0; i < c->n_cmds[b]; i++)
            bad |= pd_submit(pw, c, b, c->order[b][i]);
    } else if (how == 1) {
        pthread_t th[PD_MAX_LANES];
        pd_thread arg[PD_MAX_LANES];
        for (uint32_t l = 0; l <= c->n_src; l++) {
            arg[l] = (pd_thread){pw, c, b, l, 0};
            pthread_create(&th[l], NULL, pd_lane_thread, &arg[l]);
        }
        for (uint32_t l = 0; l <= c->n_src; l++) {
            pthread_join(th[l], NULL);
            bad |= arg[l].bad;
        }
    } else {
        for (uint32_t l = c->n_src + 1; l-- > 0;) {
            pd_thread arg = {pw, c, b, l, 0};
            pd_lane_thread(&arg);
            bad |= arg.bad;
        }
    }
    return bad;
}

static int pd_run(prop *p, const pd_case *c, int how, pd_log *log)
{
    memset(log, 0, sizeof *log);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    cfg.commands_per_tick = c->per_tick;
    cfg.mpsc_capacity = c->ring;
    pd_world pw = {.log = log};
    int failed = 0;
    if (pcs_world_create(&cfg, &pw.w) != PCS_OK ||
        pcs_command_handler_register(pw.w, PD_KIND_RECORD, pd_record, log) != PCS_OK ||
        pcs_command_handler_register(pw.w, PD_KIND_REFUSE, pd_record, log) != PCS_OK)
        failed = prop_fail(p, "build: %s", pcs_last_error());
    for (uint32_t l = 0; l < c->n_src && !failed; l++)
        if (pcs_command_source_open(pw.w, c->cls[l], c->id[l], c->cap[l], &pw.src[l]) != PCS_OK)
            failed = prop_fail(p, "open source %u: %s", l, pcs_last_error());
    for (uint32_t b = 0; b < c->n_batches && !failed; b++) {
        if (pd_submit_batch(&pw, c, b, how))
            failed = prop_fail(p, "schedule %d: a submit failed: %s", how, pcs_last_error());
        for (uint32_t t = 0; t < c->ticks_after[b] && !failed; t++)
            if (pcs_world_tick(pw.w) != PCS_OK)
                failed = prop_fail(p, "tick: %s", pcs_last_error());
    }
    for (int t = 0; t < 200 && !failed && pcs_command_pending(pw.w) > 0; t++)
        if (pcs_world_tick(pw.w) != PCS_OK)
            failed = prop_fail(p, "tick: %s", pcs_last_error());
    pcs_world_destroy(pw.w);
    return failed;
}

static void pd_draw(prop *p, pd_case *c)
{
    memset(c, 0, sizeof *c);
    c->per_tick = (uint32_t)prop_int(p, 1, 6);
    c->ring = (uint32_t)prop_int(p, 1, 8);
    c->n_src = (uint32_t)prop_int(p, 0, PD_MAX_LANES - 1);
    prop_note(p, "commands_per_tick %u, shared ring %u (lane %u)", c->per_tick, c->ring, c->n_src);
    for (uint32_t l = 0; l < c->n_src; l++) {
        /* Distinct (class, id): the lane number breaks ties of the drawn pair. */
        c->cls[l] = (uint16_t)prop_int(p, 1, 3);
        c->id[l] = (uint32_t)prop_int(p, 0, 2) * PD_MAX_LANES + l;
        c->cap[l] = (uint32_t)prop_int(p, 1, 6);
        prop_note(p, "lane %u: source (%u, %u) capacity %u", l, c->cls[l], c->id[l], c->cap[l]);
    }
    c->n_batches = (uint32_t)prop_int(p, 1, PD_MAX_BATCHES);
    for (uint32_t b = 0; b < c->n_batches; b++) {
        c->n_cmds[b] = (uint32_t)prop_int(p, 0, PD_MAX_PER_BATCH);
        uint32_t left[PD_MAX_LANES] = {0};
        for (uint32_t i = 0; i < c->n_cmds[b]; i++) {
            c->lane[b][i] = prop_pick(p, c->n_src + 1);
            c->kind[b][i] = prop_int(p, 0, 3) == 3 ? PD_KIND_REFUSE : PD_KIND_RECORD;
            left[c->lane[b][i]]++;
        }
        /* A drawn interleaving that keeps each lane's own order. */
        uint32_t next[PD_MAX_LANES] = {0};
        for (uint32_t i = 0; i < c->n_cmds[b]; i++) {
            uint32_t live[PD_MAX_LANES], n_live = 0;
            for (uint32_t l = 0; l <= c->n_src; l++)
                if (left[l])
                    live[n_live++] = l;
            uint32_t l = live[prop_pick(p, n_live)];
            while (c->lane[b][next[l]] != l)
                next[l]++;
            c->order[b][i] = next[l]++;
            left[l]--;
        }
        c->ticks_after[b] = (uint32_t)prop_int(p, 0, 3);
        char lanes[PD_MAX_PER_BATCH * 4 + 1] = "";
        for (uint32_t i = 0; i < c->n_cmds[b]; i++)
            snprintf(lanes + strlen(lanes), sizeof lanes - strlen(lanes), "%u%s ", c->lane[b][i],
                     c->kind[b][i] == PD_KIND_REFUSE ? "r" : "");
        prop_note(p, "batch %u: lanes [ %s] then %u ticks", b, lanes, c->ticks_after[b]);
    }
}

static int drain_order_is_pure(prop *p, void *ctx)
{
    (void)ctx;
    pd_case c;
    pd_draw(p, &c);
    static pd_log logs[3];
    for (int how = 0; how < 3; how++)
        if (pd_run(p, &c, how, &logs[how]))
            return 1;
    const pd_log *r = &logs[0];
    for (uint32_t i = 1; i < r->n; i++) {
        const pd_applied *x = &r->a[i - 1], *y = &r->a[i];
        if (x->tick == y->tick && (x->cls > y->cls || (x->cls == y->cls && x->id > y->id) ||
                                   (x->cls == y->cls && x->id == y->id && x->seq >= y->seq)))
            return prop_fail(p,
                             "tick %llu: label %u (%u, %u, seq %llu) applied before label %u "
                             "(%u, %u, seq %llu)",
                             (unsigned long long)x->tick, x->label, x->cls, x->id,
                             (unsigned long long)x->seq, y->label, y->cls, y->id,
                             (unsigned long long)y->seq);
    }
    static const char *names[] = {"drawn interleaving", "one thread per lane", "lanes reversed"};
    for (int how = 1; how < 3; how++) {
        const pd_log *o = &logs[how];
        if (memcmp(o->refused, r->refused, sizeof r->refused) != 0)
            return prop_fail(p, "%s refused other commands than the %s", names[how], names[0]);
        if (o->n != r->n)
            return prop_fail(p, "%s applied %u commands, the %s %u", names[how], o->n, names[0],
                             r->n);
        for (uint32_t i = 0; i < r->n; i++)
            if (o->a[i].tick != r->a[i].tick || o->a[i].label != r->a[i].label)
                return prop_fail(p,
                                 "position %u: %s applied label %u at tick %llu, the %s label "
                                 "%u at tick %llu",
                                 i, names[how], o->a[i].label, (unsigned long long)o->a[i].tick,
                                 names[0], r->a[i].label, (unsigned long long)r->a[i].tick);
    }
    return 0;
}

Test(properties, drain_order_is_a_function_of_the_submitted_set)
{
    prop_config cfg;
    prop_config_default(&cfg, "drain_order");
    cfg.cases = 200;
    prop_result res;
    cr_assert_eq(prop_check(&cfg, drain_order_is_pure, NULL, &res), 0, "%s (seed %llu)",
                 res.message, (unsigned long long)res.seed);
}

/* ---- 5. every scenario inside the validator's ranges builds ---- */

/* Each numeric field of a unit, the instrumentation and the world, with the
 * range station/station.c and station/scenario.c validate it against. A case leaves a
 * field out (its default), or sets it to either bound or a value inside. */
typedef struct ps_field {
    const char *key;
    double lo, hi;
    int integer;
} ps_field;

static const ps_field ps_unit[] = {
    {"nominal_power_w", 1e6, 3.411e9, 0},   {"initial_power_fraction", 0.0, 1.0, 0},
    {"loops", 1, PCS_PLANT_MAX_LOOPS, 1},   {"sg_nodes", 1, PCS_PRIMARY_MAX_SG_TUBES / 2, 1},
    {"generation_time_s", 1e-8, 1e-2, 0},   {"mtc_per_k", -1e-2, 1e-2, 0},
    {"doppler_coef", -1.0, 1.0, 0},         {"boron_ppm", 0.0, 10000.0, 0},
    {"rod_speed_per_s", 1e-6, 1.0, 0},      {"scram_drop_time_s", 0.01, 60.0, 0},
    {"control_bank_position", 0.0, 1.0, 0},
};
static const ps_field ps_pump[] = {
    {"rated_flow_kg_s", 2000.0, 6000.0, 0},
    {"inertia_kg_m2", 500.0, 20000.0, 0},
    {"rated_speed_rad_s", 100.0, 125.0, 0},
};
static const ps_field ps_instr[] = {
    {"high_flux_frac", 0.01, 10.0, 0},
    {"flux_rate_frac", 0.001, 10.0, 0},
    {"rate_window_ticks", 1, 1200, 1},
    {"low_flow_frac", 0.0, 1.5, 0},
    {"high_pressure_pa", 1e5, 1e8, 0},
    {"low_pressure_pa", 1e5, 1e8, 0},
    {"alarm_power_frac", 0.01, 10.0, 0},
    {"alarm_flow_frac", 0.0, 1.5, 0},
    {"alarm_pressure_high_pa", 1e5, 1e8, 0},
    {"alarm_t_hot_k", 273.15, 2000.0, 0},
    {"noise_frac", 0.0, 0.5, 0},
};
static const ps_field ps_world[] = {
    {"dt_s", PCS_CLOCK_DT_MIN_S, PCS_CLOCK_DT_MAX_S, 0},
    {"k_slow", 1e-9, 1e9, 0},
    {"k_storage", 1e-9, 1e9, 0},
    {"snapshot_buffers", 3, 64, 1},
    {"commands_per_tick", 1, 65536, 1},
};

#define PS_N(a) (sizeof a / sizeof a[0])

static void ps_draw_fields(prop *p, json_t *obj, const ps_field *f, size_t n, const char *where)
{
    for (size_t i = 0; i < n; i++) {
        prop_span_begin(p);
        uint32_t mode = prop_pick(p, 4); /* absent, lo, hi, inside */
        double v = mode == 1 ? f[i].lo : f[i].hi;
        if (mode == 3)
            v = f[i].integer ? (double)prop_int(p, (int64_t)f[i].lo, (int64_t)f[i].hi)
                             : prop_double(p, f[i].lo, f[i].hi);
        prop_span_end(p);
        if (mode == 0)
            continue;
        json_object_set_new(obj, f[i].key,
                            f[i].integer ? json_integer((json_int_t)v) : json_real(v));
        prop_note(p, "  %s.%s = %.17g", where, f[i].key, v);
    }
}

typedef struct ps_stats {
    uint32_t accepted, refused;
} ps_stats;

static int scenario_in_ranges_builds(prop *p, void *ctx)
{
    ps_stats *stats = ctx;
    json_t *doc = json_object(), *units = json_array(), *world = json_object();
    json_t *instr = json_object();
    json_object_set_new(doc, "schema", json_integer(1));
    json_object_set_new(world, "workers", json_integer(0));
    uint32_t n_units = (uint32_t)prop_int(p, 1, 2);
    for (uint32_t u = 0; u < n_units; u++) {
        json_t *unit = json_object(), *pump = json_object();
        char name[16];
        snprintf(name, sizeof name, "u%u", u + 1);
        json_object_set_new(unit, "name", json_string(name));
        ps_draw_fields(p, unit, ps_unit, PS_N(ps_unit), name);
        ps_draw_fields(p, pump, ps_pump, PS_N(ps_pump), name);
        json_object_set_new(unit, "pump", pump);
        json_array_append_new(units, unit);
    }
    ps_draw_fields(p, instr, ps_instr, PS_N(ps_instr), "instrumentation");
    ps_draw_fields(p, world, ps_world, PS_N(ps_world), "world");
    json_object_set_new(doc, "units", units);
    json_object_set_new(doc, "instrumentation", instr);
    json_object_set_new(doc, "world", world);
    json_object_set_new(doc, "run", json_pack("{s:f}", "seconds", 1.0));

    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-prop-s-%d.json", (int)getpid());
    int failed =
        json_dump_file(doc, path, JSON_INDENT(1)) != 0 ? prop_fail(p, "cannot write %s", path) : 0;
    json_decref(doc);
    pcs_scenario *scn = NULL;
    if (!failed && pcs_scenario_load_file(path, NULL, &scn) != PCS_OK) {
        stats->refused++; /* outside what the validator allows: not this property's case */
        prop_note(p, "refused by the validator: %s", pcs_last_error());
    } else if (!failed) {
        stats->accepted++;
        pcs_world_def wc = pcs_scenario_world_def(scn);
        pcs_world *w = NULL;
        pcs_station *st = NULL;
        if (pcs_world_create(&wc, &w) != PCS_OK)
            failed = prop_fail(p, "world: %s", pcs_last_error());
        else if (pcs_station_add(w, scn, &st) != PCS_OK)
            failed = prop_fail(p, "accepted scenario does not build: %s", pcs_last_error());
        pcs_station_destroy(st);
        pcs_world_destroy(w);
    }
    pcs_scenario_destroy(scn);
    unlink(path);
    return failed;
}

/* Isolated: a build that hangs (a settle of millions of tiny steps) or
 * crashes is a failure like a refused build. */
Test(properties, any_scenario_inside_the_validator_ranges_builds)
{
    prop_config cfg;
    prop_config_default(&cfg, "scenario_builds");
    cfg.cases = 30;
    cfg.isolate = 1;
    cfg.timeout_s = 20;
    /* Every station's primaries share one property table (0.4 s to make):
     * make it before the cases fork, so each child inherits it. */
    const pcs_water_ph_table *table;
    cr_assert_eq(pcs_station_water_table(&table), PCS_OK, "%s", pcs_last_error());
    cfg.max_shrink_runs = 300;
    ps_stats stats = {0};
    prop_result res;
    cr_assert_eq(prop_check(&cfg, scenario_in_ranges_builds, &stats, &res), 0, "%s (seed %llu)",
                 res.message, (unsigned long long)res.seed);
}
