#include "conformance/check_jobs.hpp"

#include <array>

#include "conformance/conformance_jobs.hpp"

namespace ipcbench::conformance {
namespace {

using j = check_job;
constexpr std::uint32_t send = IPCB_DIR_SEND, recv = IPCB_DIR_RECV;

const std::array<check_job_info, 19> jobs = {{
    {j::payload_send, "check_payload_send", send, payload_send},
    {j::payload_receive, "check_payload_receive", recv, payload_receive},
    {j::truncation_send, "check_truncation_send", send, truncation_send},
    {j::truncation_receive, "check_truncation_receive", recv, truncation_receive},
    {j::timeout_receive, "check_timeout_receive", recv, timeout_receive},
    {j::close_wait, "check_close_wait", recv, close_wait},
    {j::idle, "check_idle", 0, nullptr},
    {j::send_timeout, "check_send_timeout", send, send_timeout_fill},
    {j::drain, "check_drain", recv, drain_count},
    {j::zero_copy_send, "check_zero_copy_send", send, zero_copy_send},
    {j::zero_copy_receive, "check_zero_copy_receive", recv, zero_copy_receive},
    {j::batch_send, "check_batch_send", send, batch_send},
    {j::batch_receive, "check_batch_receive", recv, batch_receive},
    {j::completion_send, "check_completion_send", send, completion_send},
    {j::completion_receive, "check_completion_receive", recv, completion_receive},
    {j::readiness_send, "check_readiness_send", send, readiness_send},
    {j::readiness_receive, "check_readiness_receive", recv, readiness_receive},
    {j::crash, "check_crash", 0, nullptr},
    {j::close_endpoints, "check_close_endpoints", 0, nullptr},
}};

bool in_enum_order() {
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (static_cast<std::size_t>(jobs[i].job) != i) return false;
    return true;
}

}  // namespace

const check_job_info &info(check_job job) {
    static const bool ordered = in_enum_order();
    if (!ordered) throw std::logic_error("check_jobs.cpp: one row per check_job, in order");
    return jobs[static_cast<std::size_t>(job)];
}

std::optional<check_job> check_job_from(const std::string &kind) {
    for (const auto &row : jobs)
        if (kind == row.kind) return row.job;
    return std::nullopt;
}

nlohmann::json check_job_message(check_job job, nlohmann::json fields) {
    fields["kind"] = info(job).kind;
    return fields;
}

}  // namespace ipcbench::conformance
