/**
 * @file finite_check.c
 * @brief The finite check: after a stage, scan the PCS_STORE_F64 stores its
 *        systems declare they write for NaN and infinities (issue 12).
 *
 * A NaN spreads silently through every later stage and tick, so the place it
 * is first seen is usually far from the code that made it. Checking each
 * stage's declared writes names the system that produced it, in the tick it
 * did. Two systems of a stage never write the same store (system.c refuses
 * it), so the writer is unambiguous.
 *
 * Cost: one pass over the bytes of the scanned stores, no allocation. The
 * pass is integer-only and branch-free, so it vectorises; only a store that
 * holds a bad value is walked again to find where.
 */
#include <math.h>
#include <string.h>

#include "engine/world_internal.h"

#define F64_EXP 0x7ff0000000000000u /* all-ones exponent: an infinity or a NaN */
#define F64_EXP_LSB 0x0010000000000000u

/* One double's contribution: (bits & EXP) + EXP_LSB carries into bit 63
 * exactly when the exponent is all ones (an infinity or a NaN). */
static inline uint64_t nonfinite_bit(const unsigned char *p, size_t i)
{
    uint64_t u;
    memcpy(&u, p + i * sizeof u, sizeof u);
    return (u & F64_EXP) + F64_EXP_LSB;
}

/* Nonzero if any of the n doubles at p is not finite. Four independent
 * lanes let the compiler vectorise the loop at -O2 (GCC 12: 1.1 us instead
 * of 3.4 us for the 7840 doubles a 4-unit station writes per tick). */
static int any_nonfinite(const unsigned char *p, size_t n)
{
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a0 |= nonfinite_bit(p, i);
        a1 |= nonfinite_bit(p, i + 1);
        a2 |= nonfinite_bit(p, i + 2);
        a3 |= nonfinite_bit(p, i + 3);
    }
    for (; i < n; i++)
        a0 |= nonfinite_bit(p, i);
    return ((a0 | a1 | a2 | a3) >> 63) != 0;
}

static size_t first_nonfinite(const double *p, size_t n)
{
    size_t i = 0;
    while (i < n && isfinite(p[i]))
        i++;
    return i;
}

static pcs_status report(const pcs_world *w, pcs_stage stage, const char *system,
                         const pcs_store_rec *s)
{
    const double *p = s->data;
    size_t per = s->elem_size / sizeof(double);
    size_t i = first_nonfinite(p, s->count * per);
    unsigned long long tick = (unsigned long long)w->clock.tick;
    if (per == 1)
        return pcs_error_set(PCS_E_NUMERIC,
                             "tick %llu stage %s system '%s' wrote store '%s' element %zu = %g",
                             tick, pcs_stage_name(stage), system, s->name, i, p[i]);
    return pcs_error_set(PCS_E_NUMERIC,
                         "tick %llu stage %s system '%s' wrote store '%s' element %zu, "
                         "double %zu = %g",
                         tick, pcs_stage_name(stage), system, s->name, i / per, i % per, p[i]);
}

pcs_status pcs_finite_check_stage(pcs_world *w, pcs_stage stage)
{
    for (uint32_t k = w->stage_start[stage]; k < w->stage_start[stage + 1]; k++) {
        const pcs_system_desc *d = &w->systems[w->stage_order[k]].desc;
        for (uint32_t j = 0; j < d->n_writes; j++) {
            const pcs_store_rec *s = &w->stores[d->writes[j]];
            if (s->f64 && any_nonfinite(s->data, s->elem_size / sizeof(double) * s->count))
                return report(w, stage, d->name, s);
        }
    }
    return PCS_OK;
}
