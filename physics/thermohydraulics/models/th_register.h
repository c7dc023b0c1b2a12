/**
 * @file th_register.h
 * @brief Registration steps of the thermal-hydraulic world models (the
 *        primary, primary_build.c) that the other plant models share: a
 *        table of float64 stores, one float64 channel, a table of float64
 *        channels of one store (the fuel's and the controllers' outputs
 *        too), one loop's or SG's channels (the primary and the steam
 *        side), per-element command targets, and a system with its load
 *        check (the unit's, the controllers', the turbine's, the
 *        interlocks' and the plant's).
 */
#ifndef PCS_PHYSICS_TH_REGISTER_H
#define PCS_PHYSICS_TH_REGISTER_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/command.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"

/* One store of a model: "<prefix>.<what>", n float64 elements of kind (STATE
 * or SCRATCH; the F64 flag is added here), its id written to *id. */
typedef struct pcs_th_store {
    const char *what;
    size_t n;
    pcs_store_kind kind;
    uint32_t *id;
} pcs_th_store;

/* Register stores[0..count) in order (the state hash follows that order). A
 * zero n registers one element: a network without pumps still has its pump
 * stores, so their ids stay valid. */
pcs_status pcs_th_stores_register(pcs_world *w, const char *prefix, const pcs_th_store *stores,
                                  size_t count);

/* Channel "<prefix>.<suffix>" in unit @p unit: element @p index of float64
 * store @p store. */
pcs_status pcs_th_channel(pcs_world *w, const char *prefix, const char *suffix, const char *unit,
                          uint32_t store, uint32_t index);

/* One row of a channel table: "<prefix>.<suffix>" in @p unit, element
 * @p index of the table's store. */
typedef struct pcs_th_channel_row {
    const char *suffix;
    const char *unit;
    uint32_t index;
} pcs_th_channel_row;

/* pcs_th_channel for rows[0..count) in order, all of float64 store @p store:
 * the shape of every model's outputs table (one store, an element per
 * channel); stops at the first failure. */
pcs_status pcs_th_channels_register(pcs_world *w, const char *prefix, uint32_t store,
                                    const pcs_th_channel_row *rows, size_t count);

/* The channels of element @p k (a loop, an SG) of an outputs table, in
 * order: each row's suffix is a format of k + 1 ("loop%u.t_hot"), its
 * element of float64 store @p store is @p base + the row's index (the
 * element's block); stops at the first failure. */
pcs_status pcs_th_element_channels(pcs_world *w, const char *prefix, uint32_t store,
                                   const pcs_th_channel_row *rows, size_t count, uint32_t k,
                                   uint32_t base);

/* A unit model's system and its load check, both named "<prefix>.<what>"
 * (so a failed load names the system that owns the stores): @p d is the
 * desc but for its name, which is made here; the load check gets d->ctx;
 * a NULL @p check registers none. */
pcs_status pcs_th_system_register(pcs_world *w, const char *prefix, const char *what,
                                  const pcs_system_desc *d, pcs_load_check_fn check);

/* pcs_th_system_register of the desc {stage, priority 0, fn, ctx, reads[0..
 * n_reads), writes[0..n_writes)}: the one shape every plant model's system
 * has. */
pcs_status pcs_th_system(pcs_world *w, const char *prefix, const char *what, pcs_stage stage,
                         pcs_system_fn fn, void *ctx, const uint32_t *reads, uint32_t n_reads,
                         const uint32_t *writes, uint32_t n_writes, pcs_load_check_fn check);

/* Command targets "<prefix>.<part>1" .. "<prefix>.<part>n" of command family
 * @p family, target k for element k - 1 with context @p ctx (a unit's SGs,
 * MSIVs or relief valves, one target each). */
pcs_status pcs_th_element_targets(pcs_world *w, uint32_t family, void *ctx, const char *prefix,
                                  const char *part, uint32_t n);

#endif
