// The worker protocol's messages (host/control/worker_messages.hpp), each written and read by
// its one field list: every field reads back as written, a missing, mistyped or out-of-range
// field is refused naming the message and the field, unknown fields are ignored (a later minor
// version may add some), and the hello's versions are negotiated as docs/worker-protocol.md says.
#include <catch2/catch.hpp>

#include <string>

#include "control/worker_messages.hpp"

using namespace ipcbench;
using nlohmann::json;

namespace {

control::setup_request sample_setup() {
    control::setup_request s;
    s.transport = "pipe.fifo";
    s.library = "/usr/lib/ipcbench/plugins/libipcb_pipe.so";
    s.library_identity = "dev 1 ino 2";
    s.role = control::endpoint_role::connector;
    s.endpoints = {{control::endpoint_direction::recv, "/run/x/fifo-1"},
                   {control::endpoint_direction::both, ""}};
    s.options = {{"pipe_size", "1048576"}};
    s.runtime_dir = "/run/user/0/ipcbench-1";
    s.max_message_size = 65536;
    return s;
}

}  // namespace

TEST_CASE("every worker message reads back as it was written", "[control]") {
    const auto setup = sample_setup();
    const json wire = control::write_message(setup);
    CHECK(wire.at("type") == "setup");
    CHECK(wire.at("role") == "connector");
    CHECK(wire.at("endpoints")[0].at("direction") == "recv");
    CHECK_FALSE(wire.at("endpoints")[1].contains("address"));  // a creator chooses its own
    const auto back = control::read_message<control::setup_request>(wire);
    CHECK(back.transport == setup.transport);
    CHECK(back.library == setup.library);
    CHECK(back.library_identity == setup.library_identity);
    CHECK(back.role == setup.role);
    REQUIRE(back.endpoints.size() == 2);
    CHECK(back.endpoints[0].direction == control::endpoint_direction::recv);
    CHECK(back.endpoints[0].address == "/run/x/fifo-1");
    CHECK(back.endpoints[1].direction == control::endpoint_direction::both);
    CHECK(back.endpoints[1].address.empty());
    CHECK(back.options == setup.options);
    CHECK(back.runtime_dir == setup.runtime_dir);
    CHECK(back.max_message_size == 65536);

    control::connected_reply connected;
    connected.settings = {{"nodelay", "1"}};
    connected.setup = {3, 120000, json{{"counts", json::array()}}, 5120};
    const auto c =
        control::read_message<control::connected_reply>(control::write_message(connected));
    CHECK(c.settings == connected.settings);
    CHECK(c.setup.connections == 3);
    CHECK(c.setup.total_ns == 120000);
    CHECK(c.setup.rss_before_kib == 5120);

    const control::run_request run{json{{"kind", "receive"}}, {control::endpoint_direction::send}};
    const auto r = control::read_message<control::run_request>(control::write_message(run));
    CHECK(r.job == run.job);
    CHECK(r.directions == run.directions);
    CHECK(control::write_message(run).at("directions") == json::array({"send"}));

    control::sender_counts sent;
    sent.streams = {1000000, 7};
    const auto s = control::read_sender_counts(control::write_message(sent));
    CHECK(s.kind == control::message_kind::sent);
    CHECK(s.streams == sent.streams);

    const auto e = control::error_reply{"setup", -7, "address 'x' refused"};
    CHECK_THROWS_AS(control::read_message<control::opened_reply>(control::write_message(e)),
                    control::peer_error);  // an error where an answer was due
}

TEST_CASE("a malformed worker message is refused naming the message and the field", "[control]") {
    const json good = control::write_message(sample_setup());
    struct bad {
        const char *field;
        json value;
        const char *says;
    };
    for (const auto &b : {bad{"role", "god", "setup message field 'role' has the unknown value"},
                          bad{"endpoints", json::array(), "'endpoints' must be a list of 1 to"},
                          bad{"endpoints", json::array({{{"direction", "up"}}}),
                              "field 'endpoints'[0] field 'direction' has the unknown value 'up'"},
                          bad{"max_message_size", -1, "'max_message_size' must be a non-negative"},
                          bad{"options", json{{"k", 1}}, "'options' must map short keys"},
                          bad{"transport", nullptr, "'transport' must be a string"}}) {
        json m = good;
        m[b.field] = b.value;
        INFO(b.field << " = " << b.value.dump());
        CHECK_THROWS_WITH(control::read_message<control::setup_request>(m),
                          Catch::Contains(b.says));
    }
    json missing = good;
    missing.erase("transport");
    CHECK_THROWS_WITH(control::read_message<control::setup_request>(missing),
                      Catch::Contains("setup message field 'transport' is missing"));
    json later = good;  // a field of a later minor version
    later["numa_node"] = 1;
    CHECK(control::read_message<control::setup_request>(later).transport == "pipe.fifo");
    CHECK_THROWS_WITH(control::read_message<control::connect_request>(good),
                      Catch::Contains("expected a 'connect' message, got 'setup'"));
    CHECK_THROWS_WITH(control::read_message<control::connect_request>(
                          json{{"type", "connect"}, {"timeout_ns", "soon"}}),
                      Catch::Contains("connect message field 'timeout_ns' must be an integer"));
}

TEST_CASE("the hello's versions pick the newest both speak, or none", "[control]") {
    CHECK(control::to_string(control::spoken_versions().front()) == "1.0");
    auto picked = [](std::vector<std::string> offered) {
        const auto v = control::pick_version(offered);
        return v ? control::to_string(*v) : std::string("none");
    };
    CHECK(picked({"1.0"}) == "1.0");
    CHECK(picked({"1.1"}) == "1.1");
    CHECK(picked({"1.0", "1.1"}) == "1.1");
    CHECK(picked({"1.0", "1.1", "1.2"}) == "1.2");
    CHECK(picked({"1.7"}) == "1.2");         // a later minor speaks the earlier ones too
    CHECK(picked({"2.0", "1.3"}) == "1.2");  // any order
    CHECK(picked({"2.0"}) == "none");
    CHECK(picked({"0.9", "x.y", "1", "1.0.0", "-1.0", "99999.0"}) == "none");
    CHECK(picked({}) == "none");
    CHECK_FALSE(control::protocol_version_from("1."));
    CHECK_FALSE(control::protocol_version_from(".1"));
    CHECK(control::protocol_version_from("12.34")->minor == 34);
}
