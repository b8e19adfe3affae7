// Every figure of a result, checked by value against a computation written out here, on
// synthetic input: what the workers counted goes through harness/case_figures.cpp and
// harness/scale_figures.cpp and out through JSON, CSV and the table. The two sides are given
// different numbers throughout (windows, CPU, memory), so a figure read from the wrong side or
// the wrong window shows; percentiles come from a distribution where each one is ten times the
// one before, so one reported as another shows.
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/case_figures.hpp"
#include "harness/placement_sampler.hpp"
#include "harness/scale_figures.hpp"
#include "report/csv_report.hpp"
#include "report/json_report.hpp"
#include "report/repetition_summary.hpp"
#include "report/table_report.hpp"

using namespace ipcbench;
using model::loop_result;
using nlohmann::json;

namespace {

constexpr double mb = 1e6, mib = 1048576.0;

// 100,000 samples: half 100 ns, then 1 us, 10 us, 100 us, 1 ms, 10 ms, and one of 100 ms. The
// nearest-rank percentiles fall each on its own value, at the last sample of a run of ties:
// p50 = rank 50,000 = 100, p90 = rank 90,000 = 1,000, p99 = 10,000, p99.9 = 100,000,
// p99.99 = 1,000,000; max 100,000,000, min 100, mean 505,000,000 / 100,000 = 5,050.
stats::latency_histogram tail_distribution() {
    stats::latency_histogram h;
    const std::pair<std::uint64_t, int> runs[] = {{100, 50000},  {1000, 40000}, {10000, 9000},
                                                  {100000, 900}, {1000000, 90}, {10000000, 9},
                                                  {100000000, 1}};
    for (const auto &[value, n] : runs)
        for (int i = 0; i < n; ++i) h.record(value);
    return h;
}

// Within the histogram's documented error of the value recorded.
bool near(std::uint64_t reported, std::uint64_t recorded) {
    return static_cast<double>(reported) >=
               recorded * (1 - stats::latency_histogram::relative_error) &&
           static_cast<double>(reported) <=
               recorded * (1 + stats::latency_histogram::relative_error);
}

platform::resource_usage usage(double user, double sys, std::int64_t rss, std::int64_t vol,
                               std::int64_t invol, std::uint64_t cpus) {
    platform::resource_usage u;
    u.cpu_user_s = user;
    u.cpu_sys_s = sys;
    u.max_rss_kib = rss;
    u.voluntary_ctx_switches = vol;
    u.involuntary_ctx_switches = invol;
    u.cpus_seen = cpus;
    return u;
}

// The sender: 1,000 messages of 1 KiB in a 0.5 s window, 0.10 + 0.05 s of CPU, on CPUs 0 and 2.
loop_result sender_side() {
    loop_result s;
    s.part = model::job_kind::send;
    s.messages_sent = 1000;
    s.bytes_sent = 1000 * 1024;
    s.first_ns = 1'000'000'000;
    s.end_ns = 1'500'000'000;
    s.usage = usage(0.10, 0.05, 3000, 11, 12, 0b101);
    loop_result a = s, b = s;  // two streams: 600 and 400 messages
    a.messages_sent = 600;
    b.messages_sent = 400;
    s.streams = {a, b};
    return s;
}

// The receiver: 990 arrivals (5 of them duplicates), 980 counted in its own 0.25 s window,
// 0.02 + 0.03 s of CPU, on CPU 1.
loop_result receiver_side() {
    loop_result r;
    r.part = model::job_kind::receive;
    r.messages_received = 990;
    r.duplicates = 5;
    r.out_of_order = 7;
    r.beyond_window = 2;
    r.corrupted = 3;
    r.counted_messages = 980;
    r.bytes_received = 990 * 1024;
    r.first_ns = 1'100'000'000;
    r.end_ns = 1'350'000'000;
    r.usage = usage(0.02, 0.03, 4000, 21, 22, 0b10);
    loop_result a = r, b = r;
    a.messages_received = 598;  // 2 duplicates: 596 unique of 600
    a.duplicates = 2;
    a.counted_messages = 590;
    a.first_ns = 1'100'000'000;
    a.end_ns = 1'300'000'000;  // 0.2 s
    b.messages_received = 392;
    b.duplicates = 3;  // 389 unique of 400
    b.counted_messages = 390;
    b.first_ns = 1'150'000'000;
    b.end_ns = 1'350'000'000;  // 0.2 s
    r.streams = {a, b};
    return r;
}

report::case_result throughput_case() {
    report::case_result r;
    r.plugin = "socket";
    r.settings.transport_id = "socket.tcp";
    r.settings.mode = model::measure_mode::throughput;
    r.settings.size_bytes = 1024;
    r.settings.streams = 2;
    r.settings.io = model::io_engine::epoll;  // no placement: that is the thread engine's
    harness::placement_sampler no_samples(0, 0);
    loop_result received = receiver_side();
    received.histogram = tail_distribution();  // paced: one-way latency from the schedule
    harness::fill_throughput(r, sender_side(), received, no_samples);
    return r;
}

}  // namespace

