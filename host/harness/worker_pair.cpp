#include "harness/worker_pair.hpp"

#include <spdlog/spdlog.h>

#include "control/control_channel.hpp"
#include "control/worker_messages.hpp"
#include "harness/stale_runs.hpp"
#include "platform/child_process.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/signals.hpp"
#include "platform/stream_socket.hpp"
#include "plugin/address_cleanup.hpp"
#include "remote/agent_client.hpp"
#include "remote/agent_policy.hpp"
#include "text/printable_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ipcbench::harness {

using nlohmann::json;
using platform::now_ns;

namespace {

constexpr std::int64_t setup_timeout_ns = 10'000'000'000;
// Opening and connecting endpoints takes longer with more of them, and much longer where the
// kernel searches for free ports (thousands of TCP listeners beside thousands of TIME_WAIT
// sockets from a run a minute ago): each endpoint adds to the deadline of those steps.
constexpr std::int64_t setup_per_endpoint_ns = 5'000'000;
// A worker that keeps saying it is still opening (progress, worker protocol 1.2) is waited for
// this long at most (40,000 endpoints at 15 ms each, a loaded machine's slow kit).
constexpr std::int64_t max_setup_ns = 600'000'000'000;

std::int64_t setup_deadline(std::size_t endpoints) {
    return now_ns() + setup_timeout_ns +
           setup_per_endpoint_ns * static_cast<std::int64_t>(endpoints);
}

std::vector<control::endpoint_direction> directions_of(const std::vector<std::uint32_t> &dirs) {
    std::vector<control::endpoint_direction> out;
    out.reserve(dirs.size());
    for (const auto d : dirs) out.push_back(control::direction_of(d));
    return out;
}

// A reply read by its field list; a malformed one is the side's broken protocol.
template <class M>
M read_reply(const json &message, const std::string &side) {
    try {
        return control::read_message<M>(message);
    } catch (const control::protocol_error &e) {
        throw pair_failure("the " + side + " process broke the control protocol: " + e.what());
    }
}

}  // namespace

// One side: a local worker process, or a worker an `ipchost serve` agent runs on another host
// (then only the connection is ours: "killing" it closes the connection and the agent kills it).
struct worker_pair::process {
    process(std::string side, platform::captured_output *keep, const worker_launch &launch)
        : side(std::move(side)),
          child(std::make_unique<platform::child_process>(
              launch.program, launch.args,
              this->side + (launch.implementation == "native"
                                ? std::string(" worker")
                                : " worker (" + launch.implementation + ")"),
              keep, launch.start_cpu,
              launch.implementation == "native" ? nullptr : &launch.environment)),
          channel(child->control_socket()) {}
    process(std::string side, remote::agent_link link, const std::string &agent)
        : side(std::move(side)),
          where(" (the agent at " + agent + ")"),
          remote_socket(link.fd),
          channel(link.fd) {
        link.seal(channel);
    }
    ~process() { platform::close_socket(remote_socket); }

    bool finished() const { return child ? child->finished() : remote_closed; }
    void kill() {
        if (child)
            child->kill();
        else if (!remote_closed)
            platform::shutdown_socket(remote_socket);
        remote_closed = true;
    }
    bool exited() { return child && child->wait(0); }
    bool wait(int timeout_ms) {
        if (child) return child->wait(timeout_ms);
        // Called once its channel ended or the agent's worker said "closed": the session ends
        // at the agent before this returns, so this run's next case there finds its room free.
        if (!remote_closed) remote::finish_session(remote_socket, timeout_ms);
        remote_closed = true;
        return true;
    }
    std::string ended() const {
        return child ? child->status().describe() : "the connection to the remote agent closed";
    }

    std::string side;
    std::string where;  // " (the agent at HOST:PORT)" for a remote worker, for its errors
    std::unique_ptr<platform::child_process> child;  // null for a remote worker
    platform::socket_handle remote_socket = platform::no_socket;
    bool remote_closed = false;
    control::control_channel channel;
};

worker_launch worker_launch::native() {
    worker_launch launch;
    launch.program = platform::self_executable_path();
    launch.args = {"worker"};
    return launch;
}

