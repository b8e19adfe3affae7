// platform/'s wrappers against the system calls' failures, without a full disk or a signal:
// this file compiles platform/'s sources (the #includes below the fakes) again with
// IPCBENCH_OS_CALL (platform/os_calls.hpp) naming the scripted calls below, as fmt tests its
// POSIX wrappers. Each test scripts what send, recv, read, write, poll and the rest return, in
// order, and checks what the wrapper made of it: the bytes that went out whole and in order, the
// status, the error text. run_isolated's tests fork real children and script only the parent's
// reads and polls.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace fake {

// One scripted result: `bytes` >= 0 takes (or gives) at most that many bytes; -1 fails with
// `error`. An empty script calls the real function.
struct step {
    long bytes;
    int error = 0;
};
std::deque<step> sends, recvs, writes;
std::string sent, written;        // what the fakes took, in order
std::string incoming;             // what recv hands out
std::size_t largest_request = 0;  // the most bytes one call asked for

long take(std::deque<step> &script, std::size_t asked) {
    const step s = script.front();
    script.pop_front();
    largest_request = std::max(largest_request, asked);
    if (s.bytes < 0) {
        errno = s.error;
        return -1;
    }
    return static_cast<long>(std::min<std::size_t>(asked, static_cast<std::size_t>(s.bytes)));
}

ssize_t send(int fd, const void *data, size_t size, int flags) {
    if (sends.empty()) return ::send(fd, data, size, flags);
    const long n = take(sends, size);
    if (n > 0) sent.append(static_cast<const char *>(data), static_cast<std::size_t>(n));
    return n;
}

ssize_t recv(int fd, void *buffer, size_t size, int flags) {
    if (recvs.empty()) return ::recv(fd, buffer, size, flags);
    const long n = std::min<long>(take(recvs, size), static_cast<long>(incoming.size()));
    if (n > 0) {
        std::memcpy(buffer, incoming.data(), static_cast<std::size_t>(n));
        incoming.erase(0, static_cast<std::size_t>(n));
    }
    return n;
}

ssize_t write(int fd, const void *data, size_t size) {
    if (writes.empty()) return ::write(fd, data, size);
    const long n = take(writes, size);
    if (n > 0) {
        written.append(static_cast<const char *>(data), static_cast<std::size_t>(n));
        return ::write(fd, data, static_cast<std::size_t>(n));  // the file gets what was taken
    }
    return n;
}

std::deque<step> polls, reads, waits;

// A call that moves no bytes (poll, waitpid): the step's value as its result, or -1 and errno.
long scripted(std::deque<step> &script) {
    const step s = script.front();
    script.pop_front();
    if (s.bytes < 0) errno = s.error;
    return s.bytes < 0 ? -1 : s.bytes;
}

int poll(pollfd *fds, nfds_t n, int timeout_ms) {
    if (polls.empty()) return ::poll(fds, n, timeout_ms);
    const long r = scripted(polls);
    if (r > 0) fds[0].revents = POLLIN;
    return static_cast<int>(r);
}

// Reads of a real descriptor (a child's pipe), each cut to at most a step's bytes, or failing.
std::deque<step> pipe_reads;

// Hands out `incoming`, as recv does (or, with pipe_reads scripted, reads the descriptor).
ssize_t read(int fd, void *buffer, size_t size) {
    if (!pipe_reads.empty()) {
        const step s = pipe_reads.front();
        pipe_reads.pop_front();
        if (s.bytes < 0) errno = s.error;
        return s.bytes < 0 ? -1
                           : ::read(fd, buffer,
                                    std::min<std::size_t>(size, static_cast<std::size_t>(s.bytes)));
    }
    if (reads.empty()) return ::read(fd, buffer, size);
    const long n = std::min<long>(take(reads, size), static_cast<long>(incoming.size()));
    if (n > 0) {
        std::memcpy(buffer, incoming.data(), static_cast<std::size_t>(n));
        incoming.erase(0, static_cast<std::size_t>(n));
    }
    return n;
}

