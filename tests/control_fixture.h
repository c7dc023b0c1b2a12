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

/** Kind of op @p op of command family @p family in @p w (asserted to exist). */
uint32_t ctl_kind(const pcs_world *w, const char *family, uint32_t op);

/** Command op @p op of @p family on the target named @p target (resolved by
 *  name, asserted to exist), args[0] = @p arg0. */
pcs_command ctl_make(const pcs_world *w, const char *family, uint32_t op, const char *target,
                     double arg0);

/** Submit ctl_make(...) to the shared ring, asserting success. */
void ctl_command(pcs_world *w, const char *family, uint32_t op, const char *target, double arg0);

/** Name of the channel that publishes element @p k of store @p store (e.g.
 *  "sensors.value": a sensor, "rps.word": a trip function, "alarms.state":
 *  an alarm, each named as its command target), or NULL. */
const char *ctl_element_name(const pcs_world *w, const char *store, uint32_t k);

/** Sensor op @p op on sensor @p k of the world's bank, by its name (the
 *  channel of element k of "sensors.value"). */
void ctl_sensor_command(pcs_world *w, uint32_t op, uint32_t k, double arg0);

/** Unit op @p op on unit @p unit in the old argument layout: for rod ops
 *  @p a0 is a bank index of the default unit config (-1: every bank, target
 *  "uN"; else "uN.<bank>") and @p a1 the value, otherwise the target is "uN"
 *  and @p a0 the value. A unit or bank the world lacks, or a bank that is not
 *  an index, gets an id no target has (rejected at stage 1). */
void ctl_unit_command(pcs_world *w, uint32_t op, uint32_t unit, double a0, double a1);

/** Submit op @p op of @p family to an id no target has (index 999999),
 *  which stage 1 rejects with PCS_E_NOTFOUND. */
void ctl_command_unknown(pcs_world *w, const char *family, uint32_t op);

/** Count events of @p kind about @p subject in the last tick (UINT32_MAX = any). */
uint32_t ctl_events(const pcs_world *w, uint32_t kind, uint32_t subject);

/** Copy the first such event of the last tick to @p out; 0 if none. */
int ctl_event(const pcs_world *w, uint32_t kind, uint32_t subject, pcs_event *out);

/** A default sensor named @p name reading plant.x[@p index]. */
pcs_sensor_def ctl_sensor(const ctl_plant *p, const char *name, uint32_t index);

/** Assert the last error names every string in the NULL-terminated list. */
void ctl_expect_message(const char *first, ...);

#endif
