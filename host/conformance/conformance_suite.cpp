#include "conformance/conformance_suite.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "conformance/check_jobs.hpp"
#include "conformance/shared_memory_objects.hpp"
#include "harness/worker_pair.hpp"

namespace ipcbench::conformance {
namespace {

using nlohmann::json;

constexpr std::int64_t connect_timeout_ns = 5'000'000'000;
constexpr std::uint64_t largest_tried = 1 << 20;

class suite {
public:
    suite(const plugin::transport_info &transport,
          const std::map<std::string, std::string> &options,
          const std::function<void(const check_result &)> &report, double min_watchdog_s)
        : transport_(transport),
          options_(options),
          report_(report),
          min_watchdog_s_(min_watchdog_s) {}

    std::vector<check_result> run() {
        run_probes();
        run_with_worker_pair();
        for (const char *side : {"sender", "receiver"}) run_crash(side);
        return results_;
    }

private:
    // A step's watchdog: its own bound, or --timeout when that is longer (a slow or busy
    // machine, wine).
    double watch(double seconds) const { return std::max(seconds, min_watchdog_s_); }

    void add(const std::string &name, bool passed, const std::string &detail) {
        results_.push_back({transport_.id, name, passed, detail});
        if (report_) report_(results_.back());
    }

    void add_verdict(const std::string &name, const json &v) {
        add(name, v.value("ok", false), v.value("detail", "no detail"));
    }

    // The largest message size the transport takes here: its declared maximum, or for
    // transports limited by the OS, the largest of a few sizes it accepts at open.
    std::uint64_t find_max_size(harness::worker_pair &pair) {
        if (transport_.max_message_size)
            return std::min<std::uint64_t>(transport_.max_message_size, largest_tried);
        for (std::uint64_t size :
             {largest_tried, std::uint64_t{256} << 10, std::uint64_t{64} << 10,
              std::uint64_t{16} << 10, std::uint64_t{8} << 10, std::uint64_t{4} << 10}) {
            json v = pair.probe(
                {{"check", "max-size"}, {"max_message_size", size}, {"options", options_}},
                watch(20));
            if (v.value("ok", false)) return size;
        }
        return 4096;
    }

    void run_probes() {
        for (const char *check : {"unknown-option", "bad-address", "open-close"}) {
            try {
                harness::worker_pair pair(transport_, {}, "prober", "idle");
                json v = pair.probe(
                    {{"check", check}, {"max_message_size", 4096}, {"options", options_}},
                    watch(60));
                add_verdict(check, v);
                pair.close();
            } catch (const std::exception &e) {
                add(check, false, e.what());
            }
        }
    }

    // The payload check: sizes x per_size messages, every byte checked. On an unreliable
    // transport a datagram dropped by a receiver a loaded machine did not schedule (wine, a
    // build beside) shows as lost data: such a failure runs again on a fresh pair, up to
    // payload_tries in all, and the verdict says how many tries it took.
    std::pair<json, json> run_payload(harness::worker_pair &pair, const json &plan,
                                      std::uint64_t max, bool reliable, int &tries) {
        constexpr int payload_tries = 3;
        auto once = [&](harness::worker_pair &p) {
            return p.run(check_job_message(check_job::payload_receive, json(plan)),
                         check_job_message(check_job::payload_send, json(plan)), watch(60));
        };
        auto result = once(pair);
        tries = 1;
        while (!reliable && tries < payload_tries && result.second.value("ok", false) &&
               !result.first.value("ok", false)) {
            harness::worker_pair fresh(transport_, {IPCB_DIR_RECV}, "receiver", "sender");
            fresh.connect(options_, max, connect_timeout_ns);
            result = once(fresh);
            fresh.close();
            ++tries;
        }
        return result;
    }

