// --precision / --repeat auto on synthetic repetitions: a case is precise once its headline
// figure's median has a 95 % interval within the share asked, never before 6 repetitions, and
// one that reached its cap without it says so with the interval it got.
#include <catch2/catch.hpp>

#include "report/repetition_summary.hpp"

using namespace ipcbench::report;
namespace model = ipcbench::model;

namespace {

std::vector<case_result> repetitions(const std::vector<double> &values, bool latency = false) {
    std::vector<case_result> out;
    for (double v : values) {
        case_result r;
        r.settings.transport_id = "pipe.fifo";
        r.settings.size_bytes = 1024;
        r.settings.mode = latency ? model::measure_mode::latency : model::measure_mode::throughput;
        if (latency) {
            r.latency = latency_figures{};
            r.latency->p50 = static_cast<std::uint64_t>(v);
        } else {
            r.throughput = throughput_figures{v, v / 1024};
        }
        out.push_back(r);
    }
    return out;
}

}  // namespace

TEST_CASE("precision: pinned once the median's interval is within the share, from 6 on",
          "[report]") {
    const std::vector<double> steady = {100, 101, 99, 100, 102, 98};
    CHECK(precise_enough(repetitions(steady), 0.05));
    CHECK_FALSE(precise_enough(repetitions({100, 101, 99, 100, 102}), 0.05));  // 5: no interval
    CHECK_FALSE(precise_enough(repetitions(steady), 0.01));  // [98, 102] is not within 1 %
    // One slow repetition among six widens the interval to it ([x1, x6] at n = 6) ...
    CHECK_FALSE(precise_enough(repetitions({100, 101, 99, 100, 102, 60}), 0.05));
    // ... and is left outside it once there are nine ([x2, x8]).
    CHECK(precise_enough(repetitions({100, 101, 99, 100, 102, 60, 100, 99, 101}), 0.05));
    // Latency cases are judged by their p50.
    CHECK(precise_enough(repetitions({50, 51, 49, 50, 50, 50}, true), 0.05));
    CHECK_FALSE(precise_enough(repetitions({50, 80, 49, 50, 20, 50}, true), 0.05));
    // A failed repetition is not a sample.
    auto with_failure = repetitions({100, 101, 99, 100, 102, 98});
    with_failure[0].status = model::case_status::failed;
    CHECK_FALSE(precise_enough(with_failure, 0.05));
}

TEST_CASE("precision: a case that reached its cap without it says how far it got", "[report]") {
    case_result r;
    r.settings.mode = model::measure_mode::throughput;
    r.repetitions = repetitions({100, 130, 70, 100, 110, 90});
    summarize_repetitions(r, 10);
    warn_if_imprecise(r, 0.05);
    REQUIRE_FALSE(r.warnings.empty());
    CHECK_THAT(r.warnings.back(), Catch::StartsWith("bytes_per_sec's median is known to [-30.0%, "
                                                    "+30.0%] (95 % interval) after 6 repetitions, "
                                                    "not the +/-5% asked"));
    case_result fine;
    fine.settings.mode = model::measure_mode::throughput;
    fine.repetitions = repetitions({100, 101, 99, 100, 102, 98});
    summarize_repetitions(fine, 10);
    warn_if_imprecise(fine, 0.05);
    CHECK(fine.warnings.empty());
}
