"""Claude Code's built-in tools in the project's words and back (providers/claude_code_tools.py): what the
engine runs for a call the model made of the CLI's own tool, and what the next request shows the model."""

from __future__ import annotations

import pytest

from mewrk_jupyter.providers.claude_code_tools import to_claude, to_project

ROOT = "/home/ana/project"


@pytest.mark.parametrize(
    ("name", "said", "project", "params"),
    [
        (
            "Read",
            {"file_path": f"{ROOT}/data/a.csv", "offset": 10, "limit": 5},
            "read",
            {"path": "data/a.csv", "offset": 10, "limit": 5},
        ),
        ("Read", {"file_path": f"{ROOT}/a.csv", "offset": 0, "allow_large": True}, "read", {"path": "a.csv"}),
        (
            "Read",
            {"file_path": "/etc/passwd"},
            "read",
            {"path": "/etc/passwd"},
        ),  # the project's read refuses it
        ("Read", {"file_path": "/home/ana/project-other/x"}, "read", {"path": "/home/ana/project-other/x"}),
        ("Read", {"file_path": f"{ROOT}/../elsewhere/x"}, "read", {"path": f"{ROOT}/../elsewhere/x"}),
        (
            "Read",
            {"file_path": f"{ROOT}/doc.pdf", "pages": "1-3"},
            "read",
            {"path": "doc.pdf", "pages": "1-3"},
        ),
        (
            "Write",
            {"file_path": f"{ROOT}/out.txt", "content": "hi"},
            "write",
            {"path": "out.txt", "content": "hi"},
        ),
        (
            "Edit",
            {"file_path": f"{ROOT}/a.py", "old_string": "x", "new_string": "y", "replace_all": False},
            "edit",
            {"path": "a.py", "old": "x", "new": "y"},
        ),
        (
            "Edit",
            {"file_path": "a.py", "old_string": "x", "new_string": "y", "replace_all": True},
            "edit",
            {"path": "a.py", "old": "x", "new": "y", "replace_all": True},  # not taken: the result says so
        ),
        (
            "Bash",
            {"command": "ls", "description": "List files", "timeout": 30000, "run_in_background": False},
            "bash",
            {"command": "ls", "timeout": 30},
        ),
        (
            "Bash",
            {"command": "sleep 9", "run_in_background": True},
            "bash",
            {"command": "sleep 9", "background": True},
        ),
        ("Bash", {"command": "ls", "timeout": 200}, "bash", {"command": "ls", "timeout": 1}),
        (
            "Bash",
            {"command": "ls", "dangerouslyDisableSandbox": True},
            "bash",
            {"command": "ls", "dangerouslyDisableSandbox": True},
        ),
        (
            "Grep",
            {"pattern": "TODO", "path": f"{ROOT}/src", "-i": True, "output_mode": "content", "-n": True},
            "grep",
            {"pattern": "(?i)TODO", "path": "src"},
        ),
        ("Grep", {"pattern": "x", "output_mode": "count"}, "grep", {"pattern": "x", "output_mode": "count"}),
        ("Glob", {"pattern": "**/*.py", "path": ROOT}, "find", {"pattern": "**/*.py", "path": "."}),
        ("Glob", {"pattern": "*.md"}, "find", {"pattern": "*.md"}),
    ],
)
def test_a_call_of_claude_codes_tool_is_the_projects_call(name, said, project, params):
    assert to_project(name, said, ROOT) == (project, params)


@pytest.mark.parametrize(
    ("project", "params", "shown"),
    [
        ("read", {"path": "data/a.csv", "offset": 3}, {"file_path": f"{ROOT}/data/a.csv", "offset": 3}),
        ("read", {"path": "/etc/passwd"}, {"file_path": "/etc/passwd"}),
        ("write", {"path": "./out.txt", "content": "x"}, {"file_path": f"{ROOT}/out.txt", "content": "x"}),
        (
            "edit",
            {"path": "a.py", "old": "x", "new": "y"},
            {"file_path": f"{ROOT}/a.py", "old_string": "x", "new_string": "y"},
        ),
        ("bash", {"command": "ls", "timeout": 1.5}, {"command": "ls", "timeout": 1500}),
        ("bash", {"command": "x", "background": True}, {"command": "x", "run_in_background": True}),
        ("grep", {"pattern": "x", "path": "src"}, {"pattern": "x", "path": f"{ROOT}/src"}),
        ("find", {"pattern": "*.py", "path": "."}, {"pattern": "*.py", "path": ROOT}),
        ("find", {"pattern": "*.py"}, {"pattern": "*.py"}),
    ],
)
def test_the_next_request_shows_the_call_in_claude_codes_words(project, params, shown):
    assert to_claude(project, params, ROOT) == shown


def test_a_call_the_person_edited_goes_back_as_edited():
    # The card holds the project's form; whatever the person made of it is what the model sees it called.
    _, params = to_project("Read", {"file_path": f"{ROOT}/a.txt"}, ROOT)
    edited = {**params, "path": "b.txt", "limit": 4}
    assert to_claude("read", edited, ROOT) == {"file_path": f"{ROOT}/b.txt", "limit": 4}
