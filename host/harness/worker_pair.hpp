#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/message_kind.hpp"
#include "control/worker_messages.hpp"
#include "model/job.hpp"
#include "platform/output_capture.hpp"
#include "platform/run_directory.hpp"
#include "plugin/transport_info.hpp"
#include "remote/agent_client.hpp"

namespace ipcbench::harness {

// Something went wrong with a worker or what it reported. `status` is the plugin's code when the
// failure came from a plugin call (IPCB_E_*), 0 otherwise; `stage` the control step.
struct pair_failure : std::runtime_error {
    pair_failure(const std::string &what, int status = 0, std::string stage = "")
        : std::runtime_error(what), status(status), stage(std::move(stage)) {}
    int status;
    std::string stage;
};
struct pair_interrupted : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Two fresh worker processes (copies of this executable) holding the two sides of a transport:
// the server creates the endpoints, the client connects to them. Every wait is bounded and
// watches both processes, so a crash or hang becomes a pair_failure naming the side, never a hang
// of ipchost. The destructor kills what is still running and removes what a killed creator left.
// What each worker printed, by side ("sender", "receiver"...).
using worker_outputs = std::map<std::string, platform::captured_output>;

// How a local side's worker process starts: ipchost's own worker (`ipchost worker`), or a kit's
// command (kit/kit_registry.hpp); "--control-socket FD" is appended either way.
struct worker_launch {
    std::string program;  // absolute
    std::vector<std::string> args;
    std::string implementation = "native";  // what the side should say it is in its hello
    // The CPU the process starts on (-1: any): a kit's runtime then sizes itself for it
    // (--affinity; platform::child_process).
    int start_cpu = -1;
    // A kit's whole environment (kit/kit_environment.hpp) and what of ipchost's it left out;
    // empty for the native worker, which inherits ipchost's.
    std::vector<std::string> environment;
    std::vector<std::string> environment_dropped;
    static worker_launch native();
};

// What a side said of itself in its hello.
struct worker_identity {
    std::string implementation;  // "native" or the kit's name
    std::string runtime;         // "" for native, else e.g. "go1.19.8"
    long pid = 0;
    control::protocol_version protocol{1, 0};      // the worker protocol version both speak
    std::vector<std::string> environment_dropped;  // worker_launch's, for the result
};

class worker_pair {
public:
    // server_dirs: the server's endpoint directions in order (IPCB_DIR_*); the client gets the
    // mirror image. `server_side`/`client_side` name the processes in messages.
    // With `remote`, the server side runs on that `ipchost serve` agent instead of here.
    // With `outputs`, what each local worker prints is also kept there, by side (it must
    // outlive the pair: the result is built after the pair is gone).
    // `server_launch` and `client_launch` say how each local side's process starts.
    worker_pair(const plugin::transport_info &transport, std::vector<std::uint32_t> server_dirs,
                std::string server_side, std::string client_side,
                const remote::agent_address *remote = nullptr, worker_outputs *outputs = nullptr,
                worker_launch server_launch = worker_launch::native(),
                worker_launch client_launch = worker_launch::native());
    ~worker_pair();
    worker_pair(const worker_pair &) = delete;
    worker_pair &operator=(const worker_pair &) = delete;

    // Starts both processes (connect() does it when needed).
    void start();

    // Runs a self-contained check in the server process, without endpoints (ipchost check).
    nlohmann::json probe(const nlohmann::json &job, double watchdog_s);

    // Starts both processes, opens and connects the endpoints. Returns the effective settings
    // each side reported ({server}, {client}).
    std::pair<nlohmann::json, nlohmann::json> connect(
        const std::map<std::string, std::string> &options, std::uint64_t max_message_size,
        std::int64_t connect_timeout_ns);

    // Sends a "run" with one job to each side (server first) and waits until watchdog_s for both
    // results. Messages a side sends meanwhile ("sent", "interval") go to on_event, with
    // from_client telling which side sent it; on_tick is called at least every 10 ms meanwhile.
    using event_handler = std::function<void(bool from_client, const nlohmann::json &)>;
    std::pair<nlohmann::json, nlohmann::json> run(const nlohmann::json &server_job,
                                                  const nlohmann::json &client_job,
                                                  double watchdog_s,
                                                  const event_handler &on_event = nullptr,
                                                  const std::function<void()> &on_tick = nullptr);
    // The same for a measured case's two jobs.
    std::pair<nlohmann::json, nlohmann::json> run(const model::job &server_job,
                                                  const model::job &client_job, double watchdog_s,
                                                  const event_handler &on_event,
                                                  const std::function<void()> &on_tick);

    // The local workers' process ids; 0 for a side an agent runs on another host.
    long server_pid() const;
    long client_pid() const;

    // Sends a message to one side during a run (e.g. "sender_done").
    void notify(bool to_client, const nlohmann::json &message);

    // Closes the endpoints politely (kills the workers if they do not answer in time).
    void close();

    // What each side said of its connections' set-up (worker: "connected" "setup"), untrusted
    // (an agent's worker may say anything); null before connect.
    const nlohmann::json &server_setup() const { return setups_.first; }
    const nlohmann::json &client_setup() const { return setups_.second; }

    // What each side said of itself in its hello (after start()).
    const worker_identity &server_identity() const { return identities_.first; }
    const worker_identity &client_identity() const { return identities_.second; }

    const std::vector<std::uint32_t> &server_dirs() const { return server_dirs_; }
    const std::vector<std::uint32_t> &client_dirs() const { return client_dirs_; }

private:
    struct process;
    using event_callback = std::function<void(process &, const nlohmann::json &)>;
    // Waits for one message of `type` from each worker, until the deadline.
    std::vector<nlohmann::json> collect(const std::vector<process *> &workers,
                                        control::message_kind type, std::int64_t deadline,
                                        const event_callback &on_event = nullptr,
                                        const std::function<void()> &on_tick = nullptr);
    static std::optional<nlohmann::json> next_reply(const std::vector<process *> &workers,
                                                    std::size_t i, control::message_kind type,
                                                    const std::vector<bool> &done,
                                                    const event_callback &on_event,
                                                    bool &progressed, bool &heard_progress);
    static void wait_for_input(const std::vector<process *> &workers, const std::vector<bool> &done,
                               control::message_kind type, std::int64_t deadline, bool ticking);
    nlohmann::json setup_message(control::endpoint_role role,
                                 const std::vector<std::uint32_t> &dirs,
                                 const std::vector<std::string> &addresses,
                                 const std::map<std::string, std::string> &options,
                                 std::uint64_t max_message_size);
    worker_identity welcome(process &w, const nlohmann::json &hello_message,
                            const worker_launch &launch);
    void shut_down(bool polite);
    // A message to one worker; a worker whose channel closed under it has died, and the
    // pair_failure says so (side, signal or exit code) instead of "channel closed".
    static void send_to(process &w, const nlohmann::json &message);
    std::vector<std::string> creator_addresses() const;

    const plugin::transport_info &transport_;
    const remote::agent_address *remote_;
    worker_outputs *outputs_ = nullptr;
    std::vector<std::uint32_t> server_dirs_, client_dirs_;
    std::string server_side_, client_side_;
    platform::run_directory run_dir_;
    std::unique_ptr<process> server_, client_;
    std::vector<std::string> addresses_;
    std::pair<nlohmann::json, nlohmann::json> setups_;
    worker_launch server_launch_, client_launch_;
    std::pair<worker_identity, worker_identity> identities_;
};

}  // namespace ipcbench::harness
