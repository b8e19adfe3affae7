#include <catch2/catch.hpp>

#include "control/frame_codec.hpp"
#include "control/frame_seal.hpp"
#include "platform/crypto.hpp"

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

// The session keys of agent protocol 3 come from HKDF-SHA256: OpenSSL's on POSIX, its two steps
// over CNG's HMAC on Windows. A Linux client and a Windows agent must derive the same keys, so
// both are held to RFC 5869's first test case.
TEST_CASE("HKDF-SHA256 gives RFC 5869's test vector on every platform", "[control]") {
    auto bytes = [](std::initializer_list<int> values) {
        std::string out;
        for (int v : values) out.push_back(static_cast<char>(v));
        return out;
    };
    const std::string ikm(22, '\x0b');
    const std::string salt = bytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    const std::string info = bytes({0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9});
    const std::string okm = ipcbench::platform::hkdf_sha256(ikm, salt, info, 42);
    std::string hex;
    for (unsigned char c : okm) {
        static const char digits[] = "0123456789abcdef";
        hex += digits[c >> 4];
        hex += digits[c & 15];
    }
    CHECK(hex ==
          "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

TEST_CASE("a sealed frame opens once, in order, and not altered", "[control]") {
    const std::string key(32, 'k');
    frame_seal sender(key), receiver(key);
    const std::string first = sender.seal(encode_frame({{"type", "run"}}));
    const std::string second = sender.seal(encode_frame({{"type", "close"}}));
    frame_decoder d;
    d.open_with(frame_seal(key));
    d.feed(first.data(), first.size());
    d.feed(second.data(), second.size());
    CHECK(d.next()->at("type") == "run");
    CHECK(d.next()->at("type") == "close");
    // The same frame again (a replay), one out of order (the third where the second is due),
    // one unsealed: refused; and one altered, below.
    const std::string third = sender.seal(encode_frame({{"type", "run"}}));
    for (const std::string &bad : {first, third, encode_frame({{"type", "run"}})}) {
        frame_decoder again;
        again.open_with(frame_seal(key));
        const std::string ok = frame_seal(key).seal(encode_frame({{"type", "run"}}));
        again.feed(ok.data(), ok.size());
        CHECK(again.next()->at("type") == "run");
        again.feed(bad.data(), bad.size());
        CHECK_THROWS_AS(again.next(), protocol_error);
    }
    std::string altered = frame_seal(key).seal(encode_frame({{"type", "run"}}));
    altered[6] = static_cast<char>(altered[6] ^ 0x20);
    frame_decoder other;
    other.open_with(frame_seal(key));
    other.feed(altered.data(), altered.size());
    CHECK_THROWS_AS(other.next(), protocol_error);
    CHECK(receiver.try_open(first.data() + 4, first.size() - 4).has_value());
    CHECK_FALSE(receiver.try_open(first.data() + 4, first.size() - 4).has_value());  // used
}
