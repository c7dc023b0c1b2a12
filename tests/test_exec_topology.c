/**
 * @file test_exec_topology.c
 * @brief Worker count, core choice and the topology text, on synthetic and real machines.
 *
 * Synthetic machines (hwloc's synthetic descriptions) make the placement rule
 * checkable anywhere: workers go to usable cores other than the host's,
 * closest to it in the cache tree first (docs/ARCHITECTURE.md section 5).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "exec/topology.h"
#include "pcsim/exec.h"

/* max(1, min(2, ncpu - 2)) by hand: ncpu 1 -> max(1, -1) = 1; 3 -> 1; 4 -> 2; 64 -> 2. */
Test(exec_topology, default_worker_count_formula)
{
    const uint32_t ncpu[] = {0, 1, 2, 3, 4, 5, 8, 64};
    const uint32_t want[] = {1, 1, 1, 1, 2, 2, 2, 2};
    for (size_t i = 0; i < sizeof ncpu / sizeof ncpu[0]; i++)
        cr_expect_eq(pcs_exec_default_workers(ncpu[i]), want[i], "ncpu %u", ncpu[i]);
}

/* Two packages of one L3 each, 4 cores per package, 2 PUs per core:
 * cores L#0-3 in package 0, L#4-7 in package 1. Host on L#5: its package
 * siblings 4, 6, 7 come first, then package 0 in index order. */
Test(exec_topology, workers_prefer_the_hosts_package_and_l3)
{
    pcs_topo t;
    cr_assert_eq(pcs_topo_open(&t, "pack:2 l3:1 core:4 pu:2"), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(t.ncpu, 16);
    cr_expect_eq(pcs_topo_usable_cores(&t), 8);
    t.host_core = 5;
    int cores[8];
    uint32_t n = pcs_topo_worker_cores(&t, cores, 8);
    const int want[] = {4, 6, 7, 0, 1, 2, 3};
    cr_assert_eq(n, 7);
    for (uint32_t i = 0; i < n; i++)
        cr_expect_eq(cores[i], want[i], "rank %u", i);
    pcs_topo_close(&t);
}

/* One package, two L3 caches of two cores: host L#2 shares L3 #1 with L#3. */
Test(exec_topology, shared_cache_beats_index_order)
{
    pcs_topo t;
    cr_assert_eq(pcs_topo_open(&t, "pack:1 l3:2 core:2 pu:1"), PCS_OK, "%s", pcs_last_error());
    t.host_core = 2;
    int cores[4];
    uint32_t n = pcs_topo_worker_cores(&t, cores, 4);
    cr_assert_eq(n, 3);
    cr_expect_eq(cores[0], 3);
    cr_expect_eq(cores[1], 0);
    cr_expect_eq(cores[2], 1);
    pcs_topo_close(&t);
}

/* A core whose PUs the process may not use (taskset, cgroup) is never chosen. */
Test(exec_topology, unusable_cores_are_skipped)
{
    pcs_topo t;
    cr_assert_eq(pcs_topo_open(&t, "pack:1 core:4 pu:2"), PCS_OK, "%s", pcs_last_error());
    t.host_core = 0;
    hwloc_bitmap_clr_range(t.usable, 2, 3); /* PUs of core L#1 */
    int cores[4];
    uint32_t n = pcs_topo_worker_cores(&t, cores, 4);
    cr_assert_eq(n, 2);
    cr_expect_eq(cores[0], 2);
    cr_expect_eq(cores[1], 3);
    cr_expect_eq(pcs_topo_usable_cores(&t), 3);
    pcs_topo_close(&t);
}

Test(exec_topology, text_map_marks_host_and_workers)
{
    pcs_topo t;
    cr_assert_eq(pcs_topo_open(&t, "pack:2 l3:1 core:2 pu:1"), PCS_OK, "%s", pcs_last_error());
    t.host_core = 1;
    int workers[] = {0, 3};
    char buf[2048];
    size_t need = pcs_topo_describe(&t, workers, 2, buf, sizeof buf);
    cr_assert_lt(need, sizeof buf);
    cr_expect_eq(strlen(buf), need);
    cr_expect(strstr(buf, "2 package(s), 4 core(s), 4 PU(s)") != NULL, "%s", buf);
    cr_expect(strstr(buf, "Package L#1") != NULL, "%s", buf);
    cr_expect(strstr(buf, "Core L#1  PU P#1  <- host thread") != NULL, "%s", buf);
    cr_expect(strstr(buf, "Core L#0  PU P#0  <- pcsim-w0") != NULL, "%s", buf);
    cr_expect(strstr(buf, "Core L#3  PU P#3  <- pcsim-w1") != NULL, "%s", buf);
    /* Truncation behaves like snprintf: same length reported, NUL-terminated. */
    char small[16];
    cr_expect_eq(pcs_topo_describe(&t, workers, 2, small, sizeof small), need);
    cr_expect_eq(strlen(small), sizeof small - 1);
    pcs_topo_close(&t);
}

/* Binding can fail (a synthetic machine, a container that forbids it): the
 * call reports errno and a sentence instead of failing the pool. */
Test(exec_topology, pin_failure_is_reported_not_fatal)
{
    pcs_topo t;
    cr_assert_eq(pcs_topo_open(&t, "pack:1 core:2 pu:1"), PCS_OK, "%s", pcs_last_error());
    char why[200];
    cr_expect_neq(pcs_topo_pin_self(&t, 1, why, sizeof why), 0);
    cr_expect(strstr(why, "core L#1") != NULL, "%s", why);
    pcs_topo_close(&t);
}

Test(exec_topology, bad_synthetic_description_is_rejected)
{
    pcs_topo t;
    cr_expect_eq(pcs_topo_open(&t, "no such machine"), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "synthetic") != NULL, "%s", pcs_last_error());
}