pid_t waitpid(pid_t pid, int *status, int options) {
    if (waits.empty()) return ::waitpid(pid, status, options);
    return static_cast<pid_t>(scripted(waits));
}

// fork fails by its script (the step's error), or forks (the real call) when none is left.
std::deque<step> forks;

pid_t fork() {
    if (forks.empty()) return ::fork();
    return static_cast<pid_t>(scripted(forks));
}

// epoll_wait: a step's value is how many of `ready` it hands out (from the front), or -1.
std::deque<step> epoll_waits;
std::deque<epoll_event> ready;

int epoll_wait(int epfd, epoll_event *events, int max, int timeout_ms) {
    if (epoll_waits.empty()) return ::epoll_wait(epfd, events, max, timeout_ms);
    const long n = std::min<long>({scripted(epoll_waits), max, static_cast<long>(ready.size())});
    if (n < 0) return -1;
    for (long i = 0; i < n; ++i) {
        events[i] = ready.front();
        ready.pop_front();
    }
    return static_cast<int>(n);
}

// getrlimit hands out `limits` (or fails with the step's error); setrlimit records what it was
// asked and succeeds or fails by its script. Never the real calls: the test process keeps its
// own limits.
std::deque<step> getrlimits, setrlimits;
rlimit limits{};
std::vector<rlimit> asked_limits;

template <class Resource>
int getrlimit(Resource, rlimit *r) {
    if (scripted(getrlimits) < 0) return -1;
    *r = limits;
    return 0;
}
template <class Resource>
int setrlimit(Resource, const rlimit *r) {
    asked_limits.push_back(*r);
    if (scripted(setrlimits) < 0) return -1;
    limits = *r;
    return 0;
}

// sched_setaffinity records the set it was given; sched_getaffinity hands out `cpus`. Never the
// real calls: pinning the test process would pin every test after it.
std::deque<step> setaffinities, getaffinities;
std::vector<int> pinned_to, cpus;

int sched_setaffinity(pid_t, size_t size, const cpu_set_t *set) {
    pinned_to.clear();
    for (int c = 0; c < static_cast<int>(8 * size); ++c)
        if (CPU_ISSET_S(c, size, set)) pinned_to.push_back(c);
    return static_cast<int>(scripted(setaffinities));
}
int sched_getaffinity(pid_t, size_t size, cpu_set_t *set) {
    if (scripted(getaffinities) < 0) return -1;
    CPU_ZERO_S(size, set);
    for (int c : cpus) CPU_SET_S(c, size, set);
    return 0;
}

// mkdtemp fails by its script, or makes the folder (the real call) when none is left.
std::deque<step> mkdtemps;

char *mkdtemp(char *pattern) {
    if (mkdtemps.empty()) return ::mkdtemp(pattern);
    return scripted(mkdtemps) < 0 ? nullptr : ::mkdtemp(pattern);
}

void reset() {
    mkdtemps.clear();
    getrlimits.clear();
    setrlimits.clear();
    limits = {};
    asked_limits.clear();
    setaffinities.clear();
    getaffinities.clear();
    pinned_to.clear();
    cpus.clear();
    epoll_waits.clear();
    ready.clear();
    polls.clear();
    pipe_reads.clear();
    reads.clear();
    waits.clear();
    forks.clear();
    sends.clear();
    recvs.clear();
    writes.clear();
    sent.clear();
    written.clear();
    incoming.clear();
    largest_request = 0;
}

}  // namespace fake

#define IPCBENCH_OS_CALL(call) fake::call
#include "../../host/platform/child_process_posix.cpp"
#include "../../host/platform/command_output_posix.cpp"
#include "../../host/platform/cpu_affinity_posix.cpp"
#include "../../host/platform/isolated_calls_posix.cpp"
#include "../../host/platform/open_file_limit_posix.cpp"
#include "../../host/platform/output_capture_posix.cpp"
#include "../../host/platform/private_file_posix.cpp"
#include "../../host/platform/process_identity_posix.cpp"
#include "../../host/platform/readiness_poller_posix.cpp"
#include "../../host/platform/run_directory_posix.cpp"
#include "../../host/platform/stream_socket.cpp"

