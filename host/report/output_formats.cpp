#include "report/output_formats.hpp"

#include "report/csv_report.hpp"
#include "report/html_report.hpp"
#include "report/json_lines.hpp"
#include "report/json_report.hpp"
#include "report/table_report.hpp"

namespace ipcbench::report {

const std::vector<format_entry> &output_formats() {
    static const std::vector<format_entry> formats = {
        {output_format::table, "table", true}, {output_format::json, "json", true},
        {output_format::csv, "csv", true},     {output_format::markdown, "markdown", true},
        {output_format::jsonl, "jsonl", true}, {output_format::html, "html", false},
    };
    return formats;
}

std::optional<output_format> output_format_from(const std::string &name) {
    for (const auto &f : output_formats())
        if (name == f.name) return f.format;
    return std::nullopt;
}

const char *to_string(output_format f) {
    for (const auto &e : output_formats())
        if (e.format == f) return e.name;
    return "?";
}

std::string run_format_names() {
    std::vector<std::string> names;
    for (const auto &f : output_formats())
        if (f.for_runs) names.emplace_back(f.name);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

std::string render(const run_report &report, output_format format, const table_layout &layout) {
    switch (format) {
        case output_format::json:
            return to_json(report).dump(2, ' ', true) + "\n";  // ASCII: inert on a terminal
        case output_format::jsonl: return to_json_lines(report);
        case output_format::csv: return to_csv(report);
        case output_format::markdown: return to_table(report, true, layout);
        case output_format::html: return to_html(report);
        case output_format::table: break;
    }
    return to_table(report, false, layout);
}

}  // namespace ipcbench::report
