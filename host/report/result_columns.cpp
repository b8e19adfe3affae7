#include "report/result_columns.hpp"

#include <fmt/format.h>
#include <map>
#include <optional>

#include "model/data_path.hpp"
#include "model/units.hpp"

namespace ipcbench::report {
namespace {

using text_of = std::function<std::string(const case_result &)>;

std::string rate(double per_sec) {
    if (per_sec >= 1e9) return fmt::format("{:.2f}G", per_sec / 1e9);
    if (per_sec >= 1e6) return fmt::format("{:.2f}M", per_sec / 1e6);
    if (per_sec >= 1e3) return fmt::format("{:.1f}k", per_sec / 1e3);
    return fmt::format("{:.0f}", per_sec);
}
std::string micros(double ns) {
    return fmt::format("{:.2f}", ns / 1e3);
}
std::string num(double v) {
    return fmt::format("{:.6g}", v);
}
// Peak RSS in binary units (the header says MiB; the table's MB is 10^6 B).
std::string rss(std::int64_t kib) {
    return fmt::format("{:.1f}", model::kib_to_mib(kib));
}
std::string count(std::uint64_t n) {
    return std::to_string(n);
}

const stats::summary *spread_of(const case_result &r, const char *figure) {
    auto it = r.statistics.find(figure);
    return it == r.statistics.end() || it->second.first.n < 2 ? nullptr : &it->second.first;
}

template <class Pred>
bool any(const run_report &report, Pred pred) {
    for (const auto &r : report.results)
        if (pred(r)) return true;
    return false;
}

// Shown when the rows of the table differ in it: a setting that tells two rows apart gets a
// column of its own, where rows alike would look the same.
std::function<bool(const run_report &, bool)> when_rows_differ(const text_of &value) {
    return [value](const run_report &report, bool latency_table) {
        std::optional<std::string> seen;
        for (const auto &r : report.results) {
            if (latency_table ? !is_latency(r) : !is_throughput(r)) continue;
            std::string v = value(r);
            if (!seen)
                seen = std::move(v);
            else if (v != *seen)
                return true;
        }
        return false;
    };
}

double bytes_per_sec(const case_result &r) {
    return r.throughput ? r.throughput->bytes_per_sec : 0;
}

// A latency figure in microseconds for the tables, nanoseconds for CSV.
column latency_column(const char *key, const char *throughput_header, const char *header,
                      std::uint64_t latency_figures::*member) {
    column c{key, throughput_header, header, nullptr, nullptr, nullptr};
    c.text = [member](const case_result &r) {
        return r.latency ? micros(static_cast<double>((*r.latency).*member)) : "-";
    };
    c.value = [member](const case_result &r) {
        return r.latency ? count((*r.latency).*member) : "";
    };
    if (*throughput_header)  // one-way latency of paced runs: only when some case has it
        c.shown = [](const run_report &report, bool latency_table) {
            return latency_table || any(report, [](const case_result &r) {
                       return is_throughput(r) && r.latency.has_value();
                   });
        };
    return c;
}

// The coefficient of variation of a figure over the repetitions (only with --repeat).
column spread_column(const char *key, const char *throughput_header, const char *header,
                     const char *figure) {
    column c{key, throughput_header, header, nullptr, nullptr, nullptr};
    c.text = [figure](const case_result &r) {
        const auto *s = spread_of(r, figure);
        return s ? fmt::format("{:.1f}%", s->cv * 100) : "-";
    };
    c.value = [figure](const case_result &r) {
        const auto *s = spread_of(r, figure);
        return s ? num(s->cv) : "";
    };
    c.shown = [](const run_report &report, bool) { return report.repeat > 1; };
    return c;
}

// The median's 95 % interval over the repetitions, as the larger of its two sides in percent
// of the median (only with --repeat: "-" below 6 repetitions, where there is none).
column interval_column(const char *key, const char *throughput_header, const char *header,
                       const char *figure) {
    column c{key, throughput_header, header, nullptr, nullptr, nullptr};
    const auto percent = [figure](const case_result &r) -> std::optional<double> {
        const auto *s = spread_of(r, figure);
        if (!s || s->n < stats::samples_for_median_interval || s->median == 0) return std::nullopt;
        return std::max(s->median_high - s->median, s->median - s->median_low) / s->median * 100;
    };
    c.text = [percent](const case_result &r) {
        const auto p = percent(r);
        return p ? fmt::format("\u00b1{:.1f}%", *p) : "-";
    };
    c.value = [percent](const case_result &r) {
        const auto p = percent(r);
        return p ? num(*p) : "";
    };
    c.shown = [](const run_report &report, bool) { return report.repeat > 1; };
    c.priority = 1;  // how far to trust the figure beside it: kept before the costs
    return c;
}

column plain(const char *key, const char *tput, const char *lat, text_of text, text_of value,
             bool figure = true) {
    return {key, tput, lat, nullptr, std::move(text), std::move(value), figure};
}
column csv_only(const char *key, text_of value, bool figure = true) {
    return {key, "", "", nullptr, nullptr, std::move(value), figure};
}

// Who ran each side (--impl): shown when a side of some case is not ipchost's own worker.
void implementation_columns(std::vector<column> &c) {
    const auto shown = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) {
            return r.settings.sender_impl != "native" || r.settings.receiver_impl != "native";
        });
    };
    // The requested name until the side said who it is (a case that failed before its hello).
    const auto sender = [](const case_result &r) {
        return r.ok() ? r.sender.implementation : r.settings.sender_impl;
    };
    const auto receiver = [](const case_result &r) {
        return r.ok() ? r.receiver.implementation : r.settings.receiver_impl;
    };
    column s = plain("sender_impl", "sender", "pinger", sender, sender, false);
    column r = plain("receiver_impl", "receiver", "ponger", receiver, receiver, false);
    const auto runtime_of = [](bool of_sender, const char *none) {
        return [of_sender, none](const case_result &x) {
            const auto &side = of_sender ? x.sender : x.receiver;
            return side.runtime.empty() ? std::string(none) : side.runtime;
        };
    };
    column sr = plain("sender_runtime", "sender runtime", "pinger runtime", runtime_of(true, "-"),
                      runtime_of(true, ""), false);
    column rr = plain("receiver_runtime", "receiver runtime", "ponger runtime",
                      runtime_of(false, "-"), runtime_of(false, ""), false);
    for (column *col : {&s, &r, &sr, &rr}) {
        col->shown = shown;
        c.push_back(*col);
    }
}

