/*
 * ipcbench transport plugin ABI, version 1.
 *
 * A transport plugin is a shared library (.so, .dll) that exports exactly one symbol,
 * ipcb_plugin_entry (IPCB_PLUGIN_ENTRY_NAME). The host (ipchost) calls it once after loading the
 * library and gets back a static descriptor listing one or more transport tables. Everything else
 * goes through the function pointers of those tables.
 *
 * Rules that keep this ABI stable (read before changing this file):
 *  - Pure C99, only <stddef.h> and <stdint.h>. No enum or bool members, no `long`, no packing
 *    pragmas: every member has a fixed width or is a pointer.
 *  - New groups of calls are extensions (CLAP's way): an id ("ipcb.<name>/<rev>") and a struct of
 *    their own, fetched with ipcb_transport.get_extension; a revision is a new id. The transport
 *    table itself is complete as of 1.2 and does not grow: its 1.1 and 1.2 members stay where
 *    they are (read after IPCB_HAS_FIELD), and nothing is appended to it.
 *  - Every struct that may grow starts with `uint32_t struct_size`. Whoever reads a struct written
 *    by the other side checks IPCB_HAS_FIELD before touching a member added after 1.0.
 *  - A plugin built against 1.M loads in any host 1.N: the host accepts a larger struct_size and
 *    ignores the unknown tail. A different major is rejected by the host, with a message that says
 *    to rebuild against the matching SDK.
 *  - No C++ types, exceptions or allocations cross the boundary. Buffers and error structs are
 *    owned by the host; descriptors and strings returned by the plugin are owned by the plugin.
 *
 * Thread tags used below:
 *  [main-thread]      called from the thread that loaded the plugin, never concurrently.
 *  [endpoint-thread]  called for one endpoint from one thread at a time (the host may move an
 *                     endpoint between threads, with a happens-before edge between the calls).
 *                     Different endpoints may be used concurrently from different threads.
 *  [any-thread]       may be called from any thread at any time, concurrently.
 *
 * Process model: the host runs the two sides of a transport in two processes (possibly on two
 * machines). Plugins never fork, never spawn, never time anything and never parse a command line.
 */
#ifndef IPCBENCH_TRANSPORT_H
#define IPCBENCH_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions, export and calling convention
 * ------------------------------------------------------------------------------------------- */

#define IPCB_ABI_MAJOR 1
#define IPCB_ABI_MINOR 2
#define IPCB_ABI_VERSION (((uint32_t)IPCB_ABI_MAJOR << 16) | (uint32_t)IPCB_ABI_MINOR)
#define IPCB_ABI_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define IPCB_ABI_VERSION_MINOR(v) ((uint32_t)(v)&0xffffu)

#if defined(_WIN32)
#define IPCB_CALL __cdecl
#define IPCB_EXPORT __declspec(dllexport)
#else
#define IPCB_CALL
#define IPCB_EXPORT __attribute__((visibility("default")))
#endif

/* True when the struct pointed to by p, of type T, is large enough to hold member f. Use it before
 * reading any member added after 1.0 from a struct the other side filled in. */
#define IPCB_HAS_FIELD(p, T, f) ((p)->struct_size >= offsetof(T, f) + sizeof(((const T *)0)->f))

/* ---------------------------------------------------------------------------------------------
 * Status codes
 *
 * Every function that can fail returns int32_t: IPCB_OK or one of the negative codes below, and on
 * failure fills the host's ipcb_error. Codes are frozen; new ones are only added at the end.
 * ------------------------------------------------------------------------------------------- */

#define IPCB_OK 0
#define IPCB_E_TIMEOUT (-1)        /* the timeout passed in ran out; nothing was transferred */
#define IPCB_E_CLOSED (-2)         /* the peer closed the endpoint or went away */
#define IPCB_E_TRUNCATED (-3)      /* recv: the message is larger than the buffer; it is lost */
#define IPCB_E_INVALID (-4)        /* an argument is invalid (bad role, NULL pointer, len 0...) */
#define IPCB_E_UNKNOWN_OPTION (-5) /* open: an option key this transport does not know */
#define IPCB_E_BAD_OPTION (-6)     /* open: a known option with a value it cannot take */
#define IPCB_E_BAD_ADDRESS (-7)    /* open/connect: the address cannot be parsed or reached */
#define IPCB_E_TOO_BIG (-8)        /* the message exceeds a transport or kernel limit */
#define IPCB_E_UNSUPPORTED (-9)    /* the transport cannot do this (direction, role...) */
#define IPCB_E_NO_MEMORY (-10)     /* allocation failed */
#define IPCB_E_SYSTEM (-11)        /* an OS call failed; sys_errno says which error */
#define IPCB_E_INTERNAL (-12)      /* a bug in the plugin (C++ exception caught, broken state) */

