#include "scaffold/plugin_scaffold.hpp"

#include <fmt/format.h>
#include <boost/dll/runtime_symbol_info.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "platform/file_trust.hpp"
#include "platform/private_file.hpp"

namespace ipcbench::scaffold {

namespace {

namespace fs = std::filesystem;

const char *const template_name = "mytransport";

fs::path executable_dir() {
    return fs::path(boost::dll::program_location().string()).parent_path();
}

void check_name(const std::string &name) {
    bool ok = !name.empty() && name.size() <= 32 && name != template_name;
    for (char c : name) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
    if (!ok || (name[0] >= '0' && name[0] <= '9'))
        throw std::invalid_argument(
            "new-plugin '" + name +
            "': a plugin name is 1 to 32 of a-z, 0-9 and _, not starting with a digit (it "
            "prefixes every transport id: NAME.stream), e.g. ipchost new-plugin ringbuf");
}

std::string read_file(const fs::path &file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the template file " + file.string());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A new file, never one that exists or a link someone planted in its place.
void write_file(const fs::path &file, const std::string &text) {
    platform::create_new_file(file, text);
}

// The folder the project goes in: new, or empty and this user's alone. Run as root into a
// folder another user owns or can write, its files could be links planted to overwrite
// anything root can write.
void check_target(const fs::path &to) {
    std::error_code ec;
    const auto status = fs::symlink_status(to, ec);
    if (!fs::exists(status)) return;
    if (fs::is_symlink(status))
        throw std::invalid_argument("--dir '" + to.string() +
                                    "' is a symbolic link: its files would be written wherever it "
                                    "points; name a new folder");
    if (!(fs::is_directory(status) && fs::is_empty(to, ec)))
        throw std::invalid_argument("--dir '" + to.string() +
                                    "' exists and is not an empty folder; name a new one");
    std::string why = platform::foreign_folder_reason(to);
    if (why.empty()) why = platform::untrusted_folder_reason(to);  // and the folders above it
    if (!why.empty())
        throw std::invalid_argument("--dir '" + to.string() + "' is " + why +
                                    ": ipchost new-plugin writes only into a folder of your own "
                                    "that no one else can write; name a new one");
}

std::string renamed(std::string text, const std::string &name) {
    for (std::size_t at = text.find(template_name); at != std::string::npos;
         at = text.find(template_name, at + name.size()))
        text.replace(at, std::string(template_name).size(), name);
    return text;
}

std::string project_readme(const plugin_request &r, const std::string &variant) {
    const fs::path prefix = sdk_prefix();
    const std::string prefix_arg =
        prefix.empty() ? "/where/ipcbench/is/installed" : prefix.string();
    const std::string source = r.lang == "cpp" ? "my_transport.cpp" : "my_transport.c";
    return fmt::format(
        "# {0}: an ipcbench transport plugin\n\n"
        "Made by `ipchost new-plugin {0} --lang {1}` from the ipcbench {2} SDK template. "
        "`{3}` is a complete, working transport ({0}.{4}); replace its calls with yours.\n\n"
        "## The next three commands\n\n"
        "```sh\n"
        "cmake -S . -B build -DCMAKE_PREFIX_PATH={5}\n"
        "cmake --build build\n"
        "ipchost check --plugin-dir build/ipcbench-plugins --plugin {0}\n"
        "```\n\n"
        "Then measure it against the built-in transports:\n\n"
        "```sh\n"
        "ipchost --plugin-dir build/ipcbench-plugins --plugin {0},socket.unix --size 64,4K\n"
        "```\n\n"
        "`cmake --install build --prefix {5}` puts the plugin where that ipchost finds it "
        "without --plugin-dir. The contract is `ipcbench/transport.h`; the guide is "
        "`share/doc/ipcbench/SDK.md` in the ipcbench prefix.\n",
        r.name, r.lang, IPCBENCH_VERSION, source, variant, prefix_arg);
}

}  // namespace

fs::path template_root() {
    return (executable_dir() / ".." / "share" / "ipcbench" / "templates").lexically_normal();
}

fs::path sdk_prefix() {
    fs::path prefix = executable_dir().parent_path();
    std::error_code ec;
    for (const char *libdir : {"lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"})
        if (fs::exists(prefix / libdir / "cmake" / "ipcbench" / "ipcbenchConfig.cmake", ec))
            return prefix;
    return {};
}

std::vector<fs::path> write_plugin_project(const plugin_request &request) {
    check_name(request.name);
    if (request.lang != "c" && request.lang != "cpp")
        throw std::invalid_argument("--lang '" + request.lang + "': expected c or cpp");
    // The C++ template is a Unix seqpacket socket; the C one carries a named-pipe twin for
    // Windows (my_transport_windows.c), so Windows gets that.
    if (request.lang == "cpp" && std::string(IPCBENCH_PLUGIN_SUFFIX) == ".dll")
        throw std::invalid_argument(
            "--lang cpp: the C++ template is a Unix seqpacket socket and builds on Linux only; "
            "on Windows start from --lang c (a named pipe) and add transport.hpp yourself");
    const fs::path from = template_root() / request.lang;
    std::error_code ec;
    if (!fs::is_directory(from, ec))
        throw std::runtime_error("the SDK template folder " + from.string() +
                                 " is missing: reinstall ipcbench (it ships share/ipcbench/"
                                 "templates beside bin/)");
    const fs::path to = request.dir.empty() ? fs::path(request.name) : request.dir;
    check_target(to);
    fs::create_directories(to, ec);
    if (ec) throw std::runtime_error("cannot create " + to.string() + ": " + ec.message());
    check_target(to);  // made now, or by someone else a moment before: judged as it is

    std::vector<fs::path> written;
    for (const auto &entry : fs::directory_iterator(from)) {
        if (!entry.is_regular_file()) continue;
        const fs::path target = to / entry.path().filename();
        write_file(target, renamed(read_file(entry.path()), request.name));
        written.push_back(target);
    }
    const std::string variant = request.lang == "cpp" ? "seqpacket" : "stream";
    write_file(to / "README.md", project_readme(request, variant));
    written.push_back(to / "README.md");
    write_file(to / ".gitignore", "/build/\n");
    written.push_back(to / ".gitignore");
    return written;
}

}  // namespace ipcbench::scaffold
