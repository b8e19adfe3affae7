#pragma once

#include <cstdint>
#include <string>

namespace ipcbench::model {

// How the timed loops hand messages to a transport (timed/send_path.hpp picks one per stream).
enum class send_call {
    send,            // one message per call
    send_batch,      // N messages per call (writev, sendmmsg)
    emulated_batch,  // N send calls: the transport has no send_batch
    borrow_publish,  // written in the transport's memory (zero-copy)
};

// How they take messages from it (timed/receive_path.hpp).
enum class receive_call {
    recv,          // one message per call (a stream reassembled from partial reads)
    recv_batch,    // N messages per call (recvmmsg, one ring pass)
    stream_batch,  // a stream transport: one recv reads up to N messages' worth
    take_release,  // read where it arrived (zero-copy)
};

// The names in results' data_path ("send_batch -> recv x8 bytes"), docs/json-schema.md.
std::string name_of(send_call c, std::uint32_t batch);
std::string name_of(receive_call c, std::uint32_t batch);

// What a case does when nothing asks for another path: tables show a calls column only
// when some case left it.
inline const char *default_data_path = "send -> recv";

}  // namespace ipcbench::model
