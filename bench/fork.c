/**
 * @file fork.c
 * @brief Forks: each trial in a fresh process (fork + exec of this binary), results over a pipe.
 *
 * Like JMH's forked JVMs, a fresh process per fork gives every fork its own
 * heap layout, page placement and branch-predictor history, so run-to-run
 * variance shows up in the error instead of hiding in one lucky process. The
 * child is this executable re-exec'ed with --fork-child and positional
 * arguments; it runs bench_trial_run and writes one line per fact to the pipe:
 *
 *   threads N | perf OK|NO message | max NS | iter score ops ns sec0..sec6 |
 *   hist iteration value count | end
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/harness_internal.h"

/* "k=v;k=v" or "-" for no params. */
static void params_encode(const pcs_bench_params *p, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < p->n; i++)
        used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s=%s", i ? ";" : "",
                                 p->names[i], p->values[i]);
    if (p->n == 0)
        snprintf(out, cap, "-");
}

static int params_decode(const pcs_bench_def *d, const char *s, pcs_bench_params *p)
{
    memset(p, 0, sizeof *p);
    for (unsigned i = 0; i < PCS_BENCH_MAX_PARAMS && d->params[i].name; i++) {
        p->names[i] = d->params[i].name;
        p->n = i + 1;
        size_t nl = strlen(d->params[i].name);
        const char *at = s;
        while (at && *at) {
            if (strncmp(at, d->params[i].name, nl) == 0 && at[nl] == '=') {
                const char *v = at + nl + 1;
                size_t vl = strcspn(v, ";");
                if (vl >= BENCH_VALUE_MAX)
                    return -1;
                memcpy(p->values[i], v, vl);
                p->values[i][vl] = '\0';
                break;
            }
            at = strchr(at, ';');
            at = at ? at + 1 : NULL;
        }
        if (!p->values[i][0])
            return -1;
    }
    return 0;
}

static void write_result(FILE *f, const fork_result *r)
{
    fprintf(f, "threads %d\n", r->threads);
    fprintf(f, "perf %s %s\n", r->perf_ok ? "OK" : "NO", r->perf_msg);
    fprintf(f, "max %" PRIu64 "\n", r->sample_max_ns);
    for (unsigned i = 0; i < r->n_iters; i++) {
        const iter_result *it = &r->iters[i];
        fprintf(f, "iter %.17g %" PRIu64 " %.17g", it->score, it->ops, it->ns);
        for (int k = 0; k < SEC_COUNT; k++)
            fprintf(f, " %.17g", it->sec[k]);
        fprintf(f, "\n");
        for (unsigned b = 0; r->hist && b < r->hist_n[i]; b++)
            fprintf(f, "hist %u %" PRIu64 " %" PRIu64 "\n", i, r->hist[i][b].value_ns,
                    r->hist[i][b].count);
    }
    fprintf(f, "end\n");
}

int bench_fork_child_main(int argc, char **argv)
{
    /* self --fork-child bench mode params fd wi i w r perf quiet */
    if (argc != 12) {
        fprintf(stderr, "bench: bad --fork-child arguments\n");
        return 2;
    }
    const pcs_bench_def *d = bench_find(argv[2]);
    unsigned mode = (unsigned)strtoul(argv[3], NULL, 10);
    pcs_bench_params p;
    if (!d || params_decode(d, argv[4], &p) != 0) {
        fprintf(stderr, "bench: fork child cannot find %s with params %s\n", argv[2], argv[4]);
        return 2;
    }
    int fd = atoi(argv[5]);
    bench_opts o;
    memset(&o, 0, sizeof o);
    o.warmup_iters = atoi(argv[6]);
    o.iters = atoi(argv[7]);
    o.warmup_s = strtod(argv[8], NULL);
    o.iter_s = strtod(argv[9], NULL);
    o.perf = atoi(argv[10]);
    o.quiet = atoi(argv[11]);
    fork_result r;
    int rc = bench_trial_run(d, &p, mode, &o, &r);
    FILE *f = fdopen(fd, "w");
    if (!f)
        return 1;
    if (rc == 0)
        write_result(f, &r);
    fclose(f);
    bench_fork_result_free(&r);
    return rc == 0 ? 0 : 1;
}

