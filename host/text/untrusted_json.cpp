#include "text/untrusted_json.hpp"

#include <fstream>

#include "text/printable_text.hpp"

namespace ipcbench::text {

json_shape scan_json(const char *text, std::size_t size, const json_limits &limits) {
    json_shape shape;
    shape.values = 1;
    std::size_t depth = 0;
    bool in_string = false, escaped = false;
    for (std::size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            ++shape.values;
            if (++depth > shape.depth) shape.depth = depth;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        } else if (c == ',') {
            ++shape.values;
        }
        if (shape.depth > limits.depth || shape.values > limits.values) break;
    }
    return shape;
}

nlohmann::json parse_untrusted_json(const char *text, std::size_t size, const json_limits &limits) {
    const json_shape shape = scan_json(text, size, limits);
    if (shape.depth > limits.depth)
        throw json_error("nested deeper than " + std::to_string(limits.depth) + " levels");
    if (shape.values > limits.values)
        throw json_error("more than " + std::to_string(limits.values) + " values");
    try {
        return nlohmann::json::parse(text, text + size);
    } catch (const nlohmann::json::exception &e) {
        std::string why = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> after the
        // bracketed id: what and where. It quotes what was read: untrusted bytes, escaped.
        if (const auto close = why.find("] "); close != std::string::npos)
            why = why.substr(close + 2);
        throw json_error("not valid JSON: " + printable(why, 200));
    }
}

nlohmann::json parse_untrusted_json_file(const std::filesystem::path &file, std::size_t max_bytes,
                                         const json_limits &limits) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw json_error("cannot be read");
    std::string text(max_bytes + 1, '\0');  // one byte more tells "over" from "just at"
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
        const std::size_t mib = max_bytes >> 20;
        throw json_error("larger than " + (mib ? std::to_string(mib) + " MiB"
                                               : std::to_string(max_bytes) + " bytes"));
    }
    return parse_untrusted_json(text, limits);
}

}  // namespace ipcbench::text