/* Static name of a status code ("IPCB_E_TIMEOUT"), or "IPCB_E_UNKNOWN" for other values. */
static inline const char *ipcb_status_name(int32_t status) {
    switch (status) {
        case IPCB_OK: return "IPCB_OK";
        case IPCB_E_TIMEOUT: return "IPCB_E_TIMEOUT";
        case IPCB_E_CLOSED: return "IPCB_E_CLOSED";
        case IPCB_E_TRUNCATED: return "IPCB_E_TRUNCATED";
        case IPCB_E_INVALID: return "IPCB_E_INVALID";
        case IPCB_E_UNKNOWN_OPTION: return "IPCB_E_UNKNOWN_OPTION";
        case IPCB_E_BAD_OPTION: return "IPCB_E_BAD_OPTION";
        case IPCB_E_BAD_ADDRESS: return "IPCB_E_BAD_ADDRESS";
        case IPCB_E_TOO_BIG: return "IPCB_E_TOO_BIG";
        case IPCB_E_UNSUPPORTED: return "IPCB_E_UNSUPPORTED";
        case IPCB_E_NO_MEMORY: return "IPCB_E_NO_MEMORY";
        case IPCB_E_SYSTEM: return "IPCB_E_SYSTEM";
        case IPCB_E_INTERNAL: return "IPCB_E_INTERNAL";
        default: return "IPCB_E_UNKNOWN";
    }
}

/* Error details. Owned by the host, which sets struct_size and clears the rest before each call.
 * On failure the plugin writes a NUL-terminated, human-readable message that names the problem and,
 * where it can, the fix ("message of 16384 B exceeds kernel.msgmax=8192; raise it with sysctl -w
 * kernel.msgmax=16384"), and sys_errno when an OS call failed (0 otherwise). The plugin never keeps
 * the pointer after the call returns. */
typedef struct ipcb_error {
    uint32_t struct_size;
    int32_t sys_errno;
    char message[256];
} ipcb_error;

/* ---------------------------------------------------------------------------------------------
 * Capabilities (ipcb_transport.caps)
 * ------------------------------------------------------------------------------------------- */

#define IPCB_CAP_STREAM                                                                     \
    (1u << 0)                         /* byte stream: recv may return part of a message, or \
                                         parts of several; the host reassembles */
#define IPCB_CAP_MESSAGE (1u << 1)    /* message boundaries kept: one send = one recv */
#define IPCB_CAP_RELIABLE (1u << 2)   /* no message is lost while both sides are open */
#define IPCB_CAP_ORDERED (1u << 3)    /* messages arrive in the order they were sent */
#define IPCB_CAP_CROSS_HOST (1u << 4) /* the two sides may run on different machines */
#define IPCB_CAP_DUPLEX                                          \
    (1u << 5) /* an endpoint opened with IPCB_DIR_BOTH sends and \
                 receives; without it the host opens two endpoints */
#define IPCB_CAP_CLOSE_NOTIFY                                           \
    (1u << 6) /* after the peer closes, recv returns IPCB_E_CLOSED once \
                 the data in flight is drained, and send fails with     \
                 IPCB_E_CLOSED instead of blocking */

/* Roles: which side of a connection an endpoint is. */
#define IPCB_ROLE_CREATOR 1u   /* creates or listens, and publishes an address (export_address) */
#define IPCB_ROLE_CONNECTOR 2u /* reaches the creator through that address */

/* Directions an endpoint is used in. */
#define IPCB_DIR_SEND 1u
#define IPCB_DIR_RECV 2u
#define IPCB_DIR_BOTH 3u /* only for transports with IPCB_CAP_DUPLEX */

/* Timeouts are in nanoseconds: IPCB_WAIT_FOREVER blocks, 0 polls once, > 0 waits at most that. */
#define IPCB_WAIT_FOREVER (-1)

/* Log levels for ipcb_host.log. */
#define IPCB_LOG_DEBUG 0
#define IPCB_LOG_INFO 1
#define IPCB_LOG_WARN 2
#define IPCB_LOG_ERROR 3

