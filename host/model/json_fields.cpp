#include "model/json_fields.hpp"

#include <cmath>

namespace ipcbench::model {

json_fields::json_fields(const nlohmann::json &object, std::string what)
    : object_(object), what_(std::move(what)) {
    if (!object_.is_object()) throw bad_field(what_ + ": expected a JSON object");
}

bad_field json_fields::fail(const char *key, const std::string &problem) const {
    return bad_field(what_ + " field '" + key + "' " + problem);
}

const nlohmann::json &json_fields::at(const char *key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) throw fail(key, "is missing");
    return *it;
}

std::uint64_t json_fields::unsigned_integer(const char *key, std::uint64_t low,
                                            std::uint64_t high) const {
    const auto &v = at(key);
    if (!v.is_number_integer() ||
        (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
        throw fail(key, "must be a non-negative integer");
    const auto n = v.get<std::uint64_t>();
    if (n < low || n > high)
        throw fail(key, "is " + std::to_string(n) + ", outside " + std::to_string(low) + ".." +
                            std::to_string(high));
    return n;
}

std::int64_t json_fields::integer(const char *key, std::int64_t low, std::int64_t high) const {
    const auto &v = at(key);
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{INT64_MAX}))
        throw fail(key, "must be an integer");
    const auto n = v.get<std::int64_t>();
    if (n < low || n > high)
        throw fail(key, "is " + std::to_string(n) + ", outside " + std::to_string(low) + ".." +
                            std::to_string(high));
    return n;
}

double json_fields::number(const char *key, double low, double high) const {
    const auto &v = at(key);
    if (!v.is_number()) throw fail(key, "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < low || d > high) throw fail(key, "is out of range");
    return d;
}

bool json_fields::boolean(const char *key) const {
    const auto &v = at(key);
    if (!v.is_boolean()) throw fail(key, "must be true or false");
    return v.get<bool>();
}

std::string json_fields::text(const char *key, std::size_t max_length) const {
    const auto &v = at(key);
    if (!v.is_string()) throw fail(key, "must be a string");
    auto s = v.get<std::string>();
    if (s.size() > max_length)
        throw fail(key, "is longer than " + std::to_string(max_length) + " bytes");
    return s;
}

std::map<std::string, std::string> json_fields::text_map(const char *key) const {
    const auto &v = at(key);
    if (!v.is_object()) throw fail(key, "must be an object of strings");
    std::map<std::string, std::string> out;
    for (const auto &[k, value] : v.items()) {
        if (!value.is_string() || k.size() > 64 || value.get<std::string>().size() > 4096)
            throw fail(key, "must map short keys to strings of at most 4096 bytes");
        out[k] = value.get<std::string>();
    }
    return out;
}

}  // namespace ipcbench::model
