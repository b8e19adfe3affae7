#pragma once

// A kit: a worker in another language (docs/worker-protocol.md, "Kits"). A kit is a folder with
// a manifest, ipcbench-kit.json, naming how to start its worker and what it implements. The
// manifest is read here, in the main ipchost process, which never runs a kit's code itself
// except the runtime-version command (kit_registry.hpp).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ipcbench::kit {

inline constexpr const char *manifest_file_name = "ipcbench-kit.json";
inline constexpr int manifest_format = 1;  // the "kit_manifest" field
inline constexpr std::size_t max_manifest_bytes = std::size_t{64} * 1024;

// The side a kit can take: a throughput sender or receiver, a latency pinger or ponger.
enum class side_role { sender, receiver, pinger, ponger };
const char *to_string(side_role r);
bool from_name(const std::string &name, side_role &out);

// One API a kit offers beside its default (docs/worker-protocol.md, "Kits"): `--impl KIT:API`
// starts the worker with `--api API` appended, on the transports listed here.
struct kit_api {
    std::string name;  // [a-z0-9_-], 1..16
    std::string description;
    std::vector<std::string> transports;  // plugin.variant ids
};

template <class M, class V>
auto visit_fields(M &m, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<M>, kit_api>> {
    v.text("name", m.name, 16);
    v.optional_text("description", m.description, 400);
    v.text_list("transports", m.transports, 256, 200);
}

// The most a kit may ask its cases to warm up for (a JIT's compilation of the loop).
inline constexpr double max_kit_warmup_s = 10;

struct kit_manifest {
    std::int64_t format = 0;  // kit_manifest: 1
    std::string name;         // what --impl names: [a-z0-9_-], 1..32, not "native"
    std::string language;     // "Go", "Python"
    std::string description;
    // How to start the worker and how to print the runtime's version, as argument lists (no
    // shell); "{kit_dir}" in any of them is the kit's folder. ipchost appends
    // "--control-socket FD" to `worker`.
    std::vector<std::string> worker;
    std::vector<std::string> runtime_version;
    std::vector<std::string> protocol;  // worker protocol versions it speaks, "1.0"
    std::vector<side_role> roles;
    std::vector<std::string> transports;  // plugin.variant ids
    std::vector<kit_api> apis;            // the other APIs, each `--impl NAME:API`
    // The untimed traffic its runtime needs before its loop runs at speed (a JIT compiling it):
    // a case's warm-up is at least this unless --warmup is given. 0: none declared.
    double warmup_s = 0;
    // The runtime a launcher script starts (a kit whose worker is a script: java, dotnet,
    // mono). ipchost finds it itself, on PATH or where `runtime_variable` names another (the
    // user's IPCBENCH_JAVA), holds it to the kits' rules (kit/kit_trust.hpp) and hands the
    // launcher its absolute path as IPCBENCH_RUNTIME: a launcher never looks anything up.
    std::string runtime;
    std::string runtime_variable;
    // The variable that adds options to the runtime's command (IPCBENCH_JAVA_OPTS), and the
    // shapes an option may have (ECMAScript regular expressions, each matching a whole word): a
    // variable with any other word is dropped from the kit's environment and said
    // (kit/kit_environment.hpp): an option can name code (-javaagent:, --profile=).
    std::string runtime_options_variable;
    std::vector<std::string> runtime_options_allowed;
};

template <class M, class V>
auto visit_fields(M &m, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<M>, kit_manifest>> {
    v.integer("kit_manifest", m.format, manifest_format, manifest_format);
    v.text("name", m.name, 32);
    v.text("language", m.language, 64);
    v.optional_text("description", m.description, 400);
    v.text_list("worker", m.worker, 64, 4096);
    v.text_list("runtime_version", m.runtime_version, 64, 4096);
    v.text_list("protocol", m.protocol, 16, 16);
    v.named_list("roles", m.roles, 4);
    v.text_list("transports", m.transports, 256, 200);
    v.optional_object_list("apis", m.apis, 16);
    v.optional_number("warmup_s", m.warmup_s, 0, max_kit_warmup_s);
    v.optional_text("runtime", m.runtime, 256);
    v.optional_text("runtime_variable", m.runtime_variable, 64);
    v.optional_text("runtime_options_variable", m.runtime_options_variable, 64);
    v.optional_text_list("runtime_options_allowed", m.runtime_options_allowed, 32, 200);
}

// The manifest in `folder`, every field checked: std::runtime_error naming the file and what
// is wrong, and how to fix it.
kit_manifest read_manifest(const std::filesystem::path &folder);

// "{kit_dir}" replaced by the folder in every argument.
std::vector<std::string> with_kit_dir(const std::vector<std::string> &args,
                                      const std::filesystem::path &folder);

}  // namespace ipcbench::kit