worker_pair::worker_pair(const plugin::transport_info &transport,
                         std::vector<std::uint32_t> server_dirs, std::string server_side,
                         std::string client_side, const remote::agent_address *remote,
                         worker_outputs *outputs, worker_launch server_launch,
                         worker_launch client_launch)
    : transport_(transport),
      remote_(remote),
      outputs_(outputs),
      server_dirs_(std::move(server_dirs)),
      server_side_(std::move(server_side)),
      client_side_(std::move(client_side)),
      server_launch_(std::move(server_launch)),
      client_launch_(std::move(client_launch)) {
    for (auto d : server_dirs_)
        client_dirs_.push_back(d == IPCB_DIR_BOTH   ? IPCB_DIR_BOTH
                               : d == IPCB_DIR_RECV ? IPCB_DIR_SEND
                                                    : IPCB_DIR_RECV);
}

worker_pair::~worker_pair() {
    shut_down(false);
}

namespace {

// True when the worker's control channel ends within timeout_ms: the process died.
template <class Process>
bool died_within(Process &w, int timeout_ms) {
    if (!platform::wait_readable({w.channel.socket()}, timeout_ms).any()) return false;
    if (w.channel.pump()) return false;
    w.wait(1000);
    return w.finished();
}

}  // namespace

// The next buffered message of worker i: an event (passed on, nullopt), the awaited reply, or
// a failure (thrown, naming the side).
std::optional<json> worker_pair::next_reply(const std::vector<process *> &workers, std::size_t i,
                                            control::message_kind type,
                                            const std::vector<bool> &done,
                                            const event_callback &on_event, bool &progressed,
                                            bool &heard_progress) {
    std::optional<json> message;
    try {
        message = workers[i]->channel.next_buffered();
        if (!message) return std::nullopt;
        progressed = true;
        // A worker still opening a setup's endpoints (protocol 1.2): alive, not the reply.
        if (type == control::message_kind::opened &&
            control::is(*message, control::message_kind::progress)) {
            (void)control::read_message<control::setup_progress>(*message);  // checked
            heard_progress = true;
            return std::nullopt;
        }
        // Reports during a run are events, not the awaited reply.
        if (type == control::message_kind::result && on_event &&
            (control::is(*message, control::message_kind::sent) ||
             control::is(*message, control::message_kind::interval))) {
            on_event(*workers[i], *message);
            return std::nullopt;
        }
        control::expect_kind(*message, type);
    } catch (const control::peer_error &e) {
        throw pair_failure(std::string(e.what()) + " [" + workers[i]->side + "]", e.status,
                           e.stage);
    } catch (const control::protocol_error &e) {
        throw pair_failure("the " + workers[i]->side +
                           " process broke the control protocol: " + e.what());
    }
    // A side that failed ends the exchange at once: its peer may be blocked on it. When the
    // peer died, that death is the cause and this error only its echo.
    if (type == control::message_kind::result && message->contains("error")) {
        const std::string echo =
            (*message)["error"].get<std::string>() + " [" + workers[i]->side + "]";
        for (std::size_t j = 0; j < workers.size(); ++j)
            if (j != i && !done[j] && died_within(*workers[j], 200))
                throw pair_failure("the " + workers[j]->side + " process died (" +
                                   workers[j]->ended() + "); then: " + echo);
        throw pair_failure(echo, message->value("status", 0), "run");
    }
    return message;
}

