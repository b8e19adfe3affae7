#pragma once

// The two walks over a field list (a `visit_fields(object, visitor)` that names each field once,
// with its type and range): field_writer puts every field into a JSON object, field_reader takes
// every field out of one, checked by name through json_fields. Case settings, the control
// messages between processes and the result file all go through these two, so a field has one
// name, one type and one range wherever it crosses a process, a host or a file.
//
// A field list calls, for each field:
//   text(name, std::string&, max_length)            a string of at most max_length bytes
//   optional_text(name, std::string&, max_length)   the same; absent reads as ""
//   count(name, unsigned-or-int&, low, high)        a non-negative integer in low..high
//   integer(name, std::int64_t&, low, high)         an integer in low..high
//   seconds(name, double&) / number(name, double&, low, high)
//   flag(name, bool&)
//   named(name, Enum&)                              one of the enum's names (to_string /
//                                                   from_name, found by argument lookup)
//   named_list(name, std::vector<Enum>&, max_items)
//   cpu(name, int&)                                 -1 (none) or a CPU number
//   text_map(name, std::map<std::string, std::string>&)
//   text_list(name, std::vector<std::string>&, max_items, max_length)
//   optional_text_list(name, ...)                   the same; absent when empty, read as empty
//   integer_list(name, std::vector<std::int64_t>&, max_items, low, high)
//   object_list(name, std::vector<T>&, min_items, max_items)   each T by its own field list
//   object(name, T&)                                a nested T by its own field list
//   document(name, nlohmann::json&)                 an object read later by its own reader
// Reading requires every field a list names (except optional_text) and ignores fields it does
// not name, so a peer of a later minor version may add fields.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/json_fields.hpp"

namespace ipcbench::model {

// The enum value whose name (names[i], in the enum's order) is `name`.
template <class Enum, std::size_t N>
std::optional<Enum> enum_named(const char *const (&names)[N], const std::string &name) {
    for (std::size_t i = 0; i < N; ++i)
        if (name == names[i]) return static_cast<Enum>(i);
    return std::nullopt;
}

// from_name for a named() field, from the enum's name table.
template <class Enum, std::size_t N>
bool from_name_in(const char *const (&names)[N], const std::string &name, Enum &out) {
    const auto v = enum_named<Enum>(names, name);
    if (v) out = *v;
    return v.has_value();
}

struct field_writer {
    nlohmann::json &out;

    template <class T>
    void text(const char *name, const T &v, std::size_t) {
        out[name] = v;
    }
    void optional_text(const char *name, const std::string &v, std::size_t) {
        if (!v.empty()) out[name] = v;
    }
    template <class T>
    void count(const char *name, const T &v, std::uint64_t, std::uint64_t) {
        out[name] = v;
    }
    void integer(const char *name, std::int64_t v, std::int64_t, std::int64_t) { out[name] = v; }
    void seconds(const char *name, double v) { out[name] = v; }
    void number(const char *name, double v, double, double) { out[name] = v; }
    void flag(const char *name, bool v) { out[name] = v; }
    template <class Enum>
    void named(const char *name, Enum v) {
        out[name] = to_string(v);
    }
    template <class Enum>
    void named_list(const char *name, const std::vector<Enum> &v, std::size_t) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto item : v) list.push_back(to_string(item));
        out[name] = std::move(list);
    }
    void cpu(const char *name, int v) { out[name] = v; }
    void text_map(const char *name, const std::map<std::string, std::string> &v) { out[name] = v; }
    void text_list(const char *name, const std::vector<std::string> &v, std::size_t, std::size_t) {
        out[name] = v;
    }
    void integer_list(const char *name, const std::vector<std::int64_t> &v, std::size_t,
                      std::int64_t, std::int64_t) {
        out[name] = v;
    }
    template <class T>
    void object_list(const char *name, const std::vector<T> &v, std::size_t, std::size_t) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto &item : v) list.push_back(write_fields(item));
        out[name] = std::move(list);
    }
    template <class T>
    void object(const char *name, const T &v) {
        out[name] = write_fields(v);
    }
    // Absent when empty (or zero), read as empty (zero) when absent.
    template <class T>
    void optional_object_list(const char *name, const std::vector<T> &v, std::size_t max_items) {
        if (!v.empty()) object_list(name, v, 0, max_items);
    }
    void optional_number(const char *name, double v, double, double) {
        if (v != 0) out[name] = v;
    }
    void optional_text_list(const char *name, const std::vector<std::string> &v, std::size_t,
                            std::size_t) {
        if (!v.empty()) out[name] = v;
    }
    void document(const char *name, const nlohmann::json &v) { out[name] = v; }

    template <class T>
    static nlohmann::json write_fields(const T &v) {
        nlohmann::json j = nlohmann::json::object();
        visit_fields(v, field_writer{j});
        return j;
    }
};

