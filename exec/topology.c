/**
 * @file topology.c
 * @brief hwloc discovery: usable PUs, the host thread's core, worker placement, a text map.
 *
 * "Usable" means what this process may run on: hwloc's allowed set (hwloc 2
 * already drops PUs a cgroup cpuset forbids) intersected with the process's
 * current binding (what taskset set). The host's core is the core of the
 * calling thread's binding when that is a single core, otherwise the core it
 * last ran on (a guess an unbound thread may later contradict; hosts that
 * care bind their thread first). Workers prefer cores close to the host in
 * the cache tree: they then share its L3 (inputs are copied on the host and
 * read on the worker) and stay in its package.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec/topology.h"

/* Cores, or PUs on machines where hwloc reports no cores. */
static hwloc_obj_type_t core_type(const pcs_topo *t)
{
    return hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

static hwloc_obj_t core_obj(const pcs_topo *t, int core)
{
    if (core < 0)
        return NULL;
    return hwloc_get_obj_by_type(t->topo, core_type(t), (unsigned)core);
}

static int core_count(const pcs_topo *t)
{
    return hwloc_get_nbobjs_by_type(t->topo, core_type(t));
}

/* The core containing every PU of @p set, or -1 if the set spans several. */
static int single_core_of(const pcs_topo *t, hwloc_const_cpuset_t set)
{
    int found = -1;
    for (int i = 0; i < core_count(t); i++) {
        if (!hwloc_bitmap_intersects(core_obj(t, i)->cpuset, set))
            continue;
        if (found >= 0)
            return -1;
        found = i;
    }
    return found;
}

static void find_host_core(pcs_topo *t)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    t->host_core = -1;
    if (!set)
        return;
    if (hwloc_get_cpubind(t->topo, set, HWLOC_CPUBIND_THREAD) == 0)
        t->host_core = single_core_of(t, set);
    if (t->host_core < 0 && hwloc_get_last_cpu_location(t->topo, set, HWLOC_CPUBIND_THREAD) == 0)
        t->host_core = single_core_of(t, set);
    hwloc_bitmap_free(set);
}

static pcs_status find_usable(pcs_topo *t)
{
    t->usable = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t->topo));
    if (!t->usable)
        return pcs_error_set(PCS_E_NOMEM, "exec: out of memory for the usable cpuset");
    if (t->real) {
        hwloc_bitmap_t bound = hwloc_bitmap_alloc();
        if (!bound)
            return pcs_error_set(PCS_E_NOMEM, "exec: out of memory for the process binding");
        if (hwloc_get_cpubind(t->topo, bound, HWLOC_CPUBIND_PROCESS) == 0 &&
            hwloc_bitmap_intersects(bound, t->usable))
            hwloc_bitmap_and(t->usable, t->usable, bound);
        hwloc_bitmap_free(bound);
    }
    int w = hwloc_bitmap_weight(t->usable);
    t->ncpu = w > 0 ? (uint32_t)w : 0;
    return PCS_OK;
}

pcs_status pcs_topo_open(pcs_topo *t, const char *synthetic)
{
    memset(t, 0, sizeof *t);
    t->host_core = -1;
    if (hwloc_topology_init(&t->topo) != 0)
        return pcs_error_set(PCS_E_STATE, "exec: hwloc_topology_init failed (errno %d)", errno);
    if (synthetic && hwloc_topology_set_synthetic(t->topo, synthetic) != 0) {
        pcs_topo_close(t);
        return pcs_error_set(PCS_E_INVAL, "exec: bad synthetic topology '%s'", synthetic);
    }
    if (hwloc_topology_load(t->topo) != 0) {
        int e = errno;
        pcs_topo_close(t);
        return pcs_error_set(PCS_E_STATE, "exec: hwloc_topology_load failed (errno %d)", e);
    }
    t->real = synthetic == NULL;
    pcs_status st = find_usable(t);
    if (st != PCS_OK) {
        pcs_topo_close(t);
        return st;
    }
    if (t->real)
        find_host_core(t);
    return PCS_OK;
}

void pcs_topo_close(pcs_topo *t)
{
    if (t->usable)
        hwloc_bitmap_free(t->usable);
    if (t->topo)
        hwloc_topology_destroy(t->topo);
    t->usable = NULL;
    t->topo = NULL;
}

static int core_usable(const pcs_topo *t, int core)
{
    return hwloc_bitmap_intersects(core_obj(t, core)->cpuset, t->usable);
}

uint32_t pcs_topo_usable_cores(const pcs_topo *t)
{
    uint32_t n = 0;
    for (int i = 0; i < core_count(t); i++)
        n += core_usable(t, i) ? 1u : 0u;
    return n;
}

/* Depth of the deepest object holding both cores: larger is closer. */
static int closeness(const pcs_topo *t, int core)
{
    hwloc_obj_t host = core_obj(t, t->host_core);
    if (!host)
        return 0;
    hwloc_obj_t common = hwloc_get_common_ancestor_obj(t->topo, host, core_obj(t, core));
    return common ? common->depth : 0;
}

