/**
 * @file cxx_station.cpp
 * @brief A C++17 host of the installed library: the default station built
 *        through the public station API, owned by RAII handles, ticked 100
 *        times; one channel read, a pump tripped by target name, then the
 *        state hash. It prints the same line as c_station.c, which
 *        tests/hosts/consumers.sh requires of every build (pkg-config shared
 *        and static, CMake shared and static).
 *
 * It includes only <pcsim/pcsim.h> from the installed tree: if a public
 * header lost its extern "C" guard, this program would not link.
 */
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <pcsim/pcsim.h>

namespace
{

constexpr int warm_ticks = 100; // 5 s at the scenario's dt of 0.05 s
constexpr int trip_ticks = 20;  // long enough for the trip to apply and emit its event

// Owning handles: the station goes before the world, the world before the
// scenario (declaration order below gives that destruction order).
struct scenario_free {
    void operator()(pcs_scenario *s) const
    {
        pcs_scenario_destroy(s);
    }
};
struct world_free {
    void operator()(pcs_world *w) const
    {
        pcs_world_destroy(w);
    }
};
struct station_free {
    void operator()(pcs_station *s) const
    {
        pcs_station_destroy(s);
    }
};
using scenario_ptr = std::unique_ptr<pcs_scenario, scenario_free>;
using world_ptr = std::unique_ptr<pcs_world, world_free>;
using station_ptr = std::unique_ptr<pcs_station, station_free>;

// pcsim's errors as exceptions carrying pcsim's own message.
void check(pcs_status s, const std::string &what)
{
    if (s != PCS_OK)
        throw std::runtime_error(what + ": " + pcs_last_error());
}

void tick(pcs_world *w, int n)
{
    for (int t = 0; t < n; t++)
        check(pcs_world_tick(w), "tick");
}

int run()
{
    const std::string want = std::to_string(PCS_VERSION_MAJOR) + "." +
                             std::to_string(PCS_VERSION_MINOR) + "." +
                             std::to_string(PCS_VERSION_PATCH);
    if (want != pcs_version())
        throw std::runtime_error("headers say " + want + ", library says " + pcs_version());

    pcs_scenario *raw_scn = nullptr;
    check(pcs_scenario_default(&raw_scn), "scenario");
    scenario_ptr scn(raw_scn);
    pcs_world_def cfg = pcs_scenario_world_def(scn.get());
    cfg.workers = 0; // slow jobs inline: the hash does not depend on it
    pcs_world *raw_w = nullptr;
    check(pcs_world_create(&cfg, &raw_w), "world");
    world_ptr w(raw_w);
    pcs_station *raw_st = nullptr;
    check(pcs_station_add(w.get(), scn.get(), &raw_st), "station");
    station_ptr st(raw_st);

    int trips = 0;
    auto count_trips = [](void *ctx, const pcs_event *ev, uint32_t n) {
        for (uint32_t i = 0; i < n; i++)
            if (ev[i].kind == PCS_EV_PRIMARY_PUMP_TRIPPED)
                ++*static_cast<int *>(ctx);
    };
    check(pcs_world_set_event_callback(w.get(), count_trips, &trips), "event callback");

    tick(w.get(), warm_ticks);
    uint32_t power_id = 0;
    check(pcs_channel_find(w.get(), "u2.core.power", &power_id), "u2.core.power");
    const double power_w = pcs_channel_value(w.get(), power_id);
    pcs_command trip{};
    check(pcs_station_command(st.get(), "u2.pump2", "pump_trip", 0.0, &trip), "u2.pump2 pump_trip");
    check(pcs_command_submit(w.get(), &trip), "submit");
    tick(w.get(), trip_ticks);

    if (!(std::isfinite(power_w) && power_w > 0.0) || trips != 1)
        throw std::runtime_error("u2.core.power " + std::to_string(power_w) + " W (want > 0), " +
                                 std::to_string(trips) + " pump trips (want 1)");
    std::printf("version %s power_w %.17g trips %d hash %016" PRIx64 "\n", pcs_version(), power_w,
                trips, pcs_world_state_hash(w.get()));
    return 0;
}

} // namespace

int main()
{
    try {
        return run();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "cxx_station: %s\n", e.what());
        return 1;
    }
}