struct field_reader {
    const json_fields &f;

    void text(const char *name, std::string &v, std::size_t max) { v = f.text(name, max); }
    void optional_text(const char *name, std::string &v, std::size_t max) {
        v = f.has(name) ? f.text(name, max) : std::string();
    }
    template <class T>
    void count(const char *name, T &v, std::uint64_t low, std::uint64_t high) {
        v = static_cast<T>(f.unsigned_integer(name, low, high));
    }
    void integer(const char *name, std::int64_t &v, std::int64_t low, std::int64_t high) {
        v = f.integer(name, low, high);
    }
    void seconds(const char *name, double &v) { v = f.seconds(name); }
    void number(const char *name, double &v, double low, double high) {
        v = f.number(name, low, high);
    }
    void flag(const char *name, bool &v) { v = f.boolean(name); }
    template <class Enum>
    void named(const char *name, Enum &v) {
        const std::string text = f.text(name, 32);
        if (!from_name(text, v)) throw f.fail(name, "has the unknown value '" + text + "'");
    }
    template <class Enum>
    void named_list(const char *name, std::vector<Enum> &v, std::size_t max_items) {
        std::vector<std::string> names;
        text_list(name, names, max_items, 32);
        v.assign(names.size(), Enum{});
        for (std::size_t i = 0; i < names.size(); ++i)
            if (!from_name(names[i], v[i]))
                throw f.fail(name, "has the unknown value '" + names[i] + "'");
    }
    void cpu(const char *name, int &v) { v = f.cpu(name); }
    void text_map(const char *name, std::map<std::string, std::string> &v) { v = f.text_map(name); }
    void text_list(const char *name, std::vector<std::string> &v, std::size_t max_items,
                   std::size_t max_length);
    void integer_list(const char *name, std::vector<std::int64_t> &v, std::size_t max_items,
                      std::int64_t low, std::int64_t high);
    template <class T>
    void object_list(const char *name, std::vector<T> &v, std::size_t min_items,
                     std::size_t max_items) {
        const auto &list = list_of(name, min_items, max_items);
        v.clear();
        for (std::size_t i = 0; i < list.size(); ++i)
            v.push_back(read_fields<T>(list[i], f.item_name(name, i)));
    }
    template <class T>
    void object(const char *name, T &v) {
        v = read_fields<T>(f.at(name), f.item_name(name));
    }
    template <class T>
    void optional_object_list(const char *name, std::vector<T> &v, std::size_t max_items) {
        v.clear();
        if (f.has(name)) object_list(name, v, 0, max_items);
    }
    void optional_number(const char *name, double &v, double low, double high) {
        v = f.has(name) ? f.number(name, low, high) : 0;
    }
    void optional_text_list(const char *name, std::vector<std::string> &v, std::size_t max_items,
                            std::size_t max_length) {
        v.clear();
        if (f.has(name)) text_list(name, v, max_items, max_length);
    }
    void document(const char *name, nlohmann::json &v);

    // Reads the listed fields of `in` into v (fields the list does not name keep their value).
    template <class T>
    static void read_into(const nlohmann::json &in, const std::string &what, T &v) {
        const json_fields fields(in, what);
        visit_fields(v, field_reader{fields});
    }
    template <class T>
    static T read_fields(const nlohmann::json &in, const std::string &what) {
        T v{};
        read_into(in, what, v);
        return v;
    }

private:
    const nlohmann::json &list_of(const char *name, std::size_t min_items,
                                  std::size_t max_items) const;
};

}  // namespace ipcbench::model
