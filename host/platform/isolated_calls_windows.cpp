#include "platform/isolated_calls.hpp"

#include "platform/windows_api.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <thread>

#include "platform/child_process.hpp"
#include "platform/monotonic_clock.hpp"

namespace ipcbench::platform {
namespace {

constexpr std::size_t max_answer = 1 << 20;
// An answer begins with this line: a child that exits early (a plugin calling exit(0) in its
// entry point) sends none, and is not mistaken for one that answered nothing.
constexpr const char *answer_mark = "ipchost-isolated-answer\n";

// One item in flight: its process, its Job object, and the thread reading its answer.
struct running_item {
    std::size_t index = 0;
    windows::job_process child;
    windows::unique_handle answer_read;
    std::string answer;
    std::thread reader;
    std::int64_t deadline = 0;
};

void start_item(running_item &item, const char *task, const std::string &argument, int timeout_ms) {
    SECURITY_ATTRIBUTES plain{sizeof(SECURITY_ATTRIBUTES), nullptr, FALSE};
    HANDLE in_read = nullptr, in_write = nullptr, out_read = nullptr, out_write = nullptr;
    if (!CreatePipe(&in_read, &in_write, &plain, static_cast<DWORD>(argument.size() + 4096)) ||
        !CreatePipe(&out_read, &out_write, &plain, 64 * 1024))
        throw std::runtime_error("cannot make pipes for an isolated process: " +
                                 windows::last_error_text());
    windows::unique_handle input(in_read), input_writer(in_write), answer_writer(out_write);
    item.answer_read.reset(out_read);
    const windows::unique_handle nul = windows::null_device(true);
    item.child = windows::start_in_job(
        self_executable_path(),
        {"isolated", task, "--answer-handle",
         std::to_string(reinterpret_cast<std::intptr_t>(answer_writer.get()))},
        input.get(), nul.get(), nul.get(), {answer_writer.get()});
    DWORD written = 0;
    WriteFile(input_writer.get(), argument.data(), static_cast<DWORD>(argument.size()), &written,
              nullptr);
    item.deadline = now_ns() + std::int64_t{timeout_ms} * 1'000'000;
    item.reader = std::thread([&item] {
        char buf[16384];
        DWORD n = 0;
        while (ReadFile(item.answer_read.get(), buf, sizeof buf, &n, nullptr) && n > 0)
            if (item.answer.size() < max_answer) item.answer.append(buf, n);
    });
}

isolated_result finish_item(running_item &item, int timeout_ms) {
    isolated_result result;
    const std::int64_t left_ms = std::max<std::int64_t>(0, (item.deadline - now_ns()) / 1'000'000);
    const bool hung =
        WaitForSingleObject(item.child.process.get(), static_cast<DWORD>(left_ms)) == WAIT_TIMEOUT;
    if (hung) TerminateJobObject(item.child.job.get(), 1);
    WaitForSingleObject(item.child.process.get(), INFINITE);
    item.child.job.reset();  // ends anything the item started; its pipe ends close with it
    item.reader.join();
    DWORD code = 0;
    GetExitCodeProcess(item.child.process.get(), &code);
    const std::size_t mark = std::strlen(answer_mark);
    if (hung)
        result.failure = "hung for more than " + std::to_string(timeout_ms / 1000) + " s";
    else if (code != 0)
        result.failure = windows::describe_exit_code(code);
    else if (item.answer.compare(0, mark, answer_mark) != 0)
        result.failure = "the isolated process ended before answering (exit code 0)";
    else
        result.output = item.answer.substr(mark);
    return result;
}

}  // namespace

std::vector<isolated_result> run_isolated_task(const char *task,
                                               const std::vector<std::string> &arguments,
                                               int timeout_ms, int parallel) {
    std::vector<isolated_result> results(arguments.size());
    const std::size_t width = static_cast<std::size_t>(std::max(1, parallel));
    for (std::size_t first = 0; first < arguments.size(); first += width) {
        const std::size_t end = std::min(arguments.size(), first + width);
        std::vector<running_item> items(end - first);
        for (std::size_t i = first; i < end; ++i) {
            items[i - first].index = i;
            try {
                start_item(items[i - first], task, arguments[i], timeout_ms);
            } catch (const std::exception &e) {
                results[i].failure = std::string("cannot start an isolated process: ") + e.what();
            }
        }
        for (auto &item : items)
            if (item.child.process) results[item.index] = finish_item(item, timeout_ms);
    }
    return results;
}

// The re-run: `ipchost isolated TASK --answer-handle H`, the argument on stdin. Standard output
// and error are NUL, so nothing a plugin prints can pass for the answer.
int serve_isolated_task(int argc, char **argv) {
    if (argc != 5 || std::strcmp(argv[3], "--answer-handle") != 0) return 2;
    const isolated_work work = find_isolated_task(argv[2]);
    if (work == nullptr) return 2;
    const HANDLE answer =
        reinterpret_cast<HANDLE>(static_cast<std::intptr_t>(std::strtoll(argv[4], nullptr, 10)));
    SetHandleInformation(answer, HANDLE_FLAG_INHERIT, 0);  // not passed on to what the work starts
    std::string argument((std::istreambuf_iterator<char>(std::cin)),
                         std::istreambuf_iterator<char>());
    const std::string reply = answer_mark + work(argument);
    DWORD written = 0;
    for (std::size_t done = 0; done < reply.size(); done += written)
        if (!WriteFile(answer, reply.data() + done, static_cast<DWORD>(reply.size() - done),
                       &written, nullptr) ||
            written == 0)
            return 1;
    CloseHandle(answer);
    return 0;
}

}  // namespace ipcbench::platform
