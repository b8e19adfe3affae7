#pragma once

namespace ipcbench::platform {

// When this process gets SIGTERM (which a worker's parent death delivers: PR_SET_PDEATHSIG),
// calls `last_words` and exits with status 143. It runs in a signal handler, interrupting
// whatever the process was doing: it must only remove OS objects (a transport's
// remove_address), and an alarm ends the process if it has not returned within 5 s. Used by
// workers, which hold named IPC objects that must not outlive a killed ipchost.
void on_termination(void (*last_words)());

// Ends this process the same way, now: for a worker whose orchestrator vanished (its control
// channel closed) before the SIGTERM of its death arrived. One path, so the last words never
// run twice at once (SIGTERM stays blocked while they run).
[[noreturn]] void terminate_with_last_words();

// Ends this process at once, as a crash would: no last words, no atexit, no close (SIGKILL to
// itself; Windows: TerminateProcess). For the conformance check of what a crash leaves.
[[noreturn]] void die_without_last_words();

}  // namespace ipcbench::platform
