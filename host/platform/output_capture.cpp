#include "platform/output_capture.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>

#include "text/printable_text.hpp"

namespace ipcbench::platform {

void output_capture::take(const char *data, std::size_t size) {
    if (keep_) keep_->bytes += size;
    const std::size_t room = max_forwarded - std::min(max_forwarded, forwarded_);
    pending_.append(data, std::min(size, room));
    forwarded_ += std::min(size, room);
    dropped_ += size - std::min(size, room);
}

void output_capture::emit_lines(bool done) {
    for (std::size_t eol;
         (eol = pending_.find('\n')) != std::string::npos || (done && !pending_.empty());) {
        const std::size_t end = eol == std::string::npos ? pending_.size() : eol;
        const std::string line = text::printable(pending_.substr(0, end), 4096);
        fmt::print(stderr, "[{}] {}\n", label_, line);
        if (keep_ && keep_->text.size() < captured_output::max_kept)
            keep_->text += line.substr(0, captured_output::max_kept - keep_->text.size()) + "\n";
        pending_.erase(0, end == pending_.size() ? end : end + 1);
    }
}

}  // namespace ipcbench::platform