// Where a fleet row was measured (ipchost fleet): shown when some result is one.
void fleet_columns(std::vector<column> &c) {
    const auto shown = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) { return r.fleet.has_value(); });
    };
    const auto text_of = [](std::string model::fleet_place::*member) {
        return [member](const case_result &r) { return r.fleet ? (*r.fleet).*member : ""; };
    };
    const auto labels_of = [](std::map<std::string, std::string> model::fleet_place::*member) {
        return [member](const case_result &r) {
            std::string out;
            if (r.fleet)
                for (const auto &[k, v] : (*r.fleet).*member)
                    out += (out.empty() ? "" : ";") + k + "=" + v;
            return out;
        };
    };
    const auto number_of = [](int model::fleet_place::*member) {
        return [member](const case_result &r) {
            return r.fleet ? std::to_string((*r.fleet).*member) : "";
        };
    };
    column source = plain("source", "source", "source", text_of(&model::fleet_place::source),
                          text_of(&model::fleet_place::source), false);
    column destination = plain("destination", "destination", "destination",
                               text_of(&model::fleet_place::destination),
                               text_of(&model::fleet_place::destination), false);
    column round = plain("round", "round", "round", number_of(&model::fleet_place::round),
                         number_of(&model::fleet_place::round), false);
    column concurrent =
        csv_only("concurrent_cases", number_of(&model::fleet_place::concurrent), false);
    column source_labels =
        csv_only("source_labels", labels_of(&model::fleet_place::source_labels), false);
    column destination_labels =
        csv_only("destination_labels", labels_of(&model::fleet_place::destination_labels), false);
    for (column *col :
         {&source, &destination, &round, &concurrent, &source_labels, &destination_labels}) {
        col->shown = shown;
        c.push_back(*col);
    }
}

// The rate and batch a case ran with: columns of the table when its rows differ in them.
void pacing_columns(std::vector<column> &c) {
    const auto rate_value = [](const case_result &r) { return num(r.settings.rate_per_s); };
    column paced = plain(
        "rate", "rate/s", "",
        [](const case_result &r) {
            return r.settings.rate_per_s > 0 ? rate(r.settings.rate_per_s) : std::string("-");
        },
        rate_value, false);
    paced.shown = when_rows_differ(rate_value);
    c.push_back(paced);
    const auto batch_value = [](const case_result &r) { return std::to_string(r.settings.batch); };
    column batch = plain("batch", "batch", "batch", batch_value, batch_value, false);
    batch.shown = when_rows_differ(batch_value);
    c.push_back(batch);
}

