/**
 * @file secondary_internal.h
 * @brief The steam side's private layout, shared by secondary_build.c
 *        (definition, network, stores, channels, load check) and
 *        secondary_step.c (the tick).
 */
#ifndef PCS_PHYSICS_SECONDARY_INTERNAL_H
#define PCS_PHYSICS_SECONDARY_INTERNAL_H

#include "pcsim/secondary.h"
#include "pcsim/system.h"
#include "pcsim/thnet.h"

/* Volume offsets inside one SG's block (the bundle's n_bundle volumes first). */
enum { SV_UPPER_RISER = 0, SV_DOME, SV_DC_UPPER, SV_DC_LOWER, SV_STEAM_LINE, SV_COUNT };
/* Junction offsets inside one SG's block after the n_bundle riser junctions
 * (downcomer exit into bundle 0, then bundle k-1 -> k). */
enum {
    SJ_TO_UPPER = 0, /* last bundle volume -> upper riser */
    SJ_SEPARATOR,    /* upper riser -> dome */
    SJ_DOME_DC,      /* dome -> downcomer upper (separated liquid) */
    SJ_DC,           /* downcomer upper -> lower */
    SJ_RESTRICTOR,   /* dome -> steam line (choked) */
    SJ_MSIV,         /* steam line -> header */
    SJ_SAFETY,       /* steam line -> atmosphere (choked) */
    SJ_BREAK,        /* steam line -> atmosphere: the steam_line_break (choked, shut) */
    SJ_PORV,         /* steam line -> atmosphere: the atmospheric relief valve (choked) */
    SJ_COUNT
};

struct pcs_secondary {
    pcs_secondary_def def;
    char unit[16];
    pcs_thnet *net;
    uint32_t nv, nj, nsg, nb, nt; /* nt = 2 nb tube volumes per SG */
    uint32_t per_sg_v, per_sg_j;
    uint32_t v_header, v_condenser, v_atmosphere;
    uint32_t j_turbine, j_dump;
    double z_dome_bottom;
    double a_turbine, a_dump, a_restrictor, a_safety, a_porv; /* derived throat areas, m2 */
    double a_break; /* largest break: the steam line's bore */
    /* scratch, world memory */
    double *heat_w;   /* [nv] */
    double *valve;    /* [nj] */
    double *src_kg_s; /* [nv] */
    double *src_h;    /* [nv] */
    double *vol_m3;   /* [nv] */
    double *area_m2;  /* [nj] */
    pcs_secondary_balance bal;
    pcs_secondary_stores s;
};

static inline uint32_t sec_vol(const struct pcs_secondary *sc, uint32_t l, uint32_t off)
{
    return l * sc->per_sg_v + sc->nb + off;
}
static inline uint32_t sec_bundle(const struct pcs_secondary *sc, uint32_t l, uint32_t k)
{
    return l * sc->per_sg_v + k;
}
static inline uint32_t sec_jun(const struct pcs_secondary *sc, uint32_t l, uint32_t off)
{
    return l * sc->per_sg_j + sc->nb + off;
}

typedef struct secondary_view {
    pcs_thnet_state st;
    double *tube_heat, *tube_t, *out;
    double *turbine_valve, *dump, *feed, *afw, *msiv; /* actuator inputs */
    double *brk;                                      /* break area per steam line, m2 */
    double *porv;                                     /* SG PORV opening per steam line */
    double *feed_t;                                   /* main feed temperature input, K */
} secondary_view;

/* secondary_step.c */
void pcs_secondary_view(pcs_world *w, const struct pcs_secondary *sc, secondary_view *v);
pcs_status pcs_secondary_advance(struct pcs_secondary *sc, secondary_view *v, double dt);
pcs_status pcs_secondary_outputs(const struct pcs_secondary *sc, secondary_view *v);
pcs_status pcs_secondary_system(pcs_world *w, void *ctx);
/* secondary_build.c: saturated liquid and vapour enthalpy and (rf, rg when
 * not NULL) density at p (IF97 regions 1 and 2 at T_sat), as the dome's phase
 * offtakes take them (thnet_step.c donor_h); nothing written on failure. */
pcs_status pcs_secondary_sat(double p, double *hf, double *hg, double *rf, double *rg);
/* The dome's collapsed liquid height above its bottom from its void fraction. */
double pcs_secondary_level(const pcs_secondary_def *d, double void_fraction);

#endif
