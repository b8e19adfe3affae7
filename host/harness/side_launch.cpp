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
    return launch;
}

}  // namespace ipcbench::harness