std::vector<column> identity_columns() {
    std::vector<column> c;
    c.push_back(csv_only(
        "plugin", [](const case_result &r) { return r.plugin; }, false));
    auto transport = [](const case_result &r) { return r.settings.transport_id; };
    c.push_back(plain("transport", "transport", "transport", transport, transport, false));
    c.push_back(csv_only(
        "mode", [](const case_result &r) { return model::to_string(r.settings.mode); }, false));
    implementation_columns(c);
    fleet_columns(c);
    column direction{"direction", "direction", "", nullptr, nullptr, nullptr, false};
    direction.shown = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) {
            return r.direction != model::traffic_direction::forward || r.bidir();
        });
    };
    direction.text = [](const case_result &r) {
        return std::string(model::to_string(r.direction)) + (r.bidir() ? " (bidir)" : "");
    };
    direction.value = [](const case_result &r) { return model::to_string(r.direction); };
    c.push_back(direction);
    c.push_back(csv_only(
        "bidir", [](const case_result &r) { return r.bidir() ? "1" : "0"; }, false));
    c.push_back(plain(
        "message_size", "size", "size",
        [](const case_result &r) { return format_size(r.settings.size_bytes); },
        [](const case_result &r) { return count(r.settings.size_bytes); }, false));
    column streams = plain(
        "streams", "streams", "streams",
        [](const case_result &r) { return std::to_string(r.settings.streams); },
        [](const case_result &r) { return std::to_string(r.settings.streams); }, false);
    streams.shown = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) { return r.settings.streams > 1; });
    };
    c.push_back(streams);
    column io = plain(
        "io", "io", "io",
        [](const case_result &r) {
            return r.settings.io == model::io_engine::threads
                       ? std::string("threads")
                       : fmt::format("{} x{}", model::to_string(r.settings.io), r.settings.threads);
        },
        [](const case_result &r) { return model::to_string(r.settings.io); }, false);
    io.shown = [](const run_report &report, bool) {
        // A case that never ran (skipped) still says "auto": no engine was chosen for it.
        return any(report, [](const case_result &r) {
            return r.ok() && (r.settings.streams > 1 || r.settings.io != model::io_engine::threads);
        });
    };
    c.push_back(io);
    c.push_back(csv_only(
        "threads", [](const case_result &r) { return std::to_string(r.settings.threads); }, false));
    pacing_columns(c);
    // The calls column appears only when some case left the default path.
    column calls = plain(
        "data_path", "calls", "calls",
        [](const case_result &r) { return r.data_path.empty() ? "-" : r.data_path; },
        [](const case_result &r) { return r.data_path; });
    calls.shown = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) {
            return !r.data_path.empty() && r.data_path != model::default_data_path;
        });
    };
    c.push_back(calls);
    c.push_back(csv_only(
        "status", [](const case_result &r) { return to_string(r.status); }, false));
    const auto repetitions = [](const case_result &r) { return std::to_string(r.repeat_count); };
    column reps =
        plain("repetitions", "repetitions", "repetitions", repetitions, repetitions, false);
    reps.shown = [](const run_report &report, bool) { return report.precision > 0; };
    reps.priority = 1;
    c.push_back(reps);
    return c;
}

