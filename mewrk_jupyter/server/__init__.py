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
    from .store_config import apply_store_config

    root = Path(serverapp.root_dir).expanduser().resolve()
    for level, sentence in apply_store_config(serverapp.config, root.name):
        getattr(serverapp.log, level)("mewrk_jupyter: %s", sentence)
    web_app = serverapp.web_app
    web_app.add_handlers(".*$", routes(web_app.settings["base_url"], root))
    serverapp.log.info(
        "mewrk_jupyter: the HTTP API is at %smewrk/v2 (workspace %s)", web_app.settings["base_url"], root
    )
    notice = server_files_notice(root)
    if notice is not None:
        serverapp.log.warning("mewrk_jupyter: %s", notice)


def server_files_notice(root: Path) -> str | None:
    """The sentence saying that the workspace's `server/` files do nothing, or None when there are none."""
    from ..config import read_config
    from ..engine.unbuilt import SERVER_NOTICE
    from ..engine.workspace import Workspace

    home = Workspace.at(root).home
    if not (home / "server").is_dir():
        return None  # the common case: nothing to read
    return SERVER_NOTICE if read_config(home).server is not None else None
