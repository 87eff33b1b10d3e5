"""ls, read, write and edit: what they show, what they change and how they refuse."""

from __future__ import annotations

from pathlib import Path

from mewrk_jupyter.tools import ToolRegistry


def test_ls_marks_folders_and_symlinks(registry: ToolRegistry, ws: Path):
    (ws / "src").mkdir()
    (ws / "b.txt").write_text("b")
    (ws / "a.txt").write_text("a")
    (ws / "link").symlink_to(ws / "a.txt")
    assert registry.run("ls", {"path": "."}).text == "a.txt\nb.txt\nlink@\nsrc/"


def test_ls_of_a_file_an_empty_folder_and_a_missing_path(registry: ToolRegistry, ws: Path):
    (ws / "a.txt").write_text("abc")
    (ws / "empty").mkdir()
    assert registry.run("ls", {"path": "a.txt"}).text == "a.txt (3 bytes)"
    assert registry.run("ls", {"path": "empty"}).text == "`empty` is empty."
    missing = registry.run("ls", {"path": "nope"})
    assert (missing.is_error, missing.text) == (True, "`nope` does not exist.")


def test_read_numbers_lines_like_cat_n(registry: ToolRegistry, ws: Path):
    (ws / "a.py").write_text("one\ntwo\nthree\n")
    assert registry.run("read", {"path": "a.py"}).text == "     1\tone\n     2\ttwo\n     3\tthree"


def test_read_offset_and_limit_are_lines_and_say_how_to_read_on(registry: ToolRegistry, ws: Path):
    (ws / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    result = registry.run("read", {"path": "a.txt", "offset": 3, "limit": 2})
    assert result.text == "     3\tline 3\n     4\tline 4\n[lines 3–4 of 10; read on with offset=5]"
    assert registry.run("read", {"path": "a.txt", "offset": 10}).text == "    10\tline 10"


def test_read_past_the_end_and_of_an_empty_file(registry: ToolRegistry, ws: Path):
    (ws / "a.txt").write_text("x\n")
    (ws / "empty.txt").write_text("")
    past = registry.run("read", {"path": "a.txt", "offset": 5})
    assert (past.is_error, past.text) == (True, "offset 5 is past the end of `a.txt`, which has 1 line.")
    assert registry.run("read", {"path": "empty.txt"}).text == "`empty.txt` is empty."


def test_read_refuses_binary_files_and_folders(registry: ToolRegistry, ws: Path):
    (ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (ws / "dir").mkdir()
    binary = registry.run("read", {"path": "img.png"})
    assert binary.is_error
    assert binary.text == "`img.png` is a binary file (16 bytes); only text files can be read."
    folder = registry.run("read", {"path": "dir"})
    assert (folder.is_error, folder.text) == (True, "`dir` is a directory; use ls to list it.")


def test_read_refuses_text_that_is_not_utf8(registry: ToolRegistry, ws: Path):
    (ws / "latin.txt").write_bytes("café".encode("latin-1"))
    result = registry.run("read", {"path": "latin.txt"})
    assert result.is_error
    assert result.text.startswith("`latin.txt` is not UTF-8 text")


def test_write_creates_folders_and_reports_size(registry: ToolRegistry, ws: Path):
    result = registry.run("write", {"path": "a/b/c.txt", "content": "héllo\nworld\n"})
    assert result.text == "Created `a/b/c.txt`: 13 bytes, 2 lines."
    assert (ws / "a/b/c.txt").read_text(encoding="utf-8") == "héllo\nworld\n"
    again = registry.run("write", {"path": "a/b/c.txt", "content": "x"})
    assert again.text == "Overwrote `a/b/c.txt`: 1 byte, 1 line."
    assert (ws / "a/b/c.txt").read_text() == "x"


def test_write_keeps_windows_line_endings(registry: ToolRegistry, ws: Path):
    registry.run("write", {"path": "crlf.txt", "content": "a\r\nb\r\n"})
    assert (ws / "crlf.txt").read_bytes() == b"a\r\nb\r\n"


def test_write_refuses_a_folder(registry: ToolRegistry, ws: Path):
    (ws / "dir").mkdir()
    result = registry.run("write", {"path": "dir", "content": "x"})
    assert (result.is_error, result.text) == (True, "`dir` is a directory; write needs a file path.")


def test_edit_replaces_the_single_occurrence(registry: ToolRegistry, ws: Path):
    (ws / "a.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    result = registry.run(
        "edit", {"path": "a.py", "old": "    return 2\n", "new": "    x = 2\n    return x\n"}
    )
    assert result.text == "Edited `a.py` at line 6: replaced 1 line with 2 lines."
    assert (ws / "a.py").read_text() == "def f():\n    return 1\n\n\ndef g():\n    x = 2\n    return x\n"


def test_edit_refuses_text_that_occurs_twice_or_never(registry: ToolRegistry, ws: Path):
    (ws / "a.py").write_text("x = 1\nx = 1\n")
    twice = registry.run("edit", {"path": "a.py", "old": "x = 1", "new": "y"})
    assert twice.is_error
    assert twice.text == "`old` occurs 2 times in `a.py`; include more surrounding text so it occurs once."
    never = registry.run("edit", {"path": "a.py", "old": "z", "new": "y"})
    assert (never.is_error, never.text) == (
        True,
        "`old` does not occur in `a.py`; it must match the file's text exactly.",
    )
    empty = registry.run("edit", {"path": "a.py", "old": "", "new": "y"})
    assert empty.is_error
    assert (ws / "a.py").read_text() == "x = 1\nx = 1\n"


def test_edit_of_a_missing_file(registry: ToolRegistry):
    result = registry.run("edit", {"path": "nope.py", "old": "a", "new": "b"})
    assert (result.is_error, result.text) == (True, "`nope.py` does not exist.")


def test_read_of_a_pipe_says_it_is_no_file_and_does_not_wait_for_a_writer(registry: ToolRegistry, ws: Path):
    import os

    os.mkfifo(ws / "pipe")
    result = registry.run("read", {"path": "pipe"})
    assert result.is_error and result.text == (
        "`pipe` is not a regular file (a pipe, socket or device); only files can be read."
    )


def test_write_to_a_pipe_is_refused_without_waiting_for_a_reader(registry: ToolRegistry, ws: Path):
    import os

    os.mkfifo(ws / "pipe")
    result = registry.run("write", {"path": "pipe", "content": "x"})
    assert result.is_error and result.text == (
        "`pipe` is not a regular file (a pipe, socket or device); write replaces files only."
    )