std::vector<column> throughput_figure_columns() {
    std::vector<column> c;
    c.push_back(plain(
        "messages_received", "messages", "",
        [](const case_result &r) {
            return rate(static_cast<double>(r.integrity.messages_received));
        },
        [](const case_result &r) { return count(r.integrity.messages_received); }));
    c.push_back(plain(
        "duration_s", "total ms", "",
        [](const case_result &r) { return fmt::format("{:.0f}", r.duration_s * 1e3); },
        [](const case_result &r) { return num(r.duration_s); }));
    auto throughput = [](const case_result &r) {
        return r.throughput ? num(bytes_per_sec(r)) : "";
    };
    c.push_back(csv_only("bytes_per_sec", throughput));
    auto in = [](double (*unit)(double), const char *format) {
        return [unit, format](const case_result &r) {
            return r.throughput ? fmt::format(fmt::runtime(format), unit(bytes_per_sec(r))) : "";
        };
    };
    c.push_back(plain("mb_per_sec", "MB/s", "", in(model::megabytes, "{:.1f}"),
                      in(model::megabytes, "{:.6g}")));
    c.push_back(plain("mib_per_sec", "MiB/s", "", in(model::mebibytes, "{:.1f}"),
                      in(model::mebibytes, "{:.6g}")));
    c.push_back(plain("mbit_per_sec", "Mbit/s", "", in(model::megabits, "{:.0f}"),
                      in(model::megabits, "{:.6g}")));
    c.push_back(plain(
        "messages_per_sec", "msg/s", "",
        [](const case_result &r) {
            return r.throughput ? rate(r.throughput->messages_per_sec) : "-";
        },
        [](const case_result &r) {
            return r.throughput ? num(r.throughput->messages_per_sec) : "";
        }));
    c.push_back(spread_column("bytes_per_sec_cv", "cv", "", "bytes_per_sec"));
    c.push_back(interval_column("bytes_per_sec_interval_percent", "95% MB/s", "", "bytes_per_sec"));
    c.push_back(plain(
        "lost", "lost", "", [](const case_result &r) { return count(r.integrity.lost); },
        [](const case_result &r) { return count(r.integrity.lost); }));
    auto damaged = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) {
            return r.integrity.corrupted > 0 || r.integrity.duplicated > 0;
        });
    };
    column dup = plain(
        "duplicated", "dup", "", [](const case_result &r) { return count(r.integrity.duplicated); },
        [](const case_result &r) { return count(r.integrity.duplicated); });
    dup.shown = damaged;
    c.push_back(dup);
    column corrupt = plain(
        "corrupted", "corrupt", "",
        [](const case_result &r) { return count(r.integrity.corrupted); },
        [](const case_result &r) { return count(r.integrity.corrupted); });
    corrupt.shown = damaged;
    c.push_back(corrupt);
    return c;
}

std::vector<column> latency_figure_columns() {
    std::vector<column> c;
    c.push_back(csv_only("latency_kind",
                         [](const case_result &r) { return r.latency ? r.latency->kind : ""; }));
    c.push_back(latency_column("latency_p50_ns", "1-way p50 us", "p50", &latency_figures::p50));
    c.push_back(latency_column("latency_p90_ns", "", "p90", &latency_figures::p90));
    c.push_back(latency_column("latency_p99_ns", "", "p99", &latency_figures::p99));
    c.push_back(latency_column("latency_p999_ns", "p99.9 us", "p99.9", &latency_figures::p999));
    c.push_back(latency_column("latency_p9999_ns", "", "p99.99", &latency_figures::p9999));
    c.push_back(latency_column("latency_max_ns", "", "max", &latency_figures::max));
    c.push_back(plain(
        "latency_mean_ns", "", "mean",
        [](const case_result &r) { return r.latency ? micros(r.latency->mean) : "-"; },
        [](const case_result &r) { return r.latency ? num(r.latency->mean) : ""; }));
    c.push_back(spread_column("latency_p50_cv", "", "cv p50", "latency_p50_ns"));
    c.push_back(interval_column("latency_p50_interval_percent", "", "95% p50", "latency_p50_ns"));
    c.push_back(plain(
        "latency_samples", "", "trips",
        [](const case_result &r) {
            return r.latency ? rate(static_cast<double>(r.latency->samples)) : "-";
        },
        [](const case_result &r) { return r.latency ? count(r.latency->samples) : ""; }));
    c.push_back(csv_only("messages_sent",
                         [](const case_result &r) { return count(r.integrity.messages_sent); }));
    c.push_back(csv_only("out_of_order",
                         [](const case_result &r) { return count(r.integrity.out_of_order); }));
    return c;
}

