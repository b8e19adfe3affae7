#include "plugin/plugin_metadata.hpp"

namespace ipcbench::plugin {

using nlohmann::json;

json metadata_to_json(const load_outcome &outcome) {
    json transports = json::array(), rejections = json::array();
    for (const auto &t : outcome.transports) {
        json options = json::array();
        for (const auto &o : t.options)
            options.push_back({{"key", o.key}, {"default", o.default_value}, {"help", o.help}});
        transports.push_back({{"id", t.id},
                              {"description", t.description},
                              {"plugin_name", t.plugin_name},
                              {"plugin_version", t.plugin_version},
                              {"caps", t.caps},
                              {"table_size", t.table_size},
                              {"max_message_size", t.max_message_size},
                              {"calls",
                               {t.calls.zero_copy_send, t.calls.zero_copy_recv, t.calls.send_batch,
                                t.calls.recv_batch, t.calls.readiness, t.calls.completion}},
                              {"options", options},
                              {"library", t.library.string()}});
    }
    for (const auto &r : outcome.rejections)
        rejections.push_back(
            {{"file", r.file.string()}, {"code", r.code}, {"reason", r.reason}, {"fix", r.fix}});
    return {{"transports", transports}, {"rejections", rejections}};
}

load_outcome metadata_from_json(const json &document) {
    load_outcome outcome;
    for (const auto &j : document.at("transports")) {
        transport_info t;
        t.id = j.at("id").get<std::string>();
        t.description = j.at("description").get<std::string>();
        t.plugin_name = j.at("plugin_name").get<std::string>();
        t.plugin_version = j.at("plugin_version").get<std::string>();
        t.caps = j.at("caps").get<std::uint64_t>();
        t.table_size = j.at("table_size").get<std::uint64_t>();
        t.max_message_size = j.at("max_message_size").get<std::uint64_t>();
        const auto &calls = j.at("calls");
        t.calls = {calls.at(0).get<bool>(), calls.at(1).get<bool>(), calls.at(2).get<bool>(),
                   calls.at(3).get<bool>(), calls.at(4).get<bool>(), calls.at(5).get<bool>()};
        for (const auto &o : j.at("options"))
            t.options.push_back({o.at("key").get<std::string>(), o.at("default").get<std::string>(),
                                 o.at("help").get<std::string>()});
        t.library = j.at("library").get<std::string>();
        outcome.transports.push_back(std::move(t));
    }
    for (const auto &r : document.at("rejections"))
        outcome.rejections.push_back(
            {r.at("file").get<std::string>(), r.at("code").get<std::string>(),
             r.at("reason").get<std::string>(), r.at("fix").get<std::string>()});
    return outcome;
}

}  // namespace ipcbench::plugin
