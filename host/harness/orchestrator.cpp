#include "harness/orchestrator.hpp"

#include <poll.h>
#include <signal.h>

#include <cerrno>
#include <memory>
#include <spdlog/spdlog.h>
#include <stdexcept>

#include "control/control_channel.hpp"
#include "harness/job.hpp"
#include "platform/child_process.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/run_directory.hpp"
#include "platform/signals.hpp"

namespace ipcbench::harness {
namespace {

using nlohmann::json;
using platform::now_ns;

constexpr int worker_fd = 3;
constexpr std::int64_t setup_timeout_ns = 10'000'000'000;
constexpr std::int64_t connect_timeout_ns = 5'000'000'000;

struct case_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct case_interrupted : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct worker_process {
    worker_process(std::string side)
        : side(std::move(side)),
          process(platform::self_executable_path(),
                  {"peer", "--control-fd", std::to_string(worker_fd)}, worker_fd),
          channel(process.control_fd()) {}

    std::string side;  // "sender" / "receiver" (throughput), "pinger" / "ponger" (latency)
    platform::child_process process;
    control::control_channel channel;
};

// Waits for one message of `type` from each worker, all at once, so that the death of either is
// seen at once. `on_message` sees each reply as it arrives.
std::vector<json> collect(std::vector<worker_process *> workers, const std::string &type,
                          std::int64_t deadline,
                          const std::function<void(worker_process &, const json &)> &on_message =
                              nullptr) {
    std::vector<json> replies(workers.size());
    std::vector<bool> done(workers.size(), false);
    std::size_t pending = workers.size();
    while (pending > 0) {
        // Deliver whatever is already decoded before waiting.
        bool progressed = false;
        for (std::size_t i = 0; i < workers.size(); ++i) {
            if (done[i]) continue;
            std::optional<json> message;
            try {
                message = workers[i]->channel.next_buffered();
            } catch (const control::protocol_error &e) {
                throw case_failure("the " + workers[i]->side + " process sent garbage on the " +
                                   "control channel: " + e.what());
            }
            if (!message) continue;
            try {
                control::expect_type(*message, type);
            } catch (const control::peer_error &e) {
                throw case_failure(std::string(e.what()) + " [" + workers[i]->side + ", " +
                                   e.stage + "]");
            } catch (const control::protocol_error &e) {
                throw case_failure("the " + workers[i]->side + " process: " + e.what());
            }
            replies[i] = std::move(*message);
            done[i] = true;
            --pending;
            progressed = true;
            if (on_message) on_message(*workers[i], replies[i]);
        }
        if (progressed || pending == 0) continue;

        std::vector<pollfd> fds;
        for (auto *w : workers) fds.push_back({w->channel.fd(), POLLIN, 0});
        std::int64_t left = deadline - now_ns();
        if (left <= 0) {
            std::string late;
            for (std::size_t i = 0; i < workers.size(); ++i)
                if (!done[i]) late += (late.empty() ? "" : " and ") + workers[i]->side;
            throw case_failure("timed out: the " + late + " process did not answer '" + type +
                               "' in time (hung plugin or peer?); killed it. Raise --timeout "
                               "if the case needs longer");
        }
        int rc = ::poll(fds.data(), fds.size(), static_cast<int>(left / 1'000'000) + 1);
        if (rc < 0 && errno != EINTR) throw case_failure("poll on the control channels failed");
        if (platform::interrupted())
            throw case_interrupted("interrupted by signal " +
                                   std::to_string(platform::interrupt_signal()));
        if (rc <= 0) continue;
        for (std::size_t i = 0; i < workers.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            bool open = workers[i]->channel.pump();
            if (!open && !workers[i]->channel.has_buffered()) {
                workers[i]->process.wait(1000);
                throw case_failure("the " + workers[i]->side + " process died (" +
                                   workers[i]->process.status().describe() + ") during '" +
                                   type + "'");
            }
        }
    }
    return replies;
}

report::process_figures figures_from(const json &usage) {
    report::process_figures f;
    f.cpu_user_s = usage.at("cpu_user_s");
    f.cpu_sys_s = usage.at("cpu_sys_s");
    f.cpu_percent = usage.at("cpu_percent");
    f.max_rss_kib = usage.at("max_rss_kib");
    f.voluntary_ctx_switches = usage.at("voluntary_ctx_switches");
    f.involuntary_ctx_switches = usage.at("involuntary_ctx_switches");
    return f;
}

void fill_throughput(report::case_result &r, const json &sent, const json &received) {
    const std::uint64_t n_sent = sent.at("messages_sent");
    const std::uint64_t n_received = received.at("messages_received");
    const std::uint64_t counted = received.at("counted_messages");
    const double window_s = received.at("window_ns").get<double>() / 1e9;
    r.duration_s = window_s;
    r.throughput = report::throughput_figures{};
    if (window_s > 0) {
        r.throughput->messages_per_sec = static_cast<double>(counted) / window_s;
        r.throughput->bytes_per_sec = r.throughput->messages_per_sec * r.message_size;
    }
    r.integrity.messages_sent = n_sent;
    r.integrity.messages_received = n_received;
    r.integrity.lost = n_sent > n_received ? n_sent - n_received : 0;
    r.integrity.out_of_order = received.at("out_of_order");
    r.sender = figures_from(sent.at("usage"));
    r.receiver = figures_from(received.at("usage"));
}

void fill_latency(report::case_result &r, const json &pinger, const json &ponger) {
    r.histogram = stats::latency_histogram::from_json(pinger.at("histogram"));
    report::latency_figures l;
    l.p50 = r.histogram.percentile(50);
    l.p90 = r.histogram.percentile(90);
    l.p99 = r.histogram.percentile(99);
    l.p999 = r.histogram.percentile(99.9);
    l.max = r.histogram.max();
    l.mean = r.histogram.mean();
    l.samples = r.histogram.count();
    r.latency = l;
    r.duration_s = pinger.at("elapsed_ns").get<double>() / 1e9;
    r.integrity.messages_sent = pinger.at("pings_sent");
    r.integrity.messages_received = pinger.at("round_trips");
    r.integrity.lost = pinger.at("lost");
    r.integrity.out_of_order = pinger.at("mismatched");
    r.sender = figures_from(pinger.at("usage"));
    r.receiver = figures_from(ponger.at("usage"));
}

std::string direction_name(std::uint32_t d) {
    return d == IPCB_DIR_SEND ? "send" : d == IPCB_DIR_RECV ? "recv" : "both";
}

class case_runner {
public:
    case_runner(const plugin::transport_info &transport, const case_spec &spec)
        : transport_(transport), spec_(spec) {}

