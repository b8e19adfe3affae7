#include "model/data_path.hpp"

namespace ipcbench::model {

std::string name_of(send_call c, std::uint32_t batch) {
    switch (c) {
        case send_call::send: return "send";
        case send_call::send_batch: return "send_batch";
        case send_call::emulated_batch: return "send x" + std::to_string(batch);
        case send_call::borrow_publish: break;
    }
    return "borrow/publish";
}

std::string name_of(receive_call c, std::uint32_t batch) {
    switch (c) {
        case receive_call::recv: return "recv";
        case receive_call::recv_batch: return "recv_batch";
        case receive_call::stream_batch: return "recv x" + std::to_string(batch) + " bytes";
        case receive_call::take_release: break;
    }
    return "take/release";
}

}  // namespace ipcbench::model
