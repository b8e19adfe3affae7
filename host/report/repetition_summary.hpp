#pragma once

#include "model/case_result.hpp"

namespace ipcbench::report {

// Fills r's top-level figures from r.repetitions: medians of the repetitions' figures, latency
// from their merged histograms, integrity summed; adds warnings for noisy figures (cv above
// cv_warning), lost messages, and repetitions that failed.
void summarize_repetitions(case_result &r, double cv_warning);

}  // namespace ipcbench::report
