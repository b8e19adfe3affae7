#include "model/json_fields.hpp"

#include <cmath>

#include "model/field_visitors.hpp"

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
    if (n < low || n > high)  // the unsigned range
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

std::string json_fields::item_name(const char *key) const {
    return what_ + " field '" + key + "'";
}

std::string json_fields::item_name(const char *key, std::size_t index) const {
    return item_name(key) + "[" + std::to_string(index) + "]";
}

const nlohmann::json &field_reader::list_of(const char *name, std::size_t min_items,
                                            std::size_t max_items) const {
    const auto &v = f.at(name);
    if (!v.is_array() || v.size() < min_items || v.size() > max_items)
        throw f.fail(name, "must be a list of " + std::to_string(min_items) + " to " +
                               std::to_string(max_items) + " items");
    return v;
}

void field_reader::text_list(const char *name, std::vector<std::string> &v, std::size_t max_items,
                             std::size_t max_length) {
    const auto &list = list_of(name, 0, max_items);
    v.clear();
    for (const auto &item : list) {
        if (!item.is_string() || item.get_ref<const std::string &>().size() > max_length)
            throw f.fail(name,
                         "must list strings of at most " + std::to_string(max_length) + " bytes");
        v.push_back(item.get<std::string>());
    }
}

void field_reader::integer_list(const char *name, std::vector<std::int64_t> &v,
                                std::size_t max_items, std::int64_t low, std::int64_t high) {
    const auto &list = list_of(name, 0, max_items);
    v.clear();
    for (const auto &item : list) {
        const bool in_range =
            item.is_number_integer() &&
            !(item.is_number_unsigned() && item.get<std::uint64_t>() > std::uint64_t{INT64_MAX}) &&
            item.get<std::int64_t>() >= low && item.get<std::int64_t>() <= high;
        if (!in_range)
            throw f.fail(
                name, "must list integers in " + std::to_string(low) + ".." + std::to_string(high));
        v.push_back(item.get<std::int64_t>());
    }
}

void field_reader::document(const char *name, nlohmann::json &v) {
    const auto &d = f.at(name);
    if (!d.is_object()) throw f.fail(name, "must be an object");
    v = d;
}

}  // namespace ipcbench::model
