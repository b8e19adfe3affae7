#pragma once

#include <nlohmann/json.hpp>

#include "platform/resource_usage.hpp"

namespace ipcbench::harness {

inline nlohmann::json usage_to_json(const platform::resource_usage &u, std::int64_t wall_ns) {
    double wall_s = static_cast<double>(wall_ns) / 1e9;
    return {{"cpu_user_s", u.cpu_user_s},
            {"cpu_sys_s", u.cpu_sys_s},
            {"cpu_percent", wall_s > 0 ? (u.cpu_user_s + u.cpu_sys_s) / wall_s * 100.0 : 0.0},
            {"max_rss_kib", u.max_rss_kib},
            {"voluntary_ctx_switches", u.voluntary_ctx_switches},
            {"involuntary_ctx_switches", u.involuntary_ctx_switches}};
}

}  // namespace ipcbench::harness
