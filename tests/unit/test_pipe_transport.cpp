// The pipe plugin driven directly through its C table: bytes checked, timeouts and closes.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <future>
#include <numeric>
#include <thread>

#include "plugin/plugin_registry.hpp"
#include "plugin/transport_endpoint.hpp"
#include "support/process_runner.hpp"

using namespace ipcbench::plugin;

namespace {

// The registry knows metadata only; these tests open endpoints in this process, as a worker
// does, so each transport is loaded here with load_transport (and kept loaded).
struct in_process_transports {
    std::map<std::string, load_outcome> loaded;
    const transport_info *find(const std::string &id) {
        static plugin_registry registry = [] {
            plugin_registry x;
            x.scan({PLUGIN_BUILD_DIR});
            return x;
        }();
        auto it = loaded.find(id);
        if (it == loaded.end()) {
            const transport_info *meta = registry.find(id);
            if (meta == nullptr) return nullptr;
            it = loaded.emplace(id, load_transport(meta->library, id)).first;
        }
        return &it->second.transports.front();
    }
};

in_process_transports &registry() {
    static in_process_transports r;
    return r;
}

struct connected_pair {
    std::unique_ptr<transport_endpoint> reader, writer;
};

// Creator reads, connector writes; both connect concurrently, as two processes would.
connected_pair connect_pair(const std::string &id, const std::string &dir,
                            std::map<std::string, std::string> options = {}) {
    const transport_info *t = registry().find(id);
    REQUIRE(t != nullptr);
    connected_pair p;
    p.reader = std::make_unique<transport_endpoint>(*t, IPCB_ROLE_CREATOR, IPCB_DIR_RECV, options,
                                                    "", dir, 1 << 20);
    std::string address = p.reader->export_address();
    p.writer = std::make_unique<transport_endpoint>(*t, IPCB_ROLE_CONNECTOR, IPCB_DIR_SEND, options,
                                                    address, dir, 1 << 20);
    auto other = std::async(std::launch::async, [&] { p.writer->connect(5'000'000'000); });
    p.reader->connect(5'000'000'000);
    other.get();
    return p;
}

std::vector<unsigned char> receive_exactly(transport_endpoint &ep, std::size_t n) {
    std::vector<unsigned char> got(n);
    std::size_t have = 0;
    while (have < n) {
        std::size_t len = 0;
        int32_t s = ep.recv_raw(got.data() + have, n - have, &len, 2'000'000'000);
        REQUIRE(s == IPCB_OK);
        REQUIRE(len >= 1);
        have += len;
    }
    return got;
}

}  // namespace

TEST_CASE("pipe transports carry bytes unchanged, in order", "[pipe]") {
    ipcbench::test::temp_dir dir;
    for (const char *id : {"pipe.fifo", "pipe.anon"}) {
        INFO(id);
        auto p = connect_pair(id, dir.path());
        for (std::size_t size : {1u, 2u, 131u, 4096u, 300'000u}) {
            std::vector<unsigned char> data(size);
            for (std::size_t i = 0; i < size; ++i)
                data[i] = static_cast<unsigned char>((i * 7919 + size) & 0xff);
            // The writer may block on a full pipe: send from another thread.
            auto sent = std::async(std::launch::async, [&] {
                return p.writer->send_raw(data.data(), data.size(), 2'000'000'000);
            });
            auto got = receive_exactly(*p.reader, size);
            CHECK(sent.get() == IPCB_OK);
            CHECK(got == data);
        }
    }
    CHECK(dir.entries().empty());  // FIFOs are unlinked on close
}

TEST_CASE("pipe receive timeout is honoured and close is reported", "[pipe]") {
    ipcbench::test::temp_dir dir;
    auto p = connect_pair("pipe.fifo", dir.path());
    unsigned char buf[16];
    std::size_t len = 99;
    auto start = std::chrono::steady_clock::now();
    CHECK(p.reader->recv_raw(buf, sizeof buf, &len, 50'000'000) == IPCB_E_TIMEOUT);
    auto waited = std::chrono::steady_clock::now() - start;
    CHECK(waited >= std::chrono::milliseconds(45));
    CHECK(waited < std::chrono::seconds(5));
    CHECK(len == 0);

    p.writer.reset();  // the writer closes: the reader sees IPCB_E_CLOSED, not a hang
    CHECK(p.reader->recv_raw(buf, sizeof buf, &len, 2'000'000'000) == IPCB_E_CLOSED);
}

TEST_CASE("writing to a pipe whose reader closed fails with IPCB_E_CLOSED", "[pipe]") {
    ipcbench::test::temp_dir dir;
    auto p = connect_pair("pipe.anon", dir.path());
    p.reader.reset();
    std::signal(SIGPIPE, SIG_IGN);
    unsigned char buf[64] = {};
    CHECK(p.writer->send_raw(buf, sizeof buf, 1'000'000'000) == IPCB_E_CLOSED);
    CHECK_THAT(p.writer->last_error(), Catch::Contains("closed"));
}

TEST_CASE("pipe options: effective size reported, bad values and unknown keys named", "[pipe]") {
    ipcbench::test::temp_dir dir;
    auto p = connect_pair("pipe.fifo", dir.path(), {{"pipe_size", "256K"}});
    CHECK(p.reader->settings().at("pipe_size") == "262144");

    const transport_info *t = registry().find("pipe.fifo");
    try {
        transport_endpoint bad(*t, IPCB_ROLE_CREATOR, IPCB_DIR_RECV, {{"pipe_size", "lots"}}, "",
                               dir.path(), 64);
        FAIL("accepted pipe_size=lots");
    } catch (const transport_error &e) {
        CHECK(e.status == IPCB_E_BAD_OPTION);
        CHECK_THAT(e.what(), Catch::Contains("pipe_size=lots"));
    }
    try {
        transport_endpoint bad(*t, IPCB_ROLE_CREATOR, IPCB_DIR_RECV, {{"colour", "red"}}, "",
                               dir.path(), 64);
        FAIL("accepted an unknown option");
    } catch (const transport_error &e) {
        CHECK(e.status == IPCB_E_UNKNOWN_OPTION);
        CHECK_THAT(e.what(), Catch::Contains("'colour'"));
    }
    try {
        transport_endpoint bad(*t, IPCB_ROLE_CONNECTOR, IPCB_DIR_SEND, {}, "/no/such/fifo",
                               dir.path(), 64);
        FAIL("accepted a bad address");
    } catch (const transport_error &e) {
        CHECK(e.status == IPCB_E_BAD_ADDRESS);
        CHECK_THAT(e.what(), Catch::Contains("/no/such/fifo"));
    }
}

TEST_CASE("a FIFO's creator leaves nothing behind", "[pipe]") {
    ipcbench::test::temp_dir dir;
    const transport_info *t = registry().find("pipe.fifo");
    {
        transport_endpoint creator(*t, IPCB_ROLE_CREATOR, IPCB_DIR_RECV, {}, "", dir.path(), 64);
        REQUIRE(dir.entries().size() == 1);
        auto st = std::filesystem::status(creator.export_address());
        CHECK(st.type() == std::filesystem::file_type::fifo);
        CHECK((st.permissions() & std::filesystem::perms::group_all) ==
              std::filesystem::perms::none);
        CHECK((st.permissions() & std::filesystem::perms::others_all) ==
              std::filesystem::perms::none);
    }
    CHECK(dir.entries().empty());
}
