/**
 * @file perf_counters.c
 * @brief Optional hardware counters per op via perf_event_open(2), user space only.
 *
 * Four counters (cycles, instructions, cache misses, branch misses) on the
 * harness thread, excluding kernel and hypervisor, so perf_event_paranoid <= 2
 * suffices. Team threads are not counted: the figures describe the thread that
 * calls run(). When the kernel or the virtual machine refuses (no PMU in the
 * guest, paranoid = 3, seccomp), the set reports "n/a (not supported: ...)"
 * and the benchmark runs without counters. Counts are scaled by
 * time_enabled / time_running when the kernel multiplexes them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench/harness_internal.h"

static const uint64_t perf_config[4] = {
    PERF_COUNT_HW_CPU_CYCLES,
    PERF_COUNT_HW_INSTRUCTIONS,
    PERF_COUNT_HW_CACHE_MISSES,
    PERF_COUNT_HW_BRANCH_MISSES,
};

static int open_one(uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

void bench_perf_open(bench_perf *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 4; i++)
        p->fd[i] = -1;
    for (int i = 0; i < 4; i++) {
        p->fd[i] = open_one(perf_config[i]);
        if (p->fd[i] < 0) {
            snprintf(p->msg, sizeof p->msg, "n/a (not supported: perf_event_open: %s)",
                     strerror(errno));
            bench_perf_close(p);
            return;
        }
    }
    p->ok = 1;
    snprintf(p->msg, sizeof p->msg, "ok");
}

void bench_perf_start(bench_perf *p)
{
    if (!p->ok)
        return;
    for (int i = 0; i < 4; i++) {
        ioctl(p->fd[i], PERF_EVENT_IOC_RESET, 0);
        ioctl(p->fd[i], PERF_EVENT_IOC_ENABLE, 0);
    }
}

void bench_perf_stop(bench_perf *p, double out[4])
{
    for (int i = 0; i < 4; i++)
        out[i] = 0.0;
    if (!p->ok)
        return;
    for (int i = 0; i < 4; i++)
        ioctl(p->fd[i], PERF_EVENT_IOC_DISABLE, 0);
    for (int i = 0; i < 4; i++) {
        uint64_t v[3] = {0, 0, 0}; /* value, time_enabled, time_running */
        if (read(p->fd[i], v, sizeof v) != (ssize_t)sizeof v)
            continue;
        double scale = v[2] ? (double)v[1] / (double)v[2] : 0.0;
        out[i] = (double)v[0] * scale;
    }
}

void bench_perf_close(bench_perf *p)
{
    for (int i = 0; i < 4; i++) {
        if (p->fd[i] >= 0)
            close(p->fd[i]);
        p->fd[i] = -1;
    }
    p->ok = 0;
}
