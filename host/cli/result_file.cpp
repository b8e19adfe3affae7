#include "cli/result_file.hpp"

#include <nlohmann/json.hpp>

#include "cli/usage_error.hpp"
#include "report/json_report.hpp"

namespace ipcbench::cli {

report::run_report load_result_file(const std::string &path) {
    nlohmann::json doc;
    try {
        doc = text::parse_untrusted_json_file(path, max_result_file_bytes, result_file_limits);
    } catch (const text::json_error &e) {
        throw usage_error("'" + path + "' is not a result file of ipchost --format json: " +
                          e.what() + " (give a file ipchost wrote; its own are a few MiB at most)");
    }
    try {
        return report::run_report_from_json(doc);
    } catch (const std::exception &e) {
        throw usage_error("'" + path + "': " + e.what());
    }
}

}  // namespace ipcbench::cli
