/**
 * @file th_register.c
 * @brief The store, channel and command-family registration of the
 *        thermal-hydraulic world models (th_register.h).
 */
#include <stdio.h>

#include "pcsim/channel.h"
#include "physics/thermohydraulics/models/th_register.h"

pcs_status pcs_th_stores_register(pcs_world *w, const char *prefix, const pcs_th_store *stores,
                                  size_t count)
{
    for (size_t i = 0; i < count; i++) {
        char name[PCS_NAME_MAX];
        snprintf(name, sizeof name, "%s.%s", prefix, stores[i].what);
        size_t n = stores[i].n ? stores[i].n : 1;
        pcs_store_kind kind = (pcs_store_kind)(stores[i].kind | PCS_STORE_F64);
        pcs_status st = pcs_store_register(w, name, sizeof(double), n, kind, stores[i].id);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

pcs_status pcs_th_channel(pcs_world *w, const char *prefix, const char *suffix, const char *unit,
                          uint32_t store, uint32_t index)
{
    char name[128];
    snprintf(name, sizeof name, "%s.%s", prefix, suffix);
    return pcs_channel_register(w, name, unit, PCS_CHANNEL_F64, store, index, NULL);
}

pcs_status pcs_th_channels_register(pcs_world *w, const char *prefix, uint32_t store,
                                    const pcs_th_channel_row *rows, size_t count)
{
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < count; i++)
        st = pcs_th_channel(w, prefix, rows[i].suffix, rows[i].unit, store, rows[i].index);
    return st;
}

pcs_status pcs_th_element_channels(pcs_world *w, const char *prefix, uint32_t store,
                                   const pcs_th_channel_row *rows, size_t count, uint32_t k,
                                   uint32_t base)
{
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < count; i++) {
        char suffix[PCS_NAME_MAX];
        snprintf(suffix, sizeof suffix, rows[i].suffix, k + 1);
        st = pcs_th_channel(w, prefix, suffix, rows[i].unit, store, base + rows[i].index);
    }
    return st;
}

pcs_status pcs_th_system_register(pcs_world *w, const char *prefix, const char *what,
                                  const pcs_system_desc *d, pcs_load_check_fn check)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.%s", prefix, what);
    pcs_system_desc named = *d;
    named.name = name;
    pcs_status st = pcs_system_register(w, &named, NULL);
    if (st == PCS_OK && check)
        st = pcs_load_check_register(w, name, check, d->ctx);
    return st;
}

pcs_status pcs_th_system(pcs_world *w, const char *prefix, const char *what, pcs_stage stage,
                         pcs_system_fn fn, void *ctx, const uint32_t *reads, uint32_t n_reads,
                         const uint32_t *writes, uint32_t n_writes, pcs_load_check_fn check)
{
    pcs_system_desc d = {.stage = stage,
                         .fn = fn,
                         .ctx = ctx,
                         .reads = reads,
                         .n_reads = n_reads,
                         .writes = writes,
                         .n_writes = n_writes};
    return pcs_th_system_register(w, prefix, what, &d, check);
}

pcs_status pcs_th_element_targets(pcs_world *w, uint32_t family, void *ctx, const char *prefix,
                                  const char *part, uint32_t n)
{
    pcs_status st = PCS_OK;
    for (uint32_t k = 0; st == PCS_OK && k < n; k++) {
        char name[PCS_NAME_MAX];
        snprintf(name, sizeof name, "%s.%s%u", prefix, part, k + 1);
        pcs_command_target_def td = {.name = name, .family = family, .ctx = ctx, .element = k};
        st = pcs_command_target_register(w, &td, NULL);
    }
    return st;
}
