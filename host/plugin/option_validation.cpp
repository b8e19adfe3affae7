#include "plugin/option_validation.hpp"

#include <nlohmann/json.hpp>

#include "platform/isolated_calls.hpp"
#include "platform/run_directory.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/transport_endpoint.hpp"
#include "text/printable_text.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::plugin {

namespace {

// In the isolated child. The argument: {"library", "transport", "options": {...}, "max_size"}.
// The answer: {"status": N, "message": "..."}.
std::string open_with_options(const std::string &argument) {
    nlohmann::json answer{{"status", IPCB_OK}, {"message", ""}};
    try {
        const auto request = nlohmann::json::parse(argument);
        load_outcome loaded = load_transport(request.at("library").get<std::string>(),
                                             request.at("transport").get<std::string>(),
                                             request.value("library_identity", std::string()));
        const auto options = request.at("options").get<std::map<std::string, std::string>>();
        platform::run_directory dir;  // removed with whatever the open made in it
        transport_endpoint probe(loaded.transports.front(), IPCB_ROLE_CREATOR, IPCB_DIR_SEND,
                                 options, "", dir.path().string(),
                                 request.at("max_size").get<std::uint64_t>());
    } catch (const transport_error &e) {
        answer = {{"status", e.status}, {"message", e.what()}};
    } catch (const std::exception &e) {
        answer = {{"status", IPCB_E_INTERNAL}, {"message", e.what()}};
    }
    return answer.dump();
}
constexpr const char *task_name = "check-option-values";
const platform::isolated_task task{task_name, open_with_options};

}  // namespace

std::string rejected_option_values(const transport_info &transport,
                                   const std::map<std::string, std::string> &options,
                                   std::uint64_t max_message_size) {
    const nlohmann::json request{{"library", transport.library.string()},
                                 {"library_identity", transport.library_identity},
                                 {"transport", transport.id},
                                 {"options", options},
                                 {"max_size", max_message_size}};
    const auto results =
        platform::run_isolated_task(task_name, {request.dump()}, option_check_timeout_ms);
    if (!results[0].failure.empty()) return "";  // a crash or hang shows in the case, with care
    try {
        const auto answer = text::parse_untrusted_json(results[0].output);
        const int status = answer.at("status").get<int>();
        if (status == IPCB_E_UNKNOWN_OPTION || status == IPCB_E_BAD_OPTION)
            return text::printable(answer.at("message").get<std::string>(), 400);
    } catch (const std::exception &) {
    }
    return "";
}

}  // namespace ipcbench::plugin
