#include "kit/kit_environment.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "platform/file_trust.hpp"

namespace ipcbench::kit {
namespace {

bool starts_with(const std::string &s, const char *prefix) {
    return s.rfind(prefix, 0) == 0;
}

std::string upper(std::string s) {
    for (char &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// .NET's and Mono's own variables: settings (DOTNET_gcServer=1) pass; those that name code or
// where it is loaded from, and any whose value is a path, do not.
std::string runtime_family_reason(const std::string &name, const std::string &value) {
    const std::string n = upper(name);
    if (starts_with(n, "CORECLR_") || starts_with(n, "COREHOST_"))
        return ".NET's host or runtime loads a profiler or writes a trace where it says";
    const bool dotnet = starts_with(n, "DOTNET_") || starts_with(n, "COMPLUS_");
    const bool mono = starts_with(n, "MONO_");
    if (!dotnet && !mono) return "";
    static const char *const code_words[] = {
        "STARTUP_HOOKS", "ADDITIONAL_DEPS", "ROOT",    "SHARED_STORE", "HOST_PATH", "PROFIL",
        "GCNAME",        "GCPATH",          "JITNAME", "JITPATH",      "ALTJIT"};
    for (const char *w : code_words)
        if (dotnet && n.find(w) != std::string::npos)
            return ".NET loads code or its framework from what it names";
    static const char *const mono_code[] = {"MONO_PATH", "MONO_CONFIG", "MONO_CFG_DIR",
                                            "MONO_GAC_PREFIX", "MONO_ENV_OPTIONS"};
    for (const char *w : mono_code)
        if (n == w) return "Mono loads assemblies, a configuration or options (a profiler) from it";
    if (value.find('/') != std::string::npos)
        return "its value is a path, and a runtime setting that names a file may name code";
    return "";
}

// One word of the runtime's options: it must match one of the manifest's shapes in whole.
bool allowed_option(const std::string &word, const std::vector<std::string> &shapes) {
    for (const auto &shape : shapes) {
        try {
            if (std::regex_match(word, std::regex(shape))) return true;
        } catch (const std::regex_error &) {
        }
    }
    return false;
}

// PATH without the folders a kit may not run programs from (others may write them, or relative).
std::string trusted_path(const std::string &path, std::vector<std::string> &dropped) {
    std::string out;
    std::stringstream folders(path);
    std::string folder;
    while (std::getline(folders, folder, ':')) {
        std::string why;
        if (folder.empty() || folder.front() != '/')
            why = "a relative entry, found from whatever folder the process is in";
        else
            why = platform::untrusted_folder_reason(folder);
        if (why.empty())
            out += (out.empty() ? "" : ":") + folder;
        else
            dropped.push_back("PATH entry '" + folder + "': " + why);
    }
    return out;
}

}  // namespace

std::string code_naming_reason(const std::string &name, const std::string &value) {
    if (starts_with(name, "LD_")) return "the dynamic loader loads code from what it names";
    if (name == "GCONV_PATH") return "glibc's iconv loads modules from it";
    if (starts_with(name, "PYTHON"))
        return "Python takes code or its search path from it (a kit's Python runs isolated, -I)";
    if (name == "JAVA_TOOL_OPTIONS" || name == "_JAVA_OPTIONS" || name == "JDK_JAVA_OPTIONS")
        return "the JVM takes options from it, and an option can name code (-javaagent:)";
    if (name == "CLASSPATH" || name == "JAVA_HOME")
        return "it names where Java code is loaded from";
    if (name == "BASH_ENV" || name == "ENV" || starts_with(name, "BASH_FUNC_") ||
        name == "SHELLOPTS" || name == "BASHOPTS" || name == "IFS" || name == "CDPATH")
        return "a launcher script's shell would read code or its parsing from it";
    return runtime_family_reason(name, value);
}

std::optional<std::string> environment_value(const std::vector<std::string> &environment,
                                             const std::string &name) {
    for (const auto &entry : environment)
        if (entry.size() > name.size() && entry[name.size()] == '=' &&
            starts_with(entry, name.c_str()))
            return entry.substr(name.size() + 1);
    return std::nullopt;
}

kit_environment environment_for_kit(const std::vector<std::string> &from, const kit_manifest &m,
                                    const std::string &runtime) {
    kit_environment out;
    for (const auto &entry : from) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        const std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
        if (name == runtime_variable_name) continue;
        if (!m.runtime_variable.empty() && name == m.runtime_variable) continue;  // resolved
        if (name == "PATH") {
            out.variables.push_back("PATH=" + trusted_path(value, out.dropped));
            continue;
        }
        std::string why = code_naming_reason(name, value);
        if (why.empty() && !m.runtime_options_variable.empty() &&
            name == m.runtime_options_variable) {
            std::stringstream words(value);
            std::string word;
            while (why.empty() && words >> word)
                if (!allowed_option(word, m.runtime_options_allowed))
                    why = "its option '" + word.substr(0, 64) +
                          "' is not one of the settings the kit's manifest allows "
                          "(runtime_options_allowed: an option can name code)";
        }
        if (why.empty())
            out.variables.push_back(entry);
        else
            out.dropped.push_back(name + ": " + why);
    }
    if (!runtime.empty())
        out.variables.push_back(std::string(runtime_variable_name) + "=" + runtime);
    return out;
}

}  // namespace ipcbench::kit
