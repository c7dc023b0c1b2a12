/**
 * @file station_held.h
 * @brief Held outputs of gated units (internal to station/): a unit's
 *        SCRATCH stores copied into one STATE store when its systems stop,
 *        and copied back while they stay stopped.
 *
 * A unit's systems rewrite its SCRATCH stores (derived outputs: pressures
 * from the state, controller errors, heat flows) every tick they run; a save
 * does not keep them, and a load leaves them as the build made them. While
 * the unit is gated (frozen) nothing rewrites them, so after a load its
 * channels, and every system outside the unit that reads them (sensors,
 * protection, the snapshot), would see build values until it runs again,
 * and the run would leave the uninterrupted one. The held copy is state: it
 * is saved, loaded and hashed, and copying it back at the start of each
 * tick (before any system reads) gives every reader the values the unit
 * stopped with, as the run that was never saved has them.
 */
#ifndef PCS_STATION_HELD_H
#define PCS_STATION_HELD_H

#include <stdint.h>

#include "pcsim/status.h"
#include "pcsim/world.h"

/** The held copies of n units, in one STATE store (world memory). */
typedef struct pcs_station_held pcs_station_held;

/**
 * Find the SCRATCH stores of units @p numbers[0, n) (the stores named
 * "uN."), and register the STATE store @p store_name holding one copy of
 * them all, with a load check (named @p store_name) that refuses a save
 * whose copy of a float64 store holds a non-finite value. Build phase
 * (world memory, a store and a load-check registration).
 * @return PCS_E_NOMEM, or the store's or the load check's registration error.
 */
pcs_status pcs_station_held_add(pcs_world *w, const uint32_t *numbers, uint32_t n,
                                const char *store_name, pcs_station_held **out);

/** Copy unit @p i's SCRATCH stores into its held copy (@p to_held) or back. */
void pcs_station_held_copy(pcs_world *w, const pcs_station_held *h, uint32_t i, int to_held);

/** The held STATE store's id. */
uint32_t pcs_station_held_store(const pcs_station_held *h);

/** The SCRATCH stores of every unit (@p *n of them), for a system's writes. */
const uint32_t *pcs_station_held_scratch(const pcs_station_held *h, uint32_t *n);

#endif
