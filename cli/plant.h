/**
 * @file plant.h
 * @brief The host's bridge between a scenario document and the physics plant.
 */
#ifndef PCS_CLI_PLANT_H
#define PCS_CLI_PLANT_H

#include "cli/host.h"

/** Describe an event for the console; returns 0 for events not worth printing. */
int plant_describe_event(const host *h, const pcs_event *ev, char *out, size_t len);

#endif
