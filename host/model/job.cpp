#include "model/job.hpp"

#include <nlohmann/json.hpp>

#include "model/json_fields.hpp"

namespace ipcbench::model {
namespace {

const char *const kind_names[] = {"send", "receive", "bidir", "ping", "pong"};

}  // namespace

std::optional<job_kind> job_kind_from(const std::string &name) {
    for (int i = 0; i < 5; ++i)
        if (name == kind_names[i]) return static_cast<job_kind>(i);
    return std::nullopt;
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

void to_json(nlohmann::json &out, const job &j) {
    out = {{"kind", to_string(j.kind)},
           {"case", j.settings},
           {"reliable", j.reliable},
           {"stream", j.stream},
           {"cpu", j.cpu}};
}

void from_json(const nlohmann::json &in, job &j) {
    const json_fields f(in, "job");
    j.kind = f.named("kind", job_kind_from);
    j.settings = f.at("case").get<case_settings>();
    j.reliable = f.boolean("reliable");
    j.stream = f.boolean("stream");
    j.cpu = f.cpu("cpu");
}

}  // namespace ipcbench::model
