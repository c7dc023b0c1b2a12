/**
 * @file topology.h
 * @brief Machine topology with hwloc: usable PUs, the host's core, where workers go (internal).
 *
 * The only file pair that sees hwloc types; nothing of hwloc reaches
 * include/pcsim/ (docs/ARCHITECTURE.md section 1).
 */
#ifndef PCS_EXEC_TOPOLOGY_H
#define PCS_EXEC_TOPOLOGY_H

#include <hwloc.h>
#include <stddef.h>
#include <stdint.h>

#include "pcsim/status.h"

typedef struct pcs_topo {
    hwloc_topology_t topo;
    hwloc_bitmap_t usable; /* allowed PUs restricted to the process binding */
    uint32_t ncpu;         /* PUs in usable */
    int host_core;         /* logical index of the host thread's core, -1 unknown */
    int real;              /* 1: this machine (binding possible); 0: synthetic */
} pcs_topo;

/**
 * Load @p synthetic (an hwloc synthetic description such as
 * "pack:2 l3:1 core:4 pu:2", for tests) or, when NULL, this machine, and find
 * the usable set and the calling thread's core.
 * @return PCS_E_STATE naming the hwloc call that failed, PCS_E_NOMEM.
 */
pcs_status pcs_topo_open(pcs_topo *t, const char *synthetic);
void pcs_topo_close(pcs_topo *t);

/** Number of cores with at least one usable PU. */
uint32_t pcs_topo_usable_cores(const pcs_topo *t);

/**
 * Cores a worker may take, best first: usable, not the host's, ordered by how
 * deep their common ancestor with the host core is (same L2, then same L3,
 * then same package, then anywhere), then by logical index.
 * @param cores receives up to @p max logical core indices.
 * @return the number written.
 */
uint32_t pcs_topo_worker_cores(const pcs_topo *t, int *cores, uint32_t max);

/** OS index of core @p core's first usable PU, -1 if none. */
int pcs_topo_core_os(const pcs_topo *t, int core);

/**
 * Bind the calling thread to the usable PUs of core @p core.
 * @return 0, or an errno value (why holds a sentence) if the OS refused.
 */
int pcs_topo_pin_self(const pcs_topo *t, int core, char *why, size_t why_len);

/**
 * lstopo-style text: packages, L3 caches and cores with their PUs; the host
 * core and @p worker_core[i] (worker i's core, -1 unpinned) are marked.
 * @return the length the full text needs, as snprintf.
 */
size_t pcs_topo_describe(const pcs_topo *t, const int *worker_core, uint32_t n_workers, char *buf,
                         size_t len);

#endif
