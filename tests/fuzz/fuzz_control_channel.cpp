// libFuzzer target for the control-channel parser: the code that reads frames from a worker
// (and, with a remote peer, from the network). Arbitrary bytes must give messages or a clean
// protocol_error / json exception: any crash, hang, leak or undefined behaviour is a bug.
#include <cstddef>
#include <cstdint>

#include "control/control_channel.hpp"
#include "control/frame_codec.hpp"
#include "control/message_kind.hpp"
#include "model/interval_figures.hpp"
#include "model/job.hpp"
#include "model/loop_result.hpp"
#include "stats/latency_histogram.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    using namespace ipcbench;
    control::frame_decoder decoder;
    // The first byte picks how the input is cut into reads, as a socket would deliver it.
    const std::size_t chunk = size ? (data[0] % 64) + 1 : 1;
    try {
        for (std::size_t at = size ? 1 : 0; at < size; at += chunk) {
            const std::size_t n = at + chunk <= size ? chunk : size - at;
            decoder.feed(reinterpret_cast<const char *>(data + at), n);
            while (auto message = decoder.next()) {
                // What the orchestrator and the workers do with a decoded message.
                try {
                    control::expect_kind(*message, control::kind_of(*message));
                    if (message->contains("job")) message->at("job").get<ipcbench::model::job>();
                    if (message->contains("parts")) message->get<ipcbench::model::worker_result>();
                    if (control::is(*message, control::message_kind::interval))
                        message->get<ipcbench::model::interval_figures>();
                    if (message->contains("histogram")) {
                        auto h = stats::latency_histogram::from_json(message->at("histogram"));
                        h.percentile(99.9);
                    }
                } catch (const control::peer_error &) {
                } catch (const control::protocol_error &) {  // a type of no kind
                } catch (const nlohmann::json::exception &) {
                } catch (const std::runtime_error &) {
                }
            }
        }
    } catch (const control::protocol_error &) {
    }
    return 0;
}
