// shm.ring driven directly through its C table: a peer that dies without closing is noticed.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "plugin/plugin_registry.hpp"
#include "plugin/transport_endpoint.hpp"
#include "support/process_runner.hpp"

using namespace ipcbench::plugin;

TEST_CASE("shm.ring: a receiver waiting on a crashed sender gets IPCB_E_CLOSED", "[shm]") {
    plugin_registry registry;
    registry.scan({PLUGIN_BUILD_DIR});
    REQUIRE(registry.find("shm.ring") != nullptr);
    // Endpoints open in this process, as in a worker: load the plugin here.
    const load_outcome loaded = load_transport(registry.find("shm.ring")->library, "shm.ring");
    const transport_info *t = &loaded.transports.front();
    ipcbench::test::temp_dir dir;
    transport_endpoint reader(*t, IPCB_ROLE_CREATOR, IPCB_DIR_RECV, {{"wait", "futex"}}, "",
                              dir.path(), 4096);
    const std::string address = reader.export_address();
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // the sender: attach, send one message, die without close()
        try {
            // Never deleted: its destructor would close the ring, and a crash does not.
            auto *writer = new transport_endpoint(*t, IPCB_ROLE_CONNECTOR, IPCB_DIR_SEND, {},
                                                  address, dir.path(), 4096);
            writer->connect(5'000'000'000);
            const char message[] = "last words";
            writer->send_raw(message, sizeof message, 1'000'000'000);
        } catch (...) {
        }
        _exit(0);
    }
    reader.connect(5'000'000'000);
    char buf[64] = {};
    std::size_t len = 0;
    REQUIRE(reader.recv_raw(buf, sizeof buf, &len, 5'000'000'000) == IPCB_OK);
    CHECK(std::string(buf) == "last words");
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);  // reaped: its pid no longer exists
    const auto start = std::chrono::steady_clock::now();
    const int32_t s = reader.recv_raw(buf, sizeof buf, &len, 10'000'000'000);
    const auto waited = std::chrono::steady_clock::now() - start;
    CHECK(s == IPCB_E_CLOSED);
    CHECK_THAT(reader.last_error(), Catch::Contains("peer process is gone"));
    CHECK(waited < std::chrono::seconds(5));  // found by the 100 ms liveness check, not the timeout
}
