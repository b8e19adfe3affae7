#include "support/agent_process.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "control/frame_seal.hpp"
#include "platform/process_identity.hpp"
#include "remote/agent_handshake.hpp"
#include "remote/agent_protocol.hpp"
#include "support/process_runner.hpp"

namespace ipcbench::test {

using nlohmann::json;

std::vector<int> children_of(pid_t pid) {
    std::vector<int> out;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const auto status = ipcbench::platform::read_process_status(std::stol(name));
        if (status && status->parent == pid && status->state != 'Z') out.push_back(std::stoi(name));
    }
    return out;
}

int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
    REQUIRE(getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

agent::agent(std::vector<std::string> args, std::map<std::string, std::string> env) {
    port_ = free_port();
    args.insert(args.begin(),
                {IPCHOST_PATH, "serve", "--bind", "127.0.0.1:" + std::to_string(port_)});
    if (geteuid() == 0) args.push_back("--allow-root");
    const prepared_exec program(std::move(args), env);
    pid_ = fork();
    if (pid_ == 0) {
        // A test binary that dies (a failed REQUIRE in a thread, a sanitizer's abort) takes its
        // agent with it instead of leaving it serving.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        program.exec();
    }
    for (int i = 0; i < 250 && !reachable(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

agent::~agent() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
}

double agent::stop(double timeout_s) {
    const auto start = std::chrono::steady_clock::now();
    kill(pid_, SIGTERM);
    for (;;) {
        const double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
            pid_ = -1;
            return waited;
        }
        if (waited > timeout_s) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
            pid_ = -1;
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

bool agent::reachable() const {
    int fd = connect_raw();
    if (fd < 0) return false;
    close(fd);
    return true;
}

int agent::connect_raw(const std::string &source) const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (!source.empty()) {
        sockaddr_in from{};
        from.sin_family = AF_INET;
        inet_pton(AF_INET, source.c_str(), &from.sin_addr);
        if (bind(fd, reinterpret_cast<sockaddr *>(&from), sizeof from) != 0) {
            close(fd);
            return -1;
        }
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

std::string agent::exchange(const std::string &bytes) const {
    int fd = connect_raw();
    REQUIRE(fd >= 0);
    if (!bytes.empty()) REQUIRE(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) >= 0);
    std::string reply;
    char buf[4096];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, static_cast<std::size_t>(n));
    close(fd);
    return reply;
}

std::string frame(const json &message) {
    std::string body = message.dump();
    std::string f(4, '\0');
    const auto n = static_cast<std::uint32_t>(body.size());
    f[0] = static_cast<char>(n >> 24);
    f[1] = static_cast<char>(n >> 16);
    f[2] = static_cast<char>(n >> 8);
    f[3] = static_cast<char>(n);
    return f + body;
}

json answer(const std::string &reply) {
    REQUIRE(reply.size() > 4);
    const std::size_t n = (std::size_t{static_cast<unsigned char>(reply[0])} << 24) |
                          (std::size_t{static_cast<unsigned char>(reply[1])} << 16) |
                          (std::size_t{static_cast<unsigned char>(reply[2])} << 8) |
                          static_cast<unsigned char>(reply[3]);
    REQUIRE(reply.size() >= 4 + n);
    return json::parse(reply.substr(4, n));
}

namespace {

struct fd_seals {
    control::frame_seal send, receive;
};
std::mutex seals_mutex;
std::map<int, fd_seals> sealed_fds;

}  // namespace

void seal_fd(int fd, const std::string &send_key, const std::string &receive_key) {
    const std::lock_guard<std::mutex> lock(seals_mutex);
    sealed_fds.erase(fd);
    sealed_fds.emplace(fd,
                       fd_seals{control::frame_seal(send_key), control::frame_seal(receive_key)});
}

void forget_fd(int fd) {
    const std::lock_guard<std::mutex> lock(seals_mutex);
    sealed_fds.erase(fd);
}

std::string frame_on(int fd, const json &message) {
    const std::lock_guard<std::mutex> lock(seals_mutex);
    const auto it = sealed_fds.find(fd);
    return it == sealed_fds.end() ? frame(message) : it->second.send.seal(frame(message));
}

remote_transcript transcript_of(const json &hello, const std::string &agent_nonce) {
    return {hello.value("nonce", ""), agent_nonce, hello.value("session", "worker"),
            hello.value("done", false), hello.value("dialled", "")};
}

json answer_as_agent(int fd, const json &hello, const std::string &token) {
    const remote_transcript t = transcript_of(hello, remote::new_nonce());
    const std::string challenge =
        frame({{"type", "challenge"},
               {"nonce", t.agent_nonce},
               {"proof", remote::handshake_proof(token, remote::proof_role::agent, t)}});
    (void)!write(fd, challenge.data(), challenge.size());
    const json auth = read_frame(fd);
    const auto keys = remote::derive_session_keys(token, t);
    seal_fd(fd, keys.to_client, keys.to_agent);
    return auth;
}

json read_frame(int fd) {
    auto read_exact = [fd](char *buf, std::size_t n) {
        for (std::size_t got = 0; got < n;) {
            ssize_t r = recv(fd, buf + got, n - got, 0);
            if (r <= 0) return false;
            got += static_cast<std::size_t>(r);
        }
        return true;
    };
    unsigned char header[4];
    if (!read_exact(reinterpret_cast<char *>(header), 4)) return nullptr;
    const std::size_t n = (std::size_t{header[0]} << 24) | (std::size_t{header[1]} << 16) |
                          (std::size_t{header[2]} << 8) | header[3];
    if (n >= (1u << 24)) return nullptr;  // no frame a test expects
    std::string body(n, '\0');
    if (!read_exact(body.data(), n)) return nullptr;
    {
        const std::lock_guard<std::mutex> lock(seals_mutex);
        const auto it = sealed_fds.find(fd);
        if (it != sealed_fds.end())
            if (const auto opened = it->second.receive.try_open(body.data(), body.size()))
                return json::parse(*opened, nullptr, false);
    }
    return json::parse(body, nullptr, false);  // unsealed: a refusal, or no session
}

json client_hello(const std::string &nonce, const json &extra) {
    json hello = {{"type", "hello"},
                  {"protocol", remote::agent_protocol_version},
                  {"nonce", nonce},
                  {"dialled", "?"},
                  {"client", "a test"}};
    if (extra.is_object()) hello.update(extra);
    return hello;
}

json send_hello_and_auth(int fd, const std::string &token, const json &extra) {
    remote::handshake_transcript t{remote::new_nonce(), "", "worker", false, ""};
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &len) == 0 &&
        peer.ss_family == AF_INET) {
        const auto *in = reinterpret_cast<const sockaddr_in *>(&peer);
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        port = ntohs(in->sin_port);
    }
    json with_address = {{"dialled", remote::transcript_address(host, port)}};
    if (extra.is_object()) with_address.update(extra);
    const json hello = client_hello(t.client_nonce, with_address);
    t.dialled = hello.value("dialled", "");
    if (const auto s = hello.find("session"); s != hello.end() && s->is_string())
        t.session = s->get<std::string>();
    if (const auto d = hello.find("done"); d != hello.end() && d->is_boolean()) t.done = *d;
    if (const auto n = hello.find("nonce"); n != hello.end() && n->is_string())
        t.client_nonce = n->get<std::string>();
    const std::string bytes = frame(hello);
    if (send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size()))
        return nullptr;
    const json challenge = read_frame(fd);
    if (!challenge.is_object() || challenge.value("type", "") != "challenge") return challenge;
    t.agent_nonce = challenge.value("nonce", "");
    const std::string auth =
        frame({{"type", "auth"},
               {"proof", remote::handshake_proof(token, remote::proof_role::client, t)}});
    send(fd, auth.data(), auth.size(), MSG_NOSIGNAL);
    const auto keys = remote::derive_session_keys(token, t);
    seal_fd(fd, keys.to_agent, keys.to_client);
    return challenge;
}

