/**
 * @file control_input.h
 * @brief One measured input of a plant controller (the input form of
 *        pcsim/pzr_control.h: a float64 element and, optionally, a sensor
 *        status word): its build-time check, its stores in the system's
 *        reads and its read in the tick, for every controller that reads a
 *        measured value.
 */
#ifndef PCS_PHYSICS_CONTROL_INPUT_H
#define PCS_PHYSICS_CONTROL_INPUT_H

#include <math.h>
#include <stddef.h>

#include "pcsim/math.h"
#include "pcsim/pzr_control.h"
#include "pcsim/sensor.h"
#include "pcsim/system.h"

/* The value now, or NaN when it is not finite or its status word (if any)
 * lacks PCS_SENSOR_ST_VALID. */
static inline double pcs_control_input_read(pcs_world *w, const pcs_pzr_control_input *in)
{
    double v = ((const double *)pcs_store_data(w, in->store))[in->index];
    if (in->status_store != PCS_PZR_CONTROL_NO_STATUS) {
        uint32_t st = ((const uint32_t *)pcs_store_data(w, in->status_store))[in->status_index];
        if (!(st & PCS_SENSOR_ST_VALID))
            return NAN;
    }
    return pcs_isfinite(v) ? v : NAN;
}

/* PCS_OK if @p in names a float64 element (and a u32 status element) of
 * registered stores; PCS_E_INVAL naming @p model and @p field otherwise. */
static inline pcs_status pcs_control_input_check(const pcs_world *w, const char *model,
                                                 const char *field, const pcs_pzr_control_input *in)
{
    size_t bytes = pcs_store_bytes(w, in->store);
    if (bytes == 0 || (size_t)in->index >= bytes / sizeof(double))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: %s: store %u element %u is not a float64 element of a "
                             "registered store (%zu bytes)",
                             model, field, in->store, in->index, bytes);
    if (in->status_store == PCS_PZR_CONTROL_NO_STATUS)
        return PCS_OK;
    bytes = pcs_store_bytes(w, in->status_store);
    if (bytes == 0 || (size_t)in->status_index >= bytes / sizeof(uint32_t))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: %s status: store %u element %u is not a u32 element of a "
                             "registered store (%zu bytes)",
                             model, field, in->status_store, in->status_index, bytes);
    return PCS_OK;
}

/* Add @p in's stores (its value's, then its status word's if it has one)
 * to the read list reads[0..*n) of the controller's system, each store
 * once: a controller's inputs are mostly elements of the same sensor
 * stores. First come, first listed, so the reads' order is the inputs'.
 * @p reads has room for two more ids. */
static inline void pcs_control_input_reads(const pcs_pzr_control_input *in, uint32_t *reads,
                                           uint32_t *n)
{
    const uint32_t ids[2] = {in->store, in->status_store};
    for (int k = 0; k < 2; k++) {
        int listed = ids[k] == PCS_PZR_CONTROL_NO_STATUS;
        for (uint32_t i = 0; i < *n && !listed; i++)
            listed = reads[i] == ids[k];
        if (!listed)
            reads[(*n)++] = ids[k];
    }
}

#endif
