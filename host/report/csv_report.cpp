#include "report/csv_report.hpp"

#include <fmt/format.h>

#include "report/result_columns.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::report {
namespace {

// RFC 4180: quote fields with commas, quotes or line breaks; what came from a result file or an
// agent is never a formula or a control sequence to the program that opens it (text::csv_text).
std::string field(const std::string &untrusted) {
    std::string text = text::csv_text(untrusted);
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

}  // namespace

// Every column of result_columns(), under its key: the same description the tables render.
std::string to_csv(const run_report &report) {
    const auto &columns = result_columns();
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + columns[i].key;
    out += "\n";
    for (const auto &r : report.results) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const auto &c = columns[i];
            if (i) out += ",";
            if (r.ok() || !c.figure) out += field(c.value(r));
        }
        out += "\n";
    }
    return out;
}

std::string histograms_to_csv(const run_report &report) {
    std::string out =
        "transport,mode,direction,message_size,streams,kind,value_ns,count,"
        "cumulative_percent\n";
    for (const auto &r : report.results) {
        if (!r.ok() || !r.latency || r.histogram.count() == 0) continue;
        const auto total = static_cast<double>(r.histogram.count());
        std::uint64_t seen = 0;
        r.histogram.for_each_bucket([&](std::uint64_t value, std::uint64_t count) {
            seen += count;
            out += fmt::format("{},{},{},{},{},{},{},{},{:.6f}\n", field(r.settings.transport_id),
                               model::to_string(r.settings.mode), model::to_string(r.direction),
                               r.settings.size_bytes, r.settings.streams, r.latency->kind, value,
                               count, static_cast<double>(seen) / total * 100);
        });
    }
    return out;
}

}  // namespace ipcbench::report
