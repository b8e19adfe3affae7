#include "model/interval_figures.hpp"

#include <nlohmann/json.hpp>

#include "model/json_fields.hpp"

namespace ipcbench::model {

void to_json(nlohmann::json &out, const interval_figures &i) {
    out = {{"end_s", i.end_s},
           {"seconds", i.seconds},
           {"messages", i.messages},
           {"bytes", i.bytes},
           {"lost", i.lost}};
}

void from_json(const nlohmann::json &in, interval_figures &i) {
    const json_fields f(in, "interval");
    i.end_s = f.seconds("end_s");
    i.seconds = f.seconds("seconds");
    i.messages = f.unsigned_integer("messages", 0, UINT64_MAX);
    i.bytes = f.unsigned_integer("bytes", 0, UINT64_MAX);
    i.lost = f.unsigned_integer("lost", 0, UINT64_MAX);
}

}  // namespace ipcbench::model