using namespace ipcbench::platform;

TEST_CASE("send_all: a signal and short writes are retried, the bytes go out whole and in order",
          "[platform]") {
    fake::reset();
    fake::sends = {{-1, EINTR}, {3}, {-1, EINTR}, {1}, {100}};
    const std::string message = "0123456789abcdef";
    CHECK(send_all(7, message.data(), message.size()));
    CHECK(fake::sent == message);
    CHECK(fake::sends.empty());
}

TEST_CASE("send_all: a peer gone mid-message is false, any other error names the call and why",
          "[platform]") {
    fake::reset();
    fake::sends = {{4}, {-1, EPIPE}};
    CHECK_FALSE(send_all(7, "0123456789", 10));
    CHECK(fake::sent == "0123");
    fake::reset();
    fake::sends = {{-1, ECONNRESET}};
    CHECK_FALSE(send_all(7, "x", 1));
    fake::reset();
    fake::sends = {{2}, {-1, ENOBUFS}};
    CHECK_THROWS_WITH(send_all(7, "0123", 4),
                      Catch::Contains("send: ") && Catch::Contains(std::strerror(ENOBUFS)));
}

TEST_CASE("send_some: EAGAIN is would_block, EINTR is retried, a short write is what it took",
          "[platform]") {
    fake::reset();
    fake::sends = {{-1, EAGAIN}};
    CHECK(send_some(7, "abc", 3).status == io_status::would_block);
    fake::sends = {{-1, EINTR}, {2}};
    const io_result r = send_some(7, "abc", 3);
    CHECK(r.status == io_status::done);
    CHECK(r.bytes == 2);
    CHECK(fake::sent == "ab");
    fake::sends = {{-1, EPIPE}};
    CHECK(send_some(7, "abc", 3).status == io_status::closed);
    fake::sends = {{-1, EACCES}};
    CHECK_THROWS_WITH(send_some(7, "abc", 3), Catch::Contains(std::strerror(EACCES)));
}

TEST_CASE(
    "receive_some: EINTR is retried, end of stream and a reset are closed, EAGAIN waits no "
    "more",
    "[platform]") {
    fake::reset();
    fake::incoming = "hello";
    fake::recvs = {{-1, EINTR}, {2}};
    char buffer[16] = {};
    io_result r = receive_some(7, buffer, sizeof buffer, true);
    CHECK(r.status == io_status::done);
    CHECK(std::string(buffer, r.bytes) == "he");
    fake::recvs = {{0}};  // 0 bytes: the peer ended the stream
    fake::incoming.clear();
    CHECK(receive_some(7, buffer, sizeof buffer, true).status == io_status::closed);
    fake::recvs = {{-1, ECONNRESET}};
    CHECK(receive_some(7, buffer, sizeof buffer, true).status == io_status::closed);
    fake::recvs = {{-1, EAGAIN}};
    CHECK(receive_some(7, buffer, sizeof buffer, true).status == io_status::would_block);
    fake::recvs = {{-1, EBADF}};
    CHECK_THROWS_WITH(receive_some(7, buffer, sizeof buffer, true),
                      Catch::Contains("recv: ") && Catch::Contains(std::strerror(EBADF)));
}

