"""Host messages in a real JupyterLab and Chromium, the kernel's session talking to a local Anthropic wire
server: a hook's output is one line on the timeline; editing that line in the widget changes what the
model reads next, in either container; and the tool lock's line says what stays held and its button lets
the new tools through; and Claude Code (protocol claude-agent) as the model, its call approved there."""

from __future__ import annotations

import json
import uuid

import pytest
from playwright.sync_api import expect

from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import claude_code_vendor
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use

from .notebook import ATTACH, Notebook, edit_card
from .test_browser import widget_cell

SAID = "The build is green."
EDITED = "The build is red: test_io fails."


def workspace_code(lab, server: WireServer, container: str) -> str:
    """A cell that makes a workspace of its own with a vendor on the wire server and an `after_tool` hook,
    trusts it, and starts a session in `container` with one exchange, then the hook's line, and its widget."""
    folder = f"ws-{uuid.uuid4().hex[:8]}"
    mewrk = lab.root / folder / ".mewrk"
    (mewrk / "llm").mkdir(parents=True)
    (mewrk / "llm" / "ant.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {server.url}\napi_key: ${{HOST_TEST_KEY}}\n"
        "models:\n  m: {context_window: 100000}\n"
    )
    (mewrk / "hooks").mkdir()
    (mewrk / "hooks" / "ci.yaml").write_text(f"event: after_tool\ncommand: echo {SAID}\n")
    return (
        ATTACH
        + "import os\nos.environ['HOST_TEST_KEY'] = 'sk-host-test'\n"
        + f"mw.trust({folder!r})\n"
        + f"s = mw.Session.new(model='ant/m', workspace={folder!r}, host_container={container!r})\n"
        + "s.send('hello', wait=True)\ns.run_hooks('after_tool')\ns.widget()"
    )


def blocks(body: dict) -> list[dict]:
    """Every content block of the request's messages, in order."""
    return [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]


@pytest.mark.parametrize("container", ["user_message", "box_tool_result"])
def test_the_host_line_and_its_edit_is_what_the_model_reads_next(lab, page, wire_server, container):  # noqa: F811
    wire_server.enqueue(anthropic_reply("Hi."), anthropic_reply("Fixing it."))
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, workspace_code(lab, wire_server, container))
    line = root.locator(".mw-card[data-kind='host_message']")
    expect(line).to_have_count(1)
    expect(line.locator(".mw-host-text")).to_contain_text(SAID)
    expect(line).to_contain_text("Host")

    edit_card(page, line, [EDITED])
    expect(line.locator(".mw-host-text")).to_have_text(EDITED)
    assert nb.print_value("s.cards[-1].text") == EDITED

    box = root.locator("[data-testid='mw-input']")
    box.fill("what now?")
    box.press("Control+Enter")
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("Fixing it.")
    body = wire_server.json_bodies()[-1]
    assert SAID not in json.dumps(body["messages"])
    if container == "user_message":
        texts = [b["text"] for b in blocks(body) if b["type"] == "text"]
        assert f"<system-reminder>\n{EDITED}\n</system-reminder>" in texts
    else:
        results = [b["content"] for b in blocks(body) if b["type"] == "tool_result"]
        assert EDITED in results and "<system-reminder>" not in json.dumps(body["messages"])


def test_the_tool_lock_line_and_its_button(lab, page, wire_server):  # noqa: F811
    wire_server.enqueue(anthropic_reply("Hi."), anthropic_reply("A plan."))
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, workspace_code(lab, wire_server, "user_message"))
    lock = root.locator("[data-testid='mw-toollock']")
    expect(lock).to_be_hidden()
    nb.run("s.configure(plan_mode=True)")  # right after a request: the prompt cache is warm
    expect(lock).to_be_visible()
    expect(root.locator("[data-testid='mw-toollock-text']")).to_contain_text(
        "still offered: write, edit, bash"
    )

    root.locator("[data-testid='mw-toollock-accept']").click()
    expect(lock).to_be_hidden()
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text("the prompt cache starts over")
    box = root.locator("[data-testid='mw-input']")
    box.fill("plan it")
    box.press("Control+Enter")
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("A plan.")
    offered = [t["name"] for t in wire_server.json_bodies()[-1]["tools"]]
    assert "read" in offered and not {"write", "edit", "bash"} & set(offered)


def test_claude_code_as_the_model_from_the_widget_its_call_approved_in_the_browser(lab, page, wire_server):  # noqa: F811
    """Protocol claude-agent in JupyterLab: the message typed in the composer goes through the real Claude
    Code CLI (npm's), its call of the project's `bash` waits for the Approve click, and the reply follows."""
    folder = f"ws-{uuid.uuid4().hex[:8]}"
    claude_code_vendor(lab.root / folder / ".mewrk" / "llm", wire_server.url, "CC_TEST_KEY")
    wire_server.enqueue(
        anthropic_reply(
            anthropic_tool_use("mcp__mewrk__bash", {"command": "echo cc > cc.txt"}, id="toolu_b")
        ),
        anthropic_reply("Written by Claude Code."),
    )
    nb = Notebook.open(page, lab)
    code = (
        ATTACH
        + "import os\nos.environ['CC_TEST_KEY'] = 'sk-cc-browser-test'\n"
        + f"mw.trust({folder!r})\ns = mw.Session.new(model='cc/claude-test', workspace={folder!r})\ns.widget()"
    )
    _, root = widget_cell(nb, code)
    box = root.locator("[data-testid='mw-input']")
    box.fill("write cc.txt")
    box.press("Control+Enter")
    approval = root.locator(".mw-card[data-kind='approval']")
    expect(approval.locator("[data-testid='mw-approve']")).to_be_visible()
    expect(root.locator(".mw-card[data-kind='tool_call']")).to_contain_text("bash")
    approval.locator("[data-testid='mw-approve']").click()
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("Written by Claude Code.")
    assert (lab.root / folder / "cc.txt").read_text() == "cc\n"
    assert "cc_entrypoint=" in json.dumps(wire_server.json_bodies()[-1]["system"])  # the CLI's own request
