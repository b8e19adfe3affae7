#include "cli/report_output.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "cli/usage_error.hpp"
#include "platform/system_info.hpp"
#include "report/json_report.hpp"

namespace ipcbench::cli {

report::run_report start_report(const command_line &cmd, int argc, const char *const argv[]) {
    report::run_report report;
    report.environment = platform::read_system_info();
    report.started_at = report::utc_now();
    for (int i = 0; i < argc; ++i) report.command_line += (i ? " " : "") + std::string(argv[i]);
    report.defaults = cmd.case_defaults;
    report.repeat = cmd.repeat;
    report.precision = cmd.precision;
    report.per_stream_list = cmd.per_stream_list;
    if (cmd.agent) report.peer = cmd.agent->address.text();
    if (cmd.from_agent) report.from = cmd.from_agent->address.text();
    report.labels = cmd.serve.labels;  // --label, checked as an agent's labels are
    return report;
}

void check_output_file(const std::string &path) {
    if (path.empty()) return;
    std::ofstream probe(path, std::ios::app);
    if (!probe)
        throw usage_error("cannot write '" + path +
                          "': check that its folder exists and is "
                          "writable");
}

void write_report(const report::run_report &report, report::output_format format,
                  const std::string &path, const report::table_layout &layout) {
    write_text(report::render(report, format, layout), path);
}

line_writer::line_writer(const std::string &path) : path_(path) {
    file_ = path.empty() ? stdout : std::fopen(path.c_str(), "w");
    if (file_ == nullptr) throw usage_error("cannot write '" + path + "': " + std::strerror(errno));
}

line_writer::~line_writer() {
    if (file_ != nullptr && file_ != stdout) std::fclose(file_);
}

void line_writer::write(const std::string &lines) {
    const bool written = std::fwrite(lines.data(), 1, lines.size(), file_) == lines.size();
    if (!written || std::fflush(file_) != 0)
        throw std::runtime_error("writing the results to " +
                                 (path_.empty() ? std::string("stdout") : path_) +
                                 " failed: " + std::strerror(errno));
}

void write_text(const std::string &text, const std::string &path) {
    if (path.empty()) {
        // Flushed here, so a full disk or a closed pipe is an error now, not a lost buffer at
        // exit with status 0.
        const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
        if (!written || std::fflush(stdout) != 0)
            throw std::runtime_error(std::string("writing the results to stdout failed: ") +
                                     std::strerror(errno));
        return;
    }
    std::ofstream out(path, std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw std::runtime_error("writing " + path +
                                 " failed (disk full, or no longer writable?); nothing "
                                 "complete was written");
}

}  // namespace ipcbench::cli
