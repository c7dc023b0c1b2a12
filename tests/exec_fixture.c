/**
 * @file exec_fixture.c
 * @brief The diffusion test world used by the exec tests (see exec_fixture.h).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "tests/exec_fixture.h"

/* Diffusion number D dt / dx^2: 0.2 < 0.25 keeps the explicit 2-D step stable. */
#define FX_ALPHA 0.2
/* First-order loss rate times the SLOW step, dimensionless. */
#define FX_LOSS 0.01
#define FX_NOISE 1e-3

typedef struct fx_input {
    uint64_t submit_tick;
    uint64_t seed;
    double grid[FX_NY][FX_NX];
} fx_input;

typedef struct fx_output {
    uint64_t submit_tick; /* echoed, so a stale or torn slot is caught */
    uint32_t chunk;
    double rows[FX_ROWS_PER_CHUNK][FX_NX];
    double sum; /* of rows, in row order */
} fx_output;

static pcs_status fx_fast(pcs_world *w, void *ctx)
{
    fx_job *job = ctx;
    double *g = pcs_store_data(w, job->grid_store);
    uint64_t t = pcs_world_clock(w)->tick;
    for (uint32_t i = 0; i < FX_NX * FX_NY; i++)
        g[i] *= 0.999;
    g[(t * 7u) % (FX_NX * FX_NY)] += 1.0; /* source moves every tick */
    return PCS_OK;
}

static pcs_status fx_copy(pcs_world *w, void *ctx, void *input)
{
    fx_job *job = ctx;
    fx_input *in = input;
    in->submit_tick = pcs_world_clock(w)->tick;
    in->seed = job->seed;
    memcpy(in->grid, pcs_store_data(w, job->grid_store), sizeof in->grid);
    return PCS_OK;
}

void fx_sleep_us(uint32_t us)
{
    struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double fx_cell(const fx_input *in, uint32_t y, uint32_t x)
{
    const double(*g)[FX_NX] = in->grid;
    uint32_t yn = (y + FX_NY - 1) % FX_NY, ys = (y + 1) % FX_NY;
    uint32_t xw = (x + FX_NX - 1) % FX_NX, xe = (x + 1) % FX_NX;
    double lap = g[yn][x] + g[ys][x] + g[y][xw] + g[y][xe] - 4.0 * g[y][x];
    return (g[y][x] + FX_ALPHA * lap) * pcs_exp(-FX_LOSS);
}

static pcs_status fx_chunk(void *ctx, const void *input, uint32_t chunk, void *output)
{
    const fx_job *job = ctx;
    const fx_input *in = input;
    fx_output *out = output;
    if (job->sleep_every && chunk == job->sleep_chunk &&
        in->submit_tick % job->sleep_every == FX_PHASE)
        fx_sleep_us(job->sleep_us);
    if (in->submit_tick == job->fail_tick && (job->fail_mask >> chunk) & 1u)
        return pcs_error_set(PCS_E_CORRUPT, "injected failure in chunk %u", chunk);
    pcs_rng rng;
    pcs_rng_seed(&rng, in->seed, chunk, in->submit_tick);
    double sum = 0.0;
    for (uint32_t r = 0; r < FX_ROWS_PER_CHUNK; r++) {
        uint32_t y = chunk * FX_ROWS_PER_CHUNK + r;
        for (uint32_t x = 0; x < FX_NX; x++) {
            double v = fx_cell(in, y, x) + FX_NOISE * (pcs_rng_uniform(&rng) - 0.5);
            out->rows[r][x] = v;
            sum += v;
        }
    }
    out->sum = sum;
    out->chunk = chunk;
    out->submit_tick = in->submit_tick;
    return PCS_OK;
}

/* A torn or stale slot fails one of these: its echo fields or its row sum. */
static int fx_output_ok(const fx_output *o, const fx_input *in, uint32_t chunk)
{
    double sum = 0.0;
    for (uint32_t r = 0; r < FX_ROWS_PER_CHUNK; r++)
        for (uint32_t x = 0; x < FX_NX; x++)
            sum += o->rows[r][x];
    return o->chunk == chunk && o->submit_tick == in->submit_tick && sum == o->sum;
}

static pcs_status fx_merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                           uint32_t n_chunks)
{
    fx_job *job = ctx;
    const fx_input *in = input;
    double *g = pcs_store_data(w, job->grid_store);
    double *total = pcs_store_data(w, job->total_store);
    if (pcs_world_clock(w)->tick - in->submit_tick != PCS_SLOW_PERIOD_TICKS)
        job->bad_distance++;
    for (uint32_t c = 0; c < n_chunks; c++) {
        const fx_output *o = outputs[c];
        if (!fx_output_ok(o, in, c))
            job->torn_outputs++;
        for (uint32_t r = 0; r < FX_ROWS_PER_CHUNK; r++) {
            double *row = g + (size_t)(c * FX_ROWS_PER_CHUNK + r) * FX_NX;
            for (uint32_t x = 0; x < FX_NX; x++)
                row[x] = 0.5 * row[x] + 0.5 * o->rows[r][x];
        }
        *total += o->sum;
    }
    job->merges++;
    return PCS_OK;
}

pcs_status fx_build(pcs_world *w, fx_job *job)
{
    pcs_status st = pcs_store_register(w, "fx.grid", sizeof(double), FX_NX * FX_NY, PCS_STORE_STATE,
                                       &job->grid_store);
    if (st == PCS_OK)
        st = pcs_store_register(w, "fx.total", sizeof(double), 1, PCS_STORE_STATE,
                                &job->total_store);
    if (st != PCS_OK)
        return st;
    uint32_t writes[] = {job->grid_store};
    pcs_system_desc sys = {0};
    sys.name = "fx.fast";
    sys.stage = PCS_STAGE_HEAT;
    sys.fn = fx_fast;
    sys.ctx = job;
    sys.writes = writes;
    sys.n_writes = 1;
    st = pcs_system_register(w, &sys, NULL);
    if (st != PCS_OK)
        return st;
    pcs_job_desc d = {0};
    d.name = "fx.diffusion";
    d.domain = PCS_DOMAIN_SLOW;
    d.phase = FX_PHASE;
    d.n_chunks = FX_CHUNKS;
    d.input_bytes = sizeof(fx_input);
    d.output_bytes = sizeof(fx_output);
    d.copy_inputs = fx_copy;
    d.run_chunk = fx_chunk;
    d.merge = fx_merge;
    d.ctx = job;
    return pcs_job_register(w, &d, NULL);
}

pcs_status fx_world(uint64_t seed, double join_timeout_s, fx_job *job, pcs_world **out)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.seed = seed;
    cfg.slow_join_timeout_s = join_timeout_s;
    job->seed = seed;
    pcs_world *w = NULL;
    pcs_status st = pcs_world_create(&cfg, &w);
    if (st != PCS_OK)
        return st;
    st = fx_build(w, job);
    if (st != PCS_OK) {
        pcs_world_destroy(w);
        return st;
    }
    *out = w;
    return PCS_OK;
}

pcs_status fx_run(pcs_world *w, uint64_t ticks, uint64_t *hashes)
{
    while (pcs_world_clock(w)->tick < ticks) {
        pcs_status st = pcs_world_tick(w);
        if (st != PCS_OK)
            return st;
        uint64_t t = pcs_world_clock(w)->tick;
        if (hashes && t % 100 == 0)
            hashes[t / 100 - 1] = pcs_world_state_hash(w);
    }
    return PCS_OK;
}
