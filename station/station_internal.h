/**
 * @file station_internal.h
 * @brief The station's and the public scenario's internal layout (internal
 *        to station/; hosts use pcsim/station.h).
 */
#ifndef PCS_STATION_INTERNAL_H
#define PCS_STATION_INTERNAL_H

#include "pcsim/plant.h"
#include "pcsim/station.h"
#include "station/scenario.h"

/** The public scenario: the loader's scenario, heap-held. */
struct pcs_scenario {
    scenario s;
};

/** What a built station keeps: the world, the plant, and the unit
 *  configurations its name lookups and event texts read. */
struct pcs_station {
    pcs_world *world;
    pcs_plant *plant; /**< NULL when the scenario has no units */
    uint32_t n_units;
    pcs_plant_setpoints setpoints;      /**< "instrumentation", for its plugin */
    uint32_t first_channel, n_channels; /**< channels the build registered */
    char source[256];                   /**< the scenario's source, for messages */
    struct station_freeze *freeze;      /**< station_freeze.c; NULL until pcs_station_freeze_add */
    pcs_plant_unit_def units[];         /**< n_units of them (sized at pcs_station_add) */
};

/** station/station_entities.c: register the station's devices as entities
 *  (pcsim/station.h, pcs_station_entity_kind), after its plugins. */
pcs_status pcs_station_entities_add(pcs_station *st);

#endif
