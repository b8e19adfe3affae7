"""ipcbench's Python kit: a worker that takes one side of an ipchost case from Python, and the
pieces to time your own code the same way (README.md beside this package)."""

from .transports import Endpoint, register  # noqa: F401
