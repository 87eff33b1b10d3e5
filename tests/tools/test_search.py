"""grep and find: what they match, what they skip, and symlinks that lead outside."""

from __future__ import annotations

import dataclasses
import os
import random
import threading
from pathlib import Path

import pytest

from mewrk_jupyter.tools import ToolRegistry, match_pool
from mewrk_jupyter.tools import registry as registry_module
from tests.conftest import run_python, wait_for


@pytest.fixture
def tree(ws: Path) -> Path:
    """A small project with a .git and a .mewrk folder that searches must skip."""
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "pkg" / "mod.py").write_text("import os\n\ndef main():\n    return os.sep\n")
    (ws / "src" / "app.py").write_text("from pkg.mod import main\nmain()\n")
    (ws / "README.md").write_text("# main project\n")
    (ws / "data.bin").write_bytes(b"main\0\1\2")
    for skipped in (".git", ".mewrk"):
        (ws / skipped).mkdir()
        (ws / skipped / "main.py").write_text("main\n")
    return ws


def test_grep_prints_path_line_text_and_skips_binary_and_hidden_state(registry: ToolRegistry, tree: Path):
    result = registry.run("grep", {"pattern": r"\bmain\b"})
    assert result.text.splitlines() == [
        "README.md:1:# main project",
        "src/app.py:1:from pkg.mod import main",
        "src/app.py:2:main()",
        "src/pkg/mod.py:3:def main():",
    ]


def test_grep_under_a_folder_or_a_file(registry: ToolRegistry, tree: Path):
    assert registry.run("grep", {"pattern": "os", "path": "src/pkg"}).text.splitlines() == [
        "src/pkg/mod.py:1:import os",
        "src/pkg/mod.py:4:    return os.sep",
    ]
    assert registry.run("grep", {"pattern": "main", "path": "README.md"}).text == "README.md:1:# main project"


def test_grep_with_no_match_is_not_an_error(registry: ToolRegistry, tree: Path):
    result = registry.run("grep", {"pattern": "nothing_here"})
    assert (result.is_error, result.text) == (False, "No line matches `nothing_here` under `.`.")


def test_grep_invalid_regex_is_a_clear_error(registry: ToolRegistry, tree: Path):
    result = registry.run("grep", {"pattern": "(unclosed"})
    assert (result.is_error, result.text) == (
        True,
        "`(unclosed` is not a valid regular expression: missing ): (unclosed.",
    )


def test_grep_and_find_do_not_follow_symlinks_outside(registry: ToolRegistry, ws: Path, outside: Path):
    (ws / "inside.txt").write_text("secret inside\n")
    (ws / "file_link.txt").symlink_to(outside / "secret.txt")
    (ws / "dir_link").symlink_to(outside, target_is_directory=True)
    assert registry.run("grep", {"pattern": "secret"}).text == "inside.txt:1:secret inside"
    assert registry.run("find", {"pattern": "*"}).text == "inside.txt"


def test_grep_searches_a_symlink_that_stays_inside(registry: ToolRegistry, ws: Path):
    (ws / "real.txt").write_text("needle\n")
    (ws / "alias.txt").symlink_to(ws / "real.txt")
    assert registry.run("grep", {"pattern": "needle"}).text == "alias.txt:1:needle\nreal.txt:1:needle"


def test_find_with_double_star_matches_at_any_depth(registry: ToolRegistry, tree: Path):
    assert registry.run("find", {"pattern": "**/*.py"}).text == "src/app.py\nsrc/pkg/mod.py"
    assert registry.run("find", {"pattern": "src/*.py"}).text == "src/app.py"
    assert registry.run("find", {"pattern": "*.py", "path": "src/pkg"}).text == "src/pkg/mod.py"


def test_find_without_a_slash_matches_names_and_marks_folders(registry: ToolRegistry, tree: Path):
    assert registry.run("find", {"pattern": "p*"}).text == "src/pkg/"
    assert registry.run("find", {"pattern": "[Rr]EADME.?d"}).text == "README.md"
    assert registry.run("find", {"pattern": "[!a-l]*.py"}).text == "src/pkg/mod.py"
    assert registry.run("find", {"pattern": "./src/*.py"}).text == "src/app.py"


def test_find_with_no_match_and_a_missing_folder(registry: ToolRegistry, tree: Path):
    assert registry.run("find", {"pattern": "*.rs"}).text == "No path matches `*.rs` under `.`."
    missing = registry.run("find", {"pattern": "*", "path": "nope"})
    assert (missing.is_error, missing.text) == (True, "`nope` does not exist.")


def test_a_search_stops_when_cancelled(registry: ToolRegistry, tree: Path):
    cancel = threading.Event()
    cancel.set()
    result = registry.run("grep", {"pattern": "main"}, cancel)
    assert (result.is_error, result.text) == (True, "The search was stopped before it finished.")