namespace {

std::string file_content(const std::filesystem::path &p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE(
    "private files: a signal and short writes are retried, a full disk is named, nothing "
    "half-written passes for whole",
    "[platform]") {
    struct scratch {  // removed however the test ends
        std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("ipcbench-os-faults-" + std::to_string(::getpid()));
        scratch() { std::filesystem::create_directories(path); }
        ~scratch() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    } folder;
    const auto &dir = folder.path;
    const std::string content(10000, 'x');
    fake::reset();
    fake::writes = {{-1, EINTR}, {4000}, {-1, EINTR}, {1}, {100000}};
    write_private_file(dir / "token", content);
    CHECK(file_content(dir / "token") == content);
    CHECK(fake::writes.empty());

    fake::reset();
    fake::writes = {{-1, EINTR}, {10}, {100000}};
    create_new_file(dir / "new", content);
    CHECK(file_content(dir / "new") == content);

    fake::reset();
    fake::writes = {{4096}, {-1, ENOSPC}};
    CHECK_THROWS_WITH(write_private_file(dir / "full", content),
                      Catch::Contains("cannot write a private file") &&
                          Catch::Contains(std::strerror(ENOSPC)) && Catch::Contains("full"));
    fake::reset();
    fake::writes = {{0}};  // a write that takes nothing is not a success either
    CHECK_THROWS_WITH(create_new_file(dir / "none", content), Catch::Contains("cannot write"));
}

TEST_CASE("read_private_file: a signal mid-secret is retried to its end, a read error is named",
          "[platform]") {
    const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                       ("ipcbench-os-faults-secret-" + std::to_string(::getpid()));
    struct removed {
        std::filesystem::path p;
        ~removed() { std::filesystem::remove(p); }
    } cleanup{path};
    std::string secret(3000, 's');
    for (std::size_t i = 0; i < secret.size(); ++i) secret[i] = static_cast<char>('a' + i % 26);
    fake::reset();
    write_private_file(path, secret);  // 0600, this user's: a secret the checks let through
    // The fake read hands out `incoming`; each script ends with the file's end (0).
    fake::incoming = secret;
    fake::reads = {{100}, {-1, EINTR}, {1}, {-1, EINTR}};
    for (int i = 0; i < 6; ++i) fake::reads.push_back({512});  // 2,899 left of 3,000
    fake::reads.push_back({0});
    CHECK(read_private_file(path, 4096) == secret);
    CHECK(fake::reads.empty());

    fake::reset();
    fake::incoming = secret;
    fake::reads = {{512}, {-1, EIO}};
    CHECK_THROWS_WITH(read_private_file(path, 4096),
                      Catch::Contains("refused the secret file") &&
                          Catch::Contains("could not be read to its end") &&
                          Catch::Contains(std::strerror(EIO)));
    fake::reset();
}

TEST_CASE("run_for_output: EINTR in poll, read and waitpid is retried, short reads are joined",
          "[platform]") {
    fake::reset();
    fake::incoming = "hello, world";
    fake::polls = {{-1, EINTR}, {1}, {1}, {1}, {1}};
    fake::reads = {{-1, EINTR}, {3}, {-1, EINTR}, {4}, {0}};  // "hel", "lo, ", then the end
    fake::waits = {{-1, EINTR}};                              // then the real wait
    const auto out = run_for_output({"/bin/true"}, 5000);
    CHECK(out.failure.empty());
    CHECK(out.text == "hello, ");
    CHECK_FALSE(out.timed_out);
    CHECK(out.status.exited);
    CHECK(out.status.code == 0);
    CHECK(fake::reads.empty());
    CHECK(fake::waits.empty());
}

TEST_CASE(
    "run_for_output: output past max_bytes is dropped but read to its end, a failed poll "
    "ends the reading",
    "[platform]") {
    fake::reset();
    fake::incoming = std::string(50, 'a');
    fake::polls = {{1}, {1}, {1}, {1}};
    fake::reads = {{20}, {20}, {20}, {0}};
    auto out = run_for_output({"/bin/true"}, 5000, 30);
    CHECK(out.text == std::string(30, 'a'));
    CHECK(fake::reads.empty());  // the child's pipe drained, not left to block it
    fake::reset();
    fake::polls = {{-1, EBADF}};
    out = run_for_output({"/bin/true"}, 5000);
    CHECK(out.text.empty());
    CHECK_FALSE(out.timed_out);  // a broken pipe is the output's end, not a hang
}

TEST_CASE(
    "readiness_poller::wait: a signal is no event, an error names epoll_wait, hang-ups "
    "wake both sides",
    "[platform]") {
    fake::reset();
    readiness_poller poller;
    readiness_poller::event out[4] = {};
    fake::epoll_waits = {{-1, EINTR}};
    CHECK(poller.wait(out, 4, 1'000'000) == 0);  // interrupted: no event, no error
    auto with = [](std::uint32_t events, std::uint64_t tag) {
        epoll_event e{};
        e.events = events;
        e.data.u64 = tag;
        return e;
    };
    fake::ready = {with(EPOLLIN, 1), with(EPOLLOUT, 2), with(EPOLLRDHUP, 3), with(EPOLLHUP, 4),
                   with(EPOLLERR | EPOLLIN, 5)};
    fake::epoll_waits = {{4}, {4}};
    REQUIRE(poller.wait(out, 4, 0) == 4);  // at most `max`, the rest the next time
    CHECK(out[0].tag == 1);
    CHECK(out[0].events == readiness_poller::readable);
    CHECK(out[1].events == readiness_poller::writable);
    CHECK(out[2].events == readiness_poller::readable);  // the peer shut its side: read the end
    CHECK(out[3].events == (readiness_poller::readable | readiness_poller::writable));
    REQUIRE(poller.wait(out, 4, 0) == 1);
    CHECK(out[0].tag == 5);
    CHECK(out[0].events == (readiness_poller::readable | readiness_poller::writable));
    fake::epoll_waits = {{-1, EBADF}};
    CHECK_THROWS_WITH(poller.wait(out, 4, 0),
                      Catch::StartsWith("epoll_wait: ") && Catch::Contains(std::strerror(EBADF)));
}

TEST_CASE("ensure_open_files: raises the soft limit to what is needed, names getrlimit's failure",
          "[platform]") {
    fake::reset();
    fake::getrlimits = {{0}};
    fake::setrlimits = {{0}};
    fake::limits = {1024, 4096};
    CHECK(ensure_open_files(2000).empty());
    REQUIRE(fake::asked_limits.size() == 1);
    CHECK(fake::asked_limits[0].rlim_cur == 2000);  // the soft limit, as far as needed
    CHECK(fake::asked_limits[0].rlim_max == 4096);  // the hard one left alone

    fake::reset();
    fake::getrlimits = {{0}};
    fake::limits = {8192, 8192};
    CHECK(ensure_open_files(2000).empty());
    CHECK(fake::asked_limits.empty());  // enough already: nothing changed

    fake::reset();
    fake::getrlimits = {{-1, EFAULT}};
    CHECK(ensure_open_files(2000) ==
          std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(EFAULT));
    CHECK(fake::asked_limits.empty());
}

TEST_CASE(
    "ensure_open_files: a hard limit it may not raise leaves the soft one at it and says how to "
    "raise it",
    "[platform]") {
    fake::reset();
    fake::getrlimits = {{0}};
    fake::setrlimits = {{-1, EPERM}, {0}};  // not root: the hard limit stays
    fake::limits = {1024, 4096};
    const std::string why = ensure_open_files(100000);
    REQUIRE_FALSE(fake::asked_limits.empty());
    CHECK(fake::asked_limits.back().rlim_cur == 4096);  // as many as the hard limit allows
    CHECK(fake::asked_limits.back().rlim_max == 4096);
    CHECK(fake::limits.rlim_cur == 4096);
    CHECK_THAT(why, Catch::Contains("needs about 100000 open descriptors") &&
                        Catch::Contains("allows 4096") && Catch::Contains("ulimit -Hn 100000") &&
                        Catch::Contains("fewer --streams"));
}

TEST_CASE("pin_process_to_cpu: pins to exactly the CPU asked, a refusal names the CPU and why",
          "[platform]") {
    fake::reset();
    fake::setaffinities = {{0}};
    CHECK(pin_process_to_cpu(3).empty());
    CHECK(fake::pinned_to == std::vector<int>{3});
    fake::setaffinities = {{-1, EINVAL}};
    CHECK(pin_process_to_cpu(7) == std::string("cannot pin to CPU 7: ") + std::strerror(EINVAL));
    CHECK(fake::pinned_to == std::vector<int>{7});
}

TEST_CASE("usable_cpu_count: the CPUs this process may use, one when the call fails",
          "[platform]") {
    fake::reset();
    fake::getaffinities = {{0}, {-1, EINVAL}};
    fake::cpus = {0, 2, 5};
    CHECK(usable_cpu_count() == 3);  // the allowed set, not the machine's CPUs
    CHECK(usable_cpu_count() == 1);
}

TEST_CASE("output_capture: a signal during poll or read is not the end of a worker's output",
          "[platform]") {
    fake::reset();
    fake::incoming = "hello\nworld\n";
    fake::polls = {{-1, EINTR}, {1}, {1}, {1}, {1}, {1}};
    fake::reads = {{-1, EINTR}, {6}, {-1, EINTR}, {6}, {0}};  // "hello\n", "world\n", the end
    captured_output kept;
    // Every poll is scripted ready, so the capture thread goes through the whole script and ends
    // at its end of output; the destructor joins it. Nothing is looked at while it runs.
    { output_capture capture("worker", &kept); }
    CHECK(fake::reads.empty());
    CHECK(fake::polls.empty());
    CHECK(kept.bytes == 12);
    CHECK(kept.text == "hello\nworld\n");
}

TEST_CASE(
    "run_directory: private (0700) with its owner named and removed at the end, a refusal "
    "names the folder, the reason and TMPDIR",
    "[platform]") {
    fake::reset();
    const auto root = std::filesystem::temp_directory_path() /
                      ("ipcbench-fault-" + std::to_string(current_process_id()));
    std::filesystem::create_directories(root);
    const char *was = std::getenv("TMPDIR");
    const std::string tmpdir_before = was ? was : "";
    ::setenv("TMPDIR", root.c_str(), 1);
    std::filesystem::path made;
    {
        run_directory dir;
        made = dir.path();
        CHECK(made.parent_path() == root);
        struct stat st {};
        REQUIRE(::stat(made.c_str(), &st) == 0);
        CHECK((st.st_mode & 07777) == 0700);
        std::string owner;
        std::ifstream(made / run_directory::owner_file) >> owner;
        CHECK(owner == self_identity());
    }
    CHECK_FALSE(std::filesystem::exists(made));  // gone with the object

    fake::mkdtemps = {{-1, EACCES}};
    try {
        run_directory refused;
        FAIL("a refused mkdtemp must throw");
    } catch (const std::runtime_error &e) {
        const std::string why = e.what();
        CHECK_THAT(why, Catch::Contains((root / "ipcbench-run-").string()) &&
                            Catch::Contains(std::strerror(EACCES)) &&
                            Catch::Contains("set TMPDIR to a writable directory"));
    }
    if (was)
        ::setenv("TMPDIR", tmpdir_before.c_str(), 1);
    else
        ::unsetenv("TMPDIR");
    std::filesystem::remove_all(root);
}

TEST_CASE(
    "run_isolated: records cut by short reads and signals arrive whole, a child gone mid-item "
    "fails that item alone",
    "[platform]") {
    fake::reset();
    // Item 2's child dies after it said it started; a new child carries on with item 3.
    const auto work = [](std::size_t i) -> std::string {
        if (i == 2) _exit(3);
        return std::string(5000 + i, static_cast<char>('a' + i));
    };
    // The first records come in pieces of 1 to 100 bytes (a header cut in three), with
    // signals between them; the rest as the pipe gives them.
    fake::pipe_reads = {{1}, {-1, EINTR}, {3}, {5}, {-1, EINTR}, {7}, {100}, {1}, {-1, EINTR}};
    const auto r = ipcbench::platform::run_isolated(4, work, 20000);
    CHECK(fake::pipe_reads.empty());
    REQUIRE(r.size() == 4);
    for (std::size_t i : {0, 1, 3}) {
        INFO("item " << i);
        CHECK(r[i].failure.empty());
        CHECK(r[i].output == std::string(5000 + i, static_cast<char>('a' + i)));
    }
    CHECK(r[2].failure == "exit code 3");
    CHECK(r[2].output.empty());
}

TEST_CASE("run_isolated: a wait that fails ends the run naming why, every item marked",
          "[platform]") {
    fake::reset();
    fake::polls = {{-1, ENOMEM}};  // not a signal: nothing more can be heard from the children
    const auto r = ipcbench::platform::run_isolated(
        3, [](std::size_t) { return std::string("done"); }, 20000, 2);
    REQUIRE(r.size() == 3);
    for (const auto &item : r) {
        CHECK_THAT(item.failure, Catch::Contains("cannot wait for the isolated processes") &&
                                     Catch::Contains(std::strerror(ENOMEM)));
        CHECK(item.output.empty());
    }
    fake::reset();
    fake::polls = {{-1, EINTR}, {-1, EINTR}};  // a signal is waited through
    const auto through = ipcbench::platform::run_isolated(
        2, [](std::size_t i) { return std::to_string(i); }, 20000);
    CHECK(through[0].output == "0");
    CHECK(through[1].output == "1");
}

namespace {

std::size_t open_descriptors() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto &entry : std::filesystem::directory_iterator("/proc/self/fd"))
        ++n;
    return n;
}

}  // namespace