/* ---------------------------------------------------------------------------------------------
 * Small value types
 * ------------------------------------------------------------------------------------------- */

/* A key/value string pair. In ipcb_open_params it is owned by the host and valid only during the
 * call; the plugin copies what it keeps. */
typedef struct ipcb_kv {
    const char *key;
    const char *value;
} ipcb_kv;

/* Description of one option a transport takes. Owned by the plugin, static, valid until the
 * library is unloaded. This struct is frozen (arrays of it are indexed by the host, so it can never
 * grow); new per-option facts go into a new struct reached through a new ipcb_transport member. */
typedef struct ipcb_option_desc {
    const char *key;           /* "buffer_size": [a-z0-9_]+ */
    const char *default_value; /* as the user would type it; "" when there is none */
    const char *help;          /* one sentence, what it does and what values it takes */
} ipcb_option_desc;

/* One message in a batch or zero-copy call (since 1.1). Arrays of it are indexed, so this struct
 * is frozen. Who owns `data` depends on the call: the host's buffer in send_batch/recv_batch, the
 * transport's memory in borrow/take. */
typedef struct ipcb_msg {
    void *data;
    uint64_t len;
} ipcb_msg;

/* Receiver of effective settings, see ipcb_transport.query_settings. key and value are owned by
 * the plugin and valid only during the call; the host copies them. */
typedef void(IPCB_CALL *ipcb_setting_sink)(void *context, const char *key, const char *value);

/* Opaque endpoint, owned by the plugin from open() until close(). */
typedef struct ipcb_endpoint ipcb_endpoint;

/* ---------------------------------------------------------------------------------------------
 * Since 1.2: event-driven I/O, so that few host threads drive thousands of endpoints
 * (docs/event-io.md has the design and the alternatives). Two models, each optional:
 *
 *  Readiness (epoll, poll, kqueue): the endpoint names one waitable OS handle (ipcb_event_source)
 *  and offers try_send/try_recv, which never wait. The host waits on many handles at once and
 *  calls try_* for the endpoints whose handle fired.
 *
 *  Completion (io_uring, IOCP): the host opens a completion queue per thread, submits sends and
 *  receives into host buffers, and reaps one ipcb_completion per submission.
 *
 * A transport offers either, both or neither; without them the host gives each endpoint a thread
 * (the 1.0 path). Both models may be offered by one endpoint, but the host uses one per endpoint
 * and never mixes them with the blocking calls on it after connect (except close).
 * ------------------------------------------------------------------------------------------- */

/* ipcb_event_source.kind */
#define IPCB_HANDLE_FD                                                         \
    1u /* a POSIX file descriptor, waited on with poll/epoll (level-triggered) \
        */

/* Bits of ipcb_event_source.recv_events and send_events. */
#define IPCB_EVENT_READABLE 1u /* POLLIN / EPOLLIN */
#define IPCB_EVENT_WRITABLE 2u /* POLLOUT / EPOLLOUT */

/* The handle a readiness-driven host waits on for one endpoint (since 1.2). Filled by the plugin
 * in a host-owned struct whose struct_size the host set. */
typedef struct ipcb_event_source {
    uint32_t struct_size;
    uint32_t kind;        /* IPCB_HANDLE_FD */
    int64_t handle;       /* the descriptor; owned by the endpoint, valid until close. The host
                             only waits on it: it never reads, writes, closes or changes flags */
    uint32_t recv_events; /* IPCB_EVENT_* that mean "try_recv may make progress" (0: the
                             endpoint does not receive) */
    uint32_t send_events; /* IPCB_EVENT_* that mean "try_send may make progress" (0: the
                             endpoint does not send) */
} ipcb_event_source;

/* One finished submission, reaped by cq_wait (since 1.2). Arrays of it are indexed: frozen. */
typedef struct ipcb_completion {
    uint64_t user_data; /* what the host passed to submit_send/submit_recv */
    uint64_t len;       /* bytes moved: send, all of them on IPCB_OK; recv, 1..cap */
    int32_t status;     /* IPCB_OK or the IPCB_E_* send/recv would have returned; IPCB_E_CLOSED
                           also for a submission cancelled by closing its endpoint */
    uint32_t op;        /* IPCB_OP_SEND or IPCB_OP_RECV */
} ipcb_completion;

#define IPCB_OP_SEND 1u
#define IPCB_OP_RECV 2u

