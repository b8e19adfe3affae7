#include "harness/placement_sampler.hpp"

#include <algorithm>
#include <map>

#include "platform/monotonic_clock.hpp"

namespace ipcbench::harness {
namespace {

using platform::thread_placement;

bool wanted(const std::vector<std::int64_t> &threads, std::int64_t id) {
    return std::find(threads.begin(), threads.end(), id) != threads.end();
}

const thread_placement *find(const std::vector<thread_placement> &in, std::int64_t id) {
    for (const auto &t : in)
        if (t.thread_id == id) return &t;
    return nullptr;
}

// The CPUs of the wanted threads that ran between two samples (their run time grew).
std::vector<int> busy_cpus(const std::vector<thread_placement> &before,
                           const std::vector<thread_placement> &now,
                           const std::vector<std::int64_t> &threads) {
    std::vector<int> cpus;
    for (const auto &t : now) {
        if (!wanted(threads, t.thread_id)) continue;
        const thread_placement *b = find(before, t.thread_id);
        if (b == nullptr || t.run_ns > b->run_ns || t.cpu != b->cpu) cpus.push_back(t.cpu);
    }
    return cpus;
}

// Moves between CPUs inside the window: the kernel's count between the first and the last
// samples that read it, and at least the CPU changes the samples saw.
std::uint64_t migrations(const std::vector<const std::vector<thread_placement> *> &series,
                         const std::vector<std::int64_t> &threads) {
    std::uint64_t total = 0;
    for (std::int64_t id : threads) {
        const thread_placement *first = nullptr, *previous = nullptr;
        std::uint64_t seen = 0, counted = 0;
        for (const auto *sample : series) {
            const thread_placement *t = find(*sample, id);
            if (t == nullptr) continue;
            if (previous != nullptr && previous->cpu != t->cpu) ++seen;
            previous = t;
            if (!t->migrations_read) continue;
            if (first == nullptr) first = t;
            if (t->migrations >= first->migrations) counted = t->migrations - first->migrations;
        }
        total += std::max(seen, counted);
    }
    return total;
}

}  // namespace

placement_sampler::placement_sampler(long sender_pid, long receiver_pid)
    : sender_pid_(sender_pid), receiver_pid_(receiver_pid) {}

void placement_sampler::sample() {
    if (sender_pid_ <= 0 || receiver_pid_ <= 0) return;
    const std::int64_t now = platform::now_ns();
    if (now < next_ns_) return;
    next_ns_ = now + period_ns;
    // The migration counts (the costlier read) every 10th sample: the count is cumulative, so
    // the first and last such samples in a window bound it; the CPU changes seen in between
    // are counted too.
    const bool migrations = samples_.size() % 10 == 0;
    static const std::vector<platform::thread_placement> none;
    const auto &last_sender = samples_.empty() ? none : samples_.back().sender;
    const auto &last_receiver = samples_.empty() ? none : samples_.back().receiver;
    auto sender = platform::sample_threads(sender_pid_, last_sender, migrations);
    auto receiver = platform::sample_threads(receiver_pid_, last_receiver, migrations);
    record(now, platform::now_ns(), std::move(sender), std::move(receiver));
}

void placement_sampler::record(std::int64_t begin_ns, std::int64_t end_ns,
                               std::vector<platform::thread_placement> sender,
                               std::vector<platform::thread_placement> receiver) {
    samples_.push_back({begin_ns, end_ns, std::move(sender), std::move(receiver)});
}

std::optional<report::placement_figures> placement_sampler::figures(
    std::int64_t first_ns, std::int64_t end_ns, const std::vector<std::int64_t> &sender_threads,
    const std::vector<std::int64_t> &receiver_threads) const {
    if (sender_pid_ <= 0 || receiver_pid_ <= 0 || first_ns <= 0 || end_ns <= first_ns)
        return std::nullopt;
    std::vector<const snapshot *> inside;
    for (const auto &s : samples_)
        // Wholly inside: a read begun before the window may see where a thread was before it
        // (a pinned thread before its move), under load even when it ends well inside.
        // A sample that saw no thread of a side (gone, or a system that cannot tell where another
        // process runs: Windows) says nothing: with fewer than two left, placement is unknown.
        if (s.begin_ns >= first_ns && s.end_ns <= end_ns && !s.sender.empty() &&
            !s.receiver.empty())
            inside.push_back(&s);
    if (inside.size() < 2) return std::nullopt;
    report::placement_figures f;
    std::uint64_t shared = 0;
    for (std::size_t i = 1; i < inside.size(); ++i) {
        const auto a = busy_cpus(inside[i - 1]->sender, inside[i]->sender, sender_threads);
        const auto b = busy_cpus(inside[i - 1]->receiver, inside[i]->receiver, receiver_threads);
        bool together = false;
        for (int cpu : a) together |= std::find(b.begin(), b.end(), cpu) != b.end();
        shared += together ? 1 : 0;
        ++f.samples;
    }
    f.same_cpu_share = static_cast<double>(shared) / static_cast<double>(f.samples);
    std::vector<const std::vector<thread_placement> *> senders, receivers;
    for (const auto *s : inside) {
        senders.push_back(&s->sender);
        receivers.push_back(&s->receiver);
    }
    f.sender_migrations = migrations(senders, sender_threads);
    f.receiver_migrations = migrations(receivers, receiver_threads);
    return f;
}

}  // namespace ipcbench::harness
