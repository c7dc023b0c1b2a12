/**
 * @file plot.c
 * @brief `pcsim plot RUN.csv -o transient.png`: the standard transient panels
 *        of a `pcsim run --csv` file, drawn by python/pcsim/plot.py.
 *
 * The drawing is matplotlib's (Debian's python3-matplotlib, a run dependency:
 * tools/deps.sh), so this only finds the Python package and runs
 * `/usr/bin/python3 -m pcsim.plot ARGS...` in place of itself: the plot's
 * messages and exit status are the program's. The package is looked for next
 * to this executable, first in the source tree (build/pcsim ->
 * python/, and up to two levels more for build/asan/pcsim and the like),
 * then as installed (PREFIX/bin/pcsim -> PREFIX/share/pcsim/python), and put
 * first on PYTHONPATH. pcsim.plot imports neither cffi nor libpcsim.
 * PCSIM_PYTHON names another interpreter (tests use it).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/host.h"

#define PLOT_PYTHON "/usr/bin/python3"

/* Where python/pcsim/plot.py is, relative to the executable's folder. */
static const char *const plot_dirs[] = {"../python", "../../python", "../../../python",
                                        "../share/pcsim/python"};

/* The folder (under @p exe_dir) holding pcsim/plot.py, into @p out; 0 if found. */
static int find_package(const char *exe_dir, char *out, size_t len)
{
    for (size_t i = 0; i < sizeof plot_dirs / sizeof plot_dirs[0]; i++) {
        char probe[PATH_MAX + 64];
        snprintf(probe, sizeof probe, "%s/%s/pcsim/plot.py", exe_dir, plot_dirs[i]);
        if (access(probe, R_OK) == 0) {
            snprintf(out, len, "%s/%s", exe_dir, plot_dirs[i]);
            return 0;
        }
    }
    return -1;
}

/* PYTHONPATH with @p dir first (the caller's entries after it). */
static int set_pythonpath(const char *dir)
{
    const char *old = getenv("PYTHONPATH");
    size_t n = strlen(dir) + (old && *old ? strlen(old) + 1 : 0) + 1;
    char *v = malloc(n);
    if (!v)
        return -1;
    snprintf(v, n, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv("PYTHONPATH", v, 1);
    free(v);
    return rc;
}

static void plot_usage(FILE *f)
{
    fputs("usage: pcsim plot RUN.csv -o PNG [--events LOG] [--title T] [--size WxH]\n"
          "  Draws the transient panels (power, pressure, temperatures, flows, levels)\n"
          "  of a `pcsim run --csv` file into a PNG; --events LOG marks the events of\n"
          "  the run's output (trips and scrams labelled). Runs " PLOT_PYTHON " -m pcsim.plot\n"
          "  (Debian's python3-matplotlib); `pcsim plot --help` lists every option.\n",
          f);
}

int cmd_plot(int argc, char **argv)
{
    if (argc < 2) {
        plot_usage(stderr);
        return 2;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        char dir[PATH_MAX + 64];
        if (find_package(exe, dir, sizeof dir) == 0 && set_pythonpath(dir) != 0)
            return host_fail(1, "plot: out of memory");
    }
    /* Otherwise the interpreter's own path finds pcsim.plot, or says it cannot. */
    const char *python = getenv("PCSIM_PYTHON");
    if (!python || !*python)
        python = PLOT_PYTHON;
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args)
        return host_fail(1, "plot: out of memory");
    args[0] = (char *)python;
    args[1] = (char *)"-m";
    args[2] = (char *)"pcsim.plot";
    for (int i = 1; i < argc; i++)
        args[i + 2] = argv[i];
    fflush(NULL);
    execv(python, args);
    int err = errno;
    free(args);
    return host_fail(1,
                     "plot: cannot run %s: %s (pcsim plot needs Python 3 with matplotlib: "
                     "Debian's python3-matplotlib, which `make deps` installs)",
                     python, strerror(err));
}
