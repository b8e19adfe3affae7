#include "worker/worker.hpp"

#include <spdlog/spdlog.h>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "conformance/check_jobs.hpp"
#include "conformance/conformance_jobs.hpp"
#include "control/control_channel.hpp"
#include "control/worker_messages.hpp"
#include "model/case_settings.hpp"
#include "model/job.hpp"
#include "model/json_fields.hpp"
#include "model/loop_result.hpp"
#include "platform/last_words.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/process_identity.hpp"
#include "platform/resource_usage.hpp"
#include "platform/signals.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/plugin_registry.hpp"
#include "plugin/plugin_search_path.hpp"
#include "plugin/transport_endpoint.hpp"
#include "remote/agent_policy.hpp"
#include "remote/peer_binding.hpp"
#include "stats/latency_histogram.hpp"
#include "text/printable_text.hpp"
#include "timed/stream_set.hpp"

namespace ipcbench::worker {
namespace {

// What a dying worker removes (platform/last_words): the addresses its creator endpoints
// exported, with the transport's remove_address. Prepared outside the signal handler.
struct created_objects {
    const ipcb_transport *table = nullptr;
    std::vector<std::string> addresses;
};
created_objects created;

void remove_created_objects() {
    if (created.table == nullptr || created.table->remove_address == nullptr) return;
    for (const auto &address : created.addresses) {
        ipcb_error error{};
        error.struct_size = sizeof error;
        created.table->remove_address(address.c_str(), &error);
    }
}

class worker {
public:
    worker(platform::socket_handle fd, std::string runtime_dir, bool agent_mode)
        : channel_(fd), runtime_dir_(std::move(runtime_dir)), agent_mode_(agent_mode) {}

    int run() {
        control::worker_hello hello;
        for (const auto &v : control::spoken_versions()) hello.versions.push_back(to_string(v));
        hello.pid = platform::current_process_id();
        hello.implementation = "native";
        channel_.send(control::write_message(hello));
        for (;;) {
            nlohmann::json message;
            try {
                auto received = channel_.receive(-1);
                if (!received) continue;  // a signal; the orchestrator decides
                message = std::move(*received);
            } catch (const control::channel_closed &) {
                return 1;  // the orchestrator is gone: stop at once
            } catch (const control::protocol_error &e) {
                // Garbage on the control channel (it may come from a network): say so, stop.
                report_error("control", IPCB_E_INVALID,
                             std::string("control channel: ") + e.what());
                return 2;
            }
            const std::string stage = control::type_text(message);
            try {
                using control::read_fields_of;
                const control::message_kind kind = control::kind_of(message);
                if (kind == control::message_kind::welcome) {
                    welcome(read_fields_of<control::worker_welcome>(message, kind));
                } else if (!welcomed_) {
                    throw control::protocol_error(std::string("a '") + control::name_of(kind) +
                                                  "' message before the 'welcome'");
                } else if (kind == control::message_kind::setup) {
                    setup(read_fields_of<control::setup_request>(message, kind));
                } else if (kind == control::message_kind::connect) {
                    connect(read_fields_of<control::connect_request>(message, kind));
                } else if (kind == control::message_kind::run) {
                    run_job(read_fields_of<control::run_request>(message, kind));
                } else if (kind == control::message_kind::probe) {
                    if (agent_mode_)
                        throw std::runtime_error("an agent does not run conformance probes");
                    load(message.at("transport"), message.at("library"),
                         message.value("library_identity", std::string()));
                    nlohmann::json result = conformance::probe(
                        *transport_, message.at("job"),
                        runtime_dir_.empty() ? message.value("runtime_dir", "") : runtime_dir_);
                    channel_.send(
                        control::message(control::message_kind::result, std::move(result)));
                } else if (kind == control::message_kind::close) {
                    endpoints_.clear();
                    endpoint_addresses_.clear();
                    created = {};  // closed: a later id of the same number is someone else's
                    channel_.send(control::write_message(
                        control::empty_message{control::message_kind::closed}));
                    return 0;
                } else if (kind == control::message_kind::sender_done) {
                    // Arrived after the receive loop ended on its own: nothing to do.
                } else {
                    throw control::protocol_error(std::string("a worker takes no '") +
                                                  control::name_of(kind) + "' message");
                }
            } catch (const plugin::transport_error &e) {
                report_error(stage, e.status, e.what());
            } catch (const std::exception &e) {
                report_error(stage, IPCB_E_INTERNAL, e.what());
            }
        }
    }

private:
    void report_error(const std::string &stage, int status, const std::string &text) {
        channel_.send(control::write_message(control::error_reply{stage, status, text}));
    }

    // The orchestrator picked a version of those the hello offered; anything else is a peer
    // this worker cannot follow.
    void welcome(const control::worker_welcome &w) {
        const auto picked = control::pick_version({w.protocol});
        if (!picked || !(to_string(*picked) == w.protocol))
            throw control::protocol_error("the orchestrator picked worker protocol '" +
                                          text::printable(w.protocol, 16) +
                                          "', which this worker did not offer");
        welcomed_ = true;
        says_progress_ = !(*picked < control::protocol_version{1, 2});
    }