std::vector<column> process_columns() {
    std::vector<column> c;
    auto of = [](process_figures case_result::*side, auto figure) {
        return [side, figure](const case_result &r) { return figure(r.*side); };
    };
    auto cpu = [](const process_figures &p) { return fmt::format("{:.0f}", p.cpu_percent); };
    auto cpu_value = [](const process_figures &p) { return num(p.cpu_percent); };
    auto per_mb = [](const process_figures &p) { return fmt::format("{:.0f}", p.cpu_us_per_mb); };
    auto per_mb_value = [](const process_figures &p) { return num(p.cpu_us_per_mb); };
    auto per_message = [](const process_figures &p) { return num(p.cpu_us_per_message); };
    auto memory = [](const process_figures &p) { return rss(p.max_rss_kib); };
    auto memory_value = [](const process_figures &p) { return std::to_string(p.max_rss_kib); };
    const auto s = &case_result::sender, r = &case_result::receiver;
    c.push_back(
        plain("sender_cpu_percent", "sender CPU%", "pinger CPU%", of(s, cpu), of(s, cpu_value)));
    c.push_back(plain("receiver_cpu_percent", "receiver CPU%", "ponger CPU%", of(r, cpu),
                      of(r, cpu_value)));
    c.push_back(
        plain("sender_cpu_us_per_mb", "sender us/MB", "", of(s, per_mb), of(s, per_mb_value)));
    c.push_back(
        plain("receiver_cpu_us_per_mb", "receiver us/MB", "", of(r, per_mb), of(r, per_mb_value)));
    c.push_back(csv_only("sender_cpu_us_per_message", of(s, per_message)));
    c.push_back(csv_only("receiver_cpu_us_per_message", of(r, per_message)));
    c.push_back(plain(
        "cpu_us_per_round_trip", "", "CPU us/trip",
        [](const case_result &x) {
            return fmt::format("{:.1f}",
                               x.sender.cpu_us_per_message + x.receiver.cpu_us_per_message);
        },
        [](const case_result &x) {
            return x.is(model::measure_mode::latency)
                       ? num(x.sender.cpu_us_per_message + x.receiver.cpu_us_per_message)
                       : "";
        }));
    c.push_back(
        plain("sender_max_rss_kib", "sender RSS MiB", "", of(s, memory), of(s, memory_value)));
    c.push_back(
        plain("receiver_max_rss_kib", "receiver RSS MiB", "", of(r, memory), of(r, memory_value)));
    return c;
}

// With many streams: how evenly they shared, how fast their connections came up, and what one
// more stream costs in memory (harness/scale_figures.cpp).
std::vector<column> scale_columns() {
    std::vector<column> c;
    auto many = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) { return r.spread.has_value(); });
    };
    auto spread_figure = [](const char *key, const char *header, double stats::stream_spread::*m) {
        return plain(
            key, header, header,
            [m](const case_result &r) {
                return r.spread ? fmt::format("{:.1f}", model::megabytes((*r.spread).*m)) : "-";
            },
            [m](const case_result &r) { return r.spread ? num((*r.spread).*m) : ""; });
    };
    c.push_back(
        spread_figure("stream_min_bytes_per_sec", "stream min MB/s", &stats::stream_spread::min));
    c.push_back(spread_figure("stream_p50_bytes_per_sec", "p50", &stats::stream_spread::p50));
    c.push_back(spread_figure("stream_max_bytes_per_sec", "max", &stats::stream_spread::max));
    c.push_back(plain(
        "jain_fairness", "fairness", "fairness",
        [](const case_result &r) { return r.spread ? fmt::format("{:.3f}", r.spread->jain) : "-"; },
        [](const case_result &r) { return r.spread ? num(r.spread->jain) : ""; }));
    c.push_back(plain(
        "setup_per_sec", "setup/s", "setup/s",
        [](const case_result &r) { return r.setup ? rate(r.setup->per_second) : "-"; },
        [](const case_result &r) { return r.setup ? num(r.setup->per_second) : ""; }));
    c.push_back(plain(
        "setup_p99_ns", "setup p99 us", "setup p99 us",
        [](const case_result &r) {
            return r.setup ? micros(static_cast<double>(r.setup->p99_ns)) : "-";
        },
        [](const case_result &r) { return r.setup ? count(r.setup->p99_ns) : ""; }));
    // Sender's / receiver's (pinger's / ponger's) growth of RSS per stream.
    c.push_back(plain(
        "sender_rss_per_stream_kib", "KiB/stream", "KiB/stream",
        [](const case_result &r) {
            return r.spread ? fmt::format("{:.1f}/{:.1f}", r.sender.rss_per_stream_kib,
                                          r.receiver.rss_per_stream_kib)
                            : "-";
        },
        [](const case_result &r) { return num(r.sender.rss_per_stream_kib); }));
    c.push_back(csv_only("receiver_rss_per_stream_kib",
                         [](const case_result &r) { return num(r.receiver.rss_per_stream_kib); }));
    for (auto &col : c)
        if (!col.shown) col.shown = many;
    return c;
}

