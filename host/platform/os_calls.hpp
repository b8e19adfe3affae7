#pragma once

// The system calls of platform/ that a test fakes go through IPCBENCH_OS_CALL(name): the real
// call, or, in tests/platform/test_os_faults.cpp, a scripted one (as fmt tests its POSIX
// wrappers): that test compiles the platform source again with IPCBENCH_OS_CALL naming its own
// functions, so EINTR, EAGAIN, a short write, ENOSPC and a peer gone mid-call are each tested
// without a process, a full disk or a signal.
#ifndef IPCBENCH_OS_CALL
#define IPCBENCH_OS_CALL(call) ::call
#endif
