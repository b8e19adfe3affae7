#include "harness/stale_runs.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "platform/process_identity.hpp"
#include "platform/run_directory.hpp"
#include "plugin/address_cleanup.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::harness {
namespace {

std::string first_line(const std::filesystem::path &file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

// True when the directory's maker is gone (its recorded identity no longer matches).
bool owner_gone(const std::filesystem::path &dir) {
    const std::string owner = first_line(dir / platform::run_directory::owner_file);
    const auto colon = owner.find(':');
    if (owner.empty() || colon == std::string::npos) return false;  // not ours to judge
    long pid = 0;
    try {
        pid = std::stol(owner.substr(0, colon));
    } catch (const std::exception &) {
        return false;
    }
    return pid > 0 && platform::process_identity(pid) != owner;
}

std::vector<std::string> remove_named_objects(const std::filesystem::path &dir,
                                              const plugin::plugin_registry &registry) {
    const auto file = dir / platform::run_directory::manifest_file;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return {};
    try {
        const auto manifest = text::parse_untrusted_json_file(file, std::size_t{16} << 20);
        const auto *transport = registry.find(manifest.at("transport").get<std::string>());
        if (transport == nullptr) return {"its transport is no longer installed"};
        return plugin::remove_addresses_isolated(
            *transport, manifest.at("addresses").get<std::vector<std::string>>());
    } catch (const std::exception &e) {
        return {std::string("unreadable manifest: ") + e.what()};
    }
}

}  // namespace

void write_run_manifest(const std::filesystem::path &run_dir, const std::string &transport_id,
                        const std::vector<std::string> &addresses) {
    // Written aside and renamed into place: an ipchost killed mid-write leaves no half manifest
    // (which the next run could not read, leaking what it names), and a reader sees all or none.
    const auto final_path = run_dir / platform::run_directory::manifest_file;
    auto partial_path = final_path;
    partial_path += ".partial";
    {
        std::ofstream out(partial_path, std::ios::trunc);
        out << nlohmann::json{{"transport", transport_id}, {"addresses", addresses}}.dump() << "\n";
        out.flush();
        if (!out)
            throw std::runtime_error("cannot write " + partial_path.string() +
                                     ": check the space and permissions of the temporary folder");
    }
    std::filesystem::rename(partial_path, final_path);
}

std::vector<std::string> clean_stale_runs(const plugin::plugin_registry &registry) {
    std::vector<std::string> report;
    for (const auto &dir : platform::own_private_folders(platform::run_directory::prefix)) {
        if (!owner_gone(dir)) continue;
        for (const auto &problem : remove_named_objects(dir, registry))
            report.push_back(dir.string() + ": " + problem);
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
        report.push_back("removed " + dir.string() + ", left by an ipchost that was killed" +
                         (ec ? " (incompletely: " + ec.message() + ")" : ""));
    }
    return report;
}

}  // namespace ipcbench::harness