std::vector<column> placement_columns() {
    std::vector<column> c;
    column same = plain(
        "same_cpu_percent", "same CPU%", "same CPU%",
        [](const case_result &r) {
            return r.placement ? fmt::format("{:.0f}", r.placement->same_cpu_share * 100) : "-";
        },
        [](const case_result &r) {
            return r.placement ? num(r.placement->same_cpu_share * 100) : "";
        });
    same.shown = [](const run_report &report, bool) {
        return any(report, [](const case_result &r) { return r.placement.has_value(); });
    };
    c.push_back(same);
    c.push_back(csv_only("sender_migrations", [](const case_result &r) {
        return r.placement ? count(r.placement->sender_migrations) : "";
    }));
    c.push_back(csv_only("receiver_migrations", [](const case_result &r) {
        return r.placement ? count(r.placement->receiver_migrations) : "";
    }));
    c.push_back(csv_only(
        "error", [](const case_result &r) { return r.error; }, false));
    return c;
}

// Which columns the default table keeps when it cannot keep all (column::priority): what a
// user reads first at 0, the rest dropped from the highest number down. Unlisted: 3.
const std::map<std::string, int> &priorities() {
    static const std::map<std::string, int> p = {
        {"transport", 0},
        {"sender_impl", 0},
        {"source", 0},
        {"destination", 0},
        {"round", 2},
        {"receiver_impl", 0},
        {"direction", 0},  // shown only off the default (-R, --bidir): a reverse run says so
        {"sender_runtime", 4},
        {"receiver_runtime", 4},
        {"message_size", 0},
        {"streams", 0},
        {"mb_per_sec", 0},
        {"messages_per_sec", 0},
        {"lost", 0},
        {"latency_p50_ns", 0},
        {"latency_p99_ns", 0},
        {"sender_cpu_percent", 0},
        {"receiver_cpu_percent", 0},
        {"bytes_per_sec_cv", 1},
        {"latency_p50_cv", 1},
        {"duplicated", 1},
        {"corrupted", 1},
        {"latency_p999_ns", 1},
        {"latency_max_ns", 1},
        {"jain_fairness", 1},
        {"latency_p90_ns", 2},
        {"latency_samples", 2},
        {"cpu_us_per_round_trip", 2},
        {"sender_max_rss_kib", 2},
        {"receiver_max_rss_kib", 2},
        {"stream_min_bytes_per_sec", 2},
        {"same_cpu_percent", 2},
        {"mbit_per_sec", 3},
        {"io", 3},
        {"data_path", 4},
        {"latency_mean_ns", 3},
        {"messages_received", 4},
        {"latency_p9999_ns", 4},
        {"setup_per_sec", 4},
        {"duration_s", 5},
        {"setup_p99_ns", 5},
        {"mib_per_sec", 6},
    };
    return p;
}

}  // namespace

const std::vector<column> &result_columns() {
    static const std::vector<column> columns = [] {
        std::vector<column> all;
        for (auto part : {identity_columns(), throughput_figure_columns(), latency_figure_columns(),
                          process_columns(), scale_columns(), placement_columns()})
            for (auto &c : part) all.push_back(std::move(c));
        for (auto &c : all)
            if (const auto it = priorities().find(c.key); it != priorities().end())
                c.priority = it->second;
        return all;
    }();
    return columns;
}

const column *find_column(const std::string &key) {
    for (const auto &c : result_columns())
        if (c.key == key) return &c;
    return nullptr;
}

std::string column_keys() {
    std::string keys;
    for (const auto &c : result_columns()) keys += (keys.empty() ? "" : ", ") + c.key;
    return keys;
}

std::vector<std::pair<std::string, const column *>> table_columns(const run_report &report,
                                                                  table_kind kind) {
    const bool latency = kind == table_kind::latency;
    std::vector<std::pair<std::string, const column *>> out;
    for (const auto &c : result_columns()) {
        const std::string &header = latency ? c.latency_header : c.throughput_header;
        if (header.empty() || (c.shown && !c.shown(report, latency))) continue;
        out.emplace_back(header, &c);
    }
    return out;
}

bool is_throughput(const case_result &r) {
    return r.ok() && r.throughput.has_value();
}
bool is_latency(const case_result &r) {
    return r.ok() && r.is(model::measure_mode::latency) && r.latency.has_value();
}

std::string format_size(std::uint64_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} B", bytes);
}

}  // namespace ipcbench::report
