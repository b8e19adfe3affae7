// ABI versioning as a plugin author meets it: old plugins keep loading, newer minors load with
// their unknown tail ignored, a newer major is rejected with a message that says to rebuild.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "plugin/plugin_registry.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;

TEST_CASE("a plugin built from the frozen 1.0 header loads and runs", "[abi]") {
    auto run = run_ipchost({"--plugin-dir", ABI_PLUGIN_DIR, "--plugin", "frozen", "--size", "64",
                            "--duration", "0.1", "--warmup", "0", "--format", "json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const auto doc = nlohmann::json::parse(run.out);
    REQUIRE_FALSE(doc.at("results").empty());  // a loop over nothing asserts nothing
    for (const auto &r : doc.at("results")) {
        CHECK(r.at("transport") == "frozen.stream");
        CHECK(r.at("status") == "ok");
    }
}

TEST_CASE("a newer minor with larger structs is accepted, its tail ignored", "[abi]") {
    ipcbench::plugin::plugin_registry registry;
    registry.scan({ABI_PLUGIN_DIR});
    const auto *future = registry.find("future.stream");
    REQUIRE(future != nullptr);
    CHECK(future->table == nullptr);  // the main process keeps metadata only
    CHECK(future->table_size > sizeof(ipcb_transport));
    auto run = run_ipchost({"--plugin-dir", ABI_PLUGIN_DIR, "--plugin", "future", "--size", "64",
                            "--mode", "throughput", "--duration", "0.1", "--warmup", "0"});
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("future.stream"));
}

TEST_CASE("a newer major is rejected with a message that says to rebuild", "[abi]") {
    ipcbench::plugin::plugin_registry registry;
    registry.scan({FIXTURE_PLUGIN_DIR});
    bool found = false;
    for (const auto &r : registry.rejections())
        if (r.file.filename() == "ipcb-abi_major.so") {
            found = true;
            CHECK(r.code == "IPCB-LOAD-004");
            CHECK_THAT(r.describe(), Catch::Contains("plugin ABI 2.0, ipchost supports 1.x") &&
                                         Catch::Contains("rebuild the plugin against the "
                                                         "ipcbench SDK 1.x header"));
        }
    CHECK(found);
}
