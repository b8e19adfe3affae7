#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace ipcbench::text {

// JSON from anywhere ipchost does not control (a control frame from a worker or a network
// client, a result file, a cache file, what a plugin's child process sent back) is parsed only
// within bounds, so that no input costs more than a small multiple of its size:
//   - nesting at most `depth` arrays/objects deep (nlohmann::json builds each level with a heap
//     node and a recursive parse: an 8 MiB "[[[[..." costs hundreds of MB unbounded);
//   - at most `values` values (each costs a 16-byte node and more: a flat "[0,0,0,..." of 48 MiB
//     would cost over a GiB);
// both counted by one scan of the bytes before anything is built. The size bound is the
// caller's: it knows its limit and says which (a frame, a file).
struct json_limits {
    std::size_t depth = 64;
    std::size_t values = std::size_t{1} << 22;  // 4 Mi values
};

struct json_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What the scan found: the deepest nesting and the number of values (commas and openings
// outside strings, plus one), counting stops once either passes its limit.
struct json_shape {
    std::size_t depth = 0;
    std::size_t values = 0;
};
json_shape scan_json(const char *text, std::size_t size, const json_limits &limits);

// The document, or json_error naming what is wrong ("nested deeper than 64 levels", "more
// than 4194304 values", "not valid JSON: ...").
nlohmann::json parse_untrusted_json(const char *text, std::size_t size,
                                    const json_limits &limits = {});
inline nlohmann::json parse_untrusted_json(const std::string &text,
                                           const json_limits &limits = {}) {
    return parse_untrusted_json(text.data(), text.size(), limits);
}

// A whole file's JSON, reading at most max_bytes of it: json_error when it is larger ("larger
// than 64 MiB"), unreadable ("cannot be read") or as parse_untrusted_json says.
nlohmann::json parse_untrusted_json_file(const std::filesystem::path &file, std::size_t max_bytes,
                                         const json_limits &limits = {});

}  // namespace ipcbench::text
