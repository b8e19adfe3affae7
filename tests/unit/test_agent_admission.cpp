// The agent's bookkeeping that decides who gets in and how much it holds for whom, on synthetic
// input: the fair set of connections still authenticating, and the bounded outboxes.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include "remote/address_rules.hpp"
#include "remote/outbox.hpp"
#include "remote/pending_handshakes.hpp"

using ipcbench::remote::outbox;
using ipcbench::remote::pending_client;
using ipcbench::remote::pending_handshakes;

namespace {

pending_client client(std::intptr_t fd, const std::string &source) {
    pending_client c;
    c.fd = fd;
    c.source = source;
    c.unit = source;
    c.peer = source + ":" + std::to_string(fd);
    c.deadline = 1000 + fd;
    return c;
}

}  // namespace

TEST_CASE("a flood from one source displaces only its own oldest connections", "[remote]") {
    pending_handshakes set(3, 10);
    CHECK_FALSE(set.admit(client(1, "10.0.0.9"), 0).has_value());  // the slow, real client
    for (int fd = 100; fd < 103; ++fd)
        CHECK_FALSE(set.admit(client(fd, "10.0.0.1"), 0).has_value());
    // The flooder's fourth displaces its own first, never the other source's.
    for (int fd = 103; fd < 200; ++fd) {
        const auto displaced = set.admit(client(fd, "10.0.0.1"), 0);
        REQUIRE(displaced.has_value());
        CHECK(displaced->source == "10.0.0.1");
        CHECK(displaced->fd == fd - 3);
    }
    CHECK(set.count_from("10.0.0.1") == 3);
    CHECK(set.find(1) != nullptr);
    CHECK(set.size() == 4);
}

TEST_CASE("a full set displaces the oldest of the source holding the most", "[remote]") {
    pending_handshakes set(5, 6);
    set.admit(client(1, "a"), 0);
    set.admit(client(2, "b"), 0);
    set.admit(client(3, "b"), 0);
    set.admit(client(4, "c"), 0);
    set.admit(client(5, "b"), 0);
    set.admit(client(6, "c"), 0);  // full: a=1, b=3, c=2
    const auto displaced = set.admit(client(7, "d"), 0);
    REQUIRE(displaced.has_value());
    CHECK(displaced->fd == 2);  // b's oldest, though 1 (a) is older
    CHECK(set.size() == 6);
    // Equal holdings: the source whose oldest came first gives way.
    pending_handshakes tie(5, 2);
    tie.admit(client(10, "x"), 0);
    tie.admit(client(11, "y"), 0);
    const auto first = tie.admit(client(12, "z"), 0);
    REQUIRE(first.has_value());
    CHECK(first->fd == 10);
}

TEST_CASE("a handshake under way is not displaced within its floor: the newcomer is refused",
          "[remote]") {
    using ipcbench::remote::handshake_floor_ns;
    pending_handshakes set(3, 10);
    const std::int64_t t0 = 10'000'000'000;
    auto far = client(1, "10.0.0.1");  // a distant client sharing the flooder's address
    far.hello_at = t0;                 // its hello came: its challenge is on the way
    CHECK_FALSE(set.admit(far, t0).has_value());
    CHECK_FALSE(set.admit(client(2, "10.0.0.1"), t0).has_value());
    CHECK_FALSE(set.admit(client(3, "10.0.0.1"), t0).has_value());
    // The flood goes on: its silent connections give way, the distant client does not.
    for (int fd = 4; fd < 400; ++fd) {
        const auto displaced = set.admit(client(fd, "10.0.0.1"), t0 + fd * 1'000'000);
        REQUIRE(displaced.has_value());
        CHECK(displaced->fd != 1);
    }
    CHECK(set.find(1) != nullptr);
    // Every place taken by handshakes under way: the newcomer itself is refused.
    pending_handshakes busy(2, 10);
    auto a = client(1, "u"), b = client(2, "u");
    a.hello_at = b.hello_at = t0;
    busy.admit(a, t0);
    busy.admit(b, t0);
    const auto refused = busy.admit(client(3, "u"), t0 + 1);
    REQUIRE(refused.has_value());
    CHECK(refused->fd == 3);
    CHECK(busy.find(1) != nullptr);
    // Past the floor, the oldest gives way as before.
    const auto late = busy.admit(client(4, "u"), t0 + handshake_floor_ns);
    REQUIRE(late.has_value());
    CHECK(late->fd == 1);
}

TEST_CASE("a client counts once however many of its addresses it uses", "[remote]") {
    using ipcbench::remote::client_unit;
    CHECK(client_unit("127.0.0.1") == "loopback");
    CHECK(client_unit("127.0.0.2") == client_unit("127.0.0.1"));
    CHECK(client_unit("::1") == "loopback");
    CHECK(client_unit("2001:db8:1:2::5") == client_unit("2001:db8:1:2:ffff::9"));
    CHECK(client_unit("2001:db8:1:2::5") == "2001:0db8:0001:0002::/64");
    CHECK(client_unit("2001:db8:1:3::5") != client_unit("2001:db8:1:2::5"));
    CHECK(client_unit("10.0.0.1") == "10.0.0.1");
    CHECK(client_unit("10.0.0.2") != client_unit("10.0.0.1"));
}

TEST_CASE("deadlines take out exactly the connections past them", "[remote]") {
    pending_handshakes set(10, 10);
    for (int fd = 1; fd <= 4; ++fd) set.admit(client(fd, "s"), 0);  // deadlines 1001..1004
    const auto late = set.expire(1002);                             // strictly before 1002
    REQUIRE(late.size() == 1);
    CHECK(late[0].fd == 1);
    CHECK(set.size() == 3);
    CHECK(set.take(3).has_value());
    CHECK_FALSE(set.take(3).has_value());
    CHECK(set.size() == 2);
}

TEST_CASE("an outbox holds at most its bound and writes only what the peer takes", "[remote]") {
    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    outbox box(1000);
    CHECK(box.push(std::string(600, 'a')));
    CHECK_FALSE(box.push(std::string(401, 'b')));  // 1001 > 1000: refused, nothing queued
    CHECK(box.pending() == 600);
    CHECK(box.push(std::string(400, 'c')));
    bool moved = false;
    REQUIRE(box.flush(pair[0], moved));
    CHECK(moved);
    CHECK(box.empty());
    char got[1000];
    std::size_t n = 0;
    while (n < 1000) {
        const ssize_t r = read(pair[1], got + n, sizeof got - n);
        REQUIRE(r > 0);
        n += static_cast<std::size_t>(r);
    }
    CHECK(got[0] == 'a');
    CHECK(got[599] == 'a');
    CHECK(got[600] == 'c');
    // A peer that reads nothing: the flush never waits, and moves nothing once the socket is
    // full; the bytes stay queued.
    outbox big(std::size_t{64} << 20);
    REQUIRE(big.push(std::string(std::size_t{16} << 20, 'x')));
    REQUIRE(big.flush(pair[0], moved));
    CHECK(big.pending() > 0);
    REQUIRE(big.flush(pair[0], moved));
    CHECK_FALSE(moved);
    close(pair[1]);
    CHECK_FALSE(big.flush(pair[0], moved));  // the peer is gone
    close(pair[0]);
}
