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
#include "model/case_settings.hpp"
#include "model/job.hpp"
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

// Endpoints one setup may open: streams times two directions.
constexpr std::size_t max_endpoints = 2 * static_cast<std::size_t>(model::max_streams);

std::uint32_t direction_from(const std::string &name) {
    if (name == "send") return IPCB_DIR_SEND;
    if (name == "recv") return IPCB_DIR_RECV;
    if (name == "both") return IPCB_DIR_BOTH;
    throw control::protocol_error("unknown direction '" + name + "'");
}

class worker {
public:
    worker(platform::socket_handle fd, std::string runtime_dir, bool agent_mode)
        : channel_(fd), runtime_dir_(std::move(runtime_dir)), agent_mode_(agent_mode) {}

    int run() {
        channel_.send(control::message(
            control::message_kind::hello,
            {{"protocol", control::protocol_version}, {"pid", platform::current_process_id()}}));
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
                const control::message_kind kind = control::kind_of(message);
                if (kind == control::message_kind::setup) {
                    setup(message);
                } else if (kind == control::message_kind::connect) {
                    connect(message);
                } else if (kind == control::message_kind::run) {
                    run_job(message);
                } else if (kind == control::message_kind::probe) {
                    if (agent_mode_)
                        throw std::runtime_error("an agent does not run conformance probes");
                    load(message);
                    nlohmann::json result = conformance::probe(
                        *transport_, message.at("job"),
                        runtime_dir_.empty() ? message.value("runtime_dir", "") : runtime_dir_);
                    channel_.send(
                        control::message(control::message_kind::result, std::move(result)));
                } else if (kind == control::message_kind::close) {
                    endpoints_.clear();
                    endpoint_addresses_.clear();
                    created = {};  // closed: a later id of the same number is someone else's
                    channel_.send(control::message(control::message_kind::closed));
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
        channel_.send(control::message(control::message_kind::error,
                                       {{"stage", stage}, {"status", status}, {"message", text}}));
    }

    void load(const nlohmann::json &m) {
        const std::string id = m.at("transport");
        if (transport_ != nullptr && transport_->id == id) return;
        if (agent_mode_) return load_for_agent(id);
        outcome_ = plugin::load_transport(m.at("library").get<std::string>(), id,
                                          m.value("library_identity", std::string()));
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

    void setup(const nlohmann::json &m) {
        load(m);
        if (endpoints_.empty()) rss_before_kib_ = platform::sample_resource_usage().max_rss_kib;
        const std::uint32_t role =
            m.at("role") == "creator" ? IPCB_ROLE_CREATOR : IPCB_ROLE_CONNECTOR;
        const auto options = m.at("options").get<std::map<std::string, std::string>>();
        const std::string runtime_dir =
            runtime_dir_.empty() ? m.value("runtime_dir", "") : runtime_dir_;
        const auto max_size = m.at("max_message_size").get<std::uint64_t>();
        nlohmann::json addresses = nlohmann::json::array();
        const auto &specs = m.at("endpoints");
        if (!specs.is_array() || specs.empty() || specs.size() > max_endpoints)
            throw control::protocol_error("'endpoints' must be a list of 1 to " +
                                          std::to_string(max_endpoints) + " endpoints");
        connector_ = role == IPCB_ROLE_CONNECTOR;
        for (const auto &spec : specs) {
            const std::string address = spec.value("address", "");
            if (agent_mode_) remote::check_agent_address(address, role == IPCB_ROLE_CREATOR);
            without_oracle(address, [&] {
                endpoints_.push_back(std::make_unique<plugin::transport_endpoint>(
                    *transport_, role, direction_from(spec.at("direction")), options, address,
                    runtime_dir, max_size));
            });
            endpoint_addresses_.push_back(address);
            addresses.push_back(role == IPCB_ROLE_CREATOR ? endpoints_.back()->export_address()
                                                          : address);
        }
        if (role == IPCB_ROLE_CREATOR) {
            std::vector<std::string> made = addresses.get<std::vector<std::string>>();
            created_objects next{transport_->table, std::move(made)};
            std::swap(created, next);  // complete before the handler could see it
        }
        channel_.send(control::message(control::message_kind::opened, {{"addresses", addresses}}));
    }

    void connect(const nlohmann::json &m) {
        const auto timeout = m.at("timeout_ns").get<std::int64_t>();
        nlohmann::json settings = nlohmann::json::object();
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
                if (!settings.contains(key)) settings[key] = value;
        channel_.send(control::message(control::message_kind::connected,
                                       {{"settings", settings},
                                        {"setup",
                                         {{"connections", endpoints_.size()},
                                          {"total_ns", total},
                                          {"histogram", each.to_json()},
                                          {"rss_before_kib", rss_before_kib_}}}}));
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

    void run_job(const nlohmann::json &m) {
        directions_ = m.at("directions").get<std::vector<std::uint32_t>>();
        const std::string kind = m.at("job").at("kind");
        nlohmann::json result;
        if (conformance::check_job_from(kind)) {
            // The conformance suite runs both of its workers on this host, never on an agent.
            if (agent_mode_) throw std::runtime_error("an agent does not run conformance checks");
            streams_ = 1;
            result = run_check_job(kind, m.at("job"));
        } else {
            model::job j;
            try {
                j = m.at("job").get<model::job>();
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
