#include <catch2/catch.hpp>

#include "control/frame_codec.hpp"

using namespace ipcbench::control;

TEST_CASE("frames round-trip, fed byte by byte", "[control]") {
    nlohmann::json a = {{"type", "setup"}, {"size", 1024}};
    nlohmann::json b = {{"type", "run"}, {"text", std::string(70'000, 'x')}};
    std::string bytes = encode_frame(a) + encode_frame(b);
    frame_decoder d;
    std::vector<nlohmann::json> got;
    for (char c : bytes) {
        d.feed(&c, 1);
        while (auto m = d.next()) got.push_back(*m);
    }
    REQUIRE(got.size() == 2);
    CHECK(got[0] == a);
    CHECK(got[1] == b);
    CHECK(d.buffered() == 0);
}

TEST_CASE("malformed frames are errors with a reason", "[control]") {
    auto expect_error = [](const std::string &bytes, const std::string &needle) {
        frame_decoder d;
        d.feed(bytes.data(), bytes.size());
        try {
            d.next();
            FAIL("no error for " << needle);
        } catch (const protocol_error &e) {
            CHECK_THAT(e.what(), Catch::Contains(needle));
        }
    };
    expect_error(std::string("\x7f\xff\xff\xff", 4), "exceeds");
    expect_error(std::string("\0\0\0\0", 4), "empty");
    expect_error(std::string("\0\0\0\x03{x}", 7), "not valid JSON");
    expect_error(std::string("\0\0\0\x02[]", 6), "string \"type\"");
    expect_error(std::string("\0\0\0\x0c{\"type\":42}", 16), "string \"type\"");
}

TEST_CASE("an incomplete frame waits for more bytes", "[control]") {
    std::string bytes = encode_frame({{"type", "hello"}});
    frame_decoder d;
    d.feed(bytes.data(), bytes.size() - 1);
    CHECK_FALSE(d.next().has_value());
    d.feed(bytes.data() + bytes.size() - 1, 1);
    CHECK(d.next().value()["type"] == "hello");
}
