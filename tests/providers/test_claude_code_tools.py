"""Claude Code's built-in tools in the project's words and back (providers/claude_code_tools.py): what the
engine runs for a call the model made of the CLI's own tool, and what the next request shows the model."""

from __future__ import annotations

import pytest

from mewrk_jupyter.providers.claude_code_tools import system_line, to_claude, to_project

ROOT = "/home/ana/project"
CLI_FOLDER = "/tmp/mewrk-claude-x1"  # the CLI's own working directory, empty


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
    assert to_project(name, said, ROOT, CLI_FOLDER) == (project, params)


@pytest.mark.parametrize(
    ("name", "said", "params"),
    [
        # The CLI's environment names its own empty folder as the working directory: a stand-in.
        ("Read", {"file_path": f"{CLI_FOLDER}/notes.txt"}, {"path": "notes.txt"}),
        ("Glob", {"pattern": "*.py", "path": CLI_FOLDER}, {"pattern": "*.py", "path": "."}),
        # An absolute pattern: the project's find matches paths relative to where it looks.
        ("Glob", {"pattern": f"{ROOT}/src/**/*.py"}, {"pattern": "src/**/*.py"}),
        ("Glob", {"pattern": f"{CLI_FOLDER}/*.md", "path": ROOT}, {"pattern": "*.md", "path": "."}),
        ("Read", {"file_path": "/"}, {"path": "/"}),
        ("Read", {"file_path": f"{ROOT}/"}, {"path": "."}),
        ("Read", {"file_path": "~/x"}, {"path": "~/x"}),  # relative to the workspace: a folder named ~
        ("Read", {"file_path": 7}, {"path": 7}),  # the project's read says what it takes
        ("Bash", {"command": "ls", "timeout": 0}, {"command": "ls"}),  # no limit of its own: the default
        ("Bash", {"command": "ls", "timeout": True}, {"command": "ls", "timeout": True}),
        ("Grep", {"pattern": "x", "-n": False}, {"pattern": "x"}),  # numbered all the same
        (
            "Grep",
            {"pattern": "x", "glob": "*.py", "head_limit": 5},
            {"pattern": "x", "glob": "*.py", "head_limit": 5},
        ),
    ],
)
def test_paths_and_values_the_model_may_write(name, said, params):
    assert to_project(name, said, ROOT, CLI_FOLDER)[1] == params


def test_the_system_line_names_the_folder_and_what_is_not_taken():
    line = system_line(["Read", "Grep", "Glob"], ROOT)
    assert f"work in the workspace folder {ROOT}" in line and "empty stand-in" in line
    assert "Read: pages" in line and "Grep: glob, type" in line and "Edit" not in line


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
    _, params = to_project("Read", {"file_path": f"{ROOT}/a.txt"}, ROOT, CLI_FOLDER)
    edited = {**params, "path": "b.txt", "limit": 4}
    assert to_claude("read", edited, ROOT) == {"file_path": f"{ROOT}/b.txt", "limit": 4}


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Read", {"file_path": f"{ROOT}/a/b.txt", "offset": 4, "limit": 2}),
        ("Write", {"file_path": f"{ROOT}/out.txt", "content": "x"}),
        ("Edit", {"file_path": f"{ROOT}/a.py", "old_string": "x", "new_string": "y"}),
        ("Bash", {"command": "make", "timeout": 120000}),
        ("Grep", {"pattern": "x", "path": f"{ROOT}/src"}),
        ("Glob", {"pattern": "**/*.py", "path": f"{ROOT}/src"}),
        ("Read", {"file_path": "/etc/hosts"}),
    ],
)
def test_a_call_in_the_words_the_model_used_comes_back_as_it_was(name, said):
    project, params = to_project(name, said, ROOT, CLI_FOLDER)
    assert to_claude(project, params, ROOT) == said


def _request(tools, calls):
    from mewrk_jupyter.providers.base import Message, ModelRequest, TextPart, ToolResultPart, ToolUsePart

    messages = [Message(role="user", parts=[TextPart(text="go")])]
    for n, (name, params) in enumerate(calls):
        messages.append(Message(role="assistant", parts=[ToolUsePart(id=f"t{n}", name=name, input=params)]))
        messages.append(Message(role="user", parts=[ToolResultPart(tool_use_id=f"t{n}", content="ok")]))
    return ModelRequest(model="ca/claude-test", messages=messages, tools=tools)


def _spec(name, claude_code=None):
    from mewrk_jupyter.providers.base import ClaudeCodeTool, ToolSpec

    marked = ClaudeCodeTool(name=claude_code, root=ROOT) if claude_code else None
    return ToolSpec(name=name, description=name, input_schema={"type": "object"}, claude_code=marked)


def _body(request):
    from mewrk_jupyter.providers.base import ModelInfo
    from mewrk_jupyter.providers.claude_agent_body import agent_body

    return agent_body(request, ModelInfo(name="ca/claude-test", protocol="claude-agent"))


def test_earlier_calls_are_in_claude_codes_words_while_plan_mode_withholds_their_tool():
    # The agent lists Read and Edit; plan mode offers Read only: the earlier Edit stays an Edit.
    body = _body(
        _request(
            [_spec("read", "Read"), _spec("ls")],
            [
                ("edit", {"path": "a.py", "old": "x", "new": "y"}),
                ("ls", {"path": "."}),
                ("read", {"path": "a.py"}),
            ],
        )
    )
    uses = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_use"]
    assert [(u["name"], u["input"]) for u in uses] == [
        ("Edit", {"file_path": f"{ROOT}/a.py", "old_string": "x", "new_string": "y"}),
        ("mcp__mewrk__ls", {"path": "."}),
        ("Read", {"file_path": f"{ROOT}/a.py"}),
    ]
    assert body["tools"][0] == {"type": "claude_code", "name": "Read"}
    assert body["tools"][1]["name"] == "mcp__mewrk__ls"
    assert body["system"][-1]["text"].startswith(
        "Claude Code's tools here (Read) work in the workspace folder"
    )


def test_without_claude_codes_tools_every_call_goes_under_its_mcp_name():
    body = _body(
        _request([_spec("read"), _spec("edit")], [("edit", {"path": "a.py", "old": "x", "new": "y"})])
    )
    uses = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_use"]
    assert [(u["name"], u["input"]) for u in uses] == [
        ("mcp__mewrk__edit", {"path": "a.py", "old": "x", "new": "y"})
    ]
    assert "system" not in body and [t["name"] for t in body["tools"]] == [
        "mcp__mewrk__read",
        "mcp__mewrk__edit",
    ]


def test_other_protocols_offer_the_projects_tool_as_it_is():
    from mewrk_jupyter.providers.anthropic import request_body
    from mewrk_jupyter.providers.base import ModelInfo

    body = request_body(
        _request([_spec("read", "Read")], []), ModelInfo(name="an/claude-test", protocol="anthropic-messages")
    )
    (tool,) = body["tools"]
    tool.pop("cache_control", None)
    assert tool == {"name": "read", "description": "read", "input_schema": {"type": "object"}}
