// The suite's own rule: ctest runs each test case by passing its name to Catch, and Catch reads
// a name that starts with '-' as an option ("Unrecognised token: --from"): that test then never
// runs and fails as a usage error. Every registered name is checked here, so such a name fails
// this test with the name, not a run of the suite with a parser message.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

TEST_CASE("no test case name starts with '-' (ctest would pass it to Catch as an option)",
          "[suite]") {
    const auto &tests = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
    REQUIRE(tests.size() > 100);  // the registry is the whole suite, not an empty list
    std::vector<std::string> bad;
    for (const auto &t : tests)
        if (!t.name.empty() && t.name.front() == '-') bad.push_back(t.name);
    INFO("names starting with '-': " << bad.size()
                                     << (bad.empty() ? "" : ", first: " + bad.front()));
    CHECK(bad.empty());
}
