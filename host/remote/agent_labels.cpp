#include "remote/agent_labels.hpp"

#include <cctype>
#include <stdexcept>

#include "text/printable_text.hpp"

namespace ipcbench::remote {
namespace {

bool key_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '/' ||
           c == '-';
}

bool value_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f && c != '#';
}

}  // namespace

std::string label_problem(const std::string &key, const std::string &value) {
    if (key.empty() || key.size() > 63)
        return "a label key has 1 to 63 characters, this one " + std::to_string(key.size());
    if (!std::isalnum(static_cast<unsigned char>(key[0])))
        return "a label key starts with a letter or digit";
    for (char c : key)
        if (!key_char(c)) return "a label key has only letters, digits and . _ / -";
    if (value.size() > 128)
        return "a label value has at most 128 characters, this one " + std::to_string(value.size());
    for (char c : value)
        if (!value_char(c))
            return "a label value has printable characters only, no white space and no '#'";
    return "";
}

std::pair<std::string, std::string> parse_label(const std::string &word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("label '" + text::printable(word, 64) +
                                    "' must be KEY=VALUE (zone=a, node=n1)");
    std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (const std::string why = label_problem(key, value); !why.empty())
        throw std::invalid_argument("label '" + text::printable(word, 64) + "': " + why);
    return {std::move(key), std::move(value)};
}

agent_labels labels_from_wire(const nlohmann::json &value, std::string &dropped) {
    agent_labels out;
    if (!value.is_object()) {
        dropped = "'labels' is " + std::string(value.type_name()) + ", not an object";
        return out;
    }
    for (const auto &[key, v] : value.items()) {
        std::string why;
        if (!v.is_string())
            why = "not a string";
        else if (out.size() == max_labels)
            why = "more than " + std::to_string(max_labels) + " labels";
        else
            why = label_problem(key, v.get<std::string>());
        if (why.empty())
            out[key] = v.get<std::string>();
        else
            dropped += (dropped.empty() ? "" : "; ") + text::printable(key, 64) + ": " + why;
    }
    return out;
}

}  // namespace ipcbench::remote
