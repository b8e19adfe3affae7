// The receiver's duplicate/reorder tracking, on synthetic sequences: exact inside its window,
// fixed memory whatever the run length, and honest (counted) about what falls out of it.
#include <catch2/catch.hpp>

#include "stats/sequence_tracker.hpp"

using ipcbench::stats::sequence_tracker;

TEST_CASE("in order: every message unique, nothing reordered", "[sequence]") {
    sequence_tracker t;
    for (std::uint64_t s = 0; s < 1'000'000; ++s) REQUIRE(t.record(s));
    CHECK(t.unique() == 1'000'000);
    CHECK(t.highest_plus_one() == 1'000'000);
    CHECK(t.duplicates() == 0);
    CHECK(t.out_of_order() == 0);
    CHECK(t.beyond_window() == 0);
}

TEST_CASE("duplicates and reordering inside the window are exact", "[sequence]") {
    sequence_tracker t;
    for (std::uint64_t s : {0, 1, 3, 2, 2, 5, 4, 1, 10, 9, 10}) t.record(s);
    CHECK(t.unique() == 8);        // 0 1 2 3 4 5 9 10
    CHECK(t.duplicates() == 3);    // 2, 1, 10 again
    CHECK(t.out_of_order() == 3);  // 2 after 3, 4 after 5, 9 after 10
    CHECK(t.highest_plus_one() == 11);
}

TEST_CASE("a gap clears the window: numbers skipped are new when they come late", "[sequence]") {
    sequence_tracker t;
    const std::uint64_t w = sequence_tracker::window;
    for (std::uint64_t s = 0; s < w; ++s) t.record(s);
    t.record(w + 200);  // 200 skipped (w .. w+199), across word boundaries
    for (std::uint64_t s = w; s < w + 200; ++s) CHECK(t.record(s));  // late, not duplicates
    CHECK(t.duplicates() == 0);
    CHECK(t.out_of_order() == 200);
    CHECK_FALSE(t.record(w + 100));  // now seen: a duplicate
    CHECK(t.duplicates() == 1);
}

TEST_CASE("arrivals older than the window are counted apart, never as duplicates", "[sequence]") {
    sequence_tracker t;
    t.record(0);
    t.record(5 * sequence_tracker::window);  // a long jump: the window moved past 0
    CHECK(t.record(0));                      // cannot be told from a first arrival
    CHECK(t.beyond_window() == 1);
    CHECK(t.out_of_order() == 1);
    CHECK_FALSE(t.record(5 * sequence_tracker::window));  // the recent one still is exact
    CHECK(t.duplicates() == 1);
}

TEST_CASE("the tracker's memory is fixed: a few KiB whatever the run length", "[sequence]") {
    static_assert(sizeof(sequence_tracker) <= sequence_tracker::window / 8 + 64,
                  "the window's bits and a few counters, nothing that grows");
    sequence_tracker t;
    t.record(0);
    t.record(std::uint64_t{1} << 40);  // a trillion ahead: no allocation, just a window move
    CHECK(t.highest_plus_one() == (std::uint64_t{1} << 40) + 1);
}
