"""Confinement: relative, absolute and symlinked paths that leave the workspace are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from mewrk_jupyter.tools import ToolRegistry

LOOKING_TOOLS = [
    ("ls", {}),
    ("read", {}),
    ("grep", {"pattern": "secret"}),
    ("find", {"pattern": "*"}),
    ("write", {"content": "x"}),
    ("edit", {"old": "top", "new": "bottom"}),
]


@pytest.mark.parametrize(("tool", "extra"), LOOKING_TOOLS)
def test_dot_dot_escape_is_refused_by_every_file_tool(
    registry: ToolRegistry, ws: Path, outside: Path, tool, extra
):
    result = registry.run(tool, {"path": "../outside/secret.txt", **extra})
    assert result.is_error
    assert result.text == (
        f"`../outside/secret.txt` is outside the workspace; paths are relative to {ws.resolve()}."
    )
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_absolute_path_outside_is_refused(registry: ToolRegistry, outside: Path):
    result = registry.run("read", {"path": str(outside / "secret.txt")})
    assert result.is_error
    assert "is outside the workspace" in result.text
    assert "top secret" not in result.text


def test_absolute_path_inside_is_allowed(registry: ToolRegistry, ws: Path):
    (ws / "a.txt").write_text("hello\n")
    result = registry.run("read", {"path": str(ws / "a.txt")})
    assert not result.is_error
    assert "hello" in result.text


def test_dot_dot_that_comes_back_inside_is_allowed(registry: ToolRegistry, ws: Path):
    (ws / "sub").mkdir()
    (ws / "a.txt").write_text("hello\n")
    assert registry.run("read", {"path": "sub/../a.txt"}).text.endswith("hello")


def test_file_symlink_leading_outside_is_refused(registry: ToolRegistry, ws: Path, outside: Path):
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    for tool, extra in LOOKING_TOOLS:
        result = registry.run(tool, {"path": "link.txt", **extra})
        assert result.is_error, tool
        assert "`link.txt` leads outside the workspace through a symlink" in result.text
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_folder_symlink_leading_outside_is_refused(registry: ToolRegistry, ws: Path, outside: Path):
    (ws / "out").symlink_to(outside, target_is_directory=True)
    for params in ({"path": "out"}, {"path": "out/secret.txt"}):
        assert registry.run("ls", params).is_error
        assert registry.run("read", params).is_error
    write = registry.run("write", {"path": "out/new.txt", "content": "planted"})
    assert write.is_error
    assert "through a symlink" in write.text
    assert not (outside / "new.txt").exists()


def test_dangling_symlink_to_outside_is_not_written_through(registry: ToolRegistry, ws: Path, outside: Path):
    (ws / "trap.txt").symlink_to(outside / "created.txt")
    result = registry.run("write", {"path": "trap.txt", "content": "planted"})
    assert result.is_error
    assert not (outside / "created.txt").exists()


def test_symlink_inside_the_workspace_is_followed(registry: ToolRegistry, ws: Path):
    (ws / "real.txt").write_text("inside\n")
    (ws / "alias.txt").symlink_to(ws / "real.txt")
    assert registry.run("read", {"path": "alias.txt"}).text.endswith("inside")


def test_empty_path_is_refused(registry: ToolRegistry, ws: Path):
    result = registry.run("ls", {"path": "  "})
    assert result.is_error
    assert result.text == f"The path is empty; paths are relative to {ws.resolve()}."


def test_absolute_path_through_a_symlinked_root_is_inside(registry: ToolRegistry, ws: Path, tmp_path: Path):
    (ws / "a.txt").write_text("hello\n")
    (tmp_path / "alias").symlink_to(ws, target_is_directory=True)
    assert registry.run("read", {"path": str(tmp_path / "alias" / "a.txt")}).text.endswith("hello")


def test_symlink_loop_is_a_clear_error(registry: ToolRegistry, ws: Path):
    (ws / "loop").symlink_to(ws / "loop")
    result = registry.run("read", {"path": "loop"})
    assert result.is_error
    assert result.text.startswith("`loop` cannot be resolved:")
