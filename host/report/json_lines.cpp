#include "report/json_lines.hpp"

#include "report/json_report.hpp"

namespace ipcbench::report {

using nlohmann::json;

namespace {

std::string line(const json &event) {
    return event.dump(-1, ' ', true) + "\n";  // ASCII: inert on a terminal
}

}  // namespace

std::string start_line(const run_report &report) {
    json event = header_json(report);
    event.erase("conditions");  // sampled over the run: not known when it starts
    event["event"] = "start";
    return line(event);
}

std::string interval_line(const case_result &what, int repetition, const interval_figures &i) {
    const auto &c = what.settings;
    return line({{"event", "interval"},
                 {"transport", c.transport_id},
                 {"mode", model::to_string(c.mode)},
                 {"message_size", c.size_bytes},
                 {"direction", model::to_string(what.direction)},
                 {"repetition", repetition},
                 {"interval", interval_to_json(i)}});
}

std::string result_line(const case_result &r, bool per_stream_list) {
    return line({{"event", "result"}, {"result", result_to_json(r, per_stream_list)}});
}

std::string end_line(std::size_t results, bool interrupted) {
    return line({{"event", "end"}, {"results", results}, {"interrupted", interrupted}});
}

std::string to_json_lines(const run_report &report) {
    std::string out = start_line(report);
    for (const auto &r : report.results) out += result_line(r, report.per_stream_list);
    return out + end_line(report.results.size(), false);
}

}  // namespace ipcbench::report
