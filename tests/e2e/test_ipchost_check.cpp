// `ipchost check` as a third-party author uses it: it passes a good plugin and catches a bad one.
#include <catch2/catch.hpp>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;

TEST_CASE("check passes a conforming transport, one line per check", "[check]") {
    auto run = run_ipchost({"check", "--plugin", "pipe.fifo"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    for (const char *check : {"unknown-option", "bad-address", "open-close", "payload",
                              "stream-reassembly", "zero-copy", "batch", "readiness", "timeout",
                              "send-timeout", "peer-close", "crash-sender", "crash-receiver"})
        CHECK_THAT(run.out, Catch::Contains(std::string("PASS pipe.fifo          ") + check));
    // Without splice=vmsplice the pipe refuses to lend pages, and the check says so.
    CHECK_THAT(run.out, Catch::Contains("borrow unsupported with these options"));
    CHECK_THAT(run.out, Catch::Contains("the sender process died (signal 9 (SIGKILL))"));
    CHECK_THAT(run.out,
               Catch::Contains("the handle woke it") && Catch::Contains("drained byte for byte"));
    CHECK_THAT(run.out, Catch::EndsWith("13 passed, 0 failed\n"));
}

TEST_CASE("check drives the zero-copy calls of a transport that has them", "[check]") {
    auto run = run_ipchost({"check", "--plugin", "shm.ring"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("through take/release") &&
                            Catch::Contains("borrowed slots given back unsent"));
    CHECK_THAT(run.out, Catch::Contains("recv_batch calls; sender: 24 messages in 4 send_batch"));
    CHECK_THAT(run.out, Catch::Contains("killed after a send, holding a borrowed slot"));
    CHECK_THAT(run.out, Catch::Contains("no shared-memory object left"));
}

TEST_CASE(
    "check catches a transport that corrupts data, accepts unknown options, cuts send timeouts "
    "short, loses wake-ups and completes a submission twice",
    "[check]") {
    auto run = run_ipchost({"check", "--plugin-dir", BAD_PLUGIN_DIR, "--plugin", "badplug"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL badplug.stream     unknown-option      open "
                                        "accepted an unknown option"));
    CHECK_THAT(run.out, Catch::Contains("FAIL badplug.stream     payload") &&
                            Catch::Contains("corrupted, lost or reordered data"));
    CHECK_THAT(run.out, Catch::Contains("PASS badplug.stream     timeout"));
    // It waits a tenth of a send's timeout: 100 ms asked, ~10 ms waited.
    CHECK_THAT(run.out, Catch::Contains("FAIL badplug.stream     send-timeout") &&
                            Catch::Contains("send(100 ms) timed out after"));
    // Its readiness handle never fires: the waiter is never woken for message 0.
    CHECK_THAT(run.out, Catch::Contains("FAIL badplug.stream     readiness") &&
                            Catch::Contains("(a lost wake-up)"));
    // Its completion queue reports every submission twice.
    CHECK_THAT(run.out, Catch::Contains("FAIL badplug.stream     completion") &&
                            Catch::Contains("returned 2 completions for 1 outstanding submission"));
    CHECK_THAT(run.out, Catch::Matches("(.|\n)*[0-9]+ passed, 5 failed\n"));
}

TEST_CASE("check with an unknown transport is a usage error", "[check]") {
    auto run = run_ipchost({"check", "--plugin", "nope.nope"});
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("no such plugin or transport"));
}