TEST_CASE("throughput figures: rates over the receiver's window, each side's CPU over its own",
          "[figures]") {
    const auto r = throughput_case();
    CHECK(r.duration_s == Approx(0.25));
    REQUIRE(r.throughput);
    CHECK(r.throughput->messages_per_sec == Approx(980 / 0.25));
    CHECK(r.throughput->bytes_per_sec == Approx(980 / 0.25 * 1024));
    const auto &i = r.integrity;
    CHECK(i.messages_sent == 1000);
    CHECK(i.messages_received == 990);
    CHECK(i.lost == 1000 - (990 - 5));
    CHECK(i.out_of_order == 7);
    CHECK(i.duplicated == 5);
    CHECK(i.beyond_window == 2);
    CHECK(i.corrupted == 3);
    // The sender: 0.15 s of CPU in 0.5 s, for 1,024,000 bytes and 1,000 messages.
    CHECK(r.sender.cpu_user_s == Approx(0.10));
    CHECK(r.sender.cpu_sys_s == Approx(0.05));
    CHECK(r.sender.cpu_percent == Approx(0.15 / 0.5 * 100));
    CHECK(r.sender.cpu_us_per_mb == Approx(0.15e6 / (1024000 / mb)));
    CHECK(r.sender.cpu_us_per_message == Approx(0.15e6 / 1000));
    CHECK(r.sender.max_rss_kib == 3000);
    CHECK(r.sender.voluntary_ctx_switches == 11);
    CHECK(r.sender.involuntary_ctx_switches == 12);
    CHECK(r.sender.cpus == std::vector<int>{0, 2});
    // The receiver: 0.05 s in its 0.25 s window, for 1,013,760 bytes and 990 messages.
    CHECK(r.receiver.cpu_percent == Approx(0.05 / 0.25 * 100));
    CHECK(r.receiver.cpu_us_per_mb == Approx(0.05e6 / (990 * 1024 / mb)));
    CHECK(r.receiver.cpu_us_per_message == Approx(0.05e6 / 990));
    CHECK(r.receiver.max_rss_kib == 4000);
    CHECK(r.receiver.voluntary_ctx_switches == 21);
    CHECK(r.receiver.involuntary_ctx_switches == 22);
    CHECK(r.receiver.cpus == std::vector<int>{1});
    // Each stream over its own window, its loss against its own sender.
    REQUIRE(r.per_stream.size() == 2);
    CHECK(r.per_stream[0].messages == 598);
    CHECK(r.per_stream[0].messages_per_sec == Approx(590 / 0.2));
    CHECK(r.per_stream[0].bytes_per_sec == Approx(590 / 0.2 * 1024));
    CHECK(r.per_stream[0].lost == 600 - 596);
    CHECK(r.per_stream[1].messages == 392);
    CHECK(r.per_stream[1].messages_per_sec == Approx(390 / 0.2));
    CHECK(r.per_stream[1].lost == 400 - 389);
    CHECK_FALSE(r.placement.has_value());  // not sampled: none made up
}

