#include "kit/kit_registry.hpp"

#include <algorithm>
#include <future>
#include <system_error>
#include <type_traits>

#include "kit/kit_trust.hpp"
#include "platform/command_output.hpp"
#include "platform/system_info.hpp"
#include "plugin/plugin_search_path.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::kit {
namespace {

// The first line a runtime-version command printed, or why it gave none.
void probe_runtime(kit_info &k) {
    auto version = with_kit_dir(k.manifest.runtime_version, k.folder);
    const checked_program program = check_program(version.front());
    if (!program.problem.empty()) {
        k.problem = program.missing ? "its runtime is missing: " + program.problem +
                                          " (install the runtime: scripts/install-deps.sh --kits)"
                                    : "refused, nothing of it runs: its runtime-version command "
                                      "runs " +
                                          program.problem + " (" + kit_trust_advice + ")";
        return;
    }
    version.front() = program.path;
    const auto out = platform::run_for_output(version, kit_registry::version_timeout_ms, 4096, {},
                                              &k.environment.variables);
    std::string first = out.text.substr(0, out.text.find('\n'));
    if (!first.empty() && first.back() == '\r') first.pop_back();
    if (!out.failure.empty()) {
        k.problem = "its runtime-version command could not start: " + out.failure;
    } else if (out.timed_out) {
        k.problem = "its runtime-version command did not end within " +
                    std::to_string(kit_registry::version_timeout_ms / 1000) + " s";
    } else if (!out.status.exited || out.status.code != 0 || first.empty()) {
        k.problem = "its runtime-version command failed (" + out.status.describe() + ")" +
                    (first.empty() ? std::string() : ": " + text::printable(first, 200));
    } else {
        k.runtime = text::printable(first, 128);
    }
}

// The worker's program and the runtime its launcher starts, each found and checked by ipchost
// (kit_trust.hpp), and the environment both start with.
void resolve_worker(kit_info &k) {
    k.worker = with_kit_dir(k.manifest.worker, k.folder);
    const checked_program program = check_program(k.worker.front());
    if (!program.problem.empty()) {
        const bool own = k.worker.front().find('/') != std::string::npos;
        if (!program.missing)
            k.problem = "refused, nothing of it runs: its worker runs " + program.problem + " (" +
                        kit_trust_advice + ")";
        else
            k.problem = own ? "its worker program '" + k.worker.front() +
                                  "' is missing or not executable (a compiled kit is built by "
                                  "CMake where its runtime is found)"
                            : "its runtime is missing: " + program.problem +
                                  " (install it: scripts/install-deps.sh --kits)";
        return;
    }
    k.worker.front() = program.path;
    const auto environment = platform::environment_variables();
    const checked_program runtime = check_runtime(k.manifest, environment);
    if (!runtime.problem.empty()) {
        k.problem = runtime.missing
                        ? "its runtime is missing: " + runtime.problem +
                              " (install it: scripts/install-deps.sh --kits)"
                        : "refused, nothing of it runs: the runtime its launcher starts, " +
                              runtime.problem + " (" + kit_trust_advice + ")";
        return;
    }
    k.environment = environment_for_kit(environment, k.manifest, runtime.path);
}

}  // namespace

bool kit_info::offers(side_role role) const {
    return std::find(manifest.roles.begin(), manifest.roles.end(), role) != manifest.roles.end();
}

bool kit_info::offers(const std::string &transport) const {
    return std::find(manifest.transports.begin(), manifest.transports.end(), transport) !=
           manifest.transports.end();
}

std::string kit_info::refusal(side_role role, const std::string &transport) const {
    auto listed = [](const auto &items) {
        std::string out;
        for (const auto &i : items) {
            if constexpr (std::is_same_v<std::decay_t<decltype(i)>, side_role>)
                out += (out.empty() ? "" : ", ") + std::string(to_string(i));
            else
                out += (out.empty() ? "" : ", ") + i;
        }
        return out;
    };
    if (!offers(role))
        return "kit '" + manifest.name + "' does not take the " + to_string(role) +
               " side (it takes " + listed(manifest.roles) + ")";
    if (!offers(transport))
        return "kit '" + manifest.name + "' does not implement " + transport + " (it offers " +
               listed(manifest.transports) + ")";
    return "";
}

