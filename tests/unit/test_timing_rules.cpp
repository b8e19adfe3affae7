// The one reassembly of a byte stream into messages (host/timed/message_reassembly.hpp), cut
// every way, without processes or clocks. The timed side's decisions (host/timed/timing_rules.hpp)
// are tested by the shared vectors every kit runs too (test_protocol_vectors.cpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "timed/message_reassembly.hpp"

using namespace ipcbench;
using namespace ipcbench::timed;

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