    report::case_result run() {
        report::case_result result;
        result.plugin = transport_.plugin_name;
        result.transport = transport_.id;
        result.mode = spec_.mode;
        result.message_size = spec_.size;
        for (const auto &o : transport_.options) result.options[o.key] = o.default_value;
        for (const auto &[k, v] : spec_.options) result.options[k] = v;
        try {
            measure(result);
        } catch (const case_interrupted &e) {
            result.status = "interrupted";
            result.error = e.what();
        } catch (const case_failure &e) {
            result.status = "failed";
            result.error = e.what();
        } catch (const std::exception &e) {
            result.status = "failed";
            result.error = e.what();
        }
        shut_down(result.status == "ok");
        return result;
    }

private:
    void measure(report::case_result &result) {
        const bool latency = spec_.mode == "latency";
        const bool duplex = transport_.has(IPCB_CAP_DUPLEX);
        // Server endpoints, in order; the client's are the mirror image.
        std::vector<std::uint32_t> server_dirs;
        if (!latency) {
            server_dirs = {IPCB_DIR_RECV};
        } else if (duplex) {
            server_dirs = {IPCB_DIR_BOTH};
        } else {
            server_dirs = {IPCB_DIR_RECV, IPCB_DIR_SEND};  // pings in, pongs out
        }
        std::vector<std::uint32_t> client_dirs;
        for (auto d : server_dirs)
            client_dirs.push_back(d == IPCB_DIR_BOTH   ? IPCB_DIR_BOTH
                                  : d == IPCB_DIR_RECV ? IPCB_DIR_SEND
                                                       : IPCB_DIR_RECV);

        server_ = std::make_unique<worker_process>(latency ? "ponger" : "receiver");
        client_ = std::make_unique<worker_process>(latency ? "pinger" : "sender");
        collect({server_.get(), client_.get()}, "hello", now_ns() + setup_timeout_ns);

        json server_setup = setup_message("creator", server_dirs, {});
        server_->channel.send(server_setup);
        auto opened = collect({server_.get()}, "opened", now_ns() + setup_timeout_ns);
        addresses_ = opened[0].at("addresses").get<std::vector<std::string>>();
        client_->channel.send(setup_message("connector", client_dirs, addresses_));
        collect({client_.get()}, "opened", now_ns() + setup_timeout_ns);

        json connect = {{"type", "connect"}, {"timeout_ns", connect_timeout_ns}};
        server_->channel.send(connect);
        client_->channel.send(connect);
        auto connected = collect({server_.get(), client_.get()}, "connected",
                                 now_ns() + connect_timeout_ns + setup_timeout_ns);
        for (const auto &[k, v] : connected[0].at("settings").items()) result.options[k] = v;
        for (const auto &[k, v] : connected[1].at("settings").items()) {
            auto it = result.options.find(k);
            if (it == result.options.end() || it->second != v.get<std::string>())
                result.options[k + "@" + client_->side] = v;
        }

        job j;
        j.size = spec_.size;
        j.duration_ns = static_cast<std::int64_t>(spec_.duration_s * 1e9);
        j.warmup_ns = static_cast<std::int64_t>(spec_.warmup_s * 1e9);
        j.count = spec_.count;
        j.reliable = transport_.has(IPCB_CAP_RELIABLE);
        j.stream = transport_.has(IPCB_CAP_STREAM);
        job server_job = j, client_job = j;
        server_job.kind = latency ? "pong" : "receive";
        client_job.kind = latency ? "ping" : "send";
        server_->channel.send(
            {{"type", "run"}, {"job", to_json(server_job)}, {"directions", server_dirs}});
        client_->channel.send(
            {{"type", "run"}, {"job", to_json(client_job)}, {"directions", client_dirs}});

        const double watchdog_s = spec_.timeout_s > 0 ? spec_.timeout_s
                                  : spec_.count > 0   ? 300.0
                                                      : spec_.warmup_s + spec_.duration_s + 20.0;
        auto results = collect({server_.get(), client_.get()}, "result",
                               now_ns() + static_cast<std::int64_t>(watchdog_s * 1e9),
                               [&](worker_process &w, const json &reply) {
                                   // An unreliable receiver polls for this to know when to stop.
                                   if (&w == client_.get() && !latency)
                                       server_->channel.send(
                                           {{"type", "sender_done"},
                                            {"sent", reply.value("messages_sent", 0)}});
                               });
        const json &server_result = results[0];
        const json &client_result = results[1];
        for (const json *r : {&client_result, &server_result})
            if (r->contains("error"))
                throw case_failure((*r)["error"].get<std::string>() + " [" +
                                   (r == &client_result ? client_->side : server_->side) + "]");
        if (latency)
            fill_latency(result, client_result, server_result);
        else
            fill_throughput(result, client_result, server_result);
    }

