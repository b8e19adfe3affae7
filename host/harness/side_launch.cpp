#include "harness/side_launch.hpp"

#include <fmt/format.h>

namespace ipcbench::harness {

worker_launch launch_for(const std::string &impl, kit::side_role role,
                         const plugin::transport_info &transport, const kit::kit_registry *kits) {
    if (impl.empty() || impl == "native") return worker_launch::native();
    const kit::kit_info *k = kits != nullptr ? kits->find(impl) : nullptr;
    if (k == nullptr)
        throw pair_failure(
            fmt::format("no kit named '{}' was found (ipchost --list shows the "
                        "kits; --kit-dir DIR adds a folder)",
                        impl));
    if (!k->usable()) throw pair_failure(fmt::format("kit '{}' cannot run: {}", impl, k->problem));
    const std::string refusal = k->refusal(role, transport.id);
    if (!refusal.empty()) throw pair_failure(refusal);
    worker_launch launch;
    launch.program = k->worker.front();
    launch.args.assign(k->worker.begin() + 1, k->worker.end());
    launch.implementation = k->manifest.name;
    launch.environment = k->environment.variables;
    launch.environment_dropped = k->environment.dropped;
    return launch;
}

std::string kit_skip_reason(const plugin::transport_info &t, const model::case_settings &c,
                            const kit::kit_registry *kits) {
    if (kits == nullptr) return "";
    const bool latency = c.mode == model::measure_mode::latency;
    const bool bidir = !latency && c.direction == model::traffic_direction::bidir;
    const struct {
        const std::string &impl;
        kit::side_role role, other;
    } sides[] = {
        {c.sender_impl, latency ? kit::side_role::pinger : kit::side_role::sender,
         kit::side_role::receiver},
        {c.receiver_impl, latency ? kit::side_role::ponger : kit::side_role::receiver,
         kit::side_role::sender},
    };
    for (const auto &side : sides) {
        const kit::kit_info *k = side.impl == "native" ? nullptr : kits->find(side.impl);
        if (k == nullptr || !k->usable()) continue;
        std::string why = k->refusal(side.role, t.id);
        if (why.empty() && bidir) why = k->refusal(side.other, t.id);
        if (!why.empty()) return why;
    }
    return "";
}

}  // namespace ipcbench::harness
