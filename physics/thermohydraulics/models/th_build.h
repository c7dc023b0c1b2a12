/**
 * @file th_build.h
 * @brief Build steps the two network models (the primary, primary_build.c,
 *        and the steam side, secondary_build.c) share: the network builder
 *        that appends volumes and junctions, the model's allocation, the
 *        network's creation from it and its volumes' and flow areas' copy,
 *        the nine network stores' view, the load checks (mass and
 *        energy, a volume's fluid properties, flows), and the table of a
 *        def's double fields that gives both models their defaults and
 *        range checks.
 */
#ifndef PCS_PHYSICS_TH_BUILD_H
#define PCS_PHYSICS_TH_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/persist.h"
#include "pcsim/thnet.h"
#include "pcsim/water.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

#define PCS_TH_PI 3.14159265358979323846
/* Load-check bounds of the property domain (the models' file comments): no
 * water is denser than 1100 kg/m3; the thinnest water the domain holds is
 * steam at 1 kPa and 1073 K, p / (R T) = 1000 / (461.5 x 1073.15) = 2.0e-3
 * kg/m3 (IF97 ideal-gas limit), so a volume's mass below PCS_TH_RHO_MIN V is
 * no state of the model (a save edited to 1e-6 kg would otherwise pass); u
 * from the triple point to 1073 K; the (p, h) table's enthalpy. */
#define PCS_TH_RHO_MAX 1100.0
#define PCS_TH_RHO_MIN 1e-3
#define PCS_TH_U_MAX 4.5e6
#define PCS_TH_H_MAX 4.2e6

/* A double field of a network model's def: its name as messages show it,
 * its place in the def, its default and its allowed range (pcsim/
 * param_range.h). One table serves the model's default and its validate, in
 * the order the checks run. lo_at (hi_at) nonzero: that end of the range is
 * the value of the double at that offset plus lo (hi): an elevation above
 * another, a speed above the pump's. */
typedef struct pcs_th_field {
    const char *name;
    size_t offset;
    double dflt, lo, hi;
    int open_lo; /* 1: (lo, hi] */
    size_t lo_at, hi_at;
} pcs_th_field;

/* The name and place of double field f of def type T, for a pcs_th_field
 * row; the rows are read and written through (double *) at the offset, so
 * PCS_TH_DOUBLE makes any other type a compile error. An _at of 0 names no
 * field: each def's first member is its unit name, never a double. */
#define PCS_TH_DOUBLE(T, f) (0 * sizeof(char[_Generic(((T *)0)->f, double : 1)]))
#define PCS_TH_FIELD(T, f) #f, offsetof(T, f) + PCS_TH_DOUBLE(T, f)
#define PCS_TH_AT(T, f) (offsetof(T, f) + PCS_TH_DOUBLE(T, f))

/* Each row's default written into the def at @p def. */
void pcs_th_fields_default(void *def, const pcs_th_field *f, size_t n);

/* PCS_OK when every row's double in the def at @p def is finite and in its
 * range, else PCS_E_INVAL for the first that is not: "<prefix><name> = <v>
 * is outside [lo, hi]" (pcs_param_ranges_check). */
pcs_status pcs_th_fields_check(const void *def, const pcs_th_field *f, size_t n,
                               const char *prefix);

/* Volumes and junctions appended in order into world-allocated arrays. */
typedef struct pcs_th_net_builder {
    pcs_thnet_volume_def *v;
    pcs_thnet_junction_def *j;
    uint32_t nv, nj;
} pcs_th_net_builder;

/* A model's own struct: @p bytes of zeroed world memory, or NULL with
 * "<who>: out of memory" set. */
void *pcs_th_model_alloc(pcs_world *w, size_t bytes, const char *who);

/* A volume of vol m3 at elevation z, diameter diam; returns its index. */
uint32_t pcs_th_add_vol(pcs_th_net_builder *b, double vol, double z, double diam);

/* A junction of flow area a, inertia length l, hydraulic diameter d (0: of
 * the area), form loss k at elevation z; smooth walls unless rough. */
uint32_t pcs_th_add_jun(pcs_th_net_builder *b, uint32_t from, uint32_t to, double a, double l,
                        double d, double k, double z, double rough);

/* Area of a circle of diameter d. */
double pcs_th_circle(double d);

/* The network of the builder's volumes and junctions with gravity g, its
 * equation of state the table when there is one (IF97 otherwise). */