void kit_registry::add(const std::filesystem::path &folder) {
    kit_info k;
    k.folder = folder;
    k.manifest.name = folder.filename().string();
    try {
        if (std::string why = untrusted_kit_folder(folder); !why.empty())
            throw std::runtime_error("refused, nothing of it runs: " + why + " (" +
                                     kit_trust_advice + ")");
        k.manifest = read_manifest(folder);
        if (std::string why = untrusted_kit_commands(folder, k.manifest); !why.empty()) {
            k.problem = "refused, nothing of it runs: " + why + " (" + kit_trust_advice + ")";
            kits_.push_back(std::move(k));
            return;
        }
    } catch (const std::exception &e) {
        k.problem = e.what();
        kits_.push_back(std::move(k));
        return;
    }
    for (const auto &earlier : kits_)
        if (earlier.manifest.name == k.manifest.name && earlier.problem.empty()) {
            k.shadowed_by = earlier.folder.string();
            break;
        }
    kits_.push_back(std::move(k));
}

void kit_registry::scan(const std::vector<std::filesystem::path> &folders) {
    const std::size_t first_new = kits_.size();
    for (const auto &folder : folders) {
        std::error_code ec;
        if (!std::filesystem::is_directory(folder, ec)) continue;
        if (std::filesystem::exists(folder / manifest_file_name, ec)) {
            add(folder);  // --kit-dir naming one kit's own folder
            continue;
        }
        std::vector<std::filesystem::path> found;
        for (const auto &entry : std::filesystem::directory_iterator(folder, ec))
            if (entry.is_directory(ec) &&
                std::filesystem::exists(entry.path() / manifest_file_name, ec))
                found.push_back(entry.path());
        std::sort(found.begin(), found.end());
        for (const auto &f : found) add(f);
    }
    // The worker programs and runtime versions, in parallel: each may take a runtime's start.
    std::vector<std::future<void>> probes;
    for (std::size_t i = first_new; i < kits_.size(); ++i) {
        kit_info &k = kits_[i];
        if (!k.problem.empty() || !k.shadowed_by.empty()) continue;
        probes.push_back(std::async(std::launch::async, [&k] {
            resolve_worker(k);
            if (k.problem.empty()) probe_runtime(k);
        }));
    }
    for (auto &p : probes) p.get();
    add_apis(first_new);
}

// Each API of a kit as a kit of its own, KIT:API, listed after its kit: the worker with `--api API`
// appended, on the API's transports; usable or not as its kit is.
void kit_registry::add_apis(std::size_t first_new) {
    std::vector<kit_info> out(
        std::make_move_iterator(kits_.begin()),
        std::make_move_iterator(kits_.begin() + static_cast<long>(first_new)));
    for (std::size_t i = first_new; i < kits_.size(); ++i) {
        const kit_info &base = kits_[i];
        out.push_back(base);
        for (const kit_api &api : base.manifest.apis) {
            kit_info k = base;
            k.api = api.name;
            k.manifest.name += ":" + api.name;
            k.manifest.transports = api.transports;
            if (!api.description.empty()) k.manifest.description = api.description;
            k.manifest.apis.clear();
            if (!k.worker.empty()) {
                k.worker.push_back("--api");
                k.worker.push_back(api.name);
            }
            out.push_back(std::move(k));
        }
    }
    kits_ = std::move(out);
}

const kit_info *kit_registry::find(const std::string &name) const {
    for (const auto &k : kits_)
        if (k.manifest.name == name && k.shadowed_by.empty()) return &k;
    return nullptr;
}

std::filesystem::path default_kit_folder() {
    return (plugin::default_plugin_folder() / ".." / "kits").lexically_normal();
}

std::vector<std::filesystem::path> kit_search_path(const std::vector<std::filesystem::path> &dirs) {
    std::vector<std::filesystem::path> folders(dirs.begin(), dirs.end());
    for (auto &f : plugin::folders_from_environment("IPCBENCH_KIT_PATH"))
        folders.push_back(std::move(f));
    folders.push_back(default_kit_folder());
    return folders;
}

}  // namespace ipcbench::kit
