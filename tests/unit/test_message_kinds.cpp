// The control messages' kinds and the conformance check jobs, each from its one table
// (host/control/message_kind.cpp, host/conformance/check_jobs.cpp): every kind has one name
// that reads back as itself, an unknown one is refused by name, and the agent's relayed and
// answered sets are what the table says.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "conformance/check_jobs.hpp"
#include "control/frame_codec.hpp"
#include "control/message_kind.hpp"

using namespace ipcbench;
using control::message_kind;

TEST_CASE("every control message kind has one name, read back as itself", "[control]") {
    std::set<std::string> names;
    for (int i = 0; i <= static_cast<int>(message_kind::auth); ++i) {
        const auto kind = static_cast<message_kind>(i);
        const std::string name = control::name_of(kind);
        INFO(name);
        CHECK(names.insert(name).second);
        CHECK(control::info(kind).kind == kind);
        CHECK(control::message_kind_from(name) == kind);
        const auto m = control::message(kind, {{"x", 1}});
        CHECK(m.at("type") == name);
        CHECK(m.at("x") == 1);
        CHECK(control::kind_of(m) == kind);
        CHECK(control::is(m, kind));
        // A request is answered, an answer answers: never both.
        CHECK_FALSE((control::info(kind).request && control::info(kind).answer));
    }
    CHECK(names.size() == 21);
}

TEST_CASE("an unknown or malformed message type is refused by name", "[control]") {
    const nlohmann::json unknown = {{"type", "launch_missiles"}};
    CHECK_THROWS_WITH(control::kind_of(unknown),
                      Catch::Contains("unknown control message 'launch_missiles'"));
    CHECK_FALSE(control::known_kind(unknown));
    CHECK_FALSE(control::is(unknown, message_kind::run));
    CHECK_FALSE(control::known_kind(nlohmann::json{{"type", 7}}));
    CHECK_FALSE(control::known_kind(nlohmann::json::array()));
    CHECK(control::type_text(nlohmann::json{{"kind", "run"}}) == "?");
    CHECK(control::type_text(unknown) == "launch_missiles");
}

TEST_CASE("what an agent relays and counts as answers comes from the table", "[control]") {
    using names = std::vector<std::string>;
    CHECK(control::names_where(&control::message_kind_info::agent_relays) ==
          names{"welcome", "setup", "connect", "run", "sender_done", "close"});
    CHECK(control::names_where(&control::message_kind_info::request) ==
          names{"setup", "connect", "run", "probe", "close", "peer_case"});
    CHECK(control::names_where(&control::message_kind_info::answer) ==
          names{"opened", "connected", "result", "closed", "error", "peer_result"});
    CHECK(control::names_where(&control::message_kind_info::peer_relays) == names{"peer_case"});
}

TEST_CASE("every check job has one kind, and runs on the endpoint it names", "[control]") {
    using conformance::check_job;
    std::set<std::string> kinds;
    for (int i = 0; i <= static_cast<int>(check_job::close_endpoints); ++i) {
        const auto job = static_cast<check_job>(i);
        const auto &row = conformance::info(job);
        INFO(row.kind);
        CHECK(row.job == job);
        CHECK(kinds.insert(row.kind).second);
        CHECK(std::string(row.kind).rfind("check_", 0) == 0);
        CHECK(conformance::check_job_from(row.kind) == job);
        CHECK((row.run != nullptr) == (row.endpoint != 0));  // a function needs its endpoint
        const auto m = conformance::check_job_message(job, {{"size", 64}});
        CHECK(m.at("kind") == row.kind);
        CHECK(m.at("size") == 64);
    }
    CHECK_FALSE(conformance::check_job_from("send"));  // a measurement job is no check
    CHECK_FALSE(conformance::check_job_from("check_everything"));
}