/* Opaque completion queue, owned by the plugin from cq_open until cq_close (since 1.2). */
typedef struct ipcb_completion_queue ipcb_completion_queue;

struct ipcb_host;

/* ---------------------------------------------------------------------------------------------
 * Opening an endpoint
 * ------------------------------------------------------------------------------------------- */

typedef struct ipcb_open_params {
    uint32_t struct_size;
    uint32_t role;                /* IPCB_ROLE_CREATOR or IPCB_ROLE_CONNECTOR */
    uint32_t direction;           /* IPCB_DIR_SEND, IPCB_DIR_RECV or IPCB_DIR_BOTH */
    uint32_t option_count;        /* entries in options */
    const ipcb_kv *options;       /* user options; each key at most once, no defaults added. ipchost
                                     passes a run's options only for keys listed in
                                     ipcb_transport.options, but a plugin must not rely on it: any
                                     other key fails open with IPCB_E_UNKNOWN_OPTION (ipchost check
                                     passes an undeclared key to see that it does) */
    const char *address;          /* CONNECTOR: the string the creator's export_address produced.
                                     CREATOR: NULL, or a user address to bind/listen on ("host:port") */
    const char *runtime_dir;      /* a private (0700) directory the host created for this run and
                                     removes afterwards, even when a process crashed: put file-system
                                     objects (FIFOs, socket files) here. May be NULL: then make one. */
    uint64_t max_message_size;    /* the largest message the host will send or receive on this
                                     endpoint. If the transport (or a kernel limit) cannot carry it,
                                     open fails with IPCB_E_TOO_BIG and a message naming the limit. */
    const struct ipcb_host *host; /* the same pointer the entry received */
} ipcb_open_params;

/* ---------------------------------------------------------------------------------------------
 * The transport table
 *
 * One connection between two processes is two endpoints, one per process: the creator's and the
 * connector's. The host drives them in this order:
 *
 *   creator process                      connector process
 *   open(CREATOR) -> export_address  --address-->  open(CONNECTOR, address)
 *   connect()                      (concurrently)   connect()
 *   send/recv ...                                   send/recv ...
 *   close()                                         close()
 *
 * With several endpoints per process (two for ping-pong over a one-way transport), both processes
 * open and connect them in the same order.
 * ------------------------------------------------------------------------------------------- */

