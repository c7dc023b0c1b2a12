/**
 * @file unit_internal.h
 * @brief The reactor unit's private layout, shared by unit.c, unit_systems.c
 *        and unit_commands.c only.
 *
 * All state lives in world stores (hashed, saved); the pointers below point
 * into them and are fixed once the stores are registered. The rest is
 * constant after build (configuration and derived model constants).
 */
#ifndef PCS_PHYSICS_UNIT_INTERNAL_H
#define PCS_PHYSICS_UNIT_INTERNAL_H

#include "pcsim/decay_heat.h"
#include "pcsim/kinetics.h"
#include "pcsim/lumped_heat.h"
#include "pcsim/unit.h"

/* Elements of the f64 store uN.core.out (published values). */
enum {
    UNIT_OUT_POWER = 0, /* thermal power at the end of the tick, W */
    UNIT_OUT_FISSION,   /* (1 - f_dh) P_nom n, W */
    UNIT_OUT_DECAY,     /* decay heat, W */
    UNIT_OUT_RHO,       /* total reactivity, Delta k/k */
    UNIT_OUT_PERIOD,    /* dt / ln(n1/n0), s */
    UNIT_OUT_N,         /* relative neutron level n */
    UNIT_OUT_POWER_AVG, /* tick-average thermal power, W (the heat stage's input) */
    UNIT_OUT_LEN
};

/* Elements of the f64 store uN.rho.terms: pcs_unit_reactivity's fields in
 * its order (pcs_unit_reactivity_get copies the store; unit.c checks). */
enum {
    UNIT_RHO_RODS = 0,
    UNIT_RHO_DOPPLER,
    UNIT_RHO_MODERATOR,
    UNIT_RHO_BORON,
    UNIT_RHO_XENON,
    UNIT_RHO_SAMARIUM,
    UNIT_RHO_BIAS,
    UNIT_RHO_TOTAL,
    UNIT_RHO_LEN
};

/* Elements of the u32 store uN.scram.state. */
enum {
    UNIT_SCRAM_LATCHED = 0, /* 1 while a scram is latched */
    UNIT_SCRAM_CAUSE,       /* cause bits of the latched scram */
    UNIT_SCRAM_MANUAL,      /* 1: a manual scram command waits for ACTUATORS */
    UNIT_SCRAM_LEN
};

/* Elements of the f64 store uN.kin.aux. */
enum {
    UNIT_AUX_RHO_PREV = 0, /* total reactivity the last step ended with */
    UNIT_AUX_SCRAM_T,      /* seconds since the scram latched */
    UNIT_AUX_POISON_PREV,  /* xenon + samarium reactivity the last step used */
    UNIT_AUX_LEN
};

/* Store ids of one unit. */
typedef struct unit_stores {
    uint32_t kin_y, kin_modes, kin_aux, dh, rods_pos, rods_cmd, rods_speed, rods_start, rods_rho,
        rods_mean, scram, trip, flags, out, rho, boron, xe_state, xe_power, fuel_t_avg, fuel_t_max,
        coolant_t_avg;
    uint32_t rods_auto;  /* UINT32_MAX unless cfg.auto_rods */
    uint32_t kin_energy; /* UINT32_MAX unless cfg.energy_feedback > 0 */
} unit_stores;

struct pcs_unit {
    uint32_t index;
    char prefix[16];            /* "uN", N up to 4294967295 */
    pcs_unit_def cfg;           /* validated copy */
    double beta;                /* sum of beta_i */
    double f_dh;                /* saturated decay-heat fraction of fission power */
    pcs_decay_heat_model dh;    /* decay-heat constants for the FAST step */
    pcs_lumped_heat_model heat; /* heat propagator for the FAST step */
    double dt_s;                /* FAST step */
    unit_stores id;
    /* Pointers into the stores above (fixed after registration). */
    double *y, *aux, *dh_groups, *pos, *cmd, *speed, *start, *bank_rho, *rods_mean, *out,
        *rho_terms, *boron, *xe_power, *t_fuel, *t_max, *t_cool;
    double *rods_auto; /* NULL unless cfg.auto_rods */
    double *energy;    /* W = int n dt since build; NULL unless cfg.energy_feedback > 0 */
    pcs_kinetics_modes *modes;
    pcs_xenon_state *xe;
    uint32_t *scram, *trip, *flags;
    uint32_t xe_job; /* the xenon SLOW job's id (unit_freeze.c checks it merged) */
};

/* unit_systems.c: registration of the ACTUATORS, KINETICS and HEAT systems. */
pcs_status pcs_unit_systems_register(pcs_world *w, pcs_unit *u);

/* unit_commands.c: register u's command targets (and the "units" family on
 * the world's first unit). */
pcs_status pcs_unit_commands_register(pcs_world *w, pcs_unit *u);

/* unit_commands.c: 1 if unit @p index is already built in @p w (its target "uN"
 * takes unit commands). */
int pcs_unit_index_taken(pcs_world *w, uint32_t index);

/* unit_systems.c: fill uN.rho.terms from the current state (keeping the
 * stored bias) and return the total. */
double pcs_unit_total_reactivity(pcs_unit *u);
pcs_status pcs_unit_balance(pcs_unit *u);

/* Worth-weighted mean bank position (1 = all withdrawn). */
double pcs_unit_rods_mean(const pcs_unit *u);

#endif
