#pragma once

#include <nlohmann/json.hpp>

#include "platform/resource_usage.hpp"

namespace ipcbench::harness {

// CPU and context switches of a thread or process over a window.
inline nlohmann::json usage_to_json(const platform::resource_usage &u) {
    return {{"cpu_user_s", u.cpu_user_s},
            {"cpu_sys_s", u.cpu_sys_s},
            {"max_rss_kib", u.max_rss_kib},
            {"voluntary_ctx_switches", u.voluntary_ctx_switches},
            {"involuntary_ctx_switches", u.involuntary_ctx_switches},
            {"cpus_seen", u.cpus_seen}};
}

inline platform::resource_usage usage_from_json(const nlohmann::json &j) {
    platform::resource_usage u;
    u.cpu_user_s = j.at("cpu_user_s");
    u.cpu_sys_s = j.at("cpu_sys_s");
    u.max_rss_kib = j.at("max_rss_kib");
    u.voluntary_ctx_switches = j.at("voluntary_ctx_switches");
    u.involuntary_ctx_switches = j.at("involuntary_ctx_switches");
    u.cpus_seen = j.value("cpus_seen", std::uint64_t{0});
    return u;
}

}  // namespace ipcbench::harness
