// `ipchost report RESULTS.json`: a result file rendered again, by default as one HTML page.
#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "cli/result_file.hpp"

namespace ipcbench::cli {

int report_command(const command_line &cmd) {
    const auto report = load_result_file(cmd.inputs[0]);
    write_report(report, cmd.format_given ? cmd.format : report::output_format::html, cmd.output,
                 cmd.layout);
    return 0;
}

}  // namespace ipcbench::cli