    void run_with_worker_pair() {
        const bool stream = transport_.has(IPCB_CAP_STREAM);
        const bool reliable = transport_.has(IPCB_CAP_RELIABLE);
        std::string stage = "payload";
        try {
            std::uint64_t max = 0;
            {
                harness::worker_pair prober(transport_, {}, "prober", "idle");
                max = find_max_size(prober);
                prober.close();
            }
            harness::worker_pair pair(transport_, {IPCB_DIR_RECV}, "receiver", "sender");
            pair.connect(options_, max, connect_timeout_ns);

            std::vector<std::uint64_t> sizes = {1, 2, 251, 4096, max};
            sizes.erase(std::remove_if(sizes.begin(), sizes.end(),
                                       [&](std::uint64_t s) { return s > max; }),
                        sizes.end());
            std::sort(sizes.begin(), sizes.end());
            sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
            json plan = {{"sizes", sizes},
                         {"per_size", 4},
                         {"stream", stream},
                         {"pace_us", reliable ? 0 : 2000}};
            int tries = 1;
            auto [got, sent] = run_payload(pair, plan, max, reliable, tries);
            std::string size_list;
            for (auto s : sizes) size_list += (size_list.empty() ? "" : ", ") + std::to_string(s);
            if (!sent.value("ok", false)) {
                add("payload", false, "sender: " + sent.value("detail", ""));
                return;
            }
            add("payload", got.value("ok", false),
                got.value("detail", "") + " (sizes " + size_list + " B, 4 each" +
                    (tries > 1 ? fmt::format("; {} tries", tries) : "") + ")");
            if (got.value("ok", false)) {
                if (stream)
                    add("stream-reassembly", true,
                        fmt::format("{} messages reassembled from {} reads",
                                    got.value("messages", 0), got.value("reads", 0)));
                else
                    add("message-boundaries", true,
                        fmt::format("{} messages, each delivered by exactly one recv",
                                    got.value("messages", 0)));
            }

            if (!stream && max >= 64) {
                stage = "truncation";
                json t_send = check_job_message(check_job::truncation_send,
                                                {{"size", std::min<std::uint64_t>(max, 256)}});
                json t_recv = check_job_message(check_job::truncation_receive,
                                                {{"size", std::min<std::uint64_t>(max, 256)}});
                auto [tr, ts] = pair.run(t_recv, t_send, watch(30));
                add("truncation", tr.value("ok", false) && ts.value("ok", false),
                    tr.value("detail", ""));
            }

            run_data_path_checks(pair, max, stream);

            run_waits(pair, max, stream, reliable, stage);
            pair.close();
            // Datagrams are dropped rather than blocked on: would-block and its wake-up are
            // checked where the transport is reliable.
            stage = "readiness";
            if (transport_.calls.readiness && reliable) run_readiness(max, stream);
            stage = "completion";
            if (transport_.calls.completion) run_completion(max, stream);
        } catch (const std::exception &e) {
            add(stage, false, e.what());
        }
    }

    // The checks of waiting: a recv timeout, a send timeout into a full transport, and a recv
    // while the peer closes. `stage` names the one running, for the caller's error report.
    void run_waits(harness::worker_pair &pair, std::uint64_t max, bool stream, bool reliable,
                   std::string &stage) {
        stage = "timeout";
        auto [timed, idle] =
            pair.run(check_job_message(check_job::timeout_receive, {{"timeout_ns", 100'000'000}}),
                     check_job_message(check_job::idle), watch(30));
        add("timeout", timed.value("ok", false), timed.value("detail", ""));

        if (reliable) {
            stage = "send-timeout";
            run_send_timeout(pair, max, stream);
        }

        stage = "peer-close";
        // Without close-notify a clean timeout is the expected end.
        auto [waited, closed] =
            pair.run(check_job_message(
                         check_job::close_wait,
                         {{"timeout_ns",
                           transport_.has(IPCB_CAP_CLOSE_NOTIFY) ? 5'000'000'000 : 1'500'000'000},
                          {"close_notify", transport_.has(IPCB_CAP_CLOSE_NOTIFY)}}),
                     check_job_message(check_job::close_endpoints, {{"delay_ms", 200}}), watch(30));
        add("peer-close", waited.value("ok", false), waited.value("detail", ""));
    }

