"""A tool's images reach the model the way each protocol allows, against the local wire servers of all
three: in Anthropic's `tool_result` as image blocks, in the Responses `function_call_output` as
`input_image` parts, and in Chat Completions (whose `tool` message takes text only) in a user message
right after the reply's tool messages, under a line naming the call. A model without vision input is
sent none: a tool's image counts for the vision gate as an attached image does. The images come
from a real MCP server's tool: any tool's images go the same way as the `python` tool's figures."""

from __future__ import annotations

import base64
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import ToolCall
from mewrk_jupyter.providers.base import tool_images_label
from mewrk_jupyter.providers.record import SentItem
from mewrk_jupyter.providers.sent import read_request

from .three import KEY_ENV, Wire
from .vendors import write_vendor

SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp_server.py"
TOOL = "mcp__pics__draw"
# Each protocol's vendor with a model that takes images (`v`) and one that does not (`m`).
MODELS = "  m: {context_window: 100000}\n  v: {context_window: 100000, vision: true}\n"
VENDORS = {"anthropic-messages": "ant", "openai-chat": "chat", "openai-responses": "resp"}


@pytest.fixture
def drawing(wire: Wire, wire_server, workspace: Path) -> Wire:
    """The wire's vendor with both models, and the test MCP server with its `draw` tool, allowed."""
    url = wire_server.url if wire.protocol == "anthropic-messages" else wire_server.openai_base_url
    write_vendor(workspace, VENDORS[wire.protocol], wire.protocol, url, MODELS, KEY_ENV)
    mcp = workspace / ".mewrk" / "mcp"
    mcp.mkdir(parents=True, exist_ok=True)
    (mcp / "pics.yaml").write_text(f"command: {sys.executable}\nargs: [{SERVER}]\nenv: {{DRAW: '1'}}\n")
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir(parents=True, exist_ok=True)
    (policy / "default.yaml").write_text(f"safety_level: default\nallow: [{TOOL}]\n")
    mw.trust(workspace)
    return wire


def draw(wire: Wire, server: Any, model: str) -> tuple[mw.Session, ToolCall, dict[str, Any]]:
    """A turn in which the model calls `draw`; the session, the call's card and the request after it."""
    server.enqueue(wire.call(TOOL, {"size": 48}), wire.reply("A red square."))
    s = mw.Session.new(model=f"{VENDORS[wire.protocol]}/{model}")
    run = s.send("draw a square")
    assert run.state == "done", run.error
    [call] = [c for c in s.cards if isinstance(c, ToolCall)]
    return s, call, server.json_bodies()[-1]


def result_and_after(wire: Wire, body: dict[str, Any], call_id: str) -> list[Any]:
    """The tool's result as the request carries it, and everything after it."""
    if wire.protocol == "anthropic-messages":
        last = body["messages"][-1]
        assert last["content"][0]["tool_use_id"] == call_id
        return [last]
    if wire.protocol == "openai-chat":
        at = next(i for i, m in enumerate(body["messages"]) if m.get("tool_call_id") == call_id)
        return body["messages"][at:]
    at = next(
        i for i, item in enumerate(body["input"]) if item.get("call_id") == call_id and "output" in item
    )
    return body["input"][at:]


def test_a_tool_s_image_reaches_a_vision_model_in_the_protocol_s_own_shape(drawing, wire_server, workspace):
    s, call, body = draw(drawing, wire_server, "v")
    # The card keeps the PNG the server drew; the SVG no vendor takes is described instead.
    [image] = call.images
    png = base64.b64decode(image.data)
    assert (image.name, image.media_type, image.size) == ("image-1.png", "image/png", len(png))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert call.result == (
        "a square, 48 × 48 pixels\n"
        f"[image: image-1.png, image/png, {len(png)} bytes; shown to the person on the card]\n"
        "[image image/svg+xml, 42 bytes, not shown]"
    )
    url = f"data:image/png;base64,{image.data}"
    sent = result_and_after(drawing, body, call.call_id)
    if drawing.protocol == "anthropic-messages":
        assert sent == [
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call.call_id,
                        "content": [
                            {"type": "text", "text": call.result},
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/png", "data": image.data},
                            },
                        ],
                        "is_error": False,
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ]
    elif drawing.protocol == "openai-chat":
        # A tool message takes text only: the image follows in a user message that names the call.
        assert sent == [
            {"role": "tool", "tool_call_id": call.call_id, "content": call.result},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": tool_images_label(TOOL, call.call_id, 1)},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            },
        ]
        assert tool_images_label(TOOL, call.call_id, 1) == (
            f"[Tool output, not the person's words] The image below came with the result of the `{TOOL}` "
            f"call {call.call_id}."
        )
    else:
        assert sent == [
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": [
                    {"type": "input_text", "text": call.result},
                    {"type": "input_image", "image_url": url},
                ],
            }
        ]
    # The history records the request as it went, and reads the image back as the tool's.
    assert s.history[-1].request == {k: v for k, v in body.items() if k != "stream"}
    items = read_request(body, drawing.protocol).items
    at = items.index(SentItem("Tool result", call.result))
    assert items[at + 1] == SentItem("Tool image", "image/png")
    # The next request carries the image again; the store holds its bytes once, for the card and both
    # recorded requests.
    wire_server.enqueue(drawing.reply("Still red."))
    assert s.send("and now?").state == "done"
    assert image.data in str(wire_server.json_bodies()[-1])
    conn = sqlite3.connect(workspace / ".mewrk" / "mewrk.db")
    assert conn.execute("SELECT count(*) FROM blobs WHERE data = ?", (png,)).fetchone()[0] == 1
    dump = "\n".join(conn.iterdump())
    assert image.data not in dump  # neither the card's row nor a request holds the base64 itself


def test_a_tool_s_image_counts_for_the_vision_gate_as_an_attached_image_does(drawing, wire_server):
    wire_server.enqueue(drawing.call(TOOL, {"size": 48}))
    blind = f"{VENDORS[drawing.protocol]}/m"
    s = mw.Session.new(model=blind)
    with pytest.raises(mw.InvalidInput) as refused:
        s.send("draw a square")  # the request after the call would carry its image: it is not sent
    assert str(refused.value) == (
        f"This conversation holds images (image-1.png from `{TOOL}`) and `{blind}` has no vision input. "
        "Switch the model (`/set model vendor/model`) or delete the images (a tool's go with its call's card)."
    )
    assert len(wire_server.json_bodies()) == 1
    [call] = [c for c in s.cards if isinstance(c, ToolCall)]
    assert call.status == "done" and len(call.images) == 1  # nothing the tool made is lost
    with pytest.raises(mw.InvalidInput, match=r"^This conversation holds images \(image-1\.png from "):
        s.send("what did you draw?")  # the next message is refused the same way, and not added
    assert s.cards[-1].id == call.id
    # Switched to a model that takes images, the turn goes on from the card and sends its image.
    s.configure(model=f"{VENDORS[drawing.protocol]}/v")
    wire_server.enqueue(drawing.reply("A red square."))
    assert s.send().state == "done"
    assert call.images[0].data in str(wire_server.json_bodies()[-1])
    assert s.cards[-1].text == "A red square."
