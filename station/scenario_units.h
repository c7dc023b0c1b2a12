/**
 * @file scenario_units.h
 * @brief The scenario's plant sections ("units", "instrumentation") read into
 *        builder configurations, with every range the builder will hold them
 *        to (internal to station/; called by scenario.c, used by station.c).
 */
#ifndef PCS_STATION_SCENARIO_UNITS_H
#define PCS_STATION_SCENARIO_UNITS_H

#include "station/jsonr.h"
#include "station/scenario.h"

/** dt_s range of a scenario with units (see scenario_units.c). */
#define SCN_PLANT_DT_MIN_S 1e-3
#define SCN_PLANT_DT_MAX_S 0.05
#define SCN_PLANT_DT_MAX_S 0.05

/**
 * Read $.units and $.instrumentation of @p doc into s->units, s->unit_names,
 * s->n_units and s->setpoints. Each field is checked against its own range
 * and then against the conditions the plant builder couples fields by, so a
 * scenario that passes builds. Returns 0, or -1 with the first error in @p c.
 */
int scenario_units_parse(jr_ctx *c, json_t *doc, scenario *s);

#endif
