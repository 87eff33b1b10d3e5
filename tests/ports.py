"""A free TCP port on localhost, for the servers tests start (Jupyter, the LiteLLM proxy)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
