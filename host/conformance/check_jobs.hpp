#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/transport_endpoint.hpp"

namespace ipcbench::conformance {

// Every worker half of `ipchost check`, in one list (check_jobs.cpp holds its table: the job's
// "kind" on the control channel, the endpoint it works on and the function that runs it). The
// suite builds its jobs from it, the worker runs them from it.
enum class check_job {
    payload_send,
    payload_receive,
    truncation_send,
    truncation_receive,
    timeout_receive,
    close_wait,
    idle,          // does nothing (the other side's job is the check)
    send_timeout,  // fills a transport nobody reads
    drain,         // then drains it
    zero_copy_send,
    zero_copy_receive,
    batch_send,
    batch_receive,
    completion_send,
    completion_receive,
    readiness_send,
    readiness_receive,
    crash,            // holds a slot or message and kills its own process (job "side")
    close_endpoints,  // closes its endpoints after job "delay_ms" (the worker's own state)
};

using check_function = nlohmann::json (*)(plugin::transport_endpoint &, const nlohmann::json &);

struct check_job_info {
    check_job job;
    const char *kind;        // "check_..." in the run message's job
    std::uint32_t endpoint;  // IPCB_DIR_SEND or IPCB_DIR_RECV; 0: none
    check_function run;      // nullptr: the worker does it itself (idle, crash, close_endpoints)
};

const check_job_info &info(check_job job);
// The job a run message names, or nothing when "kind" is not a check job.
std::optional<check_job> check_job_from(const std::string &kind);
// A check job for a worker: {"kind": ...} and the job's own fields.
nlohmann::json check_job_message(check_job job, nlohmann::json fields = nlohmann::json::object());

}  // namespace ipcbench::conformance
