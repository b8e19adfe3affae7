#include "model/case_settings.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/field_visitors.hpp"

namespace ipcbench::model {
namespace {

const auto &mode_names = protocol::measure_mode_names;
const auto &direction_names = protocol::traffic_direction_names;
const auto &zero_copy_names = protocol::zero_copy_policy_names;
const auto &io_names = protocol::io_engine_names;

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
const char *to_string(io_engine e) {
    return io_names[static_cast<int>(e)];
}
std::optional<io_engine> io_engine_from(const std::string &name) {
    return enum_named<io_engine>(io_names, name);
}
std::optional<measure_mode> measure_mode_from(const std::string &name) {
    return enum_named<measure_mode>(mode_names, name);
}
std::optional<traffic_direction> traffic_direction_from(const std::string &name) {
    return enum_named<traffic_direction>(direction_names, name);
}
std::optional<zero_copy_policy> zero_copy_policy_from(const std::string &name) {
    return enum_named<zero_copy_policy>(zero_copy_names, name);
}

std::int64_t to_ns(double seconds) {
    return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

std::uint64_t buffer_bytes_per_process(const case_settings &c) {
    const auto streams = static_cast<std::uint64_t>(std::max(1, c.streams));
    const std::uint64_t directions = c.direction == traffic_direction::bidir ? 2 : 1;
    const auto batch = static_cast<std::uint64_t>(std::max(1, c.batch));
    // Saturates instead of wrapping: 20,000 streams x 1024 x 1 GiB is "too much", not small.
    const long double bytes = static_cast<long double>(streams) * directions * batch *
                              static_cast<long double>(c.size_bytes) * 2;
    return bytes >= 1.8e19L ? std::numeric_limits<std::uint64_t>::max()
                            : static_cast<std::uint64_t>(bytes);
}

std::string over_memory_budget(const case_settings &c, std::uint64_t budget,
                               const std::string &raise_with) {
    const std::uint64_t need = buffer_bytes_per_process(c);
    if (need <= budget) return "";
    auto mib = [](std::uint64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); };
    return fmt::format(
        "{} needs {:.0f} MiB of message buffers per process ({} streams x {} direction(s) x "
        "--batch {} x {} B, twice for the receiver's reassembly), over the memory budget of "
        "{:.0f} MiB; use fewer --streams, a smaller --batch or --size, or {}",
        c.transport_id.empty() ? std::string("the case") : c.transport_id, mib(need),
        std::max(1, c.streams), c.direction == traffic_direction::bidir ? 2 : 1,
        std::max(1, c.batch), c.size_bytes, mib(budget), raise_with);
}

double watchdog_seconds(const case_settings &c) {
    if (c.timeout_s > 0) return c.timeout_s;
    if (c.count > 0 && c.rate_per_s > 0)
        return c.warmup_s + static_cast<double>(c.count) / c.rate_per_s + 20.0;
    if (c.count > 0) return 300.0;
    return c.warmup_s + c.duration_s + 20.0;
}

bool from_name(const std::string &name, measure_mode &out) {
    return from_name_in(mode_names, name, out);
}
bool from_name(const std::string &name, traffic_direction &out) {
    return from_name_in(direction_names, name, out);
}
bool from_name(const std::string &name, zero_copy_policy &out) {
    return from_name_in(zero_copy_names, name, out);
}
bool from_name(const std::string &name, io_engine &out) {
    return from_name_in(io_names, name, out);
}

void to_json(nlohmann::json &out, const case_settings &c) {
    out = field_writer::write_fields(c);
}

void from_json(const nlohmann::json &in, case_settings &c) {
    field_reader::read_into(in, "case", c);
    // Absent (a file or peer from before --impl): ipchost's own worker.
    for (std::string *impl : {&c.sender_impl, &c.receiver_impl})
        if (impl->empty()) *impl = "native";
}

}  // namespace ipcbench::model
