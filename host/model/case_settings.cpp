#include "model/case_settings.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/json_fields.hpp"

namespace ipcbench::model {
namespace {

template <class Enum, std::size_t N>
std::optional<Enum> lookup(const char *const (&names)[N], const std::string &name) {
    for (std::size_t i = 0; i < N; ++i)
        if (name == names[i]) return static_cast<Enum>(i);
    return std::nullopt;
}

const char *const mode_names[] = {"throughput", "latency"};
const char *const direction_names[] = {"forward", "reverse", "bidir"};
const char *const zero_copy_names[] = {"auto", "on", "off"};

}  // namespace

const char *to_string(measure_mode m) {
    return mode_names[static_cast<int>(m)];
}
const char *to_string(traffic_direction d) {
    return direction_names[static_cast<int>(d)];
}
const char *to_string(zero_copy_policy z) {
    return zero_copy_names[static_cast<int>(z)];
}
std::optional<measure_mode> measure_mode_from(const std::string &name) {
    return lookup<measure_mode>(mode_names, name);
}
std::optional<traffic_direction> traffic_direction_from(const std::string &name) {
    return lookup<traffic_direction>(direction_names, name);
}
std::optional<zero_copy_policy> zero_copy_policy_from(const std::string &name) {
    return lookup<zero_copy_policy>(zero_copy_names, name);
}

std::int64_t to_ns(double seconds) {
    return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

double watchdog_seconds(const case_settings &c) {
    if (c.timeout_s > 0) return c.timeout_s;
    if (c.count > 0 && c.rate_per_s > 0)
        return c.warmup_s + static_cast<double>(c.count) / c.rate_per_s + 20.0;
    if (c.count > 0) return 300.0;
    return c.warmup_s + c.duration_s + 20.0;
}

void to_json(nlohmann::json &out, const case_settings &c) {
    out = {{"transport", c.transport_id},
           {"mode", to_string(c.mode)},
           {"direction", to_string(c.direction)},
           {"size_bytes", c.size_bytes},
           {"duration_s", c.duration_s},
           {"warmup_s", c.warmup_s},
           {"count", c.count},
           {"timeout_s", c.timeout_s},
           {"streams", c.streams},
           {"rate_per_s", c.rate_per_s},
           {"verify", c.verify},
           {"batch", c.batch},
           {"zero_copy", to_string(c.zero_copy)},
           {"interval_s", c.interval_s},
           {"sender_cpu", c.affinity.sender_cpu},
           {"receiver_cpu", c.affinity.receiver_cpu},
           {"options", c.options}};
}

// Every field is required and type-checked: a job may come from another host.
void from_json(const nlohmann::json &in, case_settings &c) {
    const json_fields f(in, "case");
    c.transport_id = f.text("transport", 200);
    c.mode = f.named("mode", measure_mode_from);
    c.direction = f.named("direction", traffic_direction_from);
    c.size_bytes = f.unsigned_integer("size_bytes", 0, std::uint64_t{1} << 40);
    c.duration_s = f.seconds("duration_s");
    c.warmup_s = f.seconds("warmup_s");
    c.count = f.unsigned_integer("count", 0, std::uint64_t{1} << 48);
    c.timeout_s = f.seconds("timeout_s");
    c.streams = static_cast<int>(f.unsigned_integer("streams", 1, max_streams));
    c.rate_per_s = f.number("rate_per_s", 0, 1e12);
    c.verify = f.boolean("verify");
    c.batch = static_cast<int>(f.unsigned_integer("batch", 1, max_batch));
    c.zero_copy = f.named("zero_copy", zero_copy_policy_from);
    c.interval_s = f.seconds("interval_s");
    c.affinity.sender_cpu = f.cpu("sender_cpu");
    c.affinity.receiver_cpu = f.cpu("receiver_cpu");
    c.options = f.text_map("options");
}

}  // namespace ipcbench::model
