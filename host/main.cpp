// ipchost: discovers transport plugins and benchmarks them between two processes.
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "cli/usage_error.hpp"
#include "harness/stale_runs.hpp"
#include "peer_client/peer_client.hpp"
#include "platform/child_process.hpp"
#include "platform/isolated_calls.hpp"
#include "plugin/plugin_search_path.hpp"
#include "remote/agent_protocol.hpp"
#include "remote/agent_server.hpp"
#include "worker/worker.hpp"

namespace {

void set_up_logging(bool verbose) {
    auto logger = spdlog::stderr_color_mt("ipchost");
    logger->set_pattern("%^[%l]%$ %v");
    logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
    spdlog::set_default_logger(logger);
}

// The hidden worker entry, as platform::child_process starts it:
// `ipchost worker [--runtime-dir DIR] [--agent] --control-socket HANDLE`.
int worker_entry(int argc, char **argv) {
    std::string control;
    std::string runtime_dir;
    bool agent_mode = false, understood = true;
    for (int i = 2; i < argc && understood; ++i) {
        const std::string arg = argv[i];
        if (arg == "--control-socket" && i + 1 < argc)
            control = argv[++i];
        else if (arg == "--runtime-dir" && i + 1 < argc)
            runtime_dir = argv[++i];
        else if (arg == "--agent")
            agent_mode = true;
        else
            understood = false;
    }
    if (!understood || control.empty()) {
        fmt::print(stderr, "ipchost worker: internal command, started by ipchost itself\n");
        return 2;
    }
    ipcbench::platform::socket_handle socket = ipcbench::platform::no_socket;
    try {
        socket = ipcbench::platform::socket_from_token(control);
    } catch (const std::exception &e) {
        fmt::print(stderr, "ipchost worker: {}\n", e.what());
        return 2;
    }
    return ipcbench::worker::worker_main(socket, runtime_dir, agent_mode);
}

// `ipchost peer-client --control-socket HANDLE`: an agent's peer client (peer_client/).
int peer_client_entry(int argc, char **argv) {
    if (argc != 4 || std::strcmp(argv[2], "--control-socket") != 0) {
        fmt::print(stderr, "ipchost peer-client: internal command, started by ipchost serve\n");
        return 2;
    }
    try {
        return ipcbench::peer_client::peer_client_main(
            ipcbench::platform::socket_from_token(argv[3]));
    } catch (const std::exception &e) {
        fmt::print(stderr, "ipchost peer-client: {}\n", e.what());
        return 2;
    }
}

}  // namespace

// Every subcommand prints to stdout; a write that failed (disk full, closed pipe) is an error,
// whatever the command returned.
int checked_exit(int code) {
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        fmt::print(stderr, "ipchost: error: writing to stdout failed: {}\n", std::strerror(errno));
        return code == 0 ? 1 : code;
    }
    return code;
}

int run_main(int argc, char **argv);

int main(int argc, char **argv) {
    return checked_exit(run_main(argc, argv));
}

int run_main(int argc, char **argv) {
    if (argc > 1 && std::strcmp(argv[1], "worker") == 0) {
        set_up_logging(false);
        return worker_entry(argc, argv);
    }
    if (argc > 1 && std::strcmp(argv[1], "peer-client") == 0) {
        set_up_logging(false);
        return peer_client_entry(argc, argv);
    }
    if (argc > 1 && std::strcmp(argv[1], "isolated") == 0)  // a probe where there is no fork
        return ipcbench::platform::serve_isolated_task(argc, argv);
    using namespace ipcbench;
    platform::become_subreaper();  // what plugins leave running comes back here to be killed
    try {
        // Parsed from a copy, so the token's bytes can be wiped from the process's own argv.
        std::vector<std::string> copies(argv, argv + argc);
        std::vector<const char *> args;
        args.reserve(copies.size());
        for (const auto &a : copies) args.push_back(a.c_str());
        const bool token_on_command_line = cli::wipe_token_arguments(argc, argv);
        auto cmd = cli::parse_command_line(argc, args.data());
        set_up_logging(cmd.verbose && !cmd.list);
        if (token_on_command_line)
            spdlog::warn(
                "--token was given on the command line, where every local user could read it "
                "(ps, /proc/PID/cmdline) until ipchost wiped it at start; pass --token-file "
                "FILE (mode 600) or --token-env NAME instead");
        if (cmd.help) {
            if (cmd.output.empty())
                fmt::print("{}", cmd.help_text);
            else
                cli::write_text(cmd.help_text, cmd.output);  // the build writes ipchost.1 so
            return 0;
        }
        if (cmd.version) {
            fmt::print("ipchost {} (plugin ABI {}.{})\n", IPCBENCH_VERSION, IPCB_ABI_MAJOR,
                       IPCB_ABI_MINOR);
            return 0;
        }
        if (cmd.subcommand == "compare") return cli::compare_command(cmd);
        if (cmd.subcommand == "ab") return cli::ab_command(cmd);
        if (cmd.subcommand == "trend") return cli::trend_command(cmd);
        if (cmd.subcommand == "system") return cli::system_command(cmd);
        if (cmd.subcommand == "new-plugin") return cli::new_plugin_command(cmd);
        if (cmd.subcommand == "serve") return remote::serve(cmd.serve);
        if (cmd.subcommand == "report") return cli::report_command(cmd);
        for (const auto &dir : cmd.plugin_dirs) {
            std::error_code ec;
            if (!std::filesystem::is_directory(dir, ec))
                throw cli::usage_error("--plugin-dir '" + dir.string() +
                                       "': not a readable directory");
        }
        if (cmd.list) spdlog::set_level(spdlog::level::err);  // --list prints rejections itself
        plugin::plugin_registry registry;
        registry.scan(plugin::plugin_search_path(cmd.plugin_dirs));
        for (const auto &escaped : platform::kill_escaped_children())
            spdlog::error("a plugin's probe left process {} behind; it was killed", escaped);
        for (const auto &line : harness::clean_stale_runs(registry)) spdlog::warn("{}", line);
        if (cmd.list) return cli::list_command(cmd, registry);
        if (cmd.subcommand == "fleet") return cli::fleet_command(cmd, registry, argc, argv);
        if (!cmd.describe.empty()) return cli::describe_command(cmd, registry);
        if (cmd.subcommand == "check") return cli::check_command(cmd, registry);
        return cli::run_command(cmd, registry, argc, argv);
    } catch (const cli::usage_error &e) {
        fmt::print(stderr, "ipchost: error: {}\n", e.what());
        return 2;
    } catch (const std::exception &e) {
        fmt::print(stderr, "ipchost: error: {}\n", e.what());
        return 1;
    }
}
