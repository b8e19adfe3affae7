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

TEST_CASE("a decoder's bounds: the frame size it was made with, and nesting", "[control]") {
    // A hello decoder takes 4 KiB: one byte more is refused from the header alone.
    const std::string body = "{\"type\":\"hello\",\"x\":\"" + std::string(4096 - 24, 'a') + "\"}";
    REQUIRE(body.size() == 4096 - 1);
    auto framed = [](const std::string &b) {
        std::string f(4, '\0');
        const auto n = static_cast<std::uint32_t>(b.size());
        for (int k = 0; k < 4; ++k) f[k] = static_cast<char>(n >> (24 - 8 * k));
        return f + b;
    };
    frame_decoder hello(max_handshake_frame_bytes);
    const std::string fits = framed(body + " ");  // exactly 4096
    hello.feed(fits.data(), fits.size());
    CHECK(hello.next().value()["type"] == "hello");
    frame_decoder small(max_handshake_frame_bytes);
    const std::string over = framed(body + "  ");  // 4097
    small.feed(over.data(), 4);
    CHECK_THROWS_WITH(small.next(), Catch::Contains("4097 bytes exceeds the 4096-byte limit"));
    // Nesting: 32 levels pass, 33 do not; brackets inside strings do not count.
    auto nested = [&](int depth) {
        return framed("{\"type\":\"x\",\"n\":" + std::string(depth - 1, '[') +
                      std::string(depth - 1, ']') +
                      ",\"s\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}");
    };
    frame_decoder ok, deep;
    const std::string at_bound = nested(32), past = nested(33);
    ok.feed(at_bound.data(), at_bound.size());
    CHECK(ok.next().value()["type"] == "x");
    deep.feed(past.data(), past.size());
    CHECK_THROWS_WITH(deep.next(), Catch::Contains("nested deeper than 32 levels"));
}
