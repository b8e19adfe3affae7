#pragma once

#include <cstdint>

namespace ipcbench::model {

// Every unit conversion of the reports, in one place. MB is 10^6 bytes and Mbit 10^6 bits, as
// iperf3 and the tables say; MiB is 2^20 bytes (memory).
constexpr double bytes_per_mb = 1e6;
constexpr double bytes_per_mib = 1024.0 * 1024.0;

constexpr double megabytes(double bytes) {
    return bytes / bytes_per_mb;
}
constexpr double mebibytes(double bytes) {
    return bytes / bytes_per_mib;
}
constexpr double megabits(double bytes) {
    return bytes * 8 / 1e6;
}
constexpr double kib_to_mib(std::int64_t kib) {
    return static_cast<double>(kib) / 1024.0;
}
constexpr double per_second(double amount, double seconds) {
    return seconds > 0 ? amount / seconds : 0;
}
// CPU seconds spent per MB moved, in microseconds.
constexpr double cpu_us_per_mb(double cpu_s, double bytes) {
    return bytes > 0 ? cpu_s * 1e6 / megabytes(bytes) : 0;
}

}  // namespace ipcbench::model