// Waits for input from a worker that has not answered, at most until the deadline (10 ms with
// a tick to serve); throws when the deadline passed, a signal came or a worker died.
void worker_pair::wait_for_input(const std::vector<process *> &workers,
                                 const std::vector<bool> &done, control::message_kind type,
                                 std::int64_t deadline, bool ticking) {
    std::int64_t left = deadline - now_ns();
    if (left <= 0) {
        std::string late;
        int count = 0;
        for (std::size_t i = 0; i < workers.size(); ++i)
            if (!done[i]) late += (count++ ? " and " : "") + workers[i]->side + workers[i]->where;
        const bool setting_up = type == control::message_kind::opened ||
                                type == control::message_kind::connected ||
                                type == control::message_kind::hello;
        throw pair_failure(
            "timed out: the " + late + (count > 1 ? " processes" : " process") +
            " did not answer '" + control::name_of(type) +
            "' in time (a hung plugin or peer?); killed. " +
            (setting_up ? "Opening and connecting get 10 s plus 5 ms per endpoint; thousands of "
                          "TCP endpoints beside thousands of TIME_WAIT sockets (ss -s) can take "
                          "longer: wait a minute, or use fewer --streams"
                        : "Raise --timeout if the case needs longer"));
    }
    std::vector<platform::socket_handle> sockets;
    sockets.reserve(workers.size());
    for (auto *w : workers) sockets.push_back(w->channel.socket());
    const std::int64_t wait_ms = left / 1'000'000 + 1;
    platform::readiness ready;
    try {
        ready = platform::wait_readable(
            sockets, static_cast<int>(std::min<std::int64_t>(wait_ms, ticking ? 10 : 100)));
    } catch (const platform::socket_error &e) {
        throw pair_failure(std::string("waiting on the control channels failed: ") + e.what());
    }
    if (platform::interrupted())
        throw pair_interrupted("interrupted by " + platform::interrupt_name());
    for (std::size_t i = 0; i < workers.size(); ++i) {
        // A worker that already answered may exit and close its socket: that is not news.
        if (done[i]) continue;
        // A socket whose process died does not always say so (under wine it stays silent until
        // read): a local worker that has exited is looked at as well, every 100 ms at most.
        const bool exited = workers[i]->exited();
        if (!ready.ready[i] && !exited) continue;
        const bool open = workers[i]->channel.pump();
        if ((!open || exited) && !workers[i]->channel.has_buffered()) {
            workers[i]->wait(1000);
            throw pair_failure("the " + workers[i]->side + " process died (" + workers[i]->ended() +
                               ") while it should answer '" + control::name_of(type) + "'");
        }
    }
}

std::vector<json> worker_pair::collect(const std::vector<process *> &workers,
                                       control::message_kind type, std::int64_t deadline,
                                       const event_callback &on_event,
                                       const std::function<void()> &on_tick) {
    std::vector<json> replies(workers.size());
    std::vector<bool> done(workers.size(), false);
    std::size_t pending = workers.size();
    const std::int64_t cap = now_ns() + max_setup_ns;
    while (pending > 0) {
        bool progressed = false, heard_progress = false;
        for (std::size_t i = 0; i < workers.size(); ++i) {
            if (done[i]) continue;
            auto reply = next_reply(workers, i, type, done, on_event, progressed, heard_progress);
            if (!reply) continue;
            replies[i] = std::move(*reply);
            done[i] = true;
            --pending;
        }
        // A watchdog against hangs, not a rate: a worker that says it is still opening gets
        // setup_timeout_ns from its word, up to max_setup_ns in all.
        if (heard_progress)
            deadline = std::max(deadline, std::min(cap, now_ns() + setup_timeout_ns));
        if (on_tick) on_tick();
        if (progressed || pending == 0) continue;
        wait_for_input(workers, done, type, deadline, on_tick != nullptr);
    }
    return replies;
}

json worker_pair::setup_message(control::endpoint_role role, const std::vector<std::uint32_t> &dirs,
                                const std::vector<std::string> &addresses,
                                const std::map<std::string, std::string> &options,
                                std::uint64_t max_message_size) {
    control::setup_request setup;
    setup.transport = transport_.id;
    setup.library = transport_.library.string();
    setup.library_identity = transport_.library_identity;
    setup.role = role;
    for (std::size_t i = 0; i < dirs.size(); ++i)
        setup.endpoints.push_back(
            {control::direction_of(dirs[i]), i < addresses.size() ? addresses[i] : ""});
    setup.options = options;
    setup.runtime_dir = run_dir_.path().string();
    setup.max_message_size = max_message_size;
    return control::write_message(setup);
}