typedef struct ipcb_transport {
    uint32_t struct_size;      /* sizeof(ipcb_transport) as the plugin was compiled */
    uint32_t option_count;     /* entries in options */
    const char *id;            /* "<plugin>.<variant>", e.g. "pipe.fifo": [a-z0-9_-]+.[a-z0-9_-]+,
                                  the part before the dot equal to ipcb_plugin.name */
    const char *description;   /* one line for `ipchost --list` */
    uint64_t caps;             /* IPCB_CAP_* */
    uint64_t max_message_size; /* largest message this transport can carry; 0 = no limit of its
                                  own (streams). Kernel limits that depend on the machine are
                                  checked at open() against ipcb_open_params.max_message_size. */
    const ipcb_option_desc *options; /* option_count entries, static */

    /* Creates an endpoint. [endpoint-thread], any process.
     * CREATOR: creates the OS objects (FIFO, listening socket, queue) and must not wait for the
     * peer. CONNECTOR: records and checks params->address; must not wait for the creator either.
     * Unknown option keys fail with IPCB_E_UNKNOWN_OPTION and a message naming the key; invalid
     * values with IPCB_E_BAD_OPTION naming key, value and what is accepted.
     * On success *out is a new endpoint, owned by the plugin until close(). On failure *out is left
     * NULL and nothing created stays behind. Mandatory. */
    int32_t(IPCB_CALL *open)(const ipcb_open_params *params, ipcb_endpoint **out,
                             ipcb_error *error);

    /* Writes the address a connector needs into buf (cap bytes, NUL-terminated), for example a
     * FIFO path or "127.0.0.1:40123". The string must work in another process of the same user,
     * and for IPCB_CAP_CROSS_HOST transports on another machine. Only for CREATOR endpoints,
     * between open and connect. IPCB_E_INVALID if cap is too small. [endpoint-thread] Mandatory. */
    int32_t(IPCB_CALL *export_address)(ipcb_endpoint *endpoint, char *buf, size_t cap,
                                       ipcb_error *error);

    /* Completes the connection (accept, open the FIFO, handshake). Both sides call it, in two
     * processes, at about the same time; it may block until the other side has called it too, at
     * most timeout_ns, then fails with IPCB_E_TIMEOUT. [endpoint-thread] Mandatory. */
    int32_t(IPCB_CALL *connect)(ipcb_endpoint *endpoint, int64_t timeout_ns, ipcb_error *error);

    /* Sends len bytes (1 <= len <= the open's max_message_size) from buf, which the host owns; the
     * plugin keeps no pointer to it after returning. All len bytes are sent (stream transports
     * loop over partial writes) or an error is returned. timeout_ns bounds the wait for room in
     * the transport; IPCB_E_TIMEOUT means nothing was sent. On a stream transport a timeout after
     * part of the message went out is reported as IPCB_E_SYSTEM (the stream is then unusable).
     * IPCB_E_CLOSED when the peer is gone. [endpoint-thread] Mandatory. */
    int32_t(IPCB_CALL *send)(ipcb_endpoint *endpoint, const void *buf, size_t len,
                             int64_t timeout_ns, ipcb_error *error);

    /* Receives into buf (cap bytes, host-owned) and stores the byte count in *len (>= 1).
     * IPCB_CAP_MESSAGE: exactly one whole message; a larger one fails with IPCB_E_TRUNCATED.
     * IPCB_CAP_STREAM: between 1 and cap bytes, wherever message boundaries fall.
     * Waits at most timeout_ns for data (IPCB_E_TIMEOUT, *len = 0). IPCB_E_CLOSED once the peer
     * closed and, for reliable transports, everything it sent was received.
     * [endpoint-thread] Mandatory. */
    int32_t(IPCB_CALL *recv)(ipcb_endpoint *endpoint, void *buf, size_t cap, size_t *len,
                             int64_t timeout_ns, ipcb_error *error);

    /* Releases the endpoint and every OS object it created (the creator unlinks names and removes
     * queues). Never fails, never blocks longer than it takes to release; a peer blocked in send or
     * recv then gets IPCB_E_CLOSED (with IPCB_CAP_CLOSE_NOTIFY) or its timeout. NULL is ignored.
     * The endpoint pointer is invalid afterwards. [endpoint-thread] Mandatory. */
    void(IPCB_CALL *close)(ipcb_endpoint *endpoint);

    /* Reports the endpoint's effective settings, as the OS applied them (for example
     * "pipe_size"="1048576" after F_SETPIPE_SZ rounded the request), by calling sink once per
     * setting, synchronously. Call after connect. Optional: NULL when there is nothing to report.
     * [endpoint-thread] */
    void(IPCB_CALL *query_settings)(ipcb_endpoint *endpoint, ipcb_setting_sink sink, void *context);

    /* Removes whatever OS object `address` names, for a host cleaning up after a process that
     * crashed before it could close(). Called in any process, possibly while no endpoint exists.
     * IPCB_OK when nothing was left. Optional: NULL when close() is always enough (no named
     * object outlives its processes). [any-thread] */
    int32_t(IPCB_CALL *remove_address)(const char *address, ipcb_error *error);

    /* Returns an extension table for a string id "ipcb.<name>/<rev>" or
     * "<reverse-domain>.<name>/<rev>", or NULL when unsupported. The table is owned by the plugin,
     * static, valid until unload. Optional: NULL means no extensions. [any-thread] */
    const void *(IPCB_CALL *get_extension)(const char *id);

    /* -----------------------------------------------------------------------------------------
     * Since 1.1: the zero-copy and batched data path. Every member below is optional (NULL: not
     * offered) and the host reads it only after IPCB_HAS_FIELD(t, ipcb_transport, member) and a
     * non-NULL check; without it the host uses send/recv. A transport offers borrow and publish
     * together, and take and release together. The host mixes these calls with send/recv on one
     * endpoint only between batches (never while a borrow or take is outstanding).
     * --------------------------------------------------------------------------------------- */

    /* Zero-copy send, step 1: reserves between 1 and max_count slots of len bytes each in the
     * transport's own memory (a ring, a mapped buffer) and stores them in slots[0..*count).
     * slots[i].data is writable by the host, slots[i].len == len. Waits at most timeout_ns for
     * room for one slot (IPCB_E_TIMEOUT, *count = 0), then takes what fits without waiting.
     * The slots stay owned by the plugin; the host writes the messages in place and calls
     * publish before any other data-path call on this endpoint. IPCB_E_TOO_BIG when len exceeds
     * the open's max_message_size; IPCB_E_INVALID when a borrow is still outstanding;
     * IPCB_E_CLOSED when the peer is gone; IPCB_E_UNSUPPORTED when this endpoint, as its options
     * made it, cannot lend memory (the host then sends with send). [endpoint-thread] */
    int32_t(IPCB_CALL *borrow)(ipcb_endpoint *endpoint, size_t len, uint32_t max_count,
                               ipcb_msg *slots, uint32_t *count, int64_t timeout_ns,
                               ipcb_error *error);

    /* Zero-copy send, step 2: sends the first `count` borrowed slots (0 <= count <= the count
     * borrow returned), in order, as whole messages of the borrowed len, and returns the others
     * unsent. Never waits for the peer where borrow reserved the room (a ring); a transport that
     * hands the slots to the kernel (vmsplice into a pipe) may block as its send would. The slot
     * pointers are invalid afterwards.
     * IPCB_E_INVALID without an outstanding borrow or with count too large. [endpoint-thread] */
    int32_t(IPCB_CALL *publish)(ipcb_endpoint *endpoint, uint32_t count, ipcb_error *error);

    /* Zero-copy receive, step 1: waits at most timeout_ns for data (IPCB_E_TIMEOUT, *count = 0),
     * then stores between 1 and max_count received messages in msgs[0..*count) without copying:
     * msgs[i].data points into the transport's memory, read-only for the host, valid until
     * release. IPCB_CAP_MESSAGE: one whole message per entry; IPCB_CAP_STREAM: a run of bytes per
     * entry, wherever message boundaries fall. IPCB_E_CLOSED as for recv. IPCB_E_INVALID while a
     * take is outstanding. [endpoint-thread] */
    int32_t(IPCB_CALL *take)(ipcb_endpoint *endpoint, uint32_t max_count, ipcb_msg *msgs,
                             uint32_t *count, int64_t timeout_ns, ipcb_error *error);

    /* Zero-copy receive, step 2: gives the first `count` taken messages back to the transport
     * (their room may be reused by the sender). Taken messages not released are delivered again,
     * first, by the next take. The host releases every taken message before close. Never waits.
     * [endpoint-thread] */
    int32_t(IPCB_CALL *release)(ipcb_endpoint *endpoint, uint32_t count, ipcb_error *error);

    /* Batched send: sends msgs[0..count) in order with the semantics of send (host buffers, not
     * kept after return; 1 <= msgs[i].len <= max_message_size), in as few system calls as the
     * transport can (writev, sendmmsg, one ring index update). Waits at most timeout_ns for room;
     * returns IPCB_OK only when all count messages went. *sent is the number of messages that
     * went whole, also on failure. [endpoint-thread] */
    int32_t(IPCB_CALL *send_batch)(ipcb_endpoint *endpoint, const ipcb_msg *msgs, uint32_t count,
                                   uint32_t *sent, int64_t timeout_ns, ipcb_error *error);

    /* Batched receive, IPCB_CAP_MESSAGE transports only (a stream transport leaves it NULL: one
     * recv with a larger buffer is its batch). On entry msgs[i].data is a host buffer of
     * msgs[i].len bytes; waits at most timeout_ns for the first message, then fills further
     * entries only with messages already there (recvmmsg with MSG_WAITFORONE semantics). On
     * IPCB_OK, *received >= 1 and msgs[i].len holds each message's length. A message larger than
     * its buffer fails with IPCB_E_TRUNCATED after the *received entries before it.
     * [endpoint-thread] */
    int32_t(IPCB_CALL *recv_batch)(ipcb_endpoint *endpoint, ipcb_msg *msgs, uint32_t count,
                                   uint32_t *received, int64_t timeout_ns, ipcb_error *error);

    /* -----------------------------------------------------------------------------------------
     * Since 1.2: event-driven I/O (see "event-driven I/O" above). Optional, read after
     * IPCB_HAS_FIELD and a non-NULL check. Readiness is event_source + try_send + try_recv, all
     * three or none; completion is the six cq_ and submit_ members, all or none.
     * --------------------------------------------------------------------------------------- */

    /* Readiness: fills *out with the one handle the host may wait on for this endpoint, after
     * connect. The contract that makes a single-threaded event loop correct:
     *  - no lost wake-up: after try_recv (try_send) returned IPCB_E_TIMEOUT, the handle signals
     *    recv_events (send_events) once progress may be possible, and keeps signalling while it
     *    is (level-triggered, as poll sees it);
     *  - a signal may be spurious: the try call then returns IPCB_E_TIMEOUT and nothing moved;
     *  - the handle is the endpoint's: the host adds it to its poller and removes it before
     *    close. A transport that cannot name such a handle for these options returns
     *    IPCB_E_UNSUPPORTED with the reason (the host then uses a thread for it).
     * [endpoint-thread] */
    int32_t(IPCB_CALL *event_source)(ipcb_endpoint *endpoint, ipcb_event_source *out,
                                     ipcb_error *error);

    /* Readiness: sends from buf without waiting. IPCB_E_TIMEOUT ("would block") when nothing
     * could go, with *sent = 0. Otherwise IPCB_OK with *sent bytes taken: a message transport
     * takes all len or nothing; a stream transport may take 1..len, and the host sends the rest
     * with later calls (unlike send, a partial write is normal here). Other errors as send.
     * [endpoint-thread] */
    int32_t(IPCB_CALL *try_send)(ipcb_endpoint *endpoint, const void *buf, size_t len, size_t *sent,
                                 ipcb_error *error);

    /* Readiness: recv with a zero timeout, in one system call where the OS allows (MSG_DONTWAIT,
     * O_NONBLOCK): IPCB_E_TIMEOUT with *len = 0 when nothing is there. [endpoint-thread] */
    int32_t(IPCB_CALL *try_recv)(ipcb_endpoint *endpoint, void *buf, size_t cap, size_t *len,
                                 ipcb_error *error);

    /* Completion: opens a queue that will hold at most `depth` (>= 1) outstanding submissions
     * (io_uring: one ring; IOCP: one port). The host opens one per thread and uses it only from
     * that thread; a queue is shared by the endpoints submitted to it. [any-thread] */
    int32_t(IPCB_CALL *cq_open)(uint32_t depth, const struct ipcb_host *host,
                                ipcb_completion_queue **out, ipcb_error *error);

    /* Completion: sends len bytes from buf, which the host keeps valid and unchanged until the
     * completion is reaped. A stream transport completes only when all len bytes went (it
     * resubmits partial writes itself). Returns IPCB_OK when queued (the OS may see it only at
     * the next cq_wait, which lets a plugin batch many submissions in one system call);
     * IPCB_E_INVALID or IPCB_E_TOO_BIG as send for a bad argument; IPCB_E_NO_MEMORY when `depth`
     * submissions are outstanding. The host submits at most one send and one recv per endpoint at a
     * time. Called from the queue's thread only. */
    int32_t(IPCB_CALL *submit_send)(ipcb_completion_queue *queue, ipcb_endpoint *endpoint,
                                    const void *buf, size_t len, uint64_t user_data,
                                    ipcb_error *error);

    /* Completion: receives into buf (cap bytes, host-owned, valid until reaped); completes with
     * 1..cap bytes (streams) or one whole message, as recv. Otherwise as submit_send. */
    int32_t(IPCB_CALL *submit_recv)(ipcb_completion_queue *queue, ipcb_endpoint *endpoint,
                                    void *buf, size_t cap, uint64_t user_data, ipcb_error *error);

    /* Completion: passes queued submissions to the OS, waits at most timeout_ns for the first
     * completion (IPCB_E_TIMEOUT, *count = 0), then stores up to max completions already there in
     * out[0..*count). Every submission that returned IPCB_OK completes exactly once. */
    int32_t(IPCB_CALL *cq_wait)(ipcb_completion_queue *queue, ipcb_completion *out, uint32_t max,
                                uint32_t *count, int64_t timeout_ns, ipcb_error *error);

    /* Completion: releases the queue. The host first closes (or reaps everything of) the
     * endpoints submitted to it. Closing an endpoint with submissions outstanding is allowed:
     * close cancels them and does not return before the OS is done with their buffers; their
     * completions (IPCB_E_CLOSED) are reaped by the next cq_wait, or dropped by cq_close. */
    void(IPCB_CALL *cq_close)(ipcb_completion_queue *queue);

    /* Complete: new calls are extensions (get_extension, below), never members here. */
} ipcb_transport;

