#include "kit/kit_trust.hpp"

#include <system_error>
#include <vector>

#include "platform/command_output.hpp"
#include "platform/file_trust.hpp"

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
    const std::string program = platform::find_program(args.front());
    if (!program.empty())
        if (std::string why = untrusted_named_file(program); !why.empty())
            return "its command runs " + why;
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
    return "";
}

}  // namespace ipcbench::kit
