/**
 * @file machine.c
 * @brief The machine description written next to the results: CPU, caches and topology
 *        (hwloc), kernel, compiler and flags, git commit, timer, load average.
 */
#include <hwloc.h>
#include <jansson.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "bench/harness_internal.h"
#include "pcsim/version.h"

/* First line of a shell command's output, or "" (e.g. git outside a checkout). */
static void first_line(const char *cmd, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    if (fgets(out, (int)cap, p))
        out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

static json_t *caches_json(hwloc_topology_t topo)
{
    static const struct {
        hwloc_obj_type_t type;
        const char *name;
    } kinds[] = {{HWLOC_OBJ_L1CACHE, "L1d"},
                 {HWLOC_OBJ_L1ICACHE, "L1i"},
                 {HWLOC_OBJ_L2CACHE, "L2"},
                 {HWLOC_OBJ_L3CACHE, "L3"}};
    json_t *arr = json_array();
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int n = hwloc_get_nbobjs_by_type(topo, kinds[k].type);
        hwloc_obj_t o = n > 0 ? hwloc_get_obj_by_type(topo, kinds[k].type, 0) : NULL;
        if (!o)
            continue;
        json_array_append_new(arr, json_pack("{s:s, s:I, s:i, s:i, s:i}", "level", kinds[k].name,
                                             "size_bytes", (json_int_t)o->attr->cache.size,
                                             "line_bytes", (int)o->attr->cache.linesize, "ways",
                                             o->attr->cache.associativity, "count", n));
    }
    return arr;
}

/* lstopo-like lines: one object per line, indented by depth. */
static void topology_lines(hwloc_topology_t topo, hwloc_obj_t o, int depth, json_t *lines)
{
    char type[64], attr[256], line[400];
    hwloc_obj_type_snprintf(type, sizeof type, o, 0);
    hwloc_obj_attr_snprintf(attr, sizeof attr, o, " ", 0);
    if (o->type == HWLOC_OBJ_PU)
        snprintf(line, sizeof line, "%*s%s L#%u (P#%u)", depth * 2, "", type, o->logical_index,
                 o->os_index);
    else
        snprintf(line, sizeof line, "%*s%s L#%u%s%s%s", depth * 2, "", type, o->logical_index,
                 attr[0] ? " (" : "", attr, attr[0] ? ")" : "");
    json_array_append_new(lines, json_string(line));
    for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling)
        topology_lines(topo, c, depth + 1, lines);
}

static json_t *cpu_json(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return json_pack("{s:s}", "error", "hwloc could not initialise");
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return json_pack("{s:s}", "error", "hwloc could not load the topology");
    }
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    cpu_set_t allowed;
    int n_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : -1;
    json_t *lines = json_array();
    topology_lines(topo, hwloc_get_root_obj(topo), 0, lines);
    json_t *cpu =
        json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:o, s:o}", "model", model ? model : "unknown",
                  "packages", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), "numa_nodes",
                  hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), "cores",
                  hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), "pus",
                  hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), "cpus_allowed", n_allowed, "caches",
                  caches_json(topo), "topology", lines);
    hwloc_topology_destroy(topo);
    return cpu;
}

static json_t *timer_json(void)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    const int n = 200000;
    double t0 = bench_now_ns(), sink = 0.0;
    for (int i = 0; i < n; i++)
        sink += bench_now_ns();
    double per_call = (bench_now_ns() - t0) / n;
    pcs_bench_consume_f64(sink);
    return json_pack("{s:s, s:f, s:f}", "clock", "CLOCK_MONOTONIC (clock_gettime)", "resolution_ns",
                     (double)res.tv_sec * 1e9 + (double)res.tv_nsec, "overhead_ns", per_call);
}

static const char *compiler_id(void)
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

json_t *bench_machine_json(const bench_opts *o);
json_t *bench_machine_json(const bench_opts *o)
{
    struct utsname u;
    uname(&u);
    char commit[128], dirty[256], date[64];
    first_line("git rev-parse HEAD 2>/dev/null", commit, sizeof commit);
    first_line("git status --porcelain --untracked-files=no 2>/dev/null", dirty, sizeof dirty);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    bench_perf probe;
    bench_perf_open(&probe);
    json_t *m = json_pack(
        "{s:s, s:o, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s}, s:{s:s, s:b}, s:o, s:s, s:s, "
        "s:{s:i, s:f, s:i, s:f, s:i}}",
        "date", date, "cpu", cpu_json(), "kernel", "sysname", u.sysname, "release", u.release,
        "version", u.version, "machine", u.machine, "compiler", "id", compiler_id(), "flags",
        o->cflags ? o->cflags : "unknown (pass --cflags)", "git", "commit",
        commit[0] ? commit : "unknown", "dirty", dirty[0] != '\0', "timer", timer_json(),
        "perf_counters", probe.ok ? "available" : probe.msg, "pcsim_version", pcs_version(),
        "harness", "warmup_iterations", o->warmup_iters, "warmup_s", o->warmup_s,
        "measurement_iterations", o->iters, "measurement_s", o->iter_s, "forks", o->forks);
    bench_perf_close(&probe);
    double end[3];
    if (getloadavg(end, 3) != 3)
        end[0] = end[1] = end[2] = -1.0;
    json_object_set_new(m, "load_average",
                        json_pack("{s:[f, f, f], s:[f, f, f]}", "start", o->load_start[0],
                                  o->load_start[1], o->load_start[2], "end", end[0], end[1],
                                  end[2]));
    return m;
}
