#include "remote/agent_protocol.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "platform/private_file.hpp"
#include "platform/system_info.hpp"

namespace ipcbench::remote {

namespace {

// The first line of a secret, without the white space around it.
std::string first_line_trimmed(std::string token) {
    token = token.substr(0, token.find('\n'));
    const auto first = token.find_first_not_of(" \t\r");
    const auto last = token.find_last_not_of(" \t\r");
    return first == std::string::npos ? "" : token.substr(first, last - first + 1);
}

bool is_variable_name(const std::string &name) {
    if (name.empty() || name.size() > 128 || std::isdigit(static_cast<unsigned char>(name[0])))
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

}  // namespace

std::string read_token_file(const std::string &path) {
    std::string token = first_line_trimmed(platform::read_private_file(path, 4096));
    if (token.empty()) throw std::runtime_error("the token file '" + path + "' is empty");
    return token;
}

std::string read_token_variable(const std::string &name) {
    if (!is_variable_name(name))
        throw std::runtime_error("'" + name.substr(0, 64) +
                                 "' is no environment variable name (letters, digits, _)");
    const auto value = platform::take_environment_variable(name);
    if (!value)
        throw std::runtime_error("the environment variable " + name +
                                 " is not set (in Kubernetes: env valueFrom secretKeyRef)");
    std::string token = first_line_trimmed(*value);
    if (token.empty()) throw std::runtime_error("the environment variable " + name + " is empty");
    if (token.size() > 4096)
        throw std::runtime_error("the environment variable " + name + " is over 4096 bytes");
    return token;
}

}  // namespace ipcbench::remote

#include <cmath>
#include <set>

#include "remote/agent_handshake.hpp"

namespace ipcbench::remote {

std::string generate_token() {
    return new_nonce();  // 32 bytes of the cryptographic generator, in hex
}

double token_entropy_bits(const std::string &token) {
    bool lower = false, upper = false, digit = false, other = false, hex = true;
    std::set<char> distinct;
    for (const char c : token) {
        const auto u = static_cast<unsigned char>(c);
        lower |= std::islower(u) != 0;
        upper |= std::isupper(u) != 0;
        digit |= std::isdigit(u) != 0;
        other |= std::isalnum(u) == 0;
        hex &= std::isxdigit(u) != 0;
        distinct.insert(c);
    }
    const bool one_case_hex = hex && !(lower && upper);
    const double alphabet =
        one_case_hex ? 16
                     : (lower ? 26 : 0) + (upper ? 26 : 0) + (digit ? 10 : 0) + (other ? 33 : 0);
    const double length = static_cast<double>(std::min(token.size(), 4 * distinct.size()));
    return alphabet > 1 ? length * std::log2(alphabet) : 0;
}

}  // namespace ipcbench::remote
