#pragma once

#include <iostream>

// Ends the current test case as skipped: ctest matches the line (SKIP_REGULAR_EXPRESSION in
// tests/CMakeLists.txt) and reports the test as "Skipped", with the reason in its output,
// instead of counting a check that never ran as passed. Use it only where this machine lacks
// what the test needs (a tool, a kernel feature), never to hide a failure.
#define IPCBENCH_SKIP(reason)                                                  \
    do {                                                                       \
        std::cout << "IPCBENCH-SKIPPED: " << reason << std::endl; /* NOLINT */ \
        return;                                                                \
    } while (0)
