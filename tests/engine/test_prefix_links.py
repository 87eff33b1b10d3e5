"""The files of the hidden prefix (AGENTS.md, MEWRK.md, MEMORY.md, a skill's SKILL.md) are read only as
regular files inside their own folder: a cloned folder's link to ~/.aws/credentials is left out of every
request, trusted or not, and the person is told once in a sentence naming where the link leads."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.events import Notice
from tests.conftest import forget_process_state
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use

SECRET = "aws_secret_access_key = wJalrXUtnFEMI-K7MDENG-bPxRfiCY-EXAMPLEKEY"


@pytest.fixture
def credentials(tmp_path: Path) -> Path:
    """The person's own credentials file, outside every workspace."""
    path = tmp_path / "home" / ".aws" / "credentials"
    path.parent.mkdir(parents=True)
    path.write_text(f"[default]\n{SECRET}\n")
    return path


def cloned_links(workspace: Path, target: Path) -> None:
    """What a hostile repository holds: every prefix file a link to the person's credentials."""
    (workspace / "AGENTS.md").symlink_to(target)
    (workspace / "MEWRK.md").symlink_to(os.path.relpath(target, workspace))  # a relative link too
    (workspace / ".mewrk" / "skills" / "review").mkdir(parents=True)
    (workspace / ".mewrk" / "MEMORY.md").symlink_to(target)
    (workspace / ".mewrk" / "skills" / "review" / "SKILL.md").symlink_to(target)


def vendor(workspace: Path, server: WireServer) -> None:
    """A vendor on the local wire server; the person trusts the folder."""
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    (llm / "v.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {server.url}\nmodels:\n  m: {{context_window: 100000}}\n"
    )
    mw.trust()


def new_session(**kwargs) -> tuple[mw.Session, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = mw.Session.new(**kwargs)
    return session, [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]


def prefix_of(session: mw.Session) -> str:
    """The hidden prefix the session's last request carried."""
    return "\n".join(session.history[-1].request["system"])


def notices_of(session: mw.Session) -> list[str]:
    seen: list[str] = []
    session.subscribe(lambda event: seen.append(event.text) if isinstance(event, Notice) else None)
    return seen


def test_links_out_of_a_trusted_folder_are_not_sent_and_each_is_said_once(
    workspace,
    credentials,
    wire_server,  # noqa: F811
):
    cloned_links(workspace, credentials)
    vendor(workspace, wire_server)
    wire_server.enqueue(anthropic_reply("Hello."))
    wire_server.enqueue(anthropic_reply("Again."))
    s, told = new_session(model="v/m")
    s.send("hi")
    s.send("again")
    sent = b"".join(r.raw_body for r in wire_server.requests)
    assert b"wJalrXUtnFEMI" not in sent and b"[default]" not in sent
    assert told == [
        f"AGENTS.md is a link to {credentials}, outside the workspace, so it is not read; put the file "
        "itself there to use it.",
        f"MEWRK.md is a link to {credentials}, outside the workspace, so it is not read; put the file "
        "itself there to use it.",
        f".mewrk/MEMORY.md is a link to {credentials}, outside the configuration folder, so it is not "
        "read; put the file itself there to use it.",
    ]


def test_a_reopened_session_is_told_once_in_its_timeline(workspace, credentials):
    s = mw.Session.new()
    cloned_links(workspace, credentials)  # the folder was pulled after the session was made
    forget_process_state()  # a new kernel
    s = mw.Session.open(s.id)
    seen = notices_of(s)
    s.send("hi")
    s.send("again")
    assert "wJalrXUtnFEMI" not in prefix_of(s)
    assert len(seen) == 3 and len(set(seen)) == 3
    assert seen[0].startswith(f"AGENTS.md is a link to {credentials}, outside the workspace")


def test_a_skill_linking_out_is_refused_with_its_sentence(workspace, credentials):
    cloned_links(workspace, credentials)
    with pytest.raises(mw.ConfigError, match=r"skills/review/SKILL.md: the file is a link to .*credentials"):
        mw.Session.new(skills=["review"])
    s, _ = new_session()
    with pytest.raises(mw.ConfigError, match="outside the configuration folder, so it is not read"):
        s.use_skill("review")
    assert not any("wJalrXUtnFEMI" in (getattr(c, "text", "") or "") for c in s.cards)


def test_a_user_memory_linking_out_of_its_folder_is_left_out(workspace, credentials, tmp_path):
    user = tmp_path / "home" / ".mewrk"
    user.mkdir()
    (user / "MEMORY.md").symlink_to(credentials)
    s, told = new_session()
    s.send("hi")
    assert "wJalrXUtnFEMI" not in prefix_of(s)
    assert told == [
        f"~/.mewrk/MEMORY.md is a link to {credentials}, outside ~/.mewrk, so it is not read; put the "
        "file itself there to use it."
    ]


def test_a_link_that_stays_inside_is_read(workspace):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "agents.md").write_text("Use tabs.")
    (workspace / "AGENTS.md").symlink_to("docs/agents.md")
    (workspace / ".mewrk" / "notes").mkdir(parents=True)
    (workspace / ".mewrk" / "notes" / "memory.md").write_text("- project memory index")
    (workspace / ".mewrk" / "MEMORY.md").symlink_to("notes/memory.md")
    s, told = new_session()
    s.send("hi")
    assert told == []
    assert "Use tabs." in prefix_of(s) and "project memory index" in prefix_of(s)


