// `ipchost system`'s readings on a /proc and /sys tree of the test's own (the machine's would
// say whatever this machine is): every condition read from its file, the rates from the
// counters' growth, and the advice given exactly where a condition can move a figure.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "platform/machine_conditions.hpp"
#include "report/condition_checks.hpp"

namespace fs = std::filesystem;
using namespace ipcbench;

namespace {

struct fake_tree {
    fs::path root = fs::temp_directory_path() / ("ipcbench-conditions-" + std::to_string(getpid()));
    fake_tree() { fs::remove_all(root); }
    ~fake_tree() { fs::remove_all(root); }
    void write(const std::string &path, const std::string &text) const {
        fs::create_directories((root / path).parent_path());
        std::ofstream(root / path) << text;
    }
    // A stat line of a process with this CPU in ticks (utime; stime 0).
    void process(int pid, const std::string &comm, long ticks) const {
        write("proc/" + std::to_string(pid) + "/stat",
              std::to_string(pid) + " (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 " +
                  std::to_string(ticks) + " 0 0 0 20 0 1 0 100 1000 100\n");
    }
    void counters(long total_steal, long steal, long irq0, long irq1) const {
        // user nice system idle iowait irq softirq steal: 8 fields summing to total_steal.
        write("proc/stat", "cpu  " + std::to_string(total_steal - steal) + " 0 0 0 0 0 0 " +
                               std::to_string(steal) + " 0 0\ncpu0 1 2 3\n");
        write("proc/interrupts", "           CPU0       CPU1       \n  24:  " +
                                     std::to_string(irq0) + "  " + std::to_string(irq1) +
                                     "  PCI-MSI 1-edge  virtio0\n"
                                     "NMI:  0  0  Non-maskable interrupts\n");
    }
    std::string path() const { return root.string(); }
};

// A four-CPU host with two cores of two siblings, turbo, a powersave CPU, CPU 3 isolated.
void noisy_host(const fake_tree &t) {
    for (int cpu = 0; cpu < 4; ++cpu) {
        const std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(cpu);
        t.write(dir + "/topology/thread_siblings_list", cpu % 2 ? "1,3\n" : "0,2\n");
        t.write(dir + "/cpufreq/scaling_governor", cpu == 0 ? "powersave\n" : "performance\n");
    }
    t.write("sys/devices/system/cpu/smt/active", "1\n");
    t.write("sys/devices/system/cpu/smt/control", "on\n");
    t.write("sys/devices/system/cpu/isolated", "3\n");
    t.write("sys/devices/system/cpu/nohz_full", "(null)\n");
    t.write("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
    t.write("sys/class/dmi/id/sys_vendor", "QEMU\n");
    t.write("proc/cpuinfo", "processor : 0\nflags : fpu vme hypervisor\n");
    t.write("proc/sys/kernel/randomize_va_space", "2\n");
    t.write("proc/loadavg", "3.50 2.00 1.00 2/100 999\n");
}

const report::condition_check &check(const std::vector<report::condition_check> &all,
                                     const std::string &name) {
    for (const auto &c : all)
        if (c.name == name) return c;
    FAIL("no check named " << name);
    return all.front();
}

}  // namespace

TEST_CASE("machine conditions: each read from its file, with advice where it moves figures",
          "[conditions]") {
    fake_tree t;
    noisy_host(t);
    t.counters(1000, 0, 0, 0);
    t.process(10, "irqbalance", 5);
    const auto m = platform::conditions_sampler(t.path()).finish();
    CHECK(m.cpus == 4);
    CHECK(m.governor == "mixed: performance, powersave");
    CHECK(m.turbo == "on");
    CHECK(m.smt == "on");
    CHECK(m.smt_siblings == "0,2 1,3");
    CHECK(m.isolated_cpus == "3");
    CHECK(m.nohz_full.empty());  // "(null)": none
    CHECK(m.virtualization == "QEMU");
    CHECK(m.aslr == 2);
    CHECK(m.load_average_1m == Approx(3.5));
    CHECK(m.irqbalance);
    const auto checks = report::condition_checks(m);
    CHECK_THAT(check(checks, "CPU frequency").advice, Catch::Contains("performance"));
    CHECK_THAT(check(checks, "turbo").advice, Catch::Contains("no_turbo"));
    CHECK_THAT(check(checks, "SMT").state, Catch::Contains("0,2 1,3"));
    CHECK_THAT(check(checks, "SMT").advice, Catch::Contains("--affinity"));
    CHECK(check(checks, "isolated CPUs").advice.empty());  // CPU 3 is
    CHECK_THAT(check(checks, "interrupts").advice, Catch::Contains("systemctl stop irqbalance"));
    CHECK_THAT(check(checks, "load").advice, Catch::Contains("other work"));  // 3.5 on 4 CPUs
    CHECK(check(checks, "ASLR").advice.empty());
    const auto notes = report::condition_notes(m);
    CHECK(std::find(notes.begin(), notes.end(), "turbo on") != notes.end());
    CHECK(std::find(notes.begin(), notes.end(), "irqbalance running") != notes.end());
}

TEST_CASE("machine conditions: a quiet dedicated host gets no advice", "[conditions]") {
    fake_tree t;
    for (int cpu = 0; cpu < 2; ++cpu)
        t.write("sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor",
                "performance\n");
    t.write("sys/devices/system/cpu/smt/active", "0\n");
    t.write("sys/devices/system/cpu/smt/control", "notsupported\n");
    t.write("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    t.write("proc/cpuinfo", "flags : fpu vme\n");
    t.write("proc/loadavg", "0.10 0.10 0.10 1/100 999\n");
    t.counters(1000, 0, 0, 0);
    const auto m = platform::conditions_sampler(t.path()).finish();
    CHECK(m.virtualization.empty());
    CHECK(m.turbo == "off");
    CHECK(m.smt == "notsupported");
    for (const auto &c : report::condition_checks(m)) {
        INFO(c.name << ": " << c.state);
        CHECK(c.advice.empty());
    }
    CHECK(report::condition_notes(m).empty());
}

TEST_CASE("machine conditions: steal, interrupts and busy processes from the counters' growth",
          "[conditions]") {
    fake_tree t;
    noisy_host(t);
    t.counters(10000, 100, 500, 40);
    t.process(20, "busy", 1000);
    t.process(21, "idle", 7);
    t.process(22, "ours", 50);
    const platform::conditions_sampler sampler(t.path());
    t.counters(11000, 150, 1500, 40);  // 1000 ticks, 50 of them stolen; CPU 0 took 1000 more
    t.process(20, "busy", 1000000);
    t.process(22, "ours", 1000000);
    const auto m = sampler.finish({22});
    CHECK(m.sample_s > 0);
    CHECK(m.steal_percent == Approx(5.0));
    REQUIRE(m.interrupts_per_s.size() == 2);
    CHECK(m.interrupts_per_s[0] > 0);
    CHECK(m.interrupts_per_s[1] == 0);
    REQUIRE(m.busiest.size() == 1);  // the idle one used nothing, ours is not "other"
    CHECK(m.busiest[0].pid == 20);
    CHECK(m.busiest[0].name == "busy");
    const auto checks = report::condition_checks(m);
    CHECK_THAT(check(checks, "virtualisation").state, Catch::Contains("steal 5.0%"));
    CHECK_THAT(check(checks, "virtualisation").advice, Catch::Contains("another guest"));
    CHECK_THAT(check(checks, "load").state, Catch::Contains("busy (pid 20)"));
    // What a result file keeps comes back the same; what a hostile file puts there does not
    // become anything but a string or a number.
    const auto again = report::conditions_from_json(report::conditions_json(m));
    CHECK(again.steal_percent == Approx(m.steal_percent));
    CHECK(again.busiest.size() == 1);
    CHECK(again.smt_siblings == m.smt_siblings);
    nlohmann::json hostile = report::conditions_json(m);
    hostile["busiest"] = {{{"pid", "20"}, {"name", 5}}, 7};
    hostile["steal_percent"] = "lots";
    const auto safe = report::conditions_from_json(hostile);
    CHECK(safe.busiest.empty());
    CHECK(safe.steal_percent == -1);
}
