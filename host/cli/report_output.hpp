#pragma once

#include <cstdio>
#include <string>

#include "cli/command_line.hpp"
#include "report/output_formats.hpp"
#include "report/run_report.hpp"

namespace ipcbench::cli {

// A run's header: this host, when, the command line, its defaults, --peer and --from.
report::run_report start_report(const command_line &cmd, int argc, const char *const argv[]);

// Fails with a usage_error now, not after a long run, if `path` cannot be written.
void check_output_file(const std::string &path);

// Renders the report in that format (the table's columns as `layout` says), to `path` or
// stdout.
void write_report(const report::run_report &report, report::output_format format,
                  const std::string &path, const report::table_layout &layout = {});

// Lines written one at a time as a run goes (--format jsonl), each flushed at once to `path`
// (stdout when empty), so a reader sees it while the run goes on; throws std::runtime_error
// naming the destination when a line could not be written.
class line_writer {
public:
    explicit line_writer(const std::string &path);
    ~line_writer();
    line_writer(const line_writer &) = delete;
    line_writer &operator=(const line_writer &) = delete;
    void write(const std::string &lines);

private:
    std::string path_;
    std::FILE *file_ = nullptr;
};

// Writes `text` to `path` (stdout when empty) and flushes; throws std::runtime_error naming the
// destination when any byte could not be written (exit code 1).
void write_text(const std::string &text, const std::string &path);

}  // namespace ipcbench::cli
