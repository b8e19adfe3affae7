#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ipcbench::remote {

// Labels name where an agent runs (node=n1, zone=eu-1a): given by the operator to
// `ipchost serve --label`, told to clients in the agent's welcome, written in `--agents` files,
// and carried by every fleet row. One rule for all of them: a key is 1 to 63 letters, digits
// and . _ / - (starting with a letter or digit; Kubernetes' label keys fit), a value 0 to 128
// printable characters without white space or '#'. At most max_labels.
using agent_labels = std::map<std::string, std::string>;
inline constexpr std::size_t max_labels = 32;

// "" when KEY=VALUE may be a label, else what is wrong with it.
std::string label_problem(const std::string &key, const std::string &value);

// Splits "KEY=VALUE" at its first '=' and checks it; throws std::invalid_argument naming the
// word and the rule.
std::pair<std::string, std::string> parse_label(const std::string &word);

// The labels of an agent's welcome, from the wire: an object of strings, each checked by the
// rule above. A label that breaks it, a value of another type or more than max_labels are
// dropped and named in `dropped` (for the log); never throws.
agent_labels labels_from_wire(const nlohmann::json &value, std::string &dropped);

}  // namespace ipcbench::remote
