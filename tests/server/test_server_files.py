"""A workspace's `server/` files: the extension serves on the Jupyter server's address and token, so it says
at start that their host, port and token do nothing (the settings act or are refused in words)."""

from __future__ import annotations

from pathlib import Path

from mewrk_jupyter.server import server_files_notice


def test_no_server_folder_says_nothing(tmp_path: Path):
    assert server_files_notice(tmp_path) is None
    (tmp_path / ".mewrk" / "llm").mkdir(parents=True)
    assert server_files_notice(tmp_path) is None


def test_a_server_file_is_named_as_having_no_effect(tmp_path: Path):
    folder = tmp_path / ".mewrk" / "server"
    folder.mkdir(parents=True)
    (folder / "main.yaml").write_text("host: 0.0.0.0\nport: 8890\n")
    notice = server_files_notice(tmp_path)
    assert notice is not None
    assert notice.startswith(
        "server/: host, port and token have no effect: the HTTP API is served by the Jupyter"
    )
    assert "--ServerApp.port=" in notice
