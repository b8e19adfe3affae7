#include <fmt/format.h>

#include "report/case_result.hpp"

#include <set>

namespace ipcbench::report {

std::map<std::string, double> comparable_figures(const case_result &r) {
    std::map<std::string, double> f;
    if (r.throughput) {
        f["bytes_per_sec"] = r.throughput->bytes_per_sec;
        f["messages_per_sec"] = r.throughput->messages_per_sec;
    }
    if (r.latency) {
        f["latency_p50_ns"] = static_cast<double>(r.latency->p50);
        f["latency_p99_ns"] = static_cast<double>(r.latency->p99);
        f["latency_p999_ns"] = static_cast<double>(r.latency->p999);
        f["latency_mean_ns"] = r.latency->mean;
    }
    f["sender_cpu_percent"] = r.sender.cpu_percent;
    f["receiver_cpu_percent"] = r.receiver.cpu_percent;
    f["sender_cpu_us_per_message"] = r.sender.cpu_us_per_message;
    f["receiver_cpu_us_per_message"] = r.receiver.cpu_us_per_message;
    return f;
}

bool higher_is_better(const std::string &figure) {
    return figure == "bytes_per_sec" || figure == "messages_per_sec";
}

namespace {

double median_of(const std::vector<double> &v) {
    return stats::summarize(v).median;
}

process_figures median_process(const std::vector<const process_figures *> &ps) {
    auto med = [&](auto member) {
        std::vector<double> v;
        v.reserve(ps.size());
        for (const auto *p : ps) v.push_back(static_cast<double>(p->*member));
        return median_of(v);
    };
    process_figures out;
    out.cpu_user_s = med(&process_figures::cpu_user_s);
    out.cpu_sys_s = med(&process_figures::cpu_sys_s);
    out.cpu_percent = med(&process_figures::cpu_percent);
    out.cpu_us_per_mb = med(&process_figures::cpu_us_per_mb);
    out.cpu_us_per_message = med(&process_figures::cpu_us_per_message);
    out.max_rss_kib = static_cast<std::int64_t>(med(&process_figures::max_rss_kib));
    out.voluntary_ctx_switches =
        static_cast<std::int64_t>(med(&process_figures::voluntary_ctx_switches));
    out.involuntary_ctx_switches =
        static_cast<std::int64_t>(med(&process_figures::involuntary_ctx_switches));
    std::set<int> cpus;  // where it ran in any repetition
    for (const auto *p : ps) cpus.insert(p->cpus.begin(), p->cpus.end());
    out.cpus.assign(cpus.begin(), cpus.end());
    return out;
}

}  // namespace

void summarize_repetitions(case_result &r, double cv_warning) {
    std::vector<const case_result *> ok;
    for (const auto &rep : r.repetitions)
        if (rep.status == "ok") ok.push_back(&rep);
    const std::size_t failed = r.repetitions.size() - ok.size();
    if (ok.empty()) {
        r.status = r.repetitions.empty() ? r.status : r.repetitions.back().status;
        if (!r.repetitions.empty()) r.error = r.repetitions.back().error;
        return;
    }
    if (failed)
        r.warnings.push_back(fmt::format("{} of {} repetitions failed: {}", failed,
                                         r.repetitions.size(), r.repetitions.back().error));

    // Every figure's samples and spread.
    std::map<std::string, std::vector<double>> samples;
    for (const auto *rep : ok)
        for (const auto &[name, value] : comparable_figures(*rep)) samples[name].push_back(value);
    for (auto &[name, values] : samples) r.statistics[name] = {stats::summarize(values), values};

    const case_result &first = *ok.front();
    r.options = first.options;
    r.per_stream = first.per_stream;
    r.intervals = first.intervals;
    r.duration_s = 0;
    r.histogram = stats::latency_histogram();
    r.integrity = {};
    std::vector<const process_figures *> senders, receivers;
    for (const auto *rep : ok) {
        r.duration_s += rep->duration_s;
        r.histogram.merge(rep->histogram);
        r.integrity.messages_sent += rep->integrity.messages_sent;
        r.integrity.messages_received += rep->integrity.messages_received;
        r.integrity.lost += rep->integrity.lost;
        r.integrity.out_of_order += rep->integrity.out_of_order;
        r.integrity.duplicated += rep->integrity.duplicated;
        r.integrity.corrupted += rep->integrity.corrupted;
        r.integrity.beyond_window += rep->integrity.beyond_window;
        senders.push_back(&rep->sender);
        receivers.push_back(&rep->receiver);
    }
    r.sender = median_process(senders);
    r.receiver = median_process(receivers);
    if (first.throughput)
        r.throughput = throughput_figures{r.statistics["bytes_per_sec"].first.median,
                                          r.statistics["messages_per_sec"].first.median};
    if (first.latency) {
        latency_figures l;
        l.kind = first.latency->kind;
        l.p50 = r.histogram.percentile(50);
        l.p90 = r.histogram.percentile(90);
        l.p99 = r.histogram.percentile(99);
        l.p999 = r.histogram.percentile(99.9);
        l.p9999 = r.histogram.percentile(99.99);
        l.min = r.histogram.min();
        l.max = r.histogram.max();
        l.mean = r.histogram.mean();
        l.samples = r.histogram.count();
        r.latency = l;
    }
    r.status = "ok";
    r.error.clear();
    r.repeat_count = static_cast<int>(ok.size());

    for (const char *figure : {"bytes_per_sec", "latency_p50_ns", "latency_p99_ns"}) {
        auto it = r.statistics.find(figure);
        if (it != r.statistics.end() && it->second.first.n > 1 && it->second.first.cv > cv_warning)
            r.warnings.push_back(fmt::format(
                "{} varies by {:.1f}% (cv) over {} repetitions: a noisy machine; pin with "
                "--affinity, lengthen --duration or add repetitions",
                figure, it->second.first.cv * 100, it->second.first.n));
    }
    if (r.integrity.lost) r.warnings.push_back(fmt::format("{} messages lost", r.integrity.lost));
    if (r.integrity.corrupted)
        r.warnings.push_back(fmt::format("{} messages corrupted", r.integrity.corrupted));
}

}  // namespace ipcbench::report
