// The suite's own rules for names: ctest runs each test case by passing its name to Catch, and
// Catch reads a name that starts with '-' as an option ("Unrecognised token: --from"): that test
// then never runs and fails as a usage error. A ';' splits the name in two in CMake's list of
// discovered tests, so neither half runs the test. Every registered name is checked here, so such
// a name fails this test with the name, not a run of the suite with a parser message.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

TEST_CASE("no test case name starts with a dash or holds a semicolon, which ctest cannot pass on",
          "[suite]") {
    const auto &tests = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
    REQUIRE(tests.size() > 100);  // the registry is the whole suite, not an empty list
    std::vector<std::string> bad;
    for (const auto &t : tests)
        if ((!t.name.empty() && t.name.front() == '-') || t.name.find(';') != std::string::npos)
            bad.push_back(t.name);
    INFO("names starting with '-' or holding a ';': "
         << bad.size() << (bad.empty() ? "" : ", first: " + bad.front()));
    CHECK(bad.empty());
}
