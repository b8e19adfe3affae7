#include "cli/result_file.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/usage_error.hpp"
#include "report/json_report.hpp"

namespace ipcbench::cli {

report::run_report load_result_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw usage_error("cannot read '" + path + "'");
    auto doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) throw usage_error("'" + path + "' is not JSON (ipchost --format json)");
    try {
        return report::run_report_from_json(doc);
    } catch (const std::exception &e) {
        throw usage_error("'" + path + "': " + e.what());
    }
}

}  // namespace ipcbench::cli