TEST_CASE(
    "child_process: a signal in waitpid is waited through to the exit code, a failed fork "
    "is named and leaks no descriptor",
    "[platform]") {
    using ipcbench::platform::child_process;
    fake::reset();
    {
        // sh runs 'exit 7' (the control socket's arguments become its $0 and $1).
        child_process exits("/bin/sh", {"-c", "exit 7"}, "sh");
        fake::waits = {{-1, EINTR}, {-1, EINTR}};
        REQUIRE(exits.wait(-1));
        CHECK(fake::waits.empty());
        CHECK(exits.status().exited);
        CHECK(exits.status().code == 7);
    }
    {
        child_process sleeps("/bin/sh", {"-c", "sleep 20"}, "sh");
        fake::waits = {{-1, EINTR}, {0}};  // with a deadline: a signal, then "still running"
        CHECK_FALSE(sleeps.wait(30));
        CHECK_FALSE(sleeps.finished());
        sleeps.kill();
        REQUIRE(sleeps.wait(5000));
        CHECK(sleeps.status().signaled);
        CHECK(sleeps.status().signal == SIGKILL);
    }
    fake::reset();
    const std::size_t before = open_descriptors();
    fake::forks = {{-1, EAGAIN}};
    CHECK_THROWS_WITH(
        child_process("/bin/sh", {"-c", "exit 0"}, "sh"),
        Catch::Contains("fork for the worker") && Catch::Contains(std::strerror(EAGAIN)));
    CHECK(open_descriptors() == before);  // the control pair and the output pipe closed
    fake::reset();
}

TEST_CASE(
    "connect_tcp: a signal while the connection is under way is waited through, not a "
    "time-out",
    "[platform]") {
    using namespace ipcbench::platform;
    const socket_handle listener = listen_tcp("127.0.0.1", 0);
    const int port = local_address(listener).port;
    fake::reset();
    fake::polls = {{-1, EINTR}, {-1, EINTR}};
    const socket_handle client = connect_tcp("127.0.0.1", port, 10);
    // Both signals met the wait: the path under test ran (a connect done at once would not).
    CHECK(fake::polls.empty());
    const socket_handle served = accept_connection(listener);
    CHECK(served != no_socket);
    close_socket(served);
    close_socket(client);
    close_socket(listener);
    fake::reset();
}
