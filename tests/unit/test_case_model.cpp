// The typed case model (host/model/): what crosses the control channel is read back exactly,
// and anything else (a missing, mistyped or out-of-range field, a name outside the model) is
// refused with the field's name. Also the sums over streams and the placement figures, on
// synthetic input.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "harness/placement_sampler.hpp"
#include "model/job.hpp"
#include "model/json_fields.hpp"
#include "model/loop_result.hpp"
#include "report/json_report.hpp"

using namespace ipcbench;
using nlohmann::json;

namespace {

model::case_settings sample_case() {
    model::case_settings c;
    c.transport_id = "shm.ring";
    c.mode = model::measure_mode::latency;
    c.direction = model::traffic_direction::bidir;
    c.size_bytes = 65536;
    c.duration_s = 1.5;
    c.warmup_s = 0;
    c.count = 1000;
    c.timeout_s = 9;
    c.streams = 3;
    c.rate_per_s = 2500.5;
    c.burst = 7;
    c.verify = true;
    c.batch = 16;
    c.zero_copy = model::zero_copy_policy::off;
    c.interval_s = 0.25;
    c.affinity = {1, 0};
    c.options = {{"wait", "spin"}, {"slots", "64"}};
    c.sender_impl = "python";
    c.receiver_impl = "go";
    c.io = model::io_engine::epoll;
    c.threads = 2;
    return c;
}

std::string refusal(const json &j) {
    try {
        (void)j.get<model::case_settings>();
    } catch (const model::bad_field &e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST_CASE("case settings cross the control channel unchanged", "[model]") {
    const auto c = sample_case();
    const json wire = c;
    const auto back = json::parse(wire.dump()).get<model::case_settings>();
    CHECK(json(back) == wire);
    CHECK(back.transport_id == "shm.ring");
    CHECK(back.mode == model::measure_mode::latency);
    CHECK(back.direction == model::traffic_direction::bidir);
    CHECK(back.zero_copy == model::zero_copy_policy::off);
    CHECK(back.affinity.sender_cpu == 1);
    CHECK(back.affinity.receiver_cpu == 0);
    CHECK(back.burst == 7);
    CHECK(back.options.at("wait") == "spin");
    CHECK(back.io == model::io_engine::epoll);
    CHECK(back.threads == 2);

    model::job j{model::job_kind::pong, c, false, true, 1};
    const auto job_back = json::parse(json(j).dump()).get<model::job>();
    CHECK(job_back.kind == model::job_kind::pong);
    CHECK_FALSE(job_back.reliable);
    CHECK(job_back.cpu == 1);
    CHECK(job_back.settings.size_bytes == 65536);
}

TEST_CASE("a result file keeps every case setting: written, read back, each one restored",
          "[model]") {
    const auto c = sample_case();
    // The sample differs from the defaults in every field the list has, so each one is tried.
    const json defaults = model::case_settings{}, sample = c;
    REQUIRE(sample.size() == defaults.size());
    for (const auto &[name, value] : defaults.items()) {
        INFO(name);
        CHECK(sample.at(name) != value);
    }
    report::run_report run;
    run.results.resize(2);
    run.results[0].plugin = "shm";
    run.results[0].settings = c;
    run.results[0].integrity.messages_sent = 5;
    run.results[1] = run.results[0];
    run.results[1].status = report::case_status::failed;
    run.results[1].error = "it broke";
    run.results[1].settings.verify = false;
    const json file = json::parse(report::to_json(run).dump());
    const auto back = report::run_report_from_json(file);
    REQUIRE(back.results.size() == 2);
    for (const auto &[name, value] : sample.items()) {
        INFO(name);
        CHECK(json(back.results[0].settings).at(name) == value);  // measured
    }
    CHECK(json(back.results[1].settings) == json(run.results[1].settings));  // and failed
    CHECK_FALSE(back.results[1].settings.verify);

    // Read from an untrusted file, each setting is checked as on the control channel.
    json tampered = file;
    tampered["results"][0]["settings"]["burst"] = "four";
    CHECK_THROWS_WITH(report::run_report_from_json(tampered), Catch::Contains("burst"));
    tampered = file;
    tampered["results"][0]["settings"].erase("zero_copy");
    CHECK_THROWS_WITH(report::run_report_from_json(tampered), Catch::Contains("zero_copy"));
}

TEST_CASE("every figure of a result reads back as written, and a mistyped one is refused by name",
          "[model]") {
    report::run_report run;
    run.results.resize(1);
    auto &r = run.results[0];
    r.plugin = "shm";
    r.settings = sample_case();
    r.throughput = report::throughput_figures{1.5e9, 2.5e6};
    r.latency = report::latency_figures{"one_way_from_schedule", 1, 2, 3, 4, 5, 6, 7, 8.5, 9};
    r.integrity = {10, 9, 1, 2, 3, 4, 5};
    r.sender = {0.1,
                0.2,
                30,
                40,
                0.5,
                600,
                7,
                8,
                {0, 1},
                9.5,
                "go",
                "go1.19.8",
                97.5,
                6000,
                {1},
                {{"gc_cycles", 3}},
                0,
                0,
                {"LD_PRELOAD: the loader"}};
    r.receiver = {1.1,      1.2, 130,  140,  1.5, 1600, 17, 18, {1}, 19.5,
                  "native", "",  12.5, 7000, {0}, {},   0,  0,  {}};
    r.placement = report::placement_figures{21, 0.25, 3, 4};
    r.spread = ipcbench::stats::stream_spread{3, 1e6, 2e6, 3e6, 4e6, 0.875};
    r.setup = report::setup_figures{64, 0.5, 128, 1000, 2000, 3000};
    r.per_stream = {{100, 1e3, 1e6, 2, report::placement_figures{5, 0.5, 1, 0}},
                    {90, 9e2, 9e5, 0, std::nullopt}};
    r.intervals = {{0.1, 0.1, 50, 50 * 256, 1}, {0.2, 0.1, 40, 40 * 256, 0}};
    r.repeat_count = 3;
    r.median_repetition = 1;
    r.totals = report::repetition_totals{1.5, {30, 27, 3, 0, 0, 0, 0}, 27};
    r.statistics["bytes_per_sec"] = {ipcbench::stats::summarize({1, 2, 4}), {1, 2, 4}};
    r.worker_output["receiver"] = {5000, "a plugin's words"};
    run.environment.kernel = "6.1.0";
    run.environment.governor = "performance";
    run.environment.cores = 2;
    run.environment.load_average_1m = 0.5;
    run.repeat = 3;
    run.peer = "10.0.0.2:7878";
    const json written = report::to_json(run);
    const auto back = report::run_report_from_json(json::parse(written.dump()));
    // Written again from what was read, every figure is where it was, under the same name.
    CHECK(report::to_json(back).at("results") == written.at("results"));
    CHECK(report::to_json(back).at("environment") == written.at("environment"));
    CHECK(report::to_json(back).at("settings") == written.at("settings"));
    CHECK(written.at("results")[0].at("stream_spread").at("bytes_per_sec").at("p99") == 3e6);
    CHECK(written.at("results")[0].at("setup").at("latency_ns").at("max") == 3000);
    CHECK(written.at("results")[0].at("per_stream")[1].at("placement").is_null());
    CHECK(written.at("environment").at("cpu_governor") == "performance");
    CHECK(written.at("settings").at("peer") == "10.0.0.2:7878");
    const auto &b = back.results.at(0);
    CHECK(b.latency->kind == "one_way_from_schedule");
    CHECK(b.latency->p9999 == 6);
    CHECK(b.integrity.beyond_window == 5);
    CHECK(b.sender.cpus == std::vector<int>{0, 1});
    CHECK(b.receiver.rss_per_stream_kib == 19.5);
    CHECK(b.sender.implementation == "go");
    CHECK(b.sender.runtime == "go1.19.8");
    CHECK(b.sender.outside_cpu_percent == 97.5);
    CHECK(b.sender.outside_allowed_cpus == std::vector<int>{1});
    CHECK(b.sender.kit.at("gc_cycles") == 3);
    CHECK(b.placement->same_cpu_share == 0.25);
    CHECK(b.spread->jain == 0.875);
    CHECK(b.setup->p99_ns == 2000);
    CHECK(b.per_stream.at(0).placement->samples == 5);
    CHECK_FALSE(b.per_stream.at(1).placement);
    CHECK(b.intervals.at(1).bytes == 40 * 256);
    CHECK(b.totals->integrity.lost == 3);
    CHECK(b.statistics.at("bytes_per_sec").first.median == 2);
    CHECK(b.worker_output.at("receiver").text == "a plugin's words");
    CHECK(back.environment.kernel == "6.1.0");
    CHECK(back.repeat == 3);

    json tampered = written;
    tampered["results"][0]["sender"]["cpu_percent"] = "lots";
    CHECK_THROWS_WITH(report::run_report_from_json(tampered),
                      Catch::Contains("'sender.cpu_percent' has the wrong type"));
    tampered = written;
    tampered["results"][0]["integrity"].erase("lost");
    CHECK_THROWS_WITH(report::run_report_from_json(tampered),
                      Catch::Contains("'integrity.lost' is missing"));
    tampered = written;
    tampered["results"][0]["setup"]["latency_ns"]["p50"] = "fast";
    CHECK_THROWS_WITH(report::run_report_from_json(tampered),
                      Catch::Contains("'setup.latency_ns.p50' has the wrong type"));
    tampered = written;
    tampered["results"][0]["stream_spread"].erase("bytes_per_sec");
    CHECK_THROWS_WITH(report::run_report_from_json(tampered),
                      Catch::Contains("'stream_spread.bytes_per_sec' must be an object"));
    tampered = written;  // a figure added after 1.0 may be missing: it reads as 0
    tampered["results"][0]["integrity"].erase("beyond_window");
    CHECK(report::run_report_from_json(tampered).results.at(0).integrity.beyond_window == 0);
}

TEST_CASE("a case field that is missing, mistyped, out of range or unnamed is refused by name",
          "[model]") {
    const json good = sample_case();
    auto with = [&](const char *key, json value) {
        json j = good;
        j[key] = std::move(value);
        return refusal(j);
    };
    json missing = good;
    missing.erase("streams");
    CHECK_THAT(refusal(missing), Catch::Contains("'streams' is missing"));
    CHECK_THAT(with("streams", "3"), Catch::Contains("'streams' must be a non-negative integer"));
    CHECK_THAT(with("streams", 50000), Catch::Contains("'streams' is 50000, outside 1..20000"));
    CHECK_THAT(with("io", "kqueue"), Catch::Contains("'io' has the unknown value 'kqueue'"));
    CHECK_THAT(with("threads", 5000), Catch::Contains("'threads' is 5000, outside 0..1024"));
    CHECK_THAT(with("batch", -1), Catch::Contains("'batch'"));
    CHECK_THAT(with("size_bytes", 1.5), Catch::Contains("'size_bytes'"));
    CHECK_THAT(with("mode", "fast"), Catch::Contains("'mode' has the unknown value 'fast'"));
    CHECK_THAT(with("zero_copy", true), Catch::Contains("'zero_copy' must be a string"));
    CHECK_THAT(with("duration_s", -1), Catch::Contains("'duration_s' is out of range"));
    CHECK_THAT(with("rate_per_s", "NaN"), Catch::Contains("'rate_per_s' must be a number"));
    CHECK_THAT(with("sender_cpu", 99999), Catch::Contains("'sender_cpu'"));
    CHECK_THAT(with("verify", 1), Catch::Contains("'verify' must be true or false"));
    CHECK_THAT(with("options", json{{"k", 5}}), Catch::Contains("'options'"));
    CHECK_THAT(with("transport", std::string(300, 'x')), Catch::Contains("longer than 200"));
    CHECK_THAT(refusal(json::array()), Catch::Contains("expected a JSON object"));
}

TEST_CASE("a worker's result is read back exactly, and a malformed one is refused", "[model]") {
    model::loop_result stream;
    stream.part = model::job_kind::receive;
    stream.messages_received = 10;
    stream.bytes_received = 10240;
    stream.counted_messages = 10;
    stream.first_ns = 1'000;
    stream.end_ns = 2'000'001'000;
    stream.path = "recv_batch";
    stream.thread_id = 4242;
    stream.histogram.emplace();
    stream.histogram->record(1500);
    auto sum = model::sum_streams(model::job_kind::receive, {stream, stream});
    model::worker_result answer{{sum}};
    const auto back = json::parse(json(answer).dump()).get<model::worker_result>();
    const auto &r = back.part(model::job_kind::receive);
    CHECK(r.messages_received == 20);
    CHECK(r.bytes_received == 20480);
    CHECK(r.window_s() == Approx(2.0));
    REQUIRE(r.streams.size() == 2);
    CHECK(r.streams[1].thread_id == 4242);
    REQUIRE(r.histogram.has_value());
    CHECK(r.histogram->count() == 2);
    CHECK_THROWS_WITH(back.part(model::job_kind::send), Catch::Contains("no 'send' part"));

    json bad = answer;
    bad["parts"][0]["messages_received"] = "lots";
    CHECK_THROWS_WITH(bad.get<model::worker_result>(), Catch::Contains("'messages_received'"));
    // Streams travel as rows of numbers; a row of another width or with a mistyped entry is
    // refused by position.
    json narrow = answer;
    narrow["parts"][0]["streams"]["rows"][0].erase(0);
    CHECK_THROWS_WITH(narrow.get<model::worker_result>(), Catch::Contains("each row must list"));
    json mistyped = answer;
    mistyped["parts"][0]["streams"]["rows"][1][0] = -5;
    CHECK_THROWS_WITH(mistyped.get<model::worker_result>(),
                      Catch::Contains("counter warmup_messages of row 1 is not a count"));
    json stray = answer;
    stray["parts"][0]["streams"]["errors"] = json::array({{{"stream", 7}, {"error", "x"}}});
    CHECK_THROWS_WITH(stray.get<model::worker_result>(), Catch::Contains("'stream'"));
    json three = answer;
    three["parts"] = json::array({json(sum), json(sum), json(sum)});
    CHECK_THROWS_WITH(three.get<model::worker_result>(), Catch::Contains("one or two parts"));
}

TEST_CASE("summing streams adds counts, spans windows and names the first failing stream",
          "[model]") {
    model::loop_result a, b;
    a.messages_sent = 5;
    a.first_ns = 300;
    a.end_ns = 900;
    b.messages_sent = 7;
    b.first_ns = 100;
    b.end_ns = 700;
    b.error = "pipe.fifo send failed";
    b.status = -3;
    auto sum = model::sum_streams(model::job_kind::send, {a, b});
    CHECK(sum.messages_sent == 12);
    CHECK(sum.first_ns == 100);
    CHECK(sum.end_ns == 900);
    CHECK(sum.error == "pipe.fifo send failed (stream 1)");
    CHECK(sum.status == -3);
    CHECK(json(model::worker_result{{sum}}).at("error") == "pipe.fifo send failed (stream 1)");
}

TEST_CASE("placement: shared CPU share and migrations from synthetic samples", "[model]") {
    using platform::thread_placement;
    // Sender thread 1, receiver thread 2; 11 samples 10 ms apart, both running every time.
    auto run = [](int sender_cpu_from, int receiver_cpu, int moves_at) {
        harness::placement_sampler s(100, 200);
        for (int i = 0; i <= 10; ++i) {
            const int cpu = i >= moves_at ? 1 - sender_cpu_from : sender_cpu_from;
            const auto ran = static_cast<std::uint64_t>(i) * 1'000'000;
            s.record(1'000'000'000 + i * 10'000'000,
                     {{1, cpu, ran, i >= moves_at ? 1u : 0u, true}, {9, 0, 0, 0, true}},
                     {{2, receiver_cpu, ran, 0, true}});
        }
        return s;
    };
    const auto apart = run(0, 1, 99).figures(1'000'000'000, 1'100'000'000, {1}, {2});
    REQUIRE(apart.has_value());
    CHECK(apart->samples == 10);
    CHECK(apart->same_cpu_share == 0);
    CHECK(apart->sender_migrations == 0);
    const auto together = run(1, 1, 99).figures(1'000'000'000, 1'100'000'000, {1}, {2});
    REQUIRE(together.has_value());
    CHECK(together->same_cpu_share == 1);
    // The sender moves from CPU 0 to the receiver's CPU 1 at the 6th sample: 5 of 10 shared.
    const auto moved = run(0, 1, 6).figures(1'000'000'000, 1'100'000'000, {1}, {2});
    REQUIRE(moved.has_value());
    CHECK(moved->same_cpu_share == Approx(0.5));
    CHECK(moved->sender_migrations == 1);
    CHECK(moved->receiver_migrations == 0);
    // Samples outside the window do not count; a window with fewer than two has no figures.
    CHECK_FALSE(run(0, 1, 99).figures(2'000'000'000, 3'000'000'000, {1}, {2}).has_value());
    // A side on another host has none either.
    harness::placement_sampler remote(100, 0);
    remote.sample();
    CHECK_FALSE(remote.figures(1, 2'000'000'000, {1}, {2}).has_value());
}

TEST_CASE("placement: migration counts carried over from before the window do not count",
          "[model]") {
    // Pinned at the start of the job (one migration, read before the window); in the window the
    // count is carried over, then read again unchanged: no migration in the window.
    harness::placement_sampler s(100, 200);
    s.record(5, {{1, 0, 10, 0, true}}, {{2, 1, 10, 0, true}});
    s.record(10'000'005, {{1, 0, 20, 1, false}}, {{2, 1, 20, 0, false}});
    s.record(20'000'005, {{1, 0, 30, 1, true}}, {{2, 1, 30, 0, true}});
    s.record(30'000'005, {{1, 0, 40, 1, true}}, {{2, 1, 40, 0, true}});
    const auto f = s.figures(10'000'000, 40'000'000, {1}, {2});
    REQUIRE(f.has_value());
    CHECK(f->sender_migrations == 0);
    CHECK(f->receiver_migrations == 0);
}

TEST_CASE("placement: a thread that did not run is not counted as sharing", "[model]") {
    harness::placement_sampler s(100, 200);
    for (int i = 0; i <= 4; ++i)  // same CPU, but the receiver's run time never grows
        s.record(i * 10'000'000 + 1, {{1, 0, static_cast<std::uint64_t>(i) * 100, 0}},
                 {{2, 0, 500, 0}});
    const auto f = s.figures(1, 50'000'000, {1}, {2});
    REQUIRE(f.has_value());
    CHECK(f->samples == 4);
    CHECK(f->same_cpu_share == 0);
}
