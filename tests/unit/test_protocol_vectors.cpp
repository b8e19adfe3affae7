// The shared vectors of protocol/vectors/: tables of inputs and the decisions the timed side
// takes, run here against the host's rules (host/timed/timing_rules.hpp, the reassembly, the
// histogram, the sequence tracker, the payload pattern) and by every kit's own unit tests
// against the kit's (docs/worker-protocol.md, "Shared vectors"). A row the host disagrees with
// fails here; a kit that disagrees fails its own tests.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/latency_histogram.hpp"
#include "stats/sequence_tracker.hpp"
#include "timed/message_header.hpp"
#include "timed/message_reassembly.hpp"
#include "timed/payload_pattern.hpp"
#include "timed/timing_rules.hpp"

using namespace ipcbench;
using nlohmann::json;

namespace {

json vectors(const std::string &name) {
    const std::string path = std::string(SOURCE_DIR) + "/protocol/vectors/" + name;
    std::ifstream in(path);
    REQUIRE(in.good());
    return json::parse(in);
}

std::uint64_t header(const json &h) {
    std::uint64_t v = h.at("seq").get<std::uint64_t>();
    for (const auto &f : h.value("flags", json::array())) {
        if (f == "warmup")
            v |= timed::flag_warmup;
        else if (f == "end")
            v |= timed::flag_end;
        else
            FAIL("unknown flag " << f);
    }
    return v;
}

const char *step_name(timed::timing::send_step::kind k) {
    using timed::timing::send_step;
    return k == send_step::send ? "send" : k == send_step::wait ? "wait" : "end";
}

}  // namespace

TEST_CASE("vectors: the send schedule", "[timing][vectors]") {
    const json table = vectors("send_schedule.json");  // the loop's range must outlive it
    for (const auto &c : table.at("cases")) {
        INFO(c.at("name").get<std::string>());
        model::case_settings s;
        const auto &in = c.at("settings");
        s.count = in.at("count");
        s.rate_per_s = in.at("rate_per_s");
        s.burst = in.at("burst");
        s.duration_s = in.at("duration_s");
        timed::timing::send_schedule schedule(s, c.at("batch").get<std::uint32_t>());
        schedule.begin_window(c.at("start_ns"));
        for (const auto &row : c.at("steps")) {
            INFO("seq " << row.at("seq") << " at " << row.at("now_ns"));
            const auto got = schedule.next(row.at("seq"), row.at("now_ns"), c.at("slot_offset_ns"));
            CHECK(step_name(got.what) == row.at("step").get<std::string>());
            if (row.contains("count")) CHECK(got.count == row.at("count"));
            if (row.contains("due_ns")) CHECK(got.due_ns == row.at("due_ns"));
        }
    }
}

TEST_CASE("vectors: the latency side's decisions", "[timing][vectors]") {
    using namespace timed::timing;
    const json v = vectors("latency_steps.json");
    const char *verdicts[] = {"stale", "warmup", "matched", "mismatched"};
    for (const auto &row : v.at("judge_pong")) {
        INFO(row.dump());
        const auto got =
            judge_pong(header(row.at("ping")), header(row.at("pong")), row.at("reliable"));
        CHECK(verdicts[static_cast<int>(got)] == row.at("verdict").get<std::string>());
    }
    const char *steps[] = {"echo", "echo_first_timed", "end"};
    for (const auto &row : v.at("ponger_step")) {
        INFO(row.dump());
        const auto got = ponger_step(header(row.at("header")), row.at("timed_already"));
        CHECK(steps[static_cast<int>(got)] == row.at("step").get<std::string>());
    }
    for (const auto &row : v.at("pings_done")) {
        INFO(row.dump());
        model::case_settings c;
        c.count = row.at("count");
        CHECK(pings_done(c, row.at("seq"), row.at("now_ns"), row.at("window_end_ns")) ==
              row.at("done").get<bool>());
    }
    for (const auto &row : v.at("end_markers"))
        CHECK(end_markers(row.at("reliable")) == row.at("markers").get<int>());
    for (const auto &row : v.at("clock_stride"))
        CHECK(clock_stride(row.at("size_bytes")) == row.at("stride").get<std::uint64_t>());
}