/* ---------------------------------------------------------------------------------------------
 * Extensions: groups of calls a transport offers beside its table, fetched by id through
 * ipcb_transport.get_extension (CLAP's way): a new group gets an id and a struct of its own, and
 * a revision of it a new id; the tables above never grow for them.
 * ------------------------------------------------------------------------------------------- */

/* "ipcb.peer-binding/1": an endpoint that serves one peer only. A creator on a network listens
 * where anyone can reach it; a host that runs it for a client on another machine (ipchost's agent)
 * binds it to that client, so a third party that reaches the port first cannot take the
 * connection, nor be measured as the case.
 *
 * bind_peer is called between open and connect, on either role:
 *  - CREATOR: connect takes only a peer whose address is `peer_host` (a numeric IPv4 or IPv6
 *    address; NULL or "" for any) and that presents `key` first; it refuses (closes or ignores)
 *    anything else and waits on for the right peer until its timeout. Candidates that have not
 *    presented their key yet must not keep the right one out (wait on several at once).
 *  - CONNECTOR: connect presents `key` first, before any data.
 * `key` is 16 to 64 bytes; nothing of it ever counts as data. IPCB_E_UNSUPPORTED for an endpoint
 * that cannot do it (its options, its variant); IPCB_E_INVALID after connect.
 * [endpoint-thread]
 *
 * How socket.tcp and udp.inet present the key (docs/worker-protocol.md, "Binding"): a TCP
 * connector writes IPCB_BINDING_MAGIC (16 bytes) and the key right after connecting; a UDP
 * connector says hello with IPCB_UDP_BINDING_MAGIC (13 bytes) followed by the key, instead of
 * "ipcb-udp-helo". */