static int add_hist(fork_result *r, unsigned it, uint64_t v, uint64_t c, unsigned *cap)
{
    if (!r->hist) {
        r->hist = calloc(BENCH_MAX_ITERS, sizeof *r->hist);
        r->hist_n = calloc(BENCH_MAX_ITERS, sizeof *r->hist_n);
        if (!r->hist || !r->hist_n)
            return -1;
    }
    if (it >= r->n_iters || it >= BENCH_MAX_ITERS)
        return -1;
    if (r->hist_n[it] == cap[it]) {
        cap[it] = cap[it] ? cap[it] * 2 : 256;
        sample_bin *nb = realloc(r->hist[it], sizeof *nb * cap[it]);
        if (!nb)
            return -1;
        r->hist[it] = nb;
    }
    r->hist[it][r->hist_n[it]++] = (sample_bin){v, c};
    return 0;
}

/* Parse one line into r; 1 when "end" was seen, -1 on a malformed line. */
static int parse_line(char *line, fork_result *r, unsigned *iter_cap, unsigned *hist_cap)
{
    if (strncmp(line, "end", 3) == 0)
        return 1;
    if (sscanf(line, "threads %d", &r->threads) == 1)
        return 0;
    if (strncmp(line, "perf ", 5) == 0) {
        r->perf_ok = strncmp(line + 5, "OK", 2) == 0;
        snprintf(r->perf_msg, sizeof r->perf_msg, "%.150s", line + 8);
        r->perf_msg[strcspn(r->perf_msg, "\n")] = '\0';
        return 0;
    }
    if (sscanf(line, "max %" SCNu64, &r->sample_max_ns) == 1)
        return 0;
    if (strncmp(line, "iter ", 5) == 0) {
        if (r->n_iters == *iter_cap) {
            *iter_cap = *iter_cap ? *iter_cap * 2 : 16;
            iter_result *ni = realloc(r->iters, sizeof *ni * *iter_cap);
            if (!ni)
                return -1;
            r->iters = ni;
        }
        iter_result *it = &r->iters[r->n_iters];
        char *p = line + 5, *end;
        it->score = strtod(p, &end);
        it->ops = strtoull(end, &end, 10);
        it->ns = strtod(end, &end);
        for (int k = 0; k < SEC_COUNT; k++)
            it->sec[k] = strtod(end, &end);
        r->n_iters++;
        return 0;
    }
    unsigned i;
    uint64_t v, c;
    if (sscanf(line, "hist %u %" SCNu64 " %" SCNu64, &i, &v, &c) == 3)
        return add_hist(r, i, v, c, hist_cap);
    return -1;
}

int bench_fork_spawn(const char *self, const pcs_bench_def *d, const pcs_bench_params *p,
                     unsigned mode, const bench_opts *o, fork_result *out)
{
    memset(out, 0, sizeof *out);
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        char name[160], ps[512], mode_s[16], fd_s[16], wi[16], it[16], w[32], r[32];
        bench_full_name(d, name, sizeof name);
        params_encode(p, ps, sizeof ps);
        snprintf(mode_s, sizeof mode_s, "%u", mode);
        snprintf(fd_s, sizeof fd_s, "%d", fds[1]);
        snprintf(wi, sizeof wi, "%d", o->warmup_iters);
        snprintf(it, sizeof it, "%d", o->iters);
        snprintf(w, sizeof w, "%.9g", o->warmup_s);
        snprintf(r, sizeof r, "%.9g", o->iter_s);
        /* The order bench_fork_child_main expects. */
        char *args[] = {
            (char *)self,        "--fork-child",       name, mode_s, ps, fd_s, wi, it, w, r,
            o->perf ? "1" : "0", o->quiet ? "1" : "0", NULL};
        execv("/proc/self/exe", args);
        fprintf(stderr, "bench: exec of /proc/self/exe failed: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char line[512];
    unsigned iter_cap = 0, hist_cap[BENCH_MAX_ITERS] = {0};
    int ended = 0, bad = 0;
    while (f && fgets(line, sizeof line, f)) {
        int rc = parse_line(line, out, &iter_cap, hist_cap);
        if (rc < 0)
            bad = 1;
        if (rc == 1)
            ended = 1;
    }
    if (f)
        fclose(f);
    else
        close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!ended || bad || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench: fork of %s.%s failed (exit %d)\n", d->group, d->name,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        out->failed = 1;
        return -1;
    }
    return 0;
}
