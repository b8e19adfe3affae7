#include "plugin/address_cleanup.hpp"

#include <nlohmann/json.hpp>

#include "platform/isolated_calls.hpp"
#include "plugin/plugin_loader.hpp"
#include "text/printable_text.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::plugin {

namespace {

// In the isolated child: load the plugin, remove each address, send back what failed.
// The argument: {"library": PATH, "transport": ID, "addresses": [...]}.
std::string remove_addresses(const std::string &argument) {
    nlohmann::json failed = nlohmann::json::array();
    try {
        const auto request = nlohmann::json::parse(argument);
        load_outcome loaded = load_transport(request.at("library").get<std::string>(),
                                             request.at("transport").get<std::string>(),
                                             request.value("library_identity", std::string()));
        const ipcb_transport *table = loaded.transports.front().table;
        if (table->remove_address == nullptr) return failed.dump();
        for (const auto &item : request.at("addresses")) {
            const std::string address = item.get<std::string>();
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
}
constexpr const char *remove_task_name = "remove-addresses";
const platform::isolated_task remove_task{remove_task_name, remove_addresses};

}  // namespace

std::vector<std::string> remove_addresses_isolated(const transport_info &transport,
                                                   const std::vector<std::string> &addresses) {
    if (addresses.empty()) return {};
    const nlohmann::json request{{"library", transport.library.string()},
                                 {"library_identity", transport.library_identity},
                                 {"transport", transport.id},
                                 {"addresses", addresses}};
    const auto results =
        platform::run_isolated_task(remove_task_name, {request.dump()}, remove_address_timeout_ms);
    if (!results[0].failure.empty())
        return {"remove_address " + results[0].failure +
                " (in an isolated process; ipchost "
                "went on)"};
    std::vector<std::string> failures;
    try {
        for (const auto &line : text::parse_untrusted_json(results[0].output))
            failures.push_back(line.get<std::string>());
    } catch (const std::exception &e) {
        failures.push_back(std::string("unreadable answer from the cleanup process: ") + e.what());
    }
    return failures;
}

}  // namespace ipcbench::plugin
