#include "kit/kit_manifest.hpp"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

#include "control/worker_messages.hpp"
#include "model/field_visitors.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::kit {
namespace {

const char *const role_names[] = {"sender", "receiver", "pinger", "ponger"};

bool valid_name(const std::string &name, std::size_t max = 32) {
    if (name.empty() || name.size() > max || name == "native") return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    return true;
}

std::string spoken_list() {
    std::string out;
    for (const auto &v : control::spoken_versions())
        out += (out.empty() ? "" : ", ") + control::to_string(v);
    return out;
}

// A variable a kit may name is its own: IPCBENCH_ and capitals (never PATH or LD_PRELOAD).
bool kit_variable(const std::string &name) {
    if (name.rfind("IPCBENCH_", 0) != 0 || name.size() <= 9 || name == "IPCBENCH_RUNTIME")
        return false;
    for (const char c : name)
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

template <class F>
void check_runtime_fields(const kit_manifest &m, F &&fail) {
    if (!m.runtime_variable.empty() && m.runtime.empty())
        fail("'runtime_variable' without 'runtime': name the runtime the launcher starts");
    for (const auto *v : {&m.runtime_variable, &m.runtime_options_variable})
        if (!v->empty() && !kit_variable(*v))
            fail("the variable '" + *v +
                 "' is not a kit's own: name one IPCBENCH_ and capitals, digits or '_' (not "
                 "IPCBENCH_RUNTIME)");
    if (m.runtime_options_variable.empty() != m.runtime_options_allowed.empty())
        fail("'runtime_options_variable' and 'runtime_options_allowed' go together");
    for (const auto &shape : m.runtime_options_allowed) {
        try {
            std::regex check(shape);
        } catch (const std::regex_error &e) {
            fail("runtime_options_allowed: '" + shape + "' is no regular expression (" + e.what() +
                 ")");
        }
    }
}

void check(const kit_manifest &m, const std::string &file) {
    auto fail = [&](const std::string &what) {
        throw std::runtime_error(file + ": " + what + " (docs/worker-protocol.md, \"Kits\")");
    };
    if (!valid_name(m.name))
        fail("name '" + m.name + "' must be 1 to 32 of a-z, 0-9, '_' and '-', and not 'native'");
    if (m.worker.empty() || m.worker.front().empty()) fail("'worker' names no program");
    if (m.runtime_version.empty() || m.runtime_version.front().empty())
        fail("'runtime_version' names no program");
    if (m.roles.empty()) fail("'roles' is empty: a kit takes at least one side");
    if (m.transports.empty()) fail("'transports' is empty");
    for (std::size_t i = 0; i < m.apis.size(); ++i) {
        const kit_api &a = m.apis[i];
        if (!valid_name(a.name, 16))
            fail("apis[" + std::to_string(i) + "]: name '" + a.name +
                 "' must be 1 to 16 of a-z, 0-9, '_' and '-'");
        if (a.transports.empty())
            fail("apis[" + std::to_string(i) + "] ('" + a.name + "'): 'transports' is empty");
        for (std::size_t j = 0; j < i; ++j)
            if (m.apis[j].name == a.name) fail("the API '" + a.name + "' is listed twice");
    }
    check_runtime_fields(m, fail);
    if (!control::pick_version(m.protocol))
        fail("it speaks worker protocol " +
             (m.protocol.empty() ? std::string("none") : m.protocol.front()) +
             " only, which this ipchost does not (it speaks " + spoken_list() + ")");
}

}  // namespace

const char *to_string(side_role r) {
    return role_names[static_cast<int>(r)];
}

bool from_name(const std::string &name, side_role &out) {
    return model::from_name_in(role_names, name, out);
}

kit_manifest read_manifest(const std::filesystem::path &folder) {
    const std::filesystem::path path = folder / manifest_file_name;
    const std::string file = path.string();
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(file + ": cannot be read");
    std::string text;
    text.resize(max_manifest_bytes + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_manifest_bytes)
        throw std::runtime_error(file + ": larger than " + std::to_string(max_manifest_bytes) +
                                 " bytes; a manifest is a few lines");
    kit_manifest m;
    try {
        const auto json = text::parse_untrusted_json(text.data(), text.size(), {16, 4096});
        model::field_reader::read_into(json, "kit manifest", m);
    } catch (const std::exception &e) {
        throw std::runtime_error(file + ": " + e.what());
    }
    check(m, file);
    return m;
}

std::vector<std::string> with_kit_dir(const std::vector<std::string> &args,
                                      const std::filesystem::path &folder) {
    static const std::string marker = "{kit_dir}";
    std::vector<std::string> out;
    out.reserve(args.size());
    for (std::string a : args) {
        const std::string dir = folder.string();
        for (auto at = a.find(marker); at != std::string::npos;
             at = a.find(marker, at + dir.size()))
            a.replace(at, marker.size(), dir);
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace ipcbench::kit
