#include "model/job.hpp"

#include <nlohmann/json.hpp>

#include "model/field_visitors.hpp"

namespace ipcbench::model {
namespace {

const auto &kind_names = protocol::job_kind_names;

}  // namespace

std::optional<job_kind> job_kind_from(const std::string &name) {
    return enum_named<job_kind>(kind_names, name);
}

bool from_name(const std::string &name, job_kind &out) {
    return from_name_in(kind_names, name, out);
}

const char *to_string(job_kind k) {
    return kind_names[static_cast<int>(k)];
}

bool sends(job_kind k) {
    return k == job_kind::send || k == job_kind::bidir;
}
bool receives(job_kind k) {
    return k == job_kind::receive || k == job_kind::bidir;
}

// The job's field list (protocol/worker-protocol.json, "job"; model/generated/case_fields.hpp).
void to_json(nlohmann::json &out, const job &j) {
    out = field_writer::write_fields(j);
}

void from_json(const nlohmann::json &in, job &j) {
    field_reader::read_into(in, "job", j);
}

}  // namespace ipcbench::model