# A Python-`re` grep held the interpreter for minutes on these (catastrophic backtracking); they run in
# a child process so that a regression fails on its timeout instead of hanging the test session.
BACKTRACKING = """
    from pathlib import Path
    from mewrk_jupyter.tools import ToolRegistry
    Path("run.txt").write_text("a" * 5000 + "!\\n")
    Path("a" * 200).write_text("")
    with ToolRegistry.build(Path(".")) as tools:
        print(tools.run("grep", {"pattern": "(a+)+$"}).text)
        print(tools.run("grep", {"pattern": "(x+x+)+y|(a|aa)+b"}).text)
        print(tools.run("find", {"pattern": "*a*a*a*a*a*a*a*a*a*a*a*a*b"}).text)
"""


def test_a_backtracking_pattern_from_the_model_returns_at_once(ws: Path):
    done = run_python(BACKTRACKING, ws, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "No line matches `(a+)+$` under `.`.",
        "No line matches `(x+x+)+y|(a|aa)+b` under `.`.",
        "No path matches `*a*a*a*a*a*a*a*a*a*a*a*a*b` under `.`.",
    ]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(ab)\1", r"invalid escape sequence: \1"),
        (r"main(?=\()", "invalid perl operator: (?="),
        (r"(?<!def )main", "invalid perl operator: (?<!"),
    ],
)
def test_backreferences_and_lookaround_are_refused_with_the_reason(
    registry: ToolRegistry, tree: Path, pattern: str, reason: str
):
    result = registry.run("grep", {"pattern": pattern})
    assert result.is_error
    assert result.text == (
        f"`{pattern}` cannot be searched: grep uses RE2 syntax, which matches in linear time and so has "
        f"no backreferences, lookahead or lookbehind ({reason}); rewrite the pattern without them."
    )


def test_grep_keeps_the_usual_syntax(registry: ToolRegistry, tree: Path):
    assert registry.run("grep", {"pattern": r"(?i)^# MAIN\s\w+$"}).text == "README.md:1:# main project"
    assert registry.run("grep", {"pattern": r"(?P<name>ma)in\(\)$"}).text == "src/app.py:2:main()"


def test_a_bad_glob_names_the_glob(registry: ToolRegistry, tree: Path):
    result = registry.run("find", {"pattern": "[z-a]*"})
    assert result.is_error and result.text.startswith("`[z-a]*` is not a valid glob: ")


# Outgrows RE2's DFA memory, so RE2 matches it with its NFA at some 10 µs a character: a minute a 6 MB line.
EXPENSIVE = r"(.{1,100}[ab]){10}z"


def _searching_children() -> list[int]:
    """The match_child processes this process started that are still there."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"match_child.py" in command:
            found.append(int(entry.name))
    return found


@pytest.fixture
def long_lines(ws: Path) -> Path:
    """Files of one long line each, which the expensive pattern would take minutes to search."""
    rng = random.Random(7)
    for index in range(2):
        (ws / f"big{index}.txt").write_text("".join(rng.choices("abcdefghij", k=3_000_000)) + "\n")
    match_pool.end_idle()
    return ws


def test_a_search_past_its_time_limit_ends_with_its_child(
    registry: ToolRegistry, long_lines: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(registry_module, "_MARGIN", 0.0)
    grep = registry.get("grep")
    assert grep is not None
    short = ToolRegistry([dataclasses.replace(grep, timeout=0.5)])
    result = short.run("grep", {"pattern": EXPENSIVE})
    assert (result.is_error, result.text) == (
        True,
        "`grep` was ended after its time limit of 0.5 seconds, without a result; "
        "narrow the call down and try again.",
    )
    assert _searching_children() == []
    assert [thread.name for thread in threading.enumerate() if thread.name == "mewrk-tool-grep"] == []


def test_stop_ends_a_long_search_and_its_child(registry: ToolRegistry, long_lines: Path):
    cancel = threading.Event()
    threading.Thread(target=lambda: (wait_for(_searching_children), cancel.set()), daemon=True).start()
    result = registry.run("grep", {"pattern": EXPENSIVE}, cancel)
    assert (result.is_error, result.text) == (True, "The search was stopped before it finished.")
    assert _searching_children() == []


def test_the_child_of_an_ordinary_search_serves_the_next(registry: ToolRegistry, tree: Path):
    match_pool.end_idle()
    assert registry.run("grep", {"pattern": "os"}).text.count("\n") == 1
    first = _searching_children()
    assert registry.run("grep", {"pattern": r"^main\(\)$"}).text == "src/app.py:2:main()"
    assert _searching_children() == first and len(first) == 1


def test_grep_passes_over_a_pipe_without_waiting_for_a_writer(registry: ToolRegistry, tree: Path):
    os.mkfifo(tree / "src" / "pipe")
    result = registry.run("grep", {"pattern": "main", "path": "src"})
    assert not result.is_error and "src/app.py:1:from pkg.mod import main" in result.text
