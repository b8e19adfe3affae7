// The timed side's rules (host/timed/timing_rules.hpp) and the one reassembly of a byte
// stream into messages (host/timed/message_reassembly.hpp), without processes or clocks: tables
// of inputs and the decisions the thread loops and both event engines act on.
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "timed/message_header.hpp"
#include "timed/message_reassembly.hpp"
#include "timed/timing_rules.hpp"

using namespace ipcbench;
using namespace ipcbench::timed;
using timing::send_step;

namespace {

model::case_settings settings(std::uint64_t count, double rate, int burst, double duration_s) {
    model::case_settings c;
    c.count = count;
    c.rate_per_s = rate;
    c.burst = burst;
    c.duration_s = duration_s;
    return c;
}

struct step_row {
    std::uint64_t seq;
    std::int64_t now;
    send_step::kind what;
    std::uint32_t count;
    std::int64_t due;
};

void check_rows(const timing::send_schedule &s, const std::vector<step_row> &rows,
                std::int64_t offset = 0) {
    for (const auto &row : rows) {
        INFO("seq " << row.seq << " at " << row.now);
        const send_step got = s.next(row.seq, row.now, offset);
        CHECK(got.what == row.what);
        if (row.what == send_step::send) CHECK(got.count == row.count);
        if (row.what != send_step::end) CHECK(got.due_ns == row.due);
    }
}

}  // namespace

