#include "stats/stream_spread.hpp"

#include <algorithm>
#include <cmath>

#include "stats/nearest_rank.hpp"

namespace ipcbench::stats {

double nearest_rank(const std::vector<double> &sorted, double p) {
    if (sorted.empty()) return 0;
    return sorted[static_cast<std::size_t>(stats::nearest_rank(p, sorted.size())) - 1];
}

stream_spread spread_of(std::vector<double> per_stream) {
    stream_spread s;
    s.n = per_stream.size();
    if (per_stream.empty()) return s;
    std::sort(per_stream.begin(), per_stream.end());
    s.min = per_stream.front();
    s.max = per_stream.back();
    s.p50 = nearest_rank(per_stream, 50);
    s.p99 = nearest_rank(per_stream, 99);
    double sum = 0, squares = 0;
    for (double x : per_stream) {
        sum += x;
        squares += x * x;
    }
    s.jain = squares > 0 ? sum * sum / (static_cast<double>(s.n) * squares) : 1;
    return s;
}

}  // namespace ipcbench::stats