    json setup_message(const std::string &role, const std::vector<std::uint32_t> &dirs,
                       const std::vector<std::string> &addresses) {
        json endpoints = json::array();
        for (std::size_t i = 0; i < dirs.size(); ++i) {
            json e = {{"direction", direction_name(dirs[i])}};
            if (i < addresses.size()) e["address"] = addresses[i];
            endpoints.push_back(e);
        }
        return {{"type", "setup"},
                {"library", transport_.library.string()},
                {"transport", transport_.id},
                {"role", role},
                {"endpoints", endpoints},
                {"options", spec_.options},
                {"runtime_dir", run_dir_.path().string()},
                {"max_message_size", spec_.size}};
    }

    // Closes the endpoints politely when the case went well; otherwise, or when a worker does not
    // answer within a second, kills both. Then removes what a killed creator could not.
    void shut_down(bool polite) {
        std::vector<worker_process *> alive;
        for (auto *w : {server_.get(), client_.get()})
            if (w && !w->process.finished()) alive.push_back(w);
        bool clean = false;
        if (polite && !alive.empty()) {
            try {
                for (auto *w : alive) w->channel.send({{"type", "close"}});
                collect(alive, "closed", now_ns() + 2'000'000'000);
                clean = true;
            } catch (const std::exception &e) {
                spdlog::debug("closing workers: {}", e.what());
            }
        }
        for (auto *w : alive) {
            if (!clean) w->process.kill_group(SIGKILL);
            if (!w->process.wait(2000)) w->process.kill_group(SIGKILL);
            w->process.wait(-1);
        }
        if (!clean && transport_.table->remove_address) {
            for (const auto &address : addresses_) {
                ipcb_error error{};
                error.struct_size = sizeof error;
                if (transport_.table->remove_address(address.c_str(), &error) != IPCB_OK)
                    spdlog::warn("{}: could not remove {}: {}", transport_.id, address,
                                 error.message);
            }
        }
        server_.reset();
        client_.reset();
    }

    const plugin::transport_info &transport_;
    const case_spec &spec_;
    platform::run_directory run_dir_;
    std::unique_ptr<worker_process> server_;
    std::unique_ptr<worker_process> client_;
    std::vector<std::string> addresses_;
};

}  // namespace

report::case_result run_case(const plugin::transport_info &transport, const case_spec &spec) {
    return case_runner(transport, spec).run();
}

}  // namespace ipcbench::harness
