#include <catch2/catch.hpp>

#include "plugin/plugin_registry.hpp"

using ipcbench::plugin::plugin_registry;

namespace {

const ipcbench::plugin::plugin_rejection *rejection_for(const plugin_registry &r,
                                                        const std::string &file_part) {
    for (const auto &x : r.rejections())
        if (x.file.filename().string().find(file_part) != std::string::npos) return &x;
    return nullptr;
}

}  // namespace

TEST_CASE("broken plugins are rejected with the right reason, good ones still load", "[loader]") {
    plugin_registry registry;
    registry.scan({FIXTURE_PLUGIN_DIR});

    // The plain-C plugin loads despite eight broken files beside it.
    REQUIRE(registry.find("cplug.stream") != nullptr);
    CHECK(registry.find("cplug.stream")->plugin_name == "cplug");
    CHECK(registry.transports().size() == 1);

    struct expectation {
        const char *file;
        const char *code;
        const char *text;
    };
    const expectation expected[] = {
        {"ipcb-no_entry.so", "IPCB-LOAD-002", "no 'ipcb_plugin_entry' symbol"},
        {"ipcb-abi_major.so", "IPCB-LOAD-004", "plugin ABI 2.0, ipchost supports 1.x"},
        {"ipcb-small_struct.so", "IPCB-LOAD-005", "struct_size 16"},
        {"ipcb-null_send.so", "IPCB-LOAD-006", "no 'send' function"},
        {"ipcb-unresolved.so", "IPCB-LOAD-001", "ipcb_fixture_symbol_that_does_not_exist"},
        {"ipcb-refuses.so", "IPCB-LOAD-003", "needs host feature X"},
        {"ipcb-dup_id.so", "IPCB-LOAD-008", "'cplug.stream' is already provided by"},
        {"ipcb-bad_id.so", "IPCB-LOAD-007", "'other.t' is not of the form 'broken.<variant>'"},
        {"ipcb-junk.so", "IPCB-LOAD-001", "cannot be loaded"},
    };
    for (const auto &e : expected) {
        INFO(e.file);
        const auto *r = rejection_for(registry, e.file);
        REQUIRE(r != nullptr);
        CHECK(r->code == e.code);
        CHECK_THAT(r->describe(), Catch::Contains(e.text));
        CHECK_THAT(r->describe(), Catch::Contains(e.file));
        CHECK_FALSE(r->fix.empty());
    }
    CHECK(registry.rejections().size() == std::size(expected));
}

TEST_CASE("selection by plugin name or transport id", "[loader]") {
    plugin_registry registry;
    registry.scan({PLUGIN_BUILD_DIR});
    auto all_pipe = registry.select("pipe");
    REQUIRE(all_pipe.size() == 2);
    CHECK(registry.select("pipe.fifo").size() == 1);
    CHECK(registry.select("pipe.nope").empty());
    CHECK(registry.select("nope").empty());
}

TEST_CASE("a missing folder is skipped, the same file twice is loaded once", "[loader]") {
    plugin_registry registry;
    registry.scan({"/nonexistent/ipcbench", PLUGIN_BUILD_DIR, PLUGIN_BUILD_DIR});
    CHECK(registry.select("pipe").size() == 2);
    CHECK(registry.rejections().empty());
}