/* ---- this machine ------------------------------------------------------------ */

static uint32_t topo_free_cores(void)
{
    pcs_topo t;
    cr_assert_eq(pcs_topo_open(&t, NULL), PCS_OK, "%s", pcs_last_error());
    int cores[256];
    uint32_t n = pcs_topo_worker_cores(&t, cores, 256);
    pcs_topo_close(&t);
    return n;
}

Test(exec_topology, default_pool_uses_formula_capped_by_free_cores)
{
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(NULL, &pool), PCS_OK, "%s", pcs_last_error());
    uint32_t want = pcs_exec_default_workers(pcs_exec_ncpu(pool));
    uint32_t free_cores = topo_free_cores();
    uint32_t n = pcs_exec_worker_count(pool);
    cr_expect_eq(n, want < free_cores ? want : free_cores);
    cr_expect_gt(pcs_exec_ncpu(pool), 0);
    for (uint32_t i = 0; i < n; i++) {
        pcs_exec_worker_info info;
        cr_assert_eq(pcs_exec_worker_get(pool, i, &info), PCS_OK);
        char name[16];
        snprintf(name, sizeof name, "pcsim-w%u", i % 1000u);
        cr_expect_str_eq(info.name, name);
        if (info.pinned)
            cr_expect_neq(info.core, pcs_exec_host_core(pool), "worker %u on the host core", i);
    }
    pcs_exec_worker_info info;
    cr_expect_eq(pcs_exec_worker_get(pool, n, &info), PCS_E_INVAL);
    pcs_exec_destroy(pool);
}

/* The kernel knows the threads by name: /proc/self/task/<tid>/comm. */
static int thread_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    int found = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && !found) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f))
            found = strncmp(comm, name, strlen(name)) == 0 && comm[strlen(name)] == '\n';
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

Test(exec_topology, workers_are_named_threads)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = 2;
    cfg.allow_oversubscribe = true;
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
    cr_expect(thread_named("pcsim-w0"));
    cr_expect(thread_named("pcsim-w1"));
    cr_expect(!thread_named("pcsim-w2"));
    pcs_exec_destroy(pool);
    cr_expect(!thread_named("pcsim-w0"), "destroy joins the workers");
}

typedef struct warn_log {
    int calls;
    char first[PCS_EXEC_WARNING_BYTES];
} warn_log;

static void topo_warn_cb(void *ctx, const char *msg)
{
    warn_log *log = ctx;
    if (log->calls++ == 0)
        snprintf(log->first, sizeof log->first, "%s", msg);
}

/* Never two threads per core: asking for more workers than free cores starts
 * fewer, with a warning kept in the pool and given to the callback. */
Test(exec_topology, too_many_workers_are_capped_with_a_warning)
{
    uint32_t free_cores = topo_free_cores();
    warn_log log = {0};
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = free_cores + 3;
    cfg.warn = topo_warn_cb;
    cfg.warn_ctx = &log;
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_exec_worker_count(pool), free_cores);
    cr_assert_geq(pcs_exec_warning_count(pool), 1);
    char asked[48];
    snprintf(asked, sizeof asked, "asked for %u worker(s)", free_cores + 3);
    int seen = 0;
    for (uint32_t i = 0; i < pcs_exec_warning_count(pool); i++)
        seen |= strstr(pcs_exec_warning(pool, i), asked) != NULL;
    cr_expect(seen, "no capping warning; first: %s", pcs_exec_warning(pool, 0));
    cr_expect_eq((uint32_t)log.calls, pcs_exec_warning_count(pool));
    cr_expect_str_eq(log.first, pcs_exec_warning(pool, 0));
    cr_expect_null(pcs_exec_warning(pool, pcs_exec_warning_count(pool)));
    pcs_exec_destroy(pool);
}

/* As `taskset -c <cpu>`: bind every thread of the process to one PU. Then
 * ncpu = 1, no core is free for a worker, and the default (1 worker) is
 * capped to 0 with a warning. Criterion runs each test in its own process,
 * so the binding stays here. */