std::pair<json, json> worker_pair::connect(const std::map<std::string, std::string> &options,
                                           std::uint64_t max_message_size,
                                           std::int64_t connect_timeout_ns) {
    start();
    send_to(*server_, setup_message(control::endpoint_role::creator, server_dirs_,
                                    creator_addresses(), options, max_message_size));
    auto opened = collect({server_.get()}, control::message_kind::opened,
                          setup_deadline(server_dirs_.size()));
    const auto server_opened = read_reply<control::opened_reply>(opened[0], server_->side);
    addresses_ = server_opened.addresses;
    if (remote_) {
        if (const std::string why =
                remote::refuse_peer_addresses(addresses_, remote_->address.host);
            !why.empty())
            throw pair_failure(why);
    } else {
        write_run_manifest(run_dir_.path(), transport_.id, addresses_);
    }
    spdlog::debug("{}: the creator's {} addresses, first: {}", transport_.id, addresses_.size(),
                  addresses_.empty() ? "-" : addresses_.front());
    json connector = setup_message(control::endpoint_role::connector, client_dirs_, addresses_,
                                   options, max_message_size);
    if (!server_opened.binding_key.empty()) {
        // The agent's creators serve only this client: its connectors present the key.
        if (identities_.second.protocol < control::protocol_version{1, 1})
            throw pair_failure(fmt::format(
                "the {} worker ({}) speaks worker protocol {}: a case against an agent binds its "
                "data connection to the client (protocol 1.1, docs/worker-protocol.md "
                "\"Binding\"); update the kit",
                client_side_, identities_.second.implementation,
                control::to_string(identities_.second.protocol)));
        connector["binding_key"] = server_opened.binding_key;
    }
    send_to(*client_, connector);
    collect({client_.get()}, control::message_kind::opened, setup_deadline(client_dirs_.size()));

    const json connect = control::write_message(control::connect_request{connect_timeout_ns});
    send_to(*server_, connect);
    send_to(*client_, connect);
    auto connected = collect({server_.get(), client_.get()}, control::message_kind::connected,
                             setup_deadline(server_dirs_.size()) + connect_timeout_ns);
    const auto server = read_reply<control::connected_reply>(connected[0], server_->side);
    const auto client = read_reply<control::connected_reply>(connected[1], client_->side);
    using model::field_writer;
    setups_ = {field_writer::write_fields(server.setup), field_writer::write_fields(client.setup)};
    return {json(server.settings), json(client.settings)};
}

std::pair<json, json> worker_pair::run(const model::job &server_job, const model::job &client_job,
                                       double watchdog_s, const event_handler &on_event,
                                       const std::function<void()> &on_tick) {
    return run(json(server_job), json(client_job), watchdog_s, on_event, on_tick);
}

std::pair<json, json> worker_pair::run(const json &server_job, const json &client_job,
                                       double watchdog_s, const event_handler &on_event,
                                       const std::function<void()> &on_tick) {
    send_to(*server_,
            control::write_message(control::run_request{server_job, directions_of(server_dirs_)}));
    send_to(*client_,
            control::write_message(control::run_request{client_job, directions_of(client_dirs_)}));
    auto results = collect(
        {server_.get(), client_.get()}, control::message_kind::result,
        now_ns() + static_cast<std::int64_t>(watchdog_s * 1e9),
        [&](process &w, const json &event) {
            if (on_event) on_event(&w == client_.get(), event);
        },
        on_tick);
    return {results[0], results[1]};
}

long worker_pair::server_pid() const {
    return server_ && server_->child ? static_cast<long>(server_->child->pid()) : 0;
}
long worker_pair::client_pid() const {
    return client_ && client_->child ? static_cast<long>(client_->child->pid()) : 0;
}

// On a remote agent the creators listen on the agent's address (the one this host reached it
// by), on --data-port ports when set, so the client here can connect to them.
std::vector<std::string> worker_pair::creator_addresses() const {
    std::vector<std::string> out;
    if (!remote_) return out;
    for (std::size_t k = 0; k < server_dirs_.size(); ++k) {
        int port = 0;
        if (remote_->data_port_first) {
            port = remote_->data_port_first + static_cast<int>(k);
            if (port > remote_->data_port_last)
                throw pair_failure(fmt::format(
                    "--data-port {}-{} has {} ports; this case needs {}", remote_->data_port_first,
                    remote_->data_port_last, remote_->data_port_last - remote_->data_port_first + 1,
                    server_dirs_.size()));
        }
        out.push_back(remote::host_port{remote_->address.host, port}.text());
    }
    return out;
}

void worker_pair::start() {
    if (server_) return;
    auto keep = [this](const std::string &side) { return outputs_ ? &(*outputs_)[side] : nullptr; };
    server_ = remote_ ? std::make_unique<process>(server_side_, remote::connect_agent(*remote_, 10),
                                                  remote_->address.text())
                      : std::make_unique<process>(server_side_, keep(server_side_), server_launch_);
    client_ = std::make_unique<process>(client_side_, keep(client_side_), client_launch_);
    const auto hellos = collect({server_.get(), client_.get()}, control::message_kind::hello,
                                now_ns() + setup_timeout_ns);
    identities_.first = welcome(*server_, hellos[0], server_launch_);
    identities_.second = welcome(*client_, hellos[1], client_launch_);
}