#define IPCB_EXT_PEER_BINDING "ipcb.peer-binding/1"
#define IPCB_BINDING_MAGIC "ipcbench-bind/1\n"
#define IPCB_BINDING_MAGIC_LEN 16
#define IPCB_UDP_BINDING_MAGIC "ipcb-udp-bind"
#define IPCB_UDP_BINDING_MAGIC_LEN 13
#define IPCB_BINDING_KEY_MIN 16
#define IPCB_BINDING_KEY_MAX 64

typedef struct ipcb_peer_binding {
    uint32_t struct_size;
    uint32_t reserved0; /* 0 */
    int32_t(IPCB_CALL *bind_peer)(ipcb_endpoint *endpoint, const char *peer_host,
                                  const uint8_t *key, uint32_t key_len, ipcb_error *error);
} ipcb_peer_binding;

/* ---------------------------------------------------------------------------------------------
 * The host and the plugin descriptor
 * ------------------------------------------------------------------------------------------- */

/* What the host offers the plugin. Owned by the host, valid until the library is unloaded. */
typedef struct ipcb_host {
    uint32_t struct_size;
    uint32_t abi_version;     /* IPCB_ABI_VERSION the host was built with */
    const char *host_name;    /* "ipchost" */
    const char *host_version; /* "1.2.0": the package version, which follows the ABI */
    void *host_data;          /* reserved for the host */
    /* Logs one line. Use it for setup and errors, never per message in the data path.
     * [any-thread] */
    void(IPCB_CALL *log)(const struct ipcb_host *host, int32_t level, const char *message);
} ipcb_host;

