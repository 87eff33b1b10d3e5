"""The HTTP API: a Jupyter server extension serving `/mewrk/v2` under the server's own authentication.

Installing the package enables it (`jupyter-config/jupyter_server_config.d/mewrk_jupyter.json`, installed
into `etc/jupyter/jupyter_server_config.d`); the workspace is the server's root directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """Where jupyter_server finds this extension (it calls this by name)."""
    return [{"module": "mewrk_jupyter.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Register the `/mewrk/v2` routes on the server (jupyter_server calls this by name)."""
    from .routes import routes

    root = Path(serverapp.root_dir).expanduser().resolve()
    web_app = serverapp.web_app
    web_app.add_handlers(".*$", routes(web_app.settings["base_url"], root))
    serverapp.log.info(
        "mewrk_jupyter: the HTTP API is at %smewrk/v2 (workspace %s)", web_app.settings["base_url"], root
    )
