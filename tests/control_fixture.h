/**
 * @file control_fixture.h
 * @brief Test support for the sensor, protection and alarm tests: a world with
 *        a "plant" store of doubles the test writes between ticks, standing in
 *        for whatever model would compute them.
 */
#ifndef PCS_TESTS_CONTROL_FIXTURE_H
#define PCS_TESTS_CONTROL_FIXTURE_H

#include "pcsim/pcsim.h"

typedef struct ctl_plant {
    pcs_world *w;
    uint32_t store; /* "plant.x", STATE, n doubles */
    double *x;
    uint32_t n;
} ctl_plant;

/** World (dt 0.05 s, @p seed) with a "plant.x" store of @p n doubles. */
void ctl_plant_init(ctl_plant *p, uint32_t n, uint64_t seed);

/** Tick @p n times, asserting success. */
void ctl_tick(pcs_world *w, uint32_t n);

/** Submit a command (kind, target, args[0]) to the shared ring, asserting success. */
void ctl_command(pcs_world *w, uint32_t kind, uint32_t target, double arg0);

/** Count events of @p kind about @p subject in the last tick (UINT32_MAX = any). */
uint32_t ctl_events(const pcs_world *w, uint32_t kind, uint32_t subject);

/** Copy the first such event of the last tick to @p out; 0 if none. */
int ctl_event(const pcs_world *w, uint32_t kind, uint32_t subject, pcs_event *out);

/** A default sensor named @p name reading plant.x[@p index]. */
pcs_sensor_config ctl_sensor(const ctl_plant *p, const char *name, uint32_t index);

/** Assert the last error names every string in the NULL-terminated list. */
void ctl_expect_message(const char *first, ...);

#endif
