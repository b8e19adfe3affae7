#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace ipcbench::model {

// A field that is missing, of the wrong type or out of range; the text names it and the object.
struct bad_field : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Reads the fields of one JSON object that crossed a process or host boundary: each read names
// the field, checks its type and range, and throws bad_field otherwise. Nothing is defaulted.
class json_fields {
public:
    json_fields(const nlohmann::json &object, std::string what);

    const nlohmann::json &at(const char *key) const;
    bool has(const char *key) const { return object_.contains(key); }
    std::uint64_t unsigned_integer(const char *key, std::uint64_t low, std::uint64_t high) const;
    std::int64_t integer(const char *key, std::int64_t low, std::int64_t high) const;
    double number(const char *key, double low, double high) const;
    double seconds(const char *key) const { return number(key, 0, 86400.0 * 366); }
    int cpu(const char *key) const { return static_cast<int>(integer(key, -1, 4095)); }
    bool boolean(const char *key) const;
    std::string text(const char *key, std::size_t max_length) const;
    std::map<std::string, std::string> text_map(const char *key) const;

    template <class Enum>
    Enum named(const char *key, std::optional<Enum> (*parse)(const std::string &)) const {
        const std::string name = text(key, 32);
        if (auto value = parse(name)) return *value;
        throw fail(key, "has the unknown value '" + name + "'");
    }

    bad_field fail(const char *key, const std::string &problem) const;
    // How a nested object is named in an error: "setup field 'endpoints'[3]".
    std::string item_name(const char *key) const;
    std::string item_name(const char *key, std::size_t index) const;

private:
    const nlohmann::json &object_;
    std::string what_;
};

}  // namespace ipcbench::model