TEST_CASE("latency percentiles are nearest-rank over every sample, ties included", "[figures]") {
    const auto h = tail_distribution();
    CHECK(h.count() == 100000);
    CHECK(h.percentile(50) == 100);  // exact below 256 ns
    CHECK(near(h.percentile(90), 1000));
    CHECK(near(h.percentile(99), 10000));
    CHECK(near(h.percentile(99.9), 100000));
    CHECK(near(h.percentile(99.99), 1000000));
    CHECK(h.percentile(100) == 100000000);
    // One sample past a run of ties is the next value.
    stats::latency_histogram two;
    for (int k = 0; k < 99; ++k) two.record(10);
    two.record(200);
    CHECK(two.percentile(99) == 10);
    CHECK(two.percentile(99.5) == 200);
    // As a paced run's one-way figures, and as a ping-pong's round trips.
    const auto r = throughput_case();
    REQUIRE(r.latency);
    CHECK(r.latency->kind == "one_way_from_schedule");
    CHECK(r.latency->p50 == 100);
    CHECK(near(r.latency->p90, 1000));
    CHECK(near(r.latency->p99, 10000));
    CHECK(near(r.latency->p999, 100000));
    CHECK(near(r.latency->p9999, 1000000));
    CHECK(r.latency->max == 100000000);
    CHECK(r.latency->min == 100);
    CHECK(r.latency->mean == Approx(5050.0));
    CHECK(r.latency->samples == 100000);
}

TEST_CASE("ping-pong figures: round trips, each side's CPU per trip, both directions' bytes",
          "[figures]") {
    loop_result pinger, ponger;
    pinger.part = model::job_kind::ping;
    pinger.pings_sent = 500;
    pinger.round_trips = 495;
    pinger.lost = 5;
    pinger.mismatched = 2;
    pinger.corrupted = 1;
    pinger.first_ns = 2'000'000'000;
    pinger.end_ns = 3'000'000'000;  // 1 s
    pinger.usage = usage(0.3, 0.1, 5000, 1, 2, 0b1);
    pinger.histogram = tail_distribution();
    ponger.part = model::job_kind::pong;
    ponger.echoed = 495;
    ponger.first_ns = 2'000'000'000;
    ponger.end_ns = 2'800'000'000;  // its own 0.8 s
    ponger.usage = usage(0.1, 0.1, 6000, 3, 4, 0b10);
    report::case_result r;
    r.settings.mode = model::measure_mode::latency;
    r.settings.size_bytes = 32;
    r.settings.io = model::io_engine::epoll;
    harness::fill_latency(r, pinger, ponger, harness::placement_sampler(0, 0));
    REQUIRE(r.latency);
    CHECK(r.latency->kind == "round_trip");
    CHECK(r.latency->p50 == 100);
    CHECK(near(r.latency->p99, 10000));
    CHECK(r.latency->samples == 100000);
    CHECK(r.duration_s == Approx(1.0));
    CHECK(r.integrity.messages_sent == 500);
    CHECK(r.integrity.messages_received == 495);
    CHECK(r.integrity.lost == 5);
    CHECK(r.integrity.out_of_order == 2);
    CHECK(r.integrity.corrupted == 1);
    // Each round trip moves 32 bytes there and 32 back.
    const double bytes = 2.0 * 495 * 32;
    CHECK(r.sender.cpu_percent == Approx(0.4 / 1.0 * 100));
    CHECK(r.sender.cpu_us_per_message == Approx(0.4e6 / 495));
    CHECK(r.sender.cpu_us_per_mb == Approx(0.4e6 / (bytes / mb)));
    CHECK(r.receiver.cpu_percent == Approx(0.2 / 0.8 * 100));
    CHECK(r.receiver.cpu_us_per_message == Approx(0.2e6 / 495));
    CHECK(r.sender.max_rss_kib == 5000);
    CHECK(r.receiver.max_rss_kib == 6000);
}

