#include "kit/kit_trust.hpp"

#include <system_error>
#include <vector>

#include "kit/kit_environment.hpp"
#include "platform/command_output.hpp"
#include "platform/file_trust.hpp"
#include "platform/system_info.hpp"

namespace ipcbench::kit {
namespace {

// A program or file a command names, and the folder it was found in (a PATH entry, the kit
// folder): either could be swapped by whoever may write it.
std::string untrusted_named_file(const std::filesystem::path &file) {
    if (std::string why = platform::untrusted_folder_reason(file.parent_path()); !why.empty())
        return file.string() + " lies in " + file.parent_path().string() + ", which is " + why;
    if (std::string why = platform::untrusted_reason(file); !why.empty())
        return file.string() + " is " + why;
    return "";
}

std::string untrusted_command(const std::vector<std::string> &command,
                              const std::filesystem::path &folder) {
    const auto args = with_kit_dir(command, folder);
    if (args.empty()) return "";
    if (const checked_program program = check_program(args.front());
        !program.missing && !program.problem.empty())
        return "its command runs " + program.problem;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::filesystem::path p(args[i]);
        std::error_code ec;
        if (!p.is_absolute() || !std::filesystem::exists(p, ec)) continue;
        if (std::string why = untrusted_named_file(p); !why.empty())
            return "its command names " + why;
    }
    return "";
}

}  // namespace

std::string untrusted_kit_folder(const std::filesystem::path &folder) {
    const std::filesystem::path manifest = folder / manifest_file_name;
    std::error_code ec;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(manifest, ec)))
        return manifest.string() +
               " is a symbolic link: a kit's manifest must be a file of the kit's own folder (a "
               "link would lend another kit's checks to this folder's code)";
    if (std::string why = platform::untrusted_folder_reason(folder); !why.empty())
        return "the kit folder " + folder.string() + " is " + why;
    if (std::string why = platform::untrusted_reason(manifest); !why.empty())
        return manifest.string() + " is " + why;
    if (std::string why = platform::untrusted_tree_reason(folder); !why.empty())
        return "in the kit folder, " + why;
    return "";
}

std::string untrusted_kit_commands(const std::filesystem::path &folder, const kit_manifest &m) {
    for (const auto *command : {&m.worker, &m.runtime_version})
        if (std::string why = untrusted_command(*command, folder); !why.empty()) return why;
    if (const checked_program runtime = check_runtime(m, platform::environment_variables());
        !runtime.missing && !runtime.problem.empty())
        return "the runtime its launcher starts, " + runtime.problem;
    return "";
}

checked_program check_program(const std::string &name) {
    checked_program out;
    if (name.find('/') != std::string::npos && !std::filesystem::path(name).is_absolute()) {
        out.problem = "'" + name +
                      "' is a relative path (name a program by an absolute path, "
                      "or by a bare name found on PATH)";
        return out;
    }
    const std::string found = platform::find_program(name);
    if (found.empty()) {
        out.missing = true;
        out.problem = "'" + name + "' is not " +
                      (name.find('/') == std::string::npos ? "on PATH" : "there") +
                      " or not executable";
        return out;
    }
    // Each link on the way, with the folder it lives in: whoever may write that folder could
    // point the link elsewhere (/usr/bin/java -> /etc/alternatives/java -> the JDK's).
    std::filesystem::path hop = std::filesystem::path(found).lexically_normal();
    std::error_code ec;
    for (int i = 0; i < 40; ++i) {
        if (std::string why = untrusted_named_file(hop); !why.empty()) {
            out.problem = why;
            return out;
        }
        if (!std::filesystem::is_symlink(std::filesystem::symlink_status(hop, ec))) break;
        const auto target = std::filesystem::read_symlink(hop, ec);
        if (ec) break;
        hop = (target.is_absolute() ? target : hop.parent_path() / target).lexically_normal();
    }
    const auto real = std::filesystem::canonical(found, ec);
    out.path = ec ? found : real.string();
    return out;
}

checked_program check_runtime(const kit_manifest &m, const std::vector<std::string> &environment) {
    if (m.runtime.empty()) return {};
    std::string name = m.runtime;
    if (!m.runtime_variable.empty())
        if (auto chosen = environment_value(environment, m.runtime_variable);
            chosen && !chosen->empty())
            name = *chosen;
    checked_program out = check_program(name);
    if (!out.problem.empty() && name != m.runtime)
        out.problem += " (named by " + m.runtime_variable + ")";
    return out;
}

}  // namespace ipcbench::kit