uint32_t pcs_topo_worker_cores(const pcs_topo *t, int *cores, uint32_t max)
{
    uint32_t n = 0;
    for (int i = 0; i < core_count(t) && n < max; i++) {
        if (i == t->host_core || !core_usable(t, i))
            continue;
        /* Insertion sort by (closeness desc, index asc): n is at most a few hundred. */
        int key = closeness(t, i);
        uint32_t k = n++;
        while (k > 0 && closeness(t, cores[k - 1]) < key) {
            cores[k] = cores[k - 1];
            k--;
        }
        cores[k] = i;
    }
    return n;
}

int pcs_topo_core_os(const pcs_topo *t, int core)
{
    hwloc_obj_t c = core_obj(t, core);
    if (!c)
        return -1;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return -1;
    hwloc_bitmap_and(set, c->cpuset, t->usable);
    int os = hwloc_bitmap_first(set);
    hwloc_bitmap_free(set);
    return os;
}

int pcs_topo_pin_self(const pcs_topo *t, int core, char *why, size_t why_len)
{
    hwloc_obj_t c = core_obj(t, core);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int err = 0;
    if (!c || !set || !t->real) {
        err = EINVAL;
        snprintf(why, why_len, "core L#%d does not exist on this machine", core);
    } else {
        hwloc_bitmap_and(set, c->cpuset, t->usable);
        if (hwloc_set_cpubind(t->topo, set, HWLOC_CPUBIND_THREAD) != 0) {
            err = errno ? errno : EINVAL;
            char msg[128];
            /* GNU strerror_r (_GNU_SOURCE): thread-safe, returns the text. */
            snprintf(why, why_len, "binding to core L#%d (PU P#%d) failed: %s", core,
                     hwloc_bitmap_first(set), strerror_r(err, msg, sizeof msg));
        }
    }
    if (set)
        hwloc_bitmap_free(set);
    return err;
}

/* ---- Text map -------------------------------------------------------------- */

typedef struct text {
    char *buf;
    size_t len;  /* capacity */
    size_t need; /* bytes the full text needs */
} text;

__attribute__((format(printf, 2, 3))) static void put(text *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->need < o->len ? o->len - o->need : 0;
    int n = vsnprintf(room ? o->buf + o->need : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->need += (size_t)n;
}

static void put_size(text *o, uint64_t bytes)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        put(o, "%llu MiB", (unsigned long long)(bytes >> 20));
    else
        put(o, "%llu KiB", (unsigned long long)(bytes >> 10));
}

static void put_core(const pcs_topo *t, text *o, hwloc_obj_t c, const int *worker_core,
                     uint32_t n_workers)
{
    int core = (int)c->logical_index;
    put(o, "Core L#%d  PU", core);
    for (int pu = hwloc_bitmap_first(c->cpuset); pu >= 0; pu = hwloc_bitmap_next(c->cpuset, pu))
        put(o, " P#%d", pu);
    if (!core_usable(t, core))
        put(o, "  (not usable by this process)");
    if (core == t->host_core)
        put(o, "  <- host thread");
    for (uint32_t i = 0; i < n_workers; i++)
        if (worker_core[i] == core)
            put(o, "  <- pcsim-w%u", i);
    put(o, "\n");
}

static void walk(const pcs_topo *t, text *o, hwloc_obj_t obj, int indent, const int *worker_core,
                 uint32_t n_workers)
{
    int shown = 1;
    if (obj->type == core_type(t)) {
        put(o, "%*s", indent * 2, "");
        put_core(t, o, obj, worker_core, n_workers);
        return;
    }
    if (obj->type == HWLOC_OBJ_PACKAGE) {
        put(o, "%*sPackage L#%u\n", indent * 2, "", obj->logical_index);
    } else if (obj->type == HWLOC_OBJ_L3CACHE) {
        put(o, "%*sL3 L#%u (", indent * 2, "", obj->logical_index);
        put_size(o, obj->attr->cache.size);
        put(o, ")\n");
    } else {
        shown = 0; /* machine, groups, L2/L1: walked through, not shown */
    }
    for (unsigned i = 0; i < obj->arity; i++)
        walk(t, o, obj->children[i], indent + shown, worker_core, n_workers);
}

size_t pcs_topo_describe(const pcs_topo *t, const int *worker_core, uint32_t n_workers, char *buf,
                         size_t len)
{
    text o = {buf, len, 0};
    if (buf && len)
        buf[0] = '\0';
    put(&o,
        "Machine: %d package(s), %d core(s), %d PU(s); usable by this process: %u PU(s) on "
        "%u core(s)\n",
        hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PACKAGE), core_count(t),
        hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PU), t->ncpu, pcs_topo_usable_cores(t));
    walk(t, &o, hwloc_get_root_obj(t->topo), 1, worker_core, n_workers);
    return o.need;
}
