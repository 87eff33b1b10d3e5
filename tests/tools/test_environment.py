"""Commands the tools start (bash, a command tool, the language server) see only the allowed environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mewrk_jupyter.config import EnvironmentPolicy, command_environment, load_config
from mewrk_jupyter.tools import ToolRegistry


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-0123456789abcdef")
    monkeypatch.setenv("VENDOR_CRED", "cred-0011223344")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdefghijkl")
    monkeypatch.setenv("AWS_REGION", "eu-west-1x")


def names(output: str) -> set[str]:
    return {line.split("=", 1)[0] for line in output.splitlines() if "=" in line}


def config_folder(ws: Path, policy: str = "") -> Path:
    home = ws / ".mewrk"
    (home / "llm").mkdir(parents=True)
    (home / "llm" / "v.yaml").write_text("protocol: openai-chat\napi_key: ${VENDOR_CRED}\nmodels:\n  m:\n")
    (home / "tools").mkdir()
    (home / "tools" / "show_env.yaml").write_text(
        "name: show_env\ndescription: Print the environment\ncommand: [env]\nparameters: {type: object}\n"
    )
    if policy:
        (home / "policy").mkdir()
        (home / "policy" / "default.yaml").write_text(f"safety_level: default\n{policy}")
    return home


def test_bash_without_configuration_drops_credential_names(ws, keys):
    with ToolRegistry.build(ws) as tools:
        seen = names(tools.run("bash", {"command": "env"}).text)
    assert {"PATH", "HOME", "VENDOR_CRED", "AWS_REGION"} <= seen
    assert not seen & {"ANTHROPIC_API_KEY", "GITHUB_TOKEN"}


def test_bash_and_command_tools_follow_the_default_level_of_the_configuration(ws, keys):
    config = load_config(config_folder(ws, "environment:\n  drop: [AWS_*]\n  keep: [GITHUB_TOKEN]\n"))
    with ToolRegistry.build(ws, config) as tools:
        for seen in (
            names(tools.run("bash", {"command": "env"}).text),
            names(tools.run("show_env", {}).text),
        ):
            assert {"PATH", "GITHUB_TOKEN"} <= seen
            assert not seen & {"ANTHROPIC_API_KEY", "VENDOR_CRED", "AWS_REGION"}


def test_the_environment_is_asked_for_at_each_start(ws, keys, monkeypatch):
    config = load_config(config_folder(ws))
    with ToolRegistry.build(ws, config) as tools:
        monkeypatch.setenv("LATE_PASSWORD", "set-after-the-registry")
        monkeypatch.setenv("LATE_PLAIN", "visible")
        seen = names(tools.run("bash", {"command": "env"}).text)
    assert "LATE_PLAIN" in seen and "LATE_PASSWORD" not in seen


def test_the_language_server_gets_the_filtered_environment(ws, keys):
    (ws / "a.py").write_text("x = 1\n")
    home = config_folder(ws)
    policy = EnvironmentPolicy()
    with ToolRegistry.build(ws, load_config(home)) as tools:
        assert not tools.run("lsp", {"action": "diagnostics", "path": "a.py"}).is_error
        environ = server_environment()
    # The sandbox puts the kernel's Python first on PATH and sets PWD to the folder it starts in; every
    # other variable is the filtered set.
    expected = command_environment(policy, home)
    for name in ("PATH", "PWD"):
        environ.pop(name, None)
        expected.pop(name, None)
    assert environ == expected
    assert "ANTHROPIC_API_KEY" not in environ and "VENDOR_CRED" not in environ


def server_environment() -> dict[str, str]:
    """The environment of the language server this process started last (in its sandbox, a grandchild),
    read from /proc (an earlier test's session may keep its own server running)."""
    parents: dict[int, int] = {}
    servers: list[tuple[int, int, bytes]] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
            command = (entry / "cmdline").read_bytes()
            if command.startswith(b"bwrap") or b"jedi-language-server" not in command:
                continue
            # Its start time, in ticks.
            servers.append((int(fields[19]), int(entry.name), (entry / "environ").read_bytes()))
        except (OSError, ValueError, IndexError):
            continue

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    found = [(started, raw) for started, pid, raw in servers if ours(pid)]
    if not found:
        raise AssertionError("no language server process was found")
    raw = max(found)[1]
    return dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)