def test_a_link_retargeted_outside_is_left_out_at_the_next_request(workspace, credentials):
    (workspace / "inside.md").write_text("Use tabs.")
    (workspace / "AGENTS.md").symlink_to("inside.md")
    s = mw.Session.new()
    s.send("hi")
    assert "Use tabs." in prefix_of(s)
    (workspace / "AGENTS.md").unlink()
    (workspace / "AGENTS.md").symlink_to(credentials)
    seen = notices_of(s)
    s.send("again")
    assert "wJalrXUtnFEMI" not in prefix_of(s)
    assert seen == [
        f"AGENTS.md is a link to {credentials}, outside the workspace, so it is not read; put the file "
        "itself there to use it."
    ]


def test_a_pipe_named_agents_md_is_left_out_rather_than_waited_on(workspace):
    os.mkfifo(workspace / "AGENTS.md")
    s, told = new_session()
    s.send("hi")  # a read of the pipe would wait for a writer forever
    assert s.state == "idle"
    assert told == ["AGENTS.md is not a regular file (a pipe, a device or a socket), so it is not read."]


def test_the_model_cannot_write_through_a_link_to_outside(workspace, credentials):
    cloned_links(workspace, credentials)
    s, _ = new_session()
    s.send('call: write {"path": "AGENTS.md", "content": "overwritten"}')
    s.approve()
    s.send('call: edit {"path": ".mewrk/MEMORY.md", "old": "[default]", "new": "x"}')
    s.approve()
    results = [c.result for c in s.cards if c.kind == "tool_call"]
    assert "`AGENTS.md` leads outside the workspace through a symlink" in results[0]
    assert "`.mewrk/MEMORY.md` leads outside the workspace through a symlink" in results[1]
    assert credentials.read_text() == f"[default]\n{SECRET}\n"


def test_the_read_tool_does_not_follow_the_link_either(
    workspace,
    credentials,
    wire_server,  # noqa: F811
):
    cloned_links(workspace, credentials)
    vendor(workspace, wire_server)
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("read", {"path": "AGENTS.md"})))
    wire_server.enqueue(anthropic_reply("Done."))
    s, _ = new_session(model="v/m")
    s.send("what do the instructions say?")
    sent = b"".join(r.raw_body for r in wire_server.requests)
    assert b"wJalrXUtnFEMI" not in sent  # neither in the prefix nor through the read tool