pcs_status pcs_th_net_create(const pcs_th_net_builder *b, const pcs_water_ph_table *table, double g,
                             pcs_thnet **out);

/* The load check's bounds of the builder's network in world memory: each
 * volume's m3 (*vol_m3, [b->nv]) and each junction's flow area (*area_m2,
 * [b->nj]); PCS_E_NOMEM "<who>: out of memory". */
pcs_status pcs_th_net_bounds(pcs_world *w, const pcs_th_net_builder *b, const char *who,
                             double **vol_m3, double **area_m2);

/* The network stores' ids in pcs_thnet_state order: mass, energy, flow, p,
 * h, t, rho, quality, void fraction. */
enum { PCS_TH_NET_STORES = 9 };

/* The nine network store ids of a model's stores struct @p s (fields mass,
 * energy, flow, p, h, t, rho, quality, void_fraction), in that order. */
/* clang-format off */
#define PCS_TH_NET_STORE_IDS(s)                                                 \
    {(s)->mass, (s)->energy, (s)->flow, (s)->p, (s)->h, (s)->t, (s)->rho,       \
     (s)->quality, (s)->void_fraction}
/* clang-format on */

/* The nine network stores' pcs_th_store rows (th_register.h) of a model with
 * nv volumes and nj junctions, ids into @p s as PCS_TH_NET_STORE_IDS names
 * them; all STATE, registered first by both network models. */
/* clang-format off */
#define PCS_TH_NET_STORE_ROWS(nv, nj, s)                                        \
    {"mass", (nv), PCS_STORE_STATE, &(s)->mass},                                \
    {"energy", (nv), PCS_STORE_STATE, &(s)->energy},                            \
    {"flow", (nj), PCS_STORE_STATE, &(s)->flow},                                \
    {"p", (nv), PCS_STORE_STATE, &(s)->p},                                      \
    {"h", (nv), PCS_STORE_STATE, &(s)->h},                                      \
    {"t", (nv), PCS_STORE_STATE, &(s)->t},                                      \
    {"rho", (nv), PCS_STORE_STATE, &(s)->rho},                                  \
    {"quality", (nv), PCS_STORE_STATE, &(s)->quality},                          \
    {"void", (nv), PCS_STORE_STATE, &(s)->void_fraction}
/* clang-format on */

/* The world destroys *net (and clears it) when it is destroyed. */
pcs_status pcs_th_net_own(pcs_world *w, pcs_thnet **net);

/* st's nine arrays from the stores ids[0..PCS_TH_NET_STORES) (scalar
 * untouched). */
void pcs_th_state_view(pcs_world *w, const uint32_t *ids, pcs_thnet_state *st);

/* A model's totals handed out: m kg to *mass_kg and e J to *energy_j, each
 * only when its pointer is not NULL (pcs_primary_totals, pcs_secondary_totals). */
void pcs_th_totals_out(double m, double e, double *mass_kg, double *energy_j);

/* Load check of volume i's p, h, T, rho, quality and void fraction (the
 * stores ids[3..9) of pcs_th_state_view's order) on the staged values, and
 * that @p net's equation of state has a (p, h) for its staged mass and
 * energy (ids[0], ids[1]; pcs_thnet_volume_check). */
pcs_status pcs_th_check_volume_props(const pcs_world *w, const pcs_thnet *net, const uint32_t *ids,
                                     const pcs_load_view *v, uint32_t i);

/* Load check of volume i's staged mass, in [PCS_TH_RHO_MIN, PCS_TH_RHO_MAX]
 * x @p vol_m3 kg, and internal energy, in [0, PCS_TH_U_MAX x its mass] J
 * (the stores ids[0], ids[1] of pcs_th_state_view's order). */
pcs_status pcs_th_check_mass_energy(const pcs_world *w, const uint32_t *ids, const pcs_load_view *v,
                                    uint32_t i, double vol_m3);

/* Load check of the staged flows of junctions 0..nj (store ids[2]): |W| <=
 * PCS_TH_RHO_MAX x area_m2[k] x 1000 m/s, above any flow a network can carry. */
pcs_status pcs_th_check_flows(const pcs_world *w, const uint32_t *ids, const pcs_load_view *v,
                              uint32_t nj, const double *area_m2);

/* Load check of one staged element x[i] of store @p store. */
pcs_status pcs_th_chk(const pcs_world *w, uint32_t store, const double *x, uint32_t i,
                      const char *field, double lo, double hi, unsigned flags);

#endif
