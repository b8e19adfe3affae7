#include "report/condition_checks.hpp"

#include <fmt/format.h>

namespace ipcbench::report {
namespace {

using platform::machine_conditions;

// Steal past this share of the CPU time: another guest's load is in the figures.
constexpr double steal_news_percent = 1.0;
// A 1-minute load past this share of the CPUs: other work shares them.
constexpr double load_news_share = 0.5;

condition_check virtualization(const machine_conditions &m) {
    condition_check c{"virtualisation", "", ""};
    if (m.virtualization.empty()) {
        c.state = "none seen (no hypervisor flag or vendor)";
        return c;
    }
    c.state = m.steal_percent < 0 ? m.virtualization
                                  : fmt::format("{}; steal {:.1f}% of the CPU time",
                                                m.virtualization, m.steal_percent);
    if (m.steal_percent >= steal_news_percent)
        c.advice =
            "another guest took CPU time from this one: figures follow its load; repeat "
            "(--repeat 5) and read the intervals, or measure on a dedicated host";
    return c;
}

condition_check frequency(const machine_conditions &m) {
    condition_check c{"CPU frequency", m.governor, ""};
    if (m.governor.empty())
        c.state = "no cpufreq governor (the hypervisor or the firmware sets the clock)";
    else if (m.governor != "performance")
        c.advice =
            "the clock follows the load, and figures with it: `cpupower frequency-set -g "
            "performance` (root) holds it";
    return c;
}

condition_check turbo(const machine_conditions &m) {
    condition_check c{
        "turbo", m.turbo.empty() ? "not known (no intel_pstate or cpufreq boost)" : m.turbo, ""};
    if (m.turbo == "on")
        c.advice =
            "a lone busy core clocks higher than two: one stream runs faster than two; "
            "`echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo` (or cpufreq/boost 0) "
            "for steady figures";
    return c;
}

condition_check smt(const machine_conditions &m) {
    condition_check c{"SMT", m.smt.empty() ? "not known" : m.smt, ""};
    if (m.smt == "notsupported") c.state = "not supported: every CPU is a core of its own";
    if (!m.smt_siblings.empty()) {
        c.state += "; CPUs sharing a core: " + m.smt_siblings;
        c.advice =
            "two CPUs of one core share its caches and units: give --affinity CPUs of two "
            "cores (not siblings) to measure a pair apart, siblings to measure them close";
    }
    return c;
}

condition_check isolation(const machine_conditions &m) {
    condition_check c{"isolated CPUs", m.isolated_cpus.empty() ? "none" : m.isolated_cpus, ""};
    if (!m.nohz_full.empty()) c.state += "; nohz_full " + m.nohz_full;
    if (m.isolated_cpus.empty() && m.cpus > 2)
        c.advice =
            "the scheduler may put any task on the CPUs a run uses: isolcpus= and "
            "nohz_full= on the kernel command line keep them for --affinity";
    return c;
}

condition_check interrupts(const machine_conditions &m) {
    condition_check c{"interrupts", "", ""};
    for (std::size_t cpu = 0; cpu < m.interrupts_per_s.size(); ++cpu)
        c.state += fmt::format("{}CPU {} {:.0f}/s", cpu ? ", " : "", cpu, m.interrupts_per_s[cpu]);
    if (c.state.empty()) c.state = "not sampled";
    c.state += m.irqbalance ? "; irqbalance running" : "; irqbalance not running";
    if (m.irqbalance)
        c.advice =
            "irqbalance moves interrupts while a run goes: `systemctl stop irqbalance`, "
            "then keep --affinity off the CPU that takes the busiest device's";
    return c;
}

condition_check load(const machine_conditions &m) {
    condition_check c{"load", "", ""};
    c.state = m.load_average_1m < 0
                  ? "not known"
                  : fmt::format("{:.2f} (1 min) on {} CPUs", m.load_average_1m, m.cpus);
    std::string busy;
    for (const auto &p : m.busiest)
        busy += fmt::format("{}{} (pid {}) {:.0f}%", busy.empty() ? "" : ", ", p.name, p.pid,
                            p.cpu_percent);
    if (!busy.empty()) c.state += "; busy other processes: " + busy;
    if (!m.busiest.empty() || (m.cpus > 0 && m.load_average_1m > load_news_share * m.cpus))
        c.advice =
            "other work shares the CPUs: its load is in the figures; stop it, or measure "
            "when it is idle";
    return c;
}

condition_check aslr(const machine_conditions &m) {
    const char *names[] = {"off (0)", "partial (1)", "full (2)"};
    return {"ASLR", m.aslr >= 0 && m.aslr <= 2 ? names[m.aslr] : "not known",
            ""};  // as pyperf: left on; the repetitions' spread includes it
}

}  // namespace

std::vector<condition_check> condition_checks(const machine_conditions &m) {
    return {virtualization(m), frequency(m),  turbo(m), smt(m),
            isolation(m),      interrupts(m), load(m),  aslr(m)};
}

std::vector<std::string> condition_notes(const machine_conditions &m) {
    std::vector<std::string> notes;
    if (m.steal_percent >= steal_news_percent)
        notes.push_back(fmt::format("steal {:.1f}%", m.steal_percent));
    if (!m.busiest.empty())
        notes.push_back(fmt::format("{} busy other process{} ({} {:.0f}%{})", m.busiest.size(),
                                    m.busiest.size() == 1 ? "" : "es", m.busiest[0].name,
                                    m.busiest[0].cpu_percent, m.busiest.size() > 1 ? ", ..." : ""));
    if (!m.governor.empty() && m.governor != "performance")
        notes.push_back("governor " + m.governor);
    if (m.turbo == "on") notes.push_back("turbo on");
    if (m.irqbalance) notes.push_back("irqbalance running");
    return notes;
}

nlohmann::json conditions_json(const machine_conditions &m) {
    nlohmann::json busy = nlohmann::json::array();
    for (const auto &p : m.busiest)
        busy.push_back({{"pid", p.pid}, {"name", p.name}, {"cpu_percent", p.cpu_percent}});
    return {{"governor", m.governor},
            {"turbo", m.turbo},
            {"smt", m.smt},
            {"smt_siblings", m.smt_siblings},
            {"isolated_cpus", m.isolated_cpus},
            {"nohz_full", m.nohz_full},
            {"virtualization", m.virtualization},
            {"steal_percent", m.steal_percent},
            {"interrupts_per_s", m.interrupts_per_s},
            {"irqbalance", m.irqbalance},
            {"aslr", m.aslr},
            {"load_average_1m", m.load_average_1m},
            {"cpus", m.cpus},
            {"busiest", busy},
            {"sample_s", m.sample_s}};
}

machine_conditions conditions_from_json(const nlohmann::json &j) {
    machine_conditions m;
    if (!j.is_object()) return m;
    auto text = [&](const char *key, std::string &out) {
        if (j.contains(key) && j[key].is_string()) out = j[key].get<std::string>();
    };
    auto number = [&](const char *key, double &out) {
        if (j.contains(key) && j[key].is_number()) out = j[key].get<double>();
    };
    text("governor", m.governor);
    text("turbo", m.turbo);
    text("smt", m.smt);
    text("smt_siblings", m.smt_siblings);
    text("isolated_cpus", m.isolated_cpus);
    text("nohz_full", m.nohz_full);
    text("virtualization", m.virtualization);
    number("steal_percent", m.steal_percent);
    number("load_average_1m", m.load_average_1m);
    number("sample_s", m.sample_s);
    if (j.contains("irqbalance") && j["irqbalance"].is_boolean())
        m.irqbalance = j["irqbalance"].get<bool>();
    if (j.contains("aslr") && j["aslr"].is_number_integer()) m.aslr = j["aslr"].get<int>();
    if (j.contains("cpus") && j["cpus"].is_number_unsigned()) m.cpus = j["cpus"].get<unsigned>();
    if (j.contains("interrupts_per_s") && j["interrupts_per_s"].is_array())
        for (const auto &v : j["interrupts_per_s"])
            if (v.is_number() && m.interrupts_per_s.size() < 4096)
                m.interrupts_per_s.push_back(v.get<double>());
    if (j.contains("busiest") && j["busiest"].is_array())
        for (const auto &p : j["busiest"])
            if (p.is_object() && p.value("pid", nlohmann::json()).is_number_integer() &&
                m.busiest.size() < 5)
                m.busiest.push_back({p["pid"].get<int>(),
                                     p.contains("name") && p["name"].is_string()
                                         ? p["name"].get<std::string>()
                                         : "",
                                     p.contains("cpu_percent") && p["cpu_percent"].is_number()
                                         ? p["cpu_percent"].get<double>()
                                         : 0});
    return m;
}

}  // namespace ipcbench::report
