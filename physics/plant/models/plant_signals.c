/**
 * @file plant_signals.c
 * @brief The per-unit signal stores of pcsim/plant_signals.h: find or
 *        register "<unit>.<set>.sig", and its load check.
 *
 * One table gives each element's allowed range, so the store's size, the
 * load check and the docs cannot drift apart: a flag is [0, 1] and must be
 * exactly 0 or 1; a value is finite and inside its range.
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/persist.h"
#include "pcsim/plant_signals.h"
#include "pcsim/system.h"

/* Allowed range of one element; flag: 0 or 1 exactly. */
typedef struct signal_range {
    const char *field; /* quantity and unit, for the load check's message */
    double lo, hi;
    int flag;
} signal_range;

#define FLAG(name)                                                                                 \
    {                                                                                              \
        name, 0.0, 1.0, 1                                                                          \
    }

static const signal_range turbine_ranges[PCS_SIG_TURBINE_COUNT] = {
    [PCS_SIG_TURBINE_LOAD] = {"first-stage load 1", 0.0, 1.5, 0},
    [PCS_SIG_TURBINE_TRIPPED] = FLAG("turbine tripped flag"),
    [PCS_SIG_TURBINE_ELECTRIC_W] = {"electrical output W", -1e11, 1e11, 0},
    [PCS_SIG_TURBINE_SHAFT_W] = {"shaft power W", -1e11, 1e11, 0},
    [PCS_SIG_TURBINE_SPEED] = {"speed / synchronous 1", 0.0, 2.0, 0},
    [PCS_SIG_TURBINE_LOAD_DEMAND] = {"load demand 1", 0.0, 1.5, 0},
};

static const signal_range interlock_ranges[PCS_SIG_INTERLOCK_COUNT] = {
    [PCS_SIG_P4] = FLAG("P-4 flag"),
    [PCS_SIG_P7] = FLAG("P-7 flag"),
    [PCS_SIG_P8] = FLAG("P-8 flag"),
    [PCS_SIG_P9] = FLAG("P-9 flag"),
    [PCS_SIG_P12] = FLAG("P-12 flag"),
    [PCS_SIG_P14] = FLAG("P-14 flag"),
    [PCS_SIG_C7] = FLAG("C-7 flag"),
    [PCS_SIG_C8] = FLAG("C-8 flag"),
    [PCS_SIG_C9] = FLAG("C-9 flag"),
    [PCS_SIG_TURBINE_TRIP] = FLAG("turbine trip demand flag"),
    [PCS_SIG_FW_ISOLATION] = FLAG("feedwater isolation flag"),
    [PCS_SIG_AFW_START] = FLAG("auxiliary feedwater start flag"),
    [PCS_SIG_SI] = FLAG("safety injection flag"),
    [PCS_SIG_MSLI] = FLAG("steam line isolation flag"),
    [PCS_SIG_TWO_LOOP_LOW] = FLAG("low flow in two loops flag"),
};

static const signal_range feed_ranges[PCS_SIG_FEED_COUNT] = {
    [PCS_SIG_FEED_MFP_TRIPPED] = FLAG("main feed pumps tripped flag"),
    [PCS_SIG_FEED_MAIN_KG_S] = {"main feed flow kg/s", 0.0, 1e5, 0},
    [PCS_SIG_FEED_AFW_KG_S] = {"auxiliary feed flow kg/s", 0.0, 1e5, 0},
};

typedef struct signal_set_info {
    const char *name;
    uint32_t count;
    const signal_range *ranges;
} signal_set_info;

static const signal_set_info sets[PCS_SIGNALS_SET_COUNT] = {
    [PCS_SIGNALS_TURBINE] = {"turbine", PCS_SIG_TURBINE_COUNT, turbine_ranges},
    [PCS_SIGNALS_INTERLOCK] = {"interlock", PCS_SIG_INTERLOCK_COUNT, interlock_ranges},
    [PCS_SIGNALS_FEED] = {"feed", PCS_SIG_FEED_COUNT, feed_ranges},
};

static const signal_set_info *set_info(pcs_plant_signal_set set)
{
    return (unsigned)set < PCS_SIGNALS_SET_COUNT ? &sets[set] : NULL;
}

uint32_t pcs_plant_signals_count(pcs_plant_signal_set set)
{
    const signal_set_info *s = set_info(set);
    return s ? s->count : 0u;
}

const char *pcs_plant_signals_name(pcs_plant_signal_set set)
{
    const signal_set_info *s = set_info(set);
    return s ? s->name : NULL;
}

/* What the load check needs: the store and its set. */
typedef struct signal_check {
    uint32_t store;
    const signal_set_info *info;
} signal_check;

static pcs_status signals_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const signal_check *c = ctx;
    const char *name = pcs_store_name(w, c->store);
    const double *x = pcs_load_view_store(v, c->store);
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; i < c->info->count && st == PCS_OK; i++) {
        const signal_range *r = &c->info->ranges[i];
        st = pcs_load_check_f64_from(name, r->field, x, i, 1, 1, r->lo, r->hi, 0);
        if (st == PCS_OK && r->flag && x[i] != 0.0 && x[i] != 1.0)
            st = pcs_error_set(PCS_E_CORRUPT, "store '%s' element %u (%s): value %g is not 0 or 1",
                               name, i, r->field, x[i]);
    }
    return st;
}

static pcs_status check_existing(const pcs_world *w, const char *name, uint32_t id,
                                 const signal_set_info *info)
{
    if (pcs_store_kind_of(w, id) == PCS_STORE_STATE && pcs_store_is_f64(w, id) &&
        pcs_store_bytes(w, id) == (size_t)info->count * sizeof(double))
        return PCS_OK;
    return pcs_error_set(PCS_E_INVAL,
                         "pcs_plant_signals: store '%s' exists but is not a STATE float64 store "
                         "of %u elements (another model owns the name)",
                         name, info->count);
}

static pcs_status register_set(pcs_world *w, const char *name, const signal_set_info *info,
                               uint32_t *store_id)
{
    pcs_status st =
        pcs_store_register(w, name, sizeof(double), info->count, PCS_STORE_STATE_F64, store_id);
    if (st != PCS_OK)
        return st;
    signal_check *c = pcs_world_alloc(w, sizeof *c);
    if (!c)
        return pcs_error_set(PCS_E_NOMEM, "pcs_plant_signals: no memory for '%s'", name);
    *c = (signal_check){.store = *store_id, .info = info};
    return pcs_load_check_register(w, name, signals_load_check, c);
}

pcs_status pcs_plant_signals(pcs_world *w, const char *unit_name, pcs_plant_signal_set set,
                             uint32_t *store_id)
{
    const signal_set_info *info = set_info(set);
    if (!w || !unit_name || !store_id)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_signals: NULL argument");
    if (!info)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_signals: unknown signal set %d (0..%d)",
                             (int)set, (int)PCS_SIGNALS_SET_COUNT - 1);
    size_t len = strlen(unit_name);
    if (len == 0 || len > 15)
        return pcs_error_set(
            PCS_E_INVAL, "pcs_plant_signals: unit name '%s' must be 1..15 characters", unit_name);
    char name[64];
    snprintf(name, sizeof name, "%s.%s.sig", unit_name, info->name);
    uint32_t id;
    if (pcs_store_find(w, name, &id) == PCS_OK) {
        pcs_status st = check_existing(w, name, id, info);
        if (st == PCS_OK)
            *store_id = id;
        return st;
    }
    return register_set(w, name, info, store_id);
}
