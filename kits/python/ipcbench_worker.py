#!/usr/bin/env python3
"""The Python kit's worker: ipchost starts it for a side run with --impl python, with the
control channel on the descriptor named by --control-socket (docs/worker-protocol.md)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ipcbench_kit.session import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