Test(exec_topology, process_binding_shrinks_ncpu)
{
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    hwloc_bitmap_t one = hwloc_bitmap_alloc();
    hwloc_bitmap_only(one, (unsigned)sched_getcpu());
    cr_assert_eq(hwloc_set_cpubind(topo, one, HWLOC_CPUBIND_PROCESS), 0);
    hwloc_bitmap_free(one);
    hwloc_topology_destroy(topo);
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(NULL, &pool), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_exec_ncpu(pool), 1);
    cr_expect_eq(pcs_exec_worker_count(pool), 0);
    cr_expect_geq(pcs_exec_warning_count(pool), 1);
    cr_expect(strstr(pcs_exec_warning(pool, 0), "asked for 1 worker(s) but only 0") != NULL, "%s",
              pcs_exec_warning(pool, 0));
    pcs_exec_destroy(pool);
}

typedef struct cpu_probe {
    int cpu;
} cpu_probe;

static pcs_status topo_probe_chunk(void *ctx, const void *input, uint32_t chunk, void *output)
{
    (void)input;
    (void)chunk;
    (void)output;
    ((cpu_probe *)ctx)->cpu = sched_getcpu();
    return PCS_OK;
}

/* A pinned worker really runs on its core: a chunk run by worker 0 reports
 * the CPU it ran on, which must be the PU the pool says it pinned to. */
Test(exec_topology, pinned_worker_runs_on_its_core)
{
    pcs_exec *pool = NULL;
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = 1;
    cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
    pcs_exec_worker_info info;
    if (pcs_exec_worker_count(pool) == 0 || pcs_exec_worker_get(pool, 0, &info) != PCS_OK ||
        !info.pinned) {
        pcs_exec_destroy(pool);
        cr_skip_test("no pinned worker on this machine");
    }
    cpu_probe probe = {-1};
    char in = 0, out = 0;
    void *outputs[] = {&out};
    pcs_job_run run = {"probe", topo_probe_chunk, &probe, &in, outputs, 1};
    pcs_executor ex;
    void *slot = NULL;
    cr_assert_eq(pcs_exec_executor(pool, &ex), PCS_OK);
    cr_assert_eq(ex.bind(ex.ctx, NULL, &run, &slot), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(ex.submit(ex.ctx, slot), PCS_OK);
    pcs_exec_stats st = {0};
    for (int i = 0; i < 2000 && st.chunks_worker == 0; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        pcs_exec_stats_get(pool, &st);
    }
    cr_assert_eq(ex.join(ex.ctx, slot, 1.0), PCS_OK);
    pcs_exec_stats_get(pool, &st);
    cr_assert_eq(st.chunks_worker, 1, "the worker never ran the chunk");
    cr_expect_eq(probe.cpu, info.core_os);
    ex.unbind(ex.ctx, slot);
    pcs_exec_destroy(pool);
}

Test(exec_topology, describe_lists_workers_for_pcsim_info)
{
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(NULL, &pool), PCS_OK, "%s", pcs_last_error());
    char buf[8192];
    size_t need = pcs_exec_topology_describe(pool, buf, sizeof buf);
    cr_assert_lt(need, sizeof buf);
    cr_expect_eq(strlen(buf), need);
    cr_expect(strstr(buf, "Machine:") == buf, "%s", buf);
    cr_expect(strstr(buf, "Workers:") != NULL, "%s", buf);
    if (pcs_exec_host_core(pool) >= 0)
        cr_expect(strstr(buf, "<- host thread") != NULL, "%s", buf);
    pcs_exec_worker_info info;
    if (pcs_exec_worker_count(pool) > 0 && pcs_exec_worker_get(pool, 0, &info) == PCS_OK &&
        info.pinned)
        cr_expect(strstr(buf, "<- pcsim-w0") != NULL, "%s", buf);
    cr_expect_eq(pcs_exec_topology_describe(NULL, buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "");
    pcs_exec_destroy(pool);
}

/* After pcs_exec_pin_host the host thread runs only on its own core, which no
 * pinned worker uses. */
Test(exec_topology, pin_host_binds_the_host_off_the_workers)
{
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(NULL, &pool), PCS_OK, "%s", pcs_last_error());
    if (pcs_exec_host_core(pool) < 0) {
        cr_expect_eq(pcs_exec_pin_host(pool), PCS_E_STATE);
        pcs_exec_destroy(pool);
        return;
    }
    cr_assert_eq(pcs_exec_pin_host(pool), PCS_OK, "%s", pcs_last_error());
    cpu_set_t mask;
    cr_assert_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
    cr_expect_geq(CPU_COUNT(&mask), 1);
    for (uint32_t i = 0; i < pcs_exec_worker_count(pool); i++) {
        pcs_exec_worker_info info;
        pcs_exec_worker_get(pool, i, &info);
        if (info.pinned)
            cr_expect(!CPU_ISSET((unsigned)info.core_os, &mask), "host may run on worker %u's PU",
                      i);
    }
    cr_expect_eq(pcs_exec_pin_host(NULL), PCS_E_INVAL);
    pcs_exec_destroy(pool);
}
