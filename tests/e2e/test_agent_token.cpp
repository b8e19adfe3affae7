// An agent's token (remote/agent_protocol.hpp): one given by hand carries 128 bits at least,
// since every challenge the agent sends to anyone is a proof made with it that a guess can be
// checked against offline; and one given on the command line does not stay readable there.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "remote/agent_protocol.hpp"
#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;

TEST_CASE("an agent refuses a token a guess could find offline, and takes a strong one",
          "[remote]") {
    namespace r = ipcbench::remote;
    // The estimate: short, repetitive and one-class tokens fall short; random ones do not.
    CHECK(r::token_entropy_bits("s3cret") < r::min_token_bits);
    CHECK(r::token_entropy_bits("correcthorse") < r::min_token_bits);
    CHECK(r::token_entropy_bits(std::string(200, 'a')) < r::min_token_bits);
    CHECK(r::token_entropy_bits("abababababababababababababababababababab") < r::min_token_bits);
    CHECK(r::token_entropy_bits("9c1f0b7e4d2a86f35e0c7b9a1d4f6e2c") >= r::min_token_bits);
    for (int i = 0; i < 20; ++i)
        CHECK(r::token_entropy_bits(r::generate_token()) >= r::min_token_bits);
    for (const char *weak : {"s3cret", "password", "hunter2hunter2"}) {
        const auto run = run_ipchost(
            {"serve", "--bind", "127.0.0.1:" + std::to_string(ipcbench::test::free_port()),
             "--token", weak, "--allow-root"},
            {}, 20);
        INFO(weak << "\n" << run.err);
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains("bits of entropy, under the 128 an agent needs") &&
                                Catch::Contains("--token-file"));
    }
    ipcbench::test::agent strong({"--token", "9c1f0b7e4d2a86f35e0c7b9a1d4f6e2c"});
    CHECK(strong.reachable());
}

TEST_CASE("serve --token T wipes T from its command line and says it was visible", "[remote]") {
    const std::string token = "5e0c7b9a1d4f6e2c9c1f0b7e4d2a86f3";
    ipcbench::test::agent a({"--token", token});
    REQUIRE(a.reachable());  // it has parsed its options by now
    std::ifstream in("/proc/" + std::to_string(a.pid()) + "/cmdline", std::ios::binary);
    std::stringstream cmdline;
    cmdline << in.rdbuf();
    const std::string seen = cmdline.str();
    INFO(seen);
    CHECK(seen.find("serve") != std::string::npos);  // it is the agent's own command line
    CHECK(seen.find("--token") != std::string::npos);
    CHECK(seen.find(token) == std::string::npos);
    CHECK(seen.find(token.substr(0, 8)) == std::string::npos);
    // A client's --token is wiped alike, with the warning.
    const auto run = run_ipchost({"--peer", a.address(), "--token", token, "--plugin", "socket.tcp",
                                  "--size", "1K", "--duration", "0.1", "--mode", "throughput"},
                                 {}, 60);
    CHECK_THAT(run.err, Catch::Contains("--token was given on the command line") &&
                            Catch::Contains("--token-file"));
}
