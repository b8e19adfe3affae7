#include "harness/scale_figures.hpp"

#include <nlohmann/json.hpp>

#include "model/json_fields.hpp"
#include "stats/latency_histogram.hpp"
#include "stats/stream_spread.hpp"

namespace ipcbench::harness {
namespace {

std::int64_t rss_before(const nlohmann::json &setup) {
    if (setup.is_null()) return -1;
    return model::json_fields(setup, "setup").integer("rss_before_kib", 0, INT64_MAX);
}

void per_stream_rss(report::process_figures &p, const nlohmann::json &setup, int streams) {
    const std::int64_t before = rss_before(setup);
    if (before < 0 || p.max_rss_kib <= 0) return;
    const std::int64_t grown = p.max_rss_kib > before ? p.max_rss_kib - before : 0;
    p.rss_per_stream_kib = static_cast<double>(grown) / streams;
}

std::optional<report::setup_figures> setup_from(const nlohmann::json &setup) {
    if (setup.is_null()) return std::nullopt;
    const model::json_fields f(setup, "setup");
    report::setup_figures s;
    s.connections = f.unsigned_integer("connections", 0, 1'000'000);
    s.seconds = static_cast<double>(f.integer("total_ns", 0, INT64_MAX)) / 1e9;
    s.per_second = s.seconds > 0 ? static_cast<double>(s.connections) / s.seconds : 0;
    const auto each = stats::latency_histogram::from_json(f.at("histogram"));
    s.p50_ns = each.percentile(50);
    s.p99_ns = each.percentile(99);
    s.max_ns = each.max();
    return s;
}

}  // namespace

void fill_scale(report::case_result &r, const nlohmann::json &sender_setup,
                const nlohmann::json &receiver_setup, const nlohmann::json &connector_setup) {
    const int streams = r.settings.streams;
    if (streams <= 1) return;
    std::vector<double> rates;
    rates.reserve(r.per_stream.size());
    for (const auto &s : r.per_stream) rates.push_back(s.bytes_per_sec);
    r.spread = stats::spread_of(std::move(rates));
    r.setup = setup_from(connector_setup);
    per_stream_rss(r.sender, sender_setup, streams);
    per_stream_rss(r.receiver, receiver_setup, streams);
}

}  // namespace ipcbench::harness