TEST_CASE("vectors: histogram buckets, documents and the payload pattern", "[timing][vectors]") {
    const json v = vectors("histogram_and_pattern.json");
    CHECK(v.at("sub_bits") == stats::latency_histogram::sub_bits);
    for (const auto &row : v.at("bucket_of"))
        CHECK(stats::latency_histogram::index_of(row.at("value")) == row.at("bucket"));
    for (const auto &row : v.at("histograms")) {
        stats::latency_histogram h;
        for (const auto &value : row.at("values")) h.record(value);
        CHECK(h.to_json() == row.at("document"));
    }
    for (const auto &row : v.at("patterns")) {
        INFO(row.dump());
        const std::size_t size = row.at("size_bytes");
        const std::size_t offset = row.at("paced").get<bool>() ? 16 : 8;
        std::vector<unsigned char> m(size, 0);
        timed::payload_pattern p(size, offset);
        p.write(m.data(), row.at("seq"));
        std::string hex;
        for (std::size_t i = std::min(offset, size); i < size; ++i) {
            static const char digits[] = "0123456789abcdef";
            hex += digits[m[i] >> 4];
            hex += digits[m[i] & 15];
        }
        CHECK(hex == row.at("payload_hex").get<std::string>());
        CHECK(p.matches(m.data(), row.at("seq")));
        if (size > offset) {
            m[size - 1] ^= 1;  // one corrupted byte is seen
            CHECK_FALSE(p.matches(m.data(), row.at("seq")));
        }
    }
}

TEST_CASE("vectors: the sequence tracker", "[timing][vectors]") {
    const json v = vectors("sequence_tracker.json");
    CHECK(v.at("window") == stats::sequence_tracker::window);
    for (const auto &c : v.at("cases")) {
        INFO(c.at("name").get<std::string>());
        stats::sequence_tracker t;
        std::vector<bool> fresh;
        for (const auto &seq : c.at("arrivals")) fresh.push_back(t.record(seq));
        CHECK(fresh == c.at("fresh").get<std::vector<bool>>());
        CHECK(t.duplicates() == c.at("duplicates"));
        CHECK(t.out_of_order() == c.at("out_of_order"));
        CHECK(t.beyond_window() == c.at("beyond_window"));
        CHECK(t.highest_plus_one() == c.at("highest_plus_one"));
    }
}

TEST_CASE("vectors: reassembly, in place and from a shared buffer", "[timing][vectors]") {
    const json table = vectors("reassembly.json");  // the loop's range must outlive it
    for (const auto &c : table.at("cases")) {
        INFO(c.at("name").get<std::string>());
        const std::size_t size = c.at("size_bytes"), total = c.at("stream_bytes");
        std::vector<unsigned char> stream(total);
        for (std::size_t i = 0; i < total; ++i) stream[i] = static_cast<unsigned char>(i + 1);
        timed::message_reassembly in_place, shared;
        in_place.reserve(size, 1, 0);
        shared.reserve(size, 0, size);
        std::vector<unsigned char> firsts_in_place, firsts_shared;
        std::size_t at = 0, whole = 0, wrong_bytes = 0;
        auto check_message = [&](const unsigned char *m, std::vector<unsigned char> &firsts) {
            const std::size_t k = firsts.size();
            firsts.push_back(m[0]);
            for (std::size_t i = 0; i < size; ++i) wrong_bytes += m[i] != stream[k * size + i];
            return true;
        };
        for (std::size_t read : c.at("reads").get<std::vector<std::size_t>>()) {
            shared.arrived_at(stream.data() + at, read, [&](const unsigned char *m) {
                return check_message(m, firsts_shared);
            });
            for (std::size_t left = read; left > 0;) {  // at most the room there is
                const std::size_t n = std::min(in_place.room_bytes(), left);
                std::copy_n(stream.begin() + static_cast<long>(at + read - left), n,
                            in_place.room());
                in_place.arrived(n, [&](const unsigned char *m) {
                    ++whole;
                    return check_message(m, firsts_in_place);
                });
                left -= n;
            }
            at += read;
        }
        REQUIRE(at == total);
        const auto firsts = c.at("first_bytes").get<std::vector<unsigned char>>();
        CHECK(wrong_bytes == 0);
        CHECK(whole == c.at("messages").get<std::size_t>());
        CHECK(firsts_in_place == firsts);
        CHECK(firsts_shared == firsts);
        CHECK(in_place.held() == c.at("left_bytes").get<std::size_t>());
        CHECK(shared.held() == c.at("left_bytes").get<std::size_t>());
    }
}