    void load(const std::string &id, const std::string &library, const std::string &identity) {
        if (transport_ != nullptr && transport_->id == id) return;
        if (agent_mode_) return load_for_agent(id);
        outcome_ = plugin::load_transport(library, id, identity);
        transport_ = &outcome_.transports.front();
    }

    // A remote agent's worker: a transport from this host's own plugin folders, by id only.
    void load_for_agent(const std::string &id) {
        if (registry_.transports().empty()) registry_.scan(plugin::plugin_search_path({}));
        const plugin::transport_info *found = registry_.find(id);
        if (found == nullptr)
            throw std::runtime_error("transport " + text::printable(id, 80) +
                                     " is not installed on this host (ipchost --list there "
                                     "shows what is)");
        remote::check_agent_transport(*found);
        outcome_ = plugin::load_transport(found->library, id, found->library_identity);
        transport_ = &outcome_.transports.front();
    }

    void setup(const control::setup_request &m) {
        load(m.transport, m.library, m.library_identity);
        if (endpoints_.empty()) rss_before_kib_ = platform::sample_resource_usage().max_rss_kib;
        const bool creator = m.role == control::endpoint_role::creator;
        const std::uint32_t role = creator ? IPCB_ROLE_CREATOR : IPCB_ROLE_CONNECTOR;
        const std::string runtime_dir = runtime_dir_.empty() ? m.runtime_dir : runtime_dir_;
        control::opened_reply opened;
        connector_ = !creator;
        std::int64_t next_progress = platform::now_ns() + progress_every_ns;
        for (const auto &spec : m.endpoints) {
            if (says_progress_ && platform::now_ns() >= next_progress) {
                // Still opening (protocol 1.2): the orchestrator's deadline runs from here.
                control::setup_progress p;
                p.opened = opened.addresses.size();
                channel_.send(control::write_message(p));
                next_progress = platform::now_ns() + progress_every_ns;
            }
            if (agent_mode_) remote::check_agent_address(spec.address, creator);
            without_oracle(spec.address, [&] {
                endpoints_.push_back(std::make_unique<plugin::transport_endpoint>(
                    *transport_, role, control::abi_direction(spec.direction), m.options,
                    spec.address, runtime_dir, m.max_message_size));
            });
            endpoint_addresses_.push_back(spec.address);
            opened.addresses.push_back(creator ? endpoints_.back()->export_address()
                                               : spec.address);
            if (!m.binding_key.empty()) bind(*endpoints_.back(), m, creator);
        }
        if (creator) {
            created_objects next{transport_->table, opened.addresses};
            std::swap(created, next);  // complete before the handler could see it
        }
        channel_.send(control::write_message(opened));
    }

    // The endpoint serves its one peer (worker protocol 1.1): a creator takes only
    // binding_peer presenting the key, a connector presents it.
    static void bind(plugin::transport_endpoint &endpoint, const control::setup_request &m,
                     bool creator) {
        const auto key = remote::binding_key_bytes(m.binding_key);
        if (!key) throw std::runtime_error("setup: 'binding_key' must be 32 to 128 hex digits");
        endpoint.bind_peer(creator ? m.binding_peer : std::string(), *key);
    }

    void connect(const control::connect_request &m) {
        const std::int64_t timeout = m.timeout_ns;
        control::connected_reply reply;
        stats::latency_histogram each;
        const std::int64_t start = platform::now_ns();
        for (std::size_t i = 0; i < endpoints_.size(); ++i) {
            const std::int64_t before = platform::now_ns();
            without_oracle(endpoint_addresses_[i], [&] { endpoints_[i]->connect(timeout); });
            each.record(static_cast<std::uint64_t>(platform::now_ns() - before));
        }
        const std::int64_t total = platform::now_ns() - start;
        // Settings of the first endpoint of each kind: thousands of streams have the same ones.
        for (std::size_t i = 0; i < endpoints_.size() && i < 2; ++i)
            for (const auto &[key, value] : endpoints_[i]->settings())
                reply.settings.emplace(key, value);
        reply.setup = {endpoints_.size(), total, each.to_json(),
                       static_cast<std::uint64_t>(std::max<std::int64_t>(0, rss_before_kib_))};
        channel_.send(control::write_message(reply));
    }

    // An agent's connector says that it could not reach an address, never why: "refused" for a
    // closed port and a time-out for a filtered one would make the agent a port scanner for
    // whoever holds the token. The reason goes to the agent's log.
    template <class F>
    void without_oracle(const std::string &address, F &&open_or_connect) {
        if (!agent_mode_ || !connector_) return open_or_connect();
        try {
            open_or_connect();
        } catch (const std::exception &e) {
            spdlog::warn("connector to {}: {}", text::printable(address, 80), e.what());
            throw std::runtime_error(remote::connect_failure_text(address));
        }
    }