// The worker protocol version this side and ipchost both speak, sent as the welcome; a side
// that speaks none is refused with both lists.
worker_identity worker_pair::welcome(process &w, const json &hello_message,
                                     const worker_launch &launch) {
    const auto hello = read_reply<control::worker_hello>(hello_message, w.side);
    const std::string said = hello.implementation.empty() ? "native" : hello.implementation;
    // A remote side is the agent's native worker whatever the launch says.
    if (w.child && said != launch.implementation)
        throw pair_failure(
            fmt::format("the {} worker started as '{}' says it is '{}' in its "
                        "hello: check the kit's manifest and worker",
                        w.side, launch.implementation, text::printable(said, 64)));
    const auto picked = control::pick_version(hello.versions);
    if (!picked) {
        std::vector<std::string> ours;
        for (const auto &v : control::spoken_versions()) ours.push_back(to_string(v));
        const std::string refusal = fmt::format(
            "the {} worker ({}) speaks worker protocol {}; this ipchost speaks {}: use a worker "
            "(kit) made for this ipchost's protocol (docs/worker-protocol.md)",
            w.side, hello.implementation.empty() ? "unnamed" : hello.implementation,
            hello.versions.empty() ? std::string("none")
                                   : fmt::format("{}", fmt::join(hello.versions, ", ")),
            fmt::join(ours, ", "));
        send_to(w,
                control::write_message(control::error_reply{"hello", IPCB_E_UNSUPPORTED, refusal}));
        throw pair_failure(refusal, IPCB_E_UNSUPPORTED, "hello");
    }
    send_to(w, control::write_message(control::worker_welcome{to_string(*picked)}));
    return {said, hello.runtime, static_cast<long>(hello.pid), *picked, launch.environment_dropped};
}

json worker_pair::probe(const json &job, double watchdog_s) {
    start();
    send_to(*server_, control::message(control::message_kind::probe,
                                       {{"library", transport_.library.string()},
                                        {"library_identity", transport_.library_identity},
                                        {"transport", transport_.id},
                                        {"runtime_dir", run_dir_.path().string()},
                                        {"job", job}}));
    return collect({server_.get()}, control::message_kind::result,
                   now_ns() + static_cast<std::int64_t>(watchdog_s * 1e9))[0];
}

void worker_pair::notify(bool to_client, const json &message) {
    send_to(to_client ? *client_ : *server_, message);
}

void worker_pair::send_to(process &w, const json &message) {
    try {
        w.channel.send(message);
    } catch (const control::channel_closed &) {
        // Its end of the channel closed because it died: that is the news, not the write.
        w.wait(1000);
        throw pair_failure("the " + w.side + " process died (" + w.ended() + ") before it got '" +
                           control::type_text(message) + "'");
    }
}

void worker_pair::close() {
    shut_down(true);
}

void worker_pair::shut_down(bool polite) {
    std::vector<process *> alive;
    for (auto *w : {server_.get(), client_.get()})
        if (w && !w->finished()) alive.push_back(w);
    bool clean = false;
    if (polite && !alive.empty()) {
        try {
            for (auto *w : alive) w->channel.send(control::write_message(control::empty_message{}));
            collect(alive, control::message_kind::closed, now_ns() + 2'000'000'000);
            clean = true;
        } catch (const std::exception &e) {
            spdlog::debug("closing workers: {}", e.what());
        }
    }
    for (auto *w : alive) {
        if (!clean) w->kill();
        if (!w->wait(2000)) w->kill();
        w->wait(-1);
    }
    // A creator killed before close() may leave named objects outside the run directory.
    if (!clean && !remote_)
        for (const auto &problem : plugin::remove_addresses_isolated(transport_, addresses_))
            spdlog::warn("{}: could not remove {}", transport_.id, problem);
    // Both workers are gone: any child of ipchost left now was started by plugin code.
    for (const auto &escaped : platform::kill_escaped_children())
        spdlog::warn("{}: a process the plugin or a kit's worker left behind, {}, was killed",
                     transport_.id, escaped);
    addresses_.clear();
    server_.reset();
    client_.reset();
}

}  // namespace ipcbench::harness
