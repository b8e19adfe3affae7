#pragma once

#include "model/case_result.hpp"

namespace ipcbench::report {

// Fills r's top-level figures from r.repetitions: medians of the repetitions' figures, latency
// from their merged histograms, integrity summed; adds warnings for noisy figures (cv above
// cv_warning), lost messages, and repetitions that failed.
void summarize_repetitions(case_result &r, double cv_warning);

// The figure a repeated case is judged by: bytes/s for throughput, the p50 for latency.
const char *headline_figure(const case_result &r);

// Whether the repetitions so far pin the headline figure's median to within +/-precision (a
// share: 0.05) by its 95 % interval; false before 6 of them measured it (stats::summary).
bool precise_enough(const std::vector<case_result> &repetitions, double precision);

// Adds the warning of a case repeated to the cap without getting there (--precision).
void warn_if_imprecise(case_result &r, double precision);

}  // namespace ipcbench::report