    // Endpoints are laid out stream by stream; `directions_` says what each one is for.
    plugin::transport_endpoint &endpoint_for(int stream, std::uint32_t direction) {
        const std::size_t per_stream = endpoints_.size() / static_cast<std::size_t>(streams_);
        for (std::size_t i = stream * per_stream; i < (stream + 1) * per_stream; ++i)
            if (directions_[i] == direction || directions_[i] == IPCB_DIR_BOTH)
                return *endpoints_[i];
        throw std::runtime_error("no endpoint for that direction in stream " +
                                 std::to_string(stream));
    }
    plugin::transport_endpoint &endpoint_for(std::uint32_t direction) {
        return endpoint_for(0, direction);
    }

    void run_job(const control::run_request &m) {
        directions_.clear();
        directions_.reserve(m.directions.size());
        for (const auto d : m.directions) directions_.push_back(control::abi_direction(d));
        const std::string kind = model::json_fields(m.job, "job").text("kind", 32);
        nlohmann::json result;
        if (conformance::check_job_from(kind)) {
            // The conformance suite runs both of its workers on this host, never on an agent.
            if (agent_mode_) throw std::runtime_error("an agent does not run conformance checks");
            streams_ = 1;
            result = run_check_job(kind, m.job);
        } else {
            model::job j;
            try {
                j = m.job.get<model::job>();
            } catch (const std::exception &e) {
                throw control::protocol_error(e.what());
            }
            if (directions_.size() != endpoints_.size() ||
                endpoints_.size() % static_cast<std::size_t>(j.settings.streams) != 0)
                throw control::protocol_error("endpoint layout does not match the job");
            streams_ = j.settings.streams;
            result = timed::run_streams(
                j,
                [this](int stream, std::uint32_t dir) -> plugin::transport_endpoint & {
                    return endpoint_for(stream, dir);
                },
                channel_);
        }
        channel_.send(control::message(control::message_kind::result, std::move(result)));
    }

    // The worker halves of `ipchost check`, from the one table (conformance/check_jobs.cpp).
    nlohmann::json run_check_job(const std::string &kind, const nlohmann::json &job) {
        using conformance::check_job;
        const auto found = conformance::check_job_from(kind);
        if (!found) throw control::protocol_error("unknown check job '" + kind + "'");
        const conformance::check_job_info &check = conformance::info(*found);
        if (check.run) return check.run(endpoint_for(check.endpoint), job);
        if (*found == check_job::idle) return {{"ok", true}, {"detail", "idle"}};
        if (*found == check_job::crash)
            conformance::crash_holding(
                endpoint_for(job.at("side") == "sender" ? IPCB_DIR_SEND : IPCB_DIR_RECV), job);
        // close_endpoints
        std::this_thread::sleep_for(std::chrono::milliseconds(job.at("delay_ms").get<long>()));
        endpoints_.clear();
        endpoint_addresses_.clear();
        created = {};
        return {{"ok", true}, {"detail", "closed"}};
    }

    control::control_channel channel_;
    std::string runtime_dir_;
    bool agent_mode_ = false;
    plugin::load_outcome outcome_;
    plugin::plugin_registry registry_;
    const plugin::transport_info *transport_ = nullptr;
    std::vector<std::unique_ptr<plugin::transport_endpoint>> endpoints_;
    std::vector<std::uint32_t> directions_;
    std::vector<std::string> endpoint_addresses_;  // as given at setup, one per endpoint
    int streams_ = 1;
    bool connector_ = false;
    bool welcomed_ = false;
    // Worker protocol 1.2 and later: a setup that takes long says how far it got, at least this
    // often (the orchestrator's deadline for opened runs from the last one).
    bool says_progress_ = false;
    static constexpr std::int64_t progress_every_ns = 1'000'000'000;
    std::int64_t rss_before_kib_ = 0;
};

}  // namespace

int worker_main(platform::socket_handle control_fd, const std::string &runtime_dir,
                bool agent_mode) {
    platform::ignore_sigpipe();
    platform::on_termination(remove_created_objects);
    // The orchestrator gone (the channel closed, or writing to it failed) means ipchost died:
    // remove what the creators made now. Its SIGTERM (PR_SET_PDEATHSIG) may not have come yet,
    // and returning first would leave the objects to the next run.
    // The worker outlives both exits below: its plugin must stay loaded while the last words
    // call the transport's remove_address (a destroyed worker has unloaded the library, and the
    // call crashed, leaving the objects behind).
    std::optional<worker> w;
    try {
        w.emplace(control_fd, runtime_dir, agent_mode);
        const int status = w->run();
        if (status == 1) platform::terminate_with_last_words();
        return status;
    } catch (const std::exception &e) {
        spdlog::error("worker: {}", e.what());
        platform::terminate_with_last_words();
    }
}

}  // namespace ipcbench::worker
