#include "plugin/completion_queue.hpp"

#include "plugin/host_services.hpp"

namespace ipcbench::plugin {

completion_queue::completion_queue(const transport_info &transport, std::uint32_t depth)
    : table_(transport.table) {
    error_.struct_size = sizeof error_;
    if (table_ == nullptr || !transport.calls.completion)
        throw transport_error(IPCB_E_UNSUPPORTED,
                              transport.id + " offers no completion calls (ABI 1.2 cq_open)");
    const int32_t status = table_->cq_open(depth, &host_services(), &queue_, &error_);
    if (status != IPCB_OK || queue_ == nullptr) {
        queue_ = nullptr;
        throw transport_error(status, transport.id + " cq_open failed (" +
                                          ipcb_status_name(status) + "): " + last_error());
    }
}

completion_queue::~completion_queue() {
    if (queue_ != nullptr) table_->cq_close(queue_);
}

std::string completion_queue::last_error() const {
    ipcb_error copy = error_;
    copy.message[sizeof copy.message - 1] = '\0';
    return copy.message[0] ? copy.message : "no message";
}

}  // namespace ipcbench::plugin