TEST_CASE("unpaced: batches until the window ends, a count cuts the last batch", "[timing]") {
    timing::send_schedule by_time(settings(0, 0, 1, 1.0), 8);
    by_time.begin_window(1000);
    CHECK_FALSE(by_time.paced());
    CHECK(by_time.batch() == 8);
    CHECK(by_time.window_end() == 1000 + 1'000'000'000);
    check_rows(by_time, {{0, 1000, send_step::send, 8, 0},
                         {800, 1'000'000'999, send_step::send, 8, 0},  // 1 ns before the end
                         {800, 1'000'001'000, send_step::end, 0, 0}});

    timing::send_schedule by_count(settings(10, 0, 1, 1.0), 4);
    by_count.begin_window(0);
    // 10 in batches of 4: 4, 4, 2; the window's end does not matter with a count.
    check_rows(by_count, {{0, 0, send_step::send, 4, 0},
                          {4, 5'000'000'000, send_step::send, 4, 0},
                          {8, 0, send_step::send, 2, 0},
                          {9, 0, send_step::send, 1, 0},  // a short send left one behind
                          {10, 0, send_step::end, 0, 0}});
}

TEST_CASE("paced: every slot due however late, a burst shares its slot, the window ends on time",
          "[timing]") {
    // 1,000 messages/s: a slot every 1 ms; --burst 3 sends three at each third slot.
    timing::send_schedule s(settings(0, 1000, 3, 0.01), 32);
    s.begin_window(0);
    CHECK(s.paced());
    CHECK(s.batch() == 1);  // paced messages go one a call, whatever --batch says
    check_rows(s, {
                      {0, 0, send_step::send, 1, 0},
                      {1, 0, send_step::send, 1, 0},  // the burst: same slot, at once
                      {2, 0, send_step::send, 1, 0},
                      {3, 100, send_step::wait, 0, 3'000'000},  // the next burst's slot
                      {3, 3'000'000, send_step::send, 1, 3'000'000},
                      // Behind schedule: slot 6 was due at 6 ms, it is 8 ms: send it, stamped
                      // with its slot (the receiver sees the lateness).
                      {6, 8'000'000, send_step::send, 1, 6'000'000},
                      {9, 9'500'000, send_step::send, 1, 9'000'000},
                      // Past the window: a slot at or after its end is not sent...
                      {12, 9'900'000, send_step::end, 0, 0},
                      // ...and a sender still behind stops when the window is over.
                      {7, 10'000'000, send_step::end, 0, 0},
                  });
    // Each stream's slot is offset into the period (the event engines spread streams so).
    check_rows(s, {{3, 0, send_step::wait, 0, 3'250'000}}, 250'000);

    // With a count, the schedule goes on past the window until every message is sent.
    timing::send_schedule counted(settings(5, 1000, 1, 0.001), 1);
    counted.begin_window(0);
    check_rows(counted, {{4, 3'000'000, send_step::wait, 0, 4'000'000},
                         {4, 4'000'000, send_step::send, 1, 4'000'000},
                         {5, 4'000'000, send_step::end, 0, 0}});
}

TEST_CASE("a pong is matched, stale, warm-up or mismatched, and a ponger ends at the marker",
          "[timing]") {
    using timing::pong_verdict;
    struct row {
        std::uint64_t ping, pong;
        bool reliable;
        pong_verdict verdict;
    };
    const std::vector<row> rows = {
        {7, 7, true, pong_verdict::matched},
        {7, 5, true, pong_verdict::mismatched},  // reliable: an older pong is a reordering
        {7, 5, false, pong_verdict::stale},      // unreliable: it came after its ping was lost
        {7, 9, false, pong_verdict::mismatched},
        {flag_warmup | 3, flag_warmup | 3, false, pong_verdict::warmup},
        {flag_warmup | 3, flag_warmup | 1, false, pong_verdict::warmup},
    };
    for (const auto &r : rows) {
        INFO(r.ping << " " << r.pong << " reliable " << r.reliable);
        CHECK(timing::judge_pong(r.ping, r.pong, r.reliable) == r.verdict);
    }
    using timing::pong_step;
    CHECK(timing::ponger_step(flag_warmup | 2, false) == pong_step::echo);
    CHECK(timing::ponger_step(0, false) == pong_step::echo_first_timed);
    CHECK(timing::ponger_step(1, true) == pong_step::echo);
    CHECK(timing::ponger_step(flag_end | 40, true) == pong_step::end);
    CHECK(timing::ponger_step(flag_end | 0, false) == pong_step::end);

    auto c = settings(3, 0, 1, 1.0);
    CHECK_FALSE(timing::pings_done(c, 2, 99'000'000'000, 1'000'000'000));
    CHECK(timing::pings_done(c, 3, 0, 1'000'000'000));
    c.count = 0;
    CHECK_FALSE(timing::pings_done(c, 1'000'000, 999'999'999, 1'000'000'000));
    CHECK(timing::pings_done(c, 0, 1'000'000'000, 1'000'000'000));
    CHECK(timing::end_markers(true) == 1);
    CHECK(timing::end_markers(false) == 3);  // one may be lost
}

TEST_CASE(
    "reassembly: every cut of a stream gives the same messages, in place and from a shared "
    "buffer",
    "[timing]") {
    constexpr std::size_t size = 24, messages = 5;
    std::vector<unsigned char> stream(size * messages);
    std::iota(stream.begin(), stream.end(), static_cast<unsigned char>(1));
    auto first_bytes = [&](std::size_t k, std::size_t bytes) {
        return std::string(stream.begin() + static_cast<long>(k * size),
                           stream.begin() + static_cast<long>(k * size + bytes));
    };
    // Every way to cut the stream into two or three reads.
    for (std::size_t a = 1; a < stream.size(); ++a)
        for (std::size_t b = a; b <= stream.size(); b += 7) {
            const std::vector<std::size_t> cuts = {0, a, b, stream.size()};
            INFO("cuts at " << a << ", " << b);
            message_reassembly in_place, shared;
            in_place.reserve(size, 2, 0);
            shared.reserve(size, 0, 16);
            std::vector<std::string> whole, heads;
            for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
                std::size_t from = cuts[i];
                const std::size_t to = cuts[i + 1];
                shared.arrived_at(stream.data() + from, to - from, [&](const unsigned char *m) {
                    heads.emplace_back(m, m + 16);
                    return true;
                });
                while (from < to) {  // in place, the read gets at most the room there is
                    const std::size_t n = std::min(in_place.room_bytes(), to - from);
                    std::copy(stream.begin() + static_cast<long>(from),
                              stream.begin() + static_cast<long>(from + n), in_place.room());
                    in_place.arrived(n, [&](const unsigned char *m) {
                        whole.emplace_back(m, m + size);
                        return true;
                    });
                    from += n;
                }
            }
            REQUIRE(whole.size() == messages);
            REQUIRE(heads.size() == messages);
            for (std::size_t k = 0; k < messages; ++k) {
                CHECK(whole[k] == first_bytes(k, size));
                CHECK(heads[k] == first_bytes(k, 16));
            }
            CHECK(in_place.held() == 0);
            CHECK(shared.held() == 0);
        }
}

TEST_CASE("reassembly: a stop keeps the rest in place, and one message's room fills exactly",
          "[timing]") {
    message_reassembly r;
    r.reserve(4, 3, 0);
    const unsigned char bytes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    std::copy(bytes, bytes + 10, r.room());
    int seen = 0;
    r.arrived(10, [&](const unsigned char *m) {
        ++seen;
        CHECK(m[0] == 1);
        return false;  // the caller acts on this one before the next
    });
    CHECK(seen == 1);
    CHECK(r.held() == 6);
    CHECK(r.whole_message_held());
    r.arrived(0, [&](const unsigned char *m) {  // the held one, with no read
        CHECK(m[0] == 5);
        return true;
    });
    CHECK(r.held() == 2);
    CHECK(r.room()[-2] == 9);

    message_reassembly one;  // a reader that never reads ahead: room for the rest only
    one.reserve(8, 1, 0);
    CHECK(one.room_bytes() == 8);
    one.arrived(3, [](const unsigned char *) { return true; });
    CHECK(one.room_bytes() == 5);
    int whole = 0;
    one.arrived(5, [&](const unsigned char *) { return ++whole > 0; });
    CHECK(whole == 1);
    CHECK(one.room_bytes() == 8);
}