    // A send with a timeout into a full transport must time out on time, and what it reported
    // sent must be what arrives: nothing of the timed-out message. Reliable transports only (a
    // datagram transport drops instead of filling). 1 KiB on a stream: below PIPE_BUF, so a
    // pipe's last write is all or nothing, and few enough for a TCP buffer of megabytes to fill
    // quickly (a socket's last write may go in part: IPCB_E_SYSTEM, which transport.h allows).
    void run_send_timeout(harness::worker_pair &pair, std::uint64_t max, bool stream) {
        const std::uint64_t size = stream ? 1024 : std::min<std::uint64_t>(max, 4096);
        auto [idle, filled] = pair.run(
            check_job_message(check_job::idle),
            check_job_message(check_job::send_timeout, {{"size", size},
                                                        {"timeout_ns", 100'000'000},
                                                        {"max_bytes", std::uint64_t{64} << 20},
                                                        {"max_seconds", 20.0},
                                                        {"stream", stream}}),
            watch(60));
        auto [drained, idle_again] =
            pair.run(check_job_message(check_job::drain, {{"size", size},
                                                          {"stream", stream},
                                                          {"quiet_ns", 500'000'000},
                                                          {"max_seconds", 60.0}}),
                     check_job_message(check_job::idle), watch(90));
        std::string detail = filled.value("detail", "");
        bool ok = filled.value("ok", false) && drained.value("ok", false);
        if (!drained.value("ok", false)) detail += "; " + drained.value("detail", "");
        const std::uint64_t sent = filled.value("sent", std::uint64_t{0});
        const std::uint64_t got = drained.value("messages", std::uint64_t{0});
        const std::uint64_t bytes = drained.value("bytes", std::uint64_t{0});
        if (ok && filled.value("partial", false)) {
            detail += fmt::format("; {} whole messages arrived", got);
            ok = got == sent;
        } else if (ok) {
            ok = got == sent && (!stream || bytes == sent * size);
            detail +=
                ok ? fmt::format("; exactly those {} arrived, nothing of the timed-out one", got)
                   : fmt::format(
                         "; but {} B ({} messages) arrived for the {} reported "
                         "sent",
                         bytes, got, sent);
        }
        add("send-timeout", ok, detail);
    }

    // ABI 1.1 members the transport offers, each checked byte for byte.
    void run_data_path_checks(harness::worker_pair &pair, std::uint64_t max, bool stream) {
        const plugin::data_path_calls &calls = transport_.calls;
        std::vector<std::uint64_t> sizes;
        for (std::uint64_t s : {1, 251, 4096, 65536})
            if (s <= max) sizes.push_back(s);
        const json plan = {{"sizes", sizes}, {"per_size", 6}, {"stream", stream}};
        auto check = [&](const char *name, check_job send_kind, check_job receive_kind) {
            const json send = check_job_message(send_kind, plan);
            const json receive = check_job_message(receive_kind, plan);
            try {
                auto [got, sent] = pair.run(receive, send, watch(60));
                if (!sent.value("ok", false))
                    add(name, false, "sender: " + sent.value("detail", ""));
                else
                    add(name, got.value("ok", false),
                        got.value("detail", "") + "; sender: " + sent.value("detail", ""));
            } catch (const std::exception &e) {
                add(name, false, e.what());
                throw;  // the pair is gone: the checks after it cannot run
            }
        };
        if (calls.zero_copy_send || calls.zero_copy_recv)
            check("zero-copy", check_job::zero_copy_send, check_job::zero_copy_receive);
        if (calls.send_batch || calls.recv_batch)
            check("batch", check_job::batch_send, check_job::batch_receive);
    }

    // ABI 1.2 completion: one completion per submission, none for a receive with nothing to
    // receive, and a close with a receive outstanding that returns and cancels it. On a pair of
    // its own: the receiver closes its endpoint.
    void run_completion(std::uint64_t max, bool stream) {
        harness::worker_pair pair(transport_, {IPCB_DIR_RECV}, "receiver", "sender");
        pair.connect(options_, max, connect_timeout_ns);
        const std::uint64_t size = std::min<std::uint64_t>(max, 65536);
        const json job = {{"size", size}, {"count", 50}, {"stream", stream}};
        json send = job, receive = job;
        send = check_job_message(check_job::completion_send, std::move(send));
        receive = check_job_message(check_job::completion_receive, std::move(receive));
        auto [got, sent] = pair.run(receive, send, watch(60));
        add("completion", sent.value("ok", false) && got.value("ok", false),
            "sender: " + sent.value("detail", "") + "; receiver: " + got.value("detail", ""));
        pair.close();
    }