/* What the plugin offers. Owned by the plugin, static, valid until the library is unloaded. */
typedef struct ipcb_plugin {
    uint32_t struct_size;
    uint32_t abi_version;    /* IPCB_ABI_VERSION the plugin was built with */
    const char *name;        /* "pipe": [a-z0-9_-]+, the prefix of each transport id */
    const char *version;     /* the plugin's own version, "1.2.0" */
    const char *description; /* one line */
    uint32_t transport_count;
    uint32_t reserved0;                      /* 0 */
    const ipcb_transport *const *transports; /* transport_count pointers */
    /* Called once before unload, after every endpoint is closed; no calls follow. Optional.
     * [main-thread] */
    void(IPCB_CALL *shutdown)(void);
} ipcb_plugin;

/* The one exported symbol. Called once per process after the library is loaded, from the main
 * thread. host is valid until unload. Returns the static descriptor, or NULL to refuse this host
 * (for example an older host lacking something the plugin needs) after writing the reason into
 * *error. Must not start threads or create OS objects. */
#define IPCB_PLUGIN_ENTRY_NAME "ipcb_plugin_entry"
typedef const ipcb_plugin *(IPCB_CALL *ipcb_plugin_entry_fn)(const ipcb_host *host,
                                                             ipcb_error *error);
IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error);

#ifdef __cplusplus
}
#endif

#endif /* IPCBENCH_TRANSPORT_H */