json agent::authenticate(const std::string &token, const json &extra,
                         const std::string &source) const {
    const int fd = connect_raw(source);
    if (fd < 0) return nullptr;
    json reply = send_hello_and_auth(fd, token, extra);
    if (reply.is_object() && reply.value("type", "") == "challenge") reply = read_frame(fd);
    forget_fd(fd);
    close(fd);
    return reply;
}

worker_session::worker_session(const agent &a, const std::string &token, const std::string &source,
                               const std::string &version) {
    fd = a.connect_raw(source);
    REQUIRE(fd >= 0);
    const json challenge = send_hello_and_auth(fd, token);
    INFO(challenge.dump());
    REQUIRE(challenge.at("type") == "challenge");
    const json welcome = read_frame(fd);
    INFO(welcome.dump());
    REQUIRE(welcome.at("type") == "welcome");
    const json worker_hello = read_frame(fd);  // the worker's own
    REQUIRE(worker_hello.at("type") == "hello");
    REQUIRE(worker_hello.at("versions") == json::array({"1.0", "1.1", "1.2"}));
    REQUIRE(worker_hello.at("implementation") == "native");
    if (version.empty()) return;
    const std::string welcome_worker = frame_on(fd, {{"type", "welcome"}, {"protocol", version}});
    REQUIRE(send(fd, welcome_worker.data(), welcome_worker.size(), MSG_NOSIGNAL) > 0);
}

worker_session::~worker_session() {
    forget_fd(fd);
    close(fd);
}

json worker_session::request(const json &message) {
    const std::string bytes = frame_on(fd, message);
    REQUIRE(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) > 0);
    return read_frame(fd);
}

json setup_frame(const std::string &library, const std::string &transport, const std::string &role,
                 const std::string &address) {
    json endpoint = {{"direction", "send"}};
    if (!address.empty()) endpoint["address"] = address;
    return {{"type", "setup"},       {"library", library},      {"transport", transport},
            {"role", role},          {"endpoints", {endpoint}}, {"options", json::object()},
            {"runtime_dir", "/tmp"}, {"max_message_size", 1024}};
}

}  // namespace ipcbench::test