    // ABI 1.2 readiness: would-block leaves nothing moved, no wake-up is lost, and exactly what
    // try_send took arrives. On a pair of its own: a failure leaves the transport full, which
    // would spoil the checks after it.
    void run_readiness(std::uint64_t max, bool stream) {
        harness::worker_pair pair(transport_, {IPCB_DIR_RECV}, "receiver", "sender");
        pair.connect(options_, max, connect_timeout_ns);
        const std::uint64_t size = stream ? 1024 : std::min<std::uint64_t>(max, 4096);
        const json job = {{"size", size}, {"max_bytes", std::uint64_t{64} << 20}};
        json send = job, receive = job;
        send = check_job_message(check_job::readiness_send, std::move(send));
        receive = check_job_message(check_job::readiness_receive, std::move(receive));
        auto [got, sent] = pair.run(receive, send, watch(60));
        std::string detail =
            "sender: " + sent.value("detail", "") + "; receiver: " + got.value("detail", "");
        bool ok = sent.value("ok", false) && got.value("ok", false);
        if (ok && !sent.value("refused", false)) {
            const auto n = sent.value("sent", std::uint64_t{0});
            ok = got.value("received", std::uint64_t{0}) == n;
            if (!ok) detail += fmt::format("; {} sent, {} received", n, got.value("received", 0));
        }
        add("readiness", ok, detail);
        pair.close();
    }

    // Kills one side while it holds a borrowed slot or a taken message (or just after sending):
    // ipchost must name the dead process, and no shared-memory object may be left behind.
    void run_crash(const std::string &side) {
        const std::string name = "crash-" + side;
        const auto before = shared_memory_objects();
        std::string cause;
        try {
            harness::worker_pair pair(transport_, {IPCB_DIR_RECV}, "receiver", "sender");
            pair.connect(options_, 4096, connect_timeout_ns);
            const json crash = check_job_message(check_job::crash, {{"side", side}, {"size", 64}});
            if (side == "sender") {
                pair.run(check_job_message(check_job::idle), crash, watch(30));
            } else {  // one message for the receiver to hold when it dies
                const json one = check_job_message(
                    check_job::payload_send, {{"sizes", {64}}, {"per_size", 1}, {"pace_us", 0}});
                pair.run(crash, one, watch(30));
            }
            add(name, false, "the " + side + " was killed, yet the run reported no failure");
            return;
        } catch (const harness::pair_failure &e) {
            cause = e.what();
        } catch (const std::exception &e) {
            add(name, false, e.what());
            return;
        }
        if (cause.find("the " + side + " process died") == std::string::npos) {
            add(name, false, "expected 'the " + side + " process died', got: " + cause);
            return;
        }
        std::string left;
        for (const auto &object : shared_memory_objects())
            if (!before.count(object)) left += (left.empty() ? "" : ", ") + object;
        const std::string held =
            side == "sender"
                ? (transport_.calls.zero_copy_send ? "after a send, holding a borrowed slot"
                                                   : "after a send")
                : (transport_.calls.zero_copy_recv ? "holding a taken message"
                                                   : "after receiving a message");
        const auto cut = cause.find(" while");
        add(name, left.empty(),
            left.empty() ? "killed " + held + "; reported as '" + cause.substr(0, cut) +
                               "'; no shared-memory object left"
                         : "left behind after the crash: " + left);
    }

    const plugin::transport_info &transport_;
    const std::map<std::string, std::string> &options_;
    const std::function<void(const check_result &)> &report_;
    double min_watchdog_s_ = 0;
    std::vector<check_result> results_;
};

}  // namespace

std::vector<check_result> run_conformance(const plugin::transport_info &transport,
                                          const std::map<std::string, std::string> &options,
                                          const std::function<void(const check_result &)> &report,
                                          double min_watchdog_s) {
    return suite(transport, options, report, min_watchdog_s).run();
}

}  // namespace ipcbench::conformance