TEST_CASE("scale figures: spread and fairness of the streams, set-up rate, RSS per stream",
          "[figures]") {
    report::case_result r;
    r.settings.streams = 4;
    r.sender.max_rss_kib = 10000;
    r.receiver.max_rss_kib = 20000;
    // 1, 2, 3 and 6 MB/s: nearest rank p50 = 2 (rank 2 of 4), p99 = 6; Jain (12^2)/(4*50) = 0.72.
    for (double x : {3e6, 1e6, 6e6, 2e6}) {
        report::stream_figures s;
        s.bytes_per_sec = x;
        r.per_stream.push_back(s);
    }
    stats::latency_histogram connects;
    for (std::uint64_t ns : {1000, 2000, 3000, 50000}) connects.record(ns);
    const json connector = {{"connections", 4},
                            {"total_ns", 200'000},
                            {"histogram", connects.to_json()},
                            {"rss_before_kib", 9000}};
    const json sender = {{"rss_before_kib", 8000}};
    const json receiver = {{"rss_before_kib", 12000}};
    harness::fill_scale(r, sender, receiver, connector);
    REQUIRE(r.spread);
    CHECK(r.spread->n == 4);
    CHECK(r.spread->min == Approx(1e6));
    CHECK(r.spread->p50 == Approx(2e6));
    CHECK(r.spread->p99 == Approx(6e6));
    CHECK(r.spread->max == Approx(6e6));
    CHECK(r.spread->jain == Approx(144e12 / (4 * 50e12)));
    REQUIRE(r.setup);
    CHECK(r.setup->connections == 4);
    CHECK(r.setup->seconds == Approx(0.0002));
    CHECK(r.setup->per_second == Approx(4 / 0.0002));
    CHECK(near(r.setup->p50_ns, 2000));
    CHECK(near(r.setup->p99_ns, 50000));
    CHECK(r.setup->max_ns == 50000);
    CHECK(r.sender.rss_per_stream_kib == Approx((10000 - 8000) / 4.0));
    CHECK(r.receiver.rss_per_stream_kib == Approx((20000 - 12000) / 4.0));
}

namespace {

// The one row of a CSV document, by column key.
std::map<std::string, std::string> csv_row(const std::string &csv) {
    std::istringstream in(csv);
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    auto split = [](const std::string &line) {
        std::vector<std::string> out;
        std::string cell;
        bool quoted = false;
        for (char c : line) {
            if (c == '"')
                quoted = !quoted;
            else if (c == ',' && !quoted) {
                out.push_back(cell);
                cell.clear();
            } else {
                cell += c;
            }
        }
        out.push_back(cell);
        return out;
    };
    const auto keys = split(header), values = split(row);
    std::map<std::string, std::string> m;
    for (std::size_t k = 0; k < keys.size() && k < values.size(); ++k) m[keys[k]] = values[k];
    return m;
}

double number(const std::map<std::string, std::string> &row, const std::string &key) {
    INFO(key);
    REQUIRE(row.count(key));
    return std::stod(row.at(key));
}

report::run_report one_result(report::case_result r) {
    report::run_report report;
    report.results.push_back(std::move(r));
    return report;
}

}  // namespace

TEST_CASE("JSON and CSV carry each figure under its own name, in its own unit", "[figures]") {
    auto r = throughput_case();
    r.throughput->bytes_per_sec = 123456789;  // MB/s 123.456789, MiB/s 117.737..., Mbit/s 987.65
    r.throughput->messages_per_sec = 120563;
    const auto report = one_result(r);
    const json doc = report::to_json(report);
    const json &j = doc.at("results").at(0);
    const json &t = j.at("throughput");
    CHECK(t.at("bytes_per_sec").get<double>() == Approx(123456789));
    CHECK(t.at("mb_per_sec").get<double>() == Approx(123456789 / mb));
    CHECK(t.at("mib_per_sec").get<double>() == Approx(123456789 / mib));
    CHECK(t.at("mbit_per_sec").get<double>() == Approx(123456789 * 8 / mb));
    CHECK(t.at("messages_per_sec").get<double>() == Approx(120563));
    const json &l = j.at("latency_ns");
    CHECK(l.at("p50") == 100);
    CHECK(near(l.at("p90").get<std::uint64_t>(), 1000));
    CHECK(near(l.at("p99").get<std::uint64_t>(), 10000));
    CHECK(near(l.at("p999").get<std::uint64_t>(), 100000));
    CHECK(near(l.at("p9999").get<std::uint64_t>(), 1000000));
    CHECK(l.at("max") == 100000000);
    CHECK(l.at("min") == 100);
    CHECK(l.at("mean").get<double>() == Approx(5050));
    CHECK(j.at("sender").at("cpu_percent").get<double>() == Approx(30));
    CHECK(j.at("receiver").at("cpu_percent").get<double>() == Approx(20));
    CHECK(j.at("sender").at("max_rss_kib") == 3000);
    CHECK(j.at("receiver").at("max_rss_kib") == 4000);
    CHECK(j.at("integrity").at("lost") == 15);
    CHECK(j.at("integrity").at("duplicated") == 5);
    CHECK(j.at("integrity").at("out_of_order") == 7);
    CHECK(j.at("duration_s").get<double>() == Approx(0.25));

    const auto row = csv_row(report::to_csv(report));
    CHECK(number(row, "bytes_per_sec") == Approx(123456789));
    CHECK(number(row, "mb_per_sec") == Approx(123456789 / mb));
    CHECK(number(row, "mib_per_sec") == Approx(123456789 / mib));
    CHECK(number(row, "mbit_per_sec") == Approx(123456789 * 8 / mb));
    CHECK(number(row, "messages_per_sec") == Approx(120563));
    CHECK(number(row, "latency_p50_ns") == 100);
    CHECK(near(static_cast<std::uint64_t>(number(row, "latency_p90_ns")), 1000));
    CHECK(near(static_cast<std::uint64_t>(number(row, "latency_p99_ns")), 10000));
    CHECK(near(static_cast<std::uint64_t>(number(row, "latency_p999_ns")), 100000));
    CHECK(near(static_cast<std::uint64_t>(number(row, "latency_p9999_ns")), 1000000));
    CHECK(number(row, "latency_max_ns") == 100000000);
    CHECK(number(row, "sender_cpu_percent") == Approx(30));
    CHECK(number(row, "receiver_cpu_percent") == Approx(20));
    CHECK(number(row, "sender_cpu_us_per_mb") == Approx(0.15e6 / 1.024));
    CHECK(number(row, "receiver_cpu_us_per_mb") == Approx(0.05e6 / (990 * 1024 / mb)));
    CHECK(number(row, "sender_max_rss_kib") == 3000);
    CHECK(number(row, "receiver_max_rss_kib") == 4000);
    CHECK(number(row, "lost") == 15);
    CHECK(number(row, "messages_received") == 990);
    CHECK(number(row, "messages_sent") == 1000);
    CHECK(number(row, "duration_s") == Approx(0.25));
    CHECK(row.at("stream_min_bytes_per_sec").empty());  // one stream: no spread, no figure made up
}

namespace {

// The table's lines, and the cell of row `row` under the header `name` (cells are right-aligned
// under their header's end; the first column is left-aligned).
struct table_text {
    std::vector<std::string> lines;
    std::size_t header = 0;
    explicit table_text(const std::string &text) {
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        while (header < lines.size() && lines[header].rfind("transport", 0) != 0) ++header;
        REQUIRE(header + 1 < lines.size());
    }
    bool has(const std::string &name) const {
        return lines[header].find(name) != std::string::npos;
    }
    std::string cell(const std::string &name, std::size_t row = 0) const {
        const std::string &head = lines[header];
        const auto at = head.find(name);
        INFO(name);
        REQUIRE(at != std::string::npos);
        const std::string &line = lines[header + 1 + row];
        std::size_t from = at + name.size(), to = from;
        while (from > 0 && line[from - 1] != ' ') --from;
        while (to < line.size() && line[to] != ' ') ++to;
        return line.substr(from, to - from);
    }
};

}  // namespace

TEST_CASE("the table shows each figure in the unit its header names, within 120 columns",
          "[figures]") {
    auto r = throughput_case();
    r.throughput->bytes_per_sec = 123456789;
    r.throughput->messages_per_sec = 120563;
    const auto report = one_result(r);
    // The default: fits 120, the figures read first, and says what it left out.
    const std::string fitted = report::to_table(report);
    INFO(fitted);
    for (const auto &line : table_text(fitted).lines) CHECK(line.size() <= 120);
    const table_text t(fitted);
    CHECK(t.cell("MB/s") == "123.5");
    CHECK(t.cell("msg/s") == "120.6k");
    CHECK(t.cell("lost") == "15");
    CHECK(t.cell("sender CPU%") == "30");
    CHECK(t.cell("receiver CPU%") == "20");
    CHECK(t.cell("1-way p50 us") == "0.10");  // 100 ns
    std::string words;                        // the note, wrapped at any space
    for (std::istringstream in(fitted); in;) {
        std::string word;
        if (in >> word) words += word + " ";
    }
    CHECK_THAT(words, Catch::Contains("more: sender RSS MiB, receiver RSS MiB") &&
                          Catch::Contains("--wide shows them, --columns picks"));
    // --wide: every column, each in its unit.
    report::table_layout wide;
    wide.wide = true;
    const table_text w(report::to_table(report, false, wide));
    CHECK(w.cell("MiB/s") == "117.7");
    CHECK(w.cell("Mbit/s") == "988");
    CHECK(w.cell("sender RSS MiB") == "2.9");    // 3000 KiB
    CHECK(w.cell("receiver RSS MiB") == "3.9");  // 4000 KiB
    CHECK(w.cell("sender us/MB") == "146484");   // 0.15 s for 1.024 MB
    CHECK(w.cell("receiver us/MB") == "49321");  // 0.05 s for 1.01376 MB
    CHECK(w.cell("total ms") == "250");
    CHECK(w.cell("messages") == "990");
    // The p99.9 figure (100 us, as the histogram reports it), in microseconds.
    char p999[32];
    std::snprintf(p999, sizeof p999, "%.2f", static_cast<double>(r.latency->p999) / 1000);
    CHECK(w.cell("p99.9 us") == p999);
    CHECK_THAT(w.lines[w.header], !Catch::Contains("--wide"));
    // --columns: those, in that order, and nothing else.
    report::table_layout picked;
    picked.columns = {"transport", "mib_per_sec", "lost"};
    const table_text p(report::to_table(report, false, picked));
    CHECK(p.lines[p.header] == "transport   MiB/s  lost");
    CHECK(p.cell("MiB/s") == "117.7");
}

TEST_CASE("repeated cases: the median repetition's figures, every repetition's totals and spread",
          "[figures]") {
    report::case_result r;
    r.settings.mode = model::measure_mode::throughput;
    r.settings.size_bytes = 1000;
    // Three repetitions, told apart in every figure: bytes/s 3e6, 1e6, 2e6 (the median is the
    // third), each with its own counts, window and CPU.
    const double rates[] = {3e6, 1e6, 2e6};
    for (int k = 0; k < 3; ++k) {
        report::case_result rep = r;
        rep.throughput = report::throughput_figures{rates[k], rates[k] / 1000};
        rep.duration_s = 0.5 + k;
        rep.integrity.messages_sent = 100 + static_cast<std::uint64_t>(k);
        rep.integrity.messages_received = 90 + static_cast<std::uint64_t>(k);
        rep.integrity.lost = 10;
        rep.integrity.out_of_order = 1 + static_cast<std::uint64_t>(k);
        rep.integrity.duplicated = 2;
        rep.integrity.corrupted = static_cast<std::uint64_t>(k);
        rep.sender.cpu_percent = 10.0 * (k + 1);
        rep.receiver.cpu_percent = 5.0 * (k + 1);
        r.repetitions.push_back(rep);
    }
    report::summarize_repetitions(r, 10);
    CHECK(r.repeat_count == 3);
    CHECK(r.median_repetition == 2);
    REQUIRE(r.throughput);
    CHECK(r.throughput->bytes_per_sec == Approx(2e6));
    CHECK(r.duration_s == Approx(2.5));         // the median repetition's own window
    CHECK(r.sender.cpu_percent == Approx(30));  // and its own CPU, not another's
    REQUIRE(r.totals);
    CHECK(r.totals->duration_s == Approx(0.5 + 1.5 + 2.5));
    CHECK(r.totals->integrity.messages_sent == 303);
    CHECK(r.totals->integrity.messages_received == 273);
    CHECK(r.totals->integrity.lost == 30);
    CHECK(r.totals->integrity.out_of_order == 6);
    CHECK(r.totals->integrity.duplicated == 6);
    CHECK(r.totals->integrity.corrupted == 3);
    // The spread of a figure over the repetitions: 1, 2, 3 MB/s.
    const auto &spread = r.statistics.at("bytes_per_sec").first;
    CHECK(spread.n == 3);
    CHECK(spread.median == Approx(2e6));
    CHECK(spread.mean == Approx(2e6));
    CHECK(spread.min == Approx(1e6));
    CHECK(spread.max == Approx(3e6));
    CHECK(spread.stddev == Approx(1e6));  // sample standard deviation
    CHECK(spread.cv == Approx(0.5));
    CHECK(r.statistics.at("receiver_cpu_percent").first.max == Approx(15));
}

TEST_CASE("placement counts only the part of the window both sides spent in their timed loops",
          "[figures]") {
    // The ponger (thread 2) pins itself to CPU 0 a moment after the pinger's window began: the
    // samples before its own window show it on CPU 1, after on CPU 0 with the pinger (thread 1).
    harness::placement_sampler placement(100, 200);
    for (int i = 0; i < 20; ++i) {
        const std::int64_t at = 1'000'000'000 + i * 10'000'000;  // every 10 ms over 0.2 s
        const int ponger_cpu = i < 5 ? 1 : 0;
        const auto ran = static_cast<std::uint64_t>(i + 1) * 1000;
        placement.record(at, {{1, 0, ran, 0, true}}, {{2, ponger_cpu, ran, i < 5 ? 0u : 1u, true}});
    }
    loop_result pinger, ponger;
    pinger.part = model::job_kind::ping;
    pinger.first_ns = 1'000'000'000;
    pinger.end_ns = 1'200'000'000;
    pinger.thread_id = 1;
    pinger.round_trips = 10;
    pinger.streams = {pinger};
    ponger.part = model::job_kind::pong;
    ponger.first_ns = 1'055'000'000;  // its first timed ping, after the move
    ponger.end_ns = 1'200'000'000;
    ponger.thread_id = 2;
    ponger.streams = {ponger};
    report::case_result r;
    r.settings.mode = model::measure_mode::latency;
    r.settings.size_bytes = 32;
    r.settings.io = model::io_engine::threads;
    harness::fill_latency(r, pinger, ponger, placement);
    REQUIRE(r.placement);
    CHECK(r.placement->receiver_migrations == 0);  // the move was before its window
    CHECK(r.placement->sender_migrations == 0);
    CHECK(r.placement->same_cpu_share == Approx(1.0));  // together on CPU 0 all the while
    REQUIRE(r.per_stream.size() == 1);
    REQUIRE(r.per_stream[0].placement);
    CHECK(r.per_stream[0].placement->receiver_migrations == 0);
}
