#include "support/json_schema.hpp"

#include <algorithm>

namespace ipcbench::test {
namespace {

using nlohmann::json;

bool has_type(const json &v, const std::string &type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    return false;
}

class checker {
public:
    explicit checker(const json &root) : root_(root) {}

    void check(const json &schema, const json &v, const std::string &at) {
        if (schema.contains("$ref")) {
            const std::string ref = schema["$ref"];
            return check(root_.at(json::json_pointer(ref.substr(1))), v, at);
        }
        if (schema.contains("anyOf")) {
            std::vector<std::string> closest;
            for (const auto &option : schema["anyOf"]) {
                checker trial(root_);
                trial.check(option, v, at);
                if (trial.problems.empty()) return;
                if (closest.empty() || trial.problems.size() < closest.size())
                    closest = trial.problems;
            }
            // None fits: the problems of the shape it came closest to.
            problems.insert(problems.end(), closest.begin(), closest.end());
            return;
        }
        if (schema.contains("type")) {
            bool ok = false;
            for (const auto &t :
                 schema["type"].is_array() ? schema["type"] : json::array({schema["type"]}))
                ok |= has_type(v, t);
            if (!ok)
                return problems.push_back(at + ": expected " + schema["type"].dump() + ", got " +
                                          v.type_name());
        }
        if (schema.contains("enum") &&
            std::find(schema["enum"].begin(), schema["enum"].end(), v) == schema["enum"].end())
            problems.push_back(at + ": " + v.dump() + " is not one of " + schema["enum"].dump());
        if (v.is_object()) check_object(schema, v, at);
        if (v.is_array() && schema.contains("items"))
            for (std::size_t i = 0; i < v.size(); ++i)
                check(schema["items"], v[i], at + "/" + std::to_string(i));
    }

    std::vector<std::string> problems;

private:
    void check_object(const json &schema, const json &v, const std::string &at) {
        for (const auto &name : schema.value("required", json::array()))
            if (!v.contains(name))
                problems.push_back(at + ": required field '" + name.get<std::string>() +
                                   "' is missing");
        const json properties = schema.value("properties", json::object());
        for (const auto &[name, value] : v.items()) {
            if (properties.contains(name)) {
                check(properties[name], value, at + "/" + name);
            } else if (schema.contains("additionalProperties")) {
                const json &extra = schema["additionalProperties"];
                if (extra.is_boolean() && !extra.get<bool>())
                    problems.push_back(at + ": field '" + name + "' is not in the schema");
                else if (extra.is_object())
                    check(extra, value, at + "/" + name);
            }
        }
    }

    const json &root_;
};

}  // namespace

std::vector<std::string> schema_problems(const json &schema, const json &value) {
    checker c(schema);
    c.check(schema, value, "");
    return c.problems;
}

}  // namespace ipcbench::test
