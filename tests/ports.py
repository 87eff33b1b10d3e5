"""What the servers tests start (Jupyter, the LiteLLM proxy) share: a free TCP port on localhost, and the
server extensions a Jupyter server of the tests runs without."""

from __future__ import annotations

import socket

# jupyter-collaboration's server side (and the file ids it needs) is installed for the tests of the shared
# document (tests/server/test_notebook_shared.py); any other Jupyter server runs as if it were not there.
WITHOUT_COLLABORATION = (
    "--ServerApp.jpserver_extensions=jupyter_server_ydoc=False",
    "--ServerApp.jpserver_extensions=jupyter_server_fileid=False",
)


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
