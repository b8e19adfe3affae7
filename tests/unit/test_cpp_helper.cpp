// The SDK's C++ helper (transport.hpp) as a plugin author uses it: the cppkit fixture, built on
// the C++ template, loaded in this test process and driven through its generated C table.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "plugin/plugin_loader.hpp"
#include "plugin/plugin_registry.hpp"

using ipcbench::plugin::load_transport;

namespace {

const std::filesystem::path kit_file = std::filesystem::path(CPPKIT_PLUGIN_DIR) / "ipcb-cppkit.so";

struct open_result {
    std::int32_t status;
    std::string message;
};

// Opens a creator endpoint with one option and closes it again.
open_result open_with(const ipcb_transport &t, const char *key, const char *value) {
    const ipcb_kv kv{key, value};
    ipcb_open_params p{};
    p.struct_size = sizeof p;
    p.role = IPCB_ROLE_CREATOR;
    p.direction = IPCB_DIR_BOTH;
    p.option_count = key ? 1 : 0;
    p.options = &kv;
    p.max_message_size = 1024;
    ipcb_error e{};
    e.struct_size = sizeof e;
    ipcb_endpoint *ep = nullptr;
    const std::int32_t s = t.open(&p, &ep, &e);
    if (ep != nullptr) t.close(ep);
    return {s, e.message};
}

}  // namespace

TEST_CASE("the C++ helper parses typed options and names key, value and what is accepted",
          "[sdk]") {
    auto loaded = load_transport(kit_file, "cppkit.seqpacket");
    REQUIRE(loaded.transports.size() == 1);
    const ipcb_transport &t = *loaded.transports[0].table;

    CHECK(open_with(t, nullptr, nullptr).status == IPCB_OK);
    CHECK(open_with(t, "buffer_size", "64K").status == IPCB_OK);
    CHECK(open_with(t, "same_user", "off").status == IPCB_OK);
    CHECK(open_with(t, "lend", "none").status == IPCB_OK);

    struct bad {
        const char *key, *value, *text;
    };
    const bad cases[] = {
        {"buffer_size", "abc",
         "option buffer_size=abc for cppkit.seqpacket is invalid; expected "
         "bytes from 4096 to 67108864, with an optional K, M, G or T suffix"},
        {"buffer_size", "", "option buffer_size= for cppkit.seqpacket is empty"},
        {"buffer_size", "99999999999999999999999", "buffer_size=99999999999999999999999"},
        {"buffer_size", "1K", "expected bytes from 4096"},  // below the minimum
        {"buffer_size", "17179869184T", "is invalid"},      // overflows 64 bits
        {"same_user", "maybe", "expected on or off (also true/false, yes/no, 1/0)"},
        {"lend", "sometimes",
         "option lend=sometimes for cppkit.seqpacket is invalid; expected "
         "one of both, send, none"},
    };
    for (const auto &c : cases) {
        INFO(c.key << "=" << c.value);
        const auto r = open_with(t, c.key, c.value);
        CHECK(r.status == IPCB_E_BAD_OPTION);
        CHECK_THAT(r.message, Catch::Contains(c.text));
    }
    // An author's own std::stoi still fails cleanly, and the message points at the helper.
    const auto legacy = open_with(t, "legacy_count", "abc");
    CHECK(legacy.status == IPCB_E_INTERNAL);
    CHECK_THAT(legacy.message, Catch::Contains("std::invalid_argument: stoi"));
    CHECK_THAT(legacy.message, Catch::Contains("args.integer"));
    const auto unknown = open_with(t, "no_such_key", "1");
    CHECK(unknown.status == IPCB_E_UNKNOWN_OPTION);
    CHECK_THAT(unknown.message, Catch::Contains("unknown option 'no_such_key' for cppkit"));
}

TEST_CASE("the C++ helper offers exactly the optional members a plugin declares", "[sdk]") {
    auto loaded = load_transport(kit_file, "cppkit.seqpacket");
    REQUIRE(loaded.transports.size() == 1);
    const auto &info = loaded.transports[0];
    const ipcb_transport &t = *info.table;
    CHECK(info.calls.zero_copy_send);
    CHECK(info.calls.zero_copy_recv);
    CHECK(info.calls.send_batch);
    CHECK(info.calls.recv_batch);

    // get_extension answers its own id and nothing else.
    REQUIRE(t.get_extension != nullptr);
    const void *marker = t.get_extension("org.ipcbench.test.marker/1");
    REQUIRE(marker != nullptr);
    CHECK(*static_cast<const int *>(marker) == 42);
    CHECK(t.get_extension("ipcb.none/1") == nullptr);

    // remove_address removes what a crashed creator left: open, take the path, remove it.
    ipcb_open_params p{};
    p.struct_size = sizeof p;
    p.role = IPCB_ROLE_CREATOR;
    p.direction = IPCB_DIR_BOTH;
    p.max_message_size = 64;
    ipcb_error e{};
    e.struct_size = sizeof e;
    ipcb_endpoint *ep = nullptr;
    REQUIRE(t.open(&p, &ep, &e) == IPCB_OK);
    char address[256];
    REQUIRE(t.export_address(ep, address, sizeof address, &e) == IPCB_OK);
    REQUIRE(std::filesystem::exists(address));
    REQUIRE(t.remove_address != nullptr);
    CHECK(t.remove_address(address, &e) == IPCB_OK);
    CHECK_FALSE(std::filesystem::exists(address));
    t.close(ep);
    CHECK(t.remove_address(nullptr, &e) == IPCB_E_INVALID);

    // The C template (cplug) declares no 1.1 member: its table leaves them NULL.
    auto plain =
        load_transport(std::filesystem::path(FIXTURE_PLUGIN_DIR) / "ipcb-cplug.so", "cplug.stream");
    REQUIRE(plain.transports.size() == 1);
    CHECK_FALSE(plain.transports[0].calls.zero_copy_send);
    CHECK_FALSE(plain.transports[0].calls.send_batch);
}

TEST_CASE("a C++ plugin refuses a host with its reason and shuts down before unload", "[sdk]") {
    const auto marker = std::filesystem::temp_directory_path() /
                        ("ipcbench-cppkit-shutdown-" + std::to_string(::getpid()));
    std::filesystem::remove(marker);
    ::setenv("IPCB_CPPKIT_SHUTDOWN_FILE", marker.c_str(), 1);
    {
        auto loaded = load_transport(kit_file, "cppkit.seqpacket");
        REQUIRE(loaded.transports.size() == 1);
        CHECK_FALSE(std::filesystem::exists(marker));  // not before the library goes
    }
    ::unsetenv("IPCB_CPPKIT_SHUTDOWN_FILE");
    std::ifstream in(marker);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == "shutdown\n");  // once
    std::filesystem::remove(marker);

    ::setenv("IPCB_CPPKIT_REFUSE", "1", 1);
    const auto refused = ipcbench::plugin::load_plugin_file(kit_file);
    ::unsetenv("IPCB_CPPKIT_REFUSE");
    CHECK(refused.library == nullptr);
    REQUIRE(refused.rejections.size() == 1);
    CHECK(refused.rejections[0].code == "IPCB-LOAD-003");
    CHECK_THAT(refused.rejections[0].describe(), Catch::Contains("cppkit refuses host ipchost"));
}
