#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kit/kit_environment.hpp"
#include "kit/kit_manifest.hpp"

namespace ipcbench::kit {

// One kit found in a kit folder: usable, or not and why.
struct kit_info {
    kit_manifest manifest;
    std::filesystem::path folder;
    std::vector<std::string> worker;  // the command, {kit_dir} filled in, argv[0] absolute
    std::string runtime;              // what runtime_version printed, first line ("go1.19.8")
    std::string problem;              // why it cannot run; "" when it can
    std::string shadowed_by;          // an earlier folder's kit of the same name wins
    std::string api;  // KIT:API's API (the manifest's "apis"), "" for the kit's default
    // What its worker and runtime-version probe start with, and what of ipchost's environment
    // was left out (kit/kit_environment.hpp).
    kit_environment environment;

    bool usable() const { return problem.empty() && shadowed_by.empty(); }
    bool offers(side_role role) const;
    bool offers(const std::string &transport) const;
    // Why this kit cannot take `role` on `transport` by its manifest ("" when it can): the
    // role or the transport it does not list, naming what it does.
    std::string refusal(side_role role, const std::string &transport) const;
};

// The kits in the kit folders, in search order: the first folder with a name wins. A folder
// whose manifest is broken, whose runtime is missing or whose runtime-version command fails is
// kept with its problem (ipchost --list shows it), never fatal.
class kit_registry {
public:
    void scan(const std::vector<std::filesystem::path> &folders);
    const std::vector<kit_info> &kits() const { return kits_; }
    // usable or not; null if none. "KIT:API" names one of a kit's "apis".
    const kit_info *find(const std::string &name) const;

    static constexpr int version_timeout_ms = 5000;

private:
    void add(const std::filesystem::path &folder);
    void add_apis(std::size_t first_new);
    std::vector<kit_info> kits_;
};

// Every --kit-dir as given, then IPCBENCH_KIT_PATH (':'-separated; ';' on Windows), then the
// kits folder beside the plugin folder (<bindir>/../lib/ipcbench/kits; Windows: kits\ beside
// ipchost.exe), in the build tree and installed.
std::vector<std::filesystem::path> kit_search_path(const std::vector<std::filesystem::path> &dirs);
std::filesystem::path default_kit_folder();

}  // namespace ipcbench::kit
