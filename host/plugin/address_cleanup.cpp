#include "plugin/address_cleanup.hpp"

#include <nlohmann/json.hpp>

#include "platform/isolated_calls.hpp"
#include "plugin/plugin_loader.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::plugin {

std::vector<std::string> remove_addresses_isolated(const transport_info &transport,
                                                   const std::vector<std::string> &addresses) {
    if (addresses.empty()) return {};
    // In the child: load the plugin, remove each address, send back what failed.
    auto work = [&](std::size_t) {
        nlohmann::json failed = nlohmann::json::array();
        try {
            load_outcome loaded = load_transport(transport.library, transport.id);
            const ipcb_transport *table = loaded.transports.front().table;
            if (table->remove_address == nullptr) return failed.dump();
            for (const auto &address : addresses) {
                ipcb_error error{};
                error.struct_size = sizeof error;
                const int32_t status = table->remove_address(address.c_str(), &error);
                error.message[sizeof error.message - 1] = '\0';
                if (status != IPCB_OK)
                    failed.push_back(text::printable(address, 200) + ": " +
                                     text::printable(error.message, 200));
            }
        } catch (const std::exception &e) {
            failed.push_back(e.what());
        }
        return failed.dump();
    };
    const auto results = platform::run_isolated(1, work, remove_address_timeout_ms);
    if (!results[0].failure.empty())
        return {"remove_address " + results[0].failure +
                " (in an isolated process; ipchost "
                "went on)"};
    std::vector<std::string> failures;
    try {
        for (const auto &line : nlohmann::json::parse(results[0].output))
            failures.push_back(line.get<std::string>());
    } catch (const std::exception &e) {
        failures.push_back(std::string("unreadable answer from the cleanup process: ") + e.what());
    }
    return failures;
}

}  // namespace ipcbench::plugin
