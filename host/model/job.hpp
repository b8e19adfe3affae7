#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "model/case_settings.hpp"

namespace ipcbench::model {

// The part one worker plays in a case.
enum class job_kind { send, receive, bidir, ping, pong };
const char *to_string(job_kind k);
std::optional<job_kind> job_kind_from(const std::string &name);
bool from_name(const std::string &name, job_kind &out);  // for the field list's reader

// What one worker does in the timed phase of a case: its part, the case as the user asked for
// it, and what the orchestrator knows of the transport and the placement.
struct job {
    job_kind kind = job_kind::send;
    case_settings settings;
    bool reliable = true;  // the transport never drops: block, and end on the end marker
    bool stream = true;    // the transport is a byte stream: reassemble partial reads
    int cpu = -1;          // pin this worker to this CPU; -1 = do not pin
};

// One stream of this job: does it send, receive, ping or pong? (bidir streams do both.)
bool sends(job_kind k);
bool receives(job_kind k);

void to_json(nlohmann::json &out, const job &j);
void from_json(const nlohmann::json &in, job &j);

}  // namespace ipcbench::model
