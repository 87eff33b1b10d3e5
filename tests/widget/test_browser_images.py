"""Replies in a real JupyterLab and Chromium: a remote image waits for the person's click, and a hostile
reply acts neither in the widget nor in the notebook's own Markdown rendering of the session."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.conftest import wait_for

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

# A 1×1 transparent PNG, so that a loaded image is a real one.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


class Collector:
    """A local HTTP server standing for a stranger's: it records every path a browser asks it for."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
                collector.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PIXEL)))
                self.end_headers()
                self.wfile.write(PIXEL)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    try:
        yield server
    finally:
        server.stop()


def test_a_remote_image_loads_only_when_the_person_clicks(lab, page, collector):
    nb = Notebook.open(page, lab)
    reply = f"The chart: ![revenue]({collector.url}/chart.png?q=secret) and an inline one."
    _, root = widget_cell(
        nb, ATTACH + f"s = mw.Session.new()\ns.insert(mw.ModelReply(text={reply!r}))\ns.widget()"
    )
    card = root.locator(".mw-card[data-kind='model_reply']")
    button = card.get_by_role("button", name=f"Load image from {collector.host}")
    expect(button).to_be_visible()
    expect(card.locator("img")).to_have_count(0)
    # The widget is on screen; a cell run since proves the page went on working before this check.
    nb.print_value("1")
    assert collector.paths == []
    button.click()
    image = card.locator("img")
    expect(image).to_have_attribute("src", f"{collector.url}/chart.png?q=secret")
    expect(image).to_have_attribute("alt", "revenue")
    wait_for(lambda: collector.paths == ["/chart.png?q=secret"])


def test_a_hostile_reply_acts_neither_in_the_widget_nor_in_the_notebooks_markdown(lab, page, collector):
    nb = Notebook.open(page, lab)
    hostile = "\n\n".join(
        [
            f"<script>fetch('{collector.url}/script')</script>",
            f"<img src=x onerror=\"fetch('{collector.url}/onerror')\">",
            f'<img src="{collector.url}/raw-img"> ![md]({collector.url}/md-img)',
            f"[x](javascript:fetch('{collector.url}/js-link'))",
            "$\\href{javascript:alert(1)}{math}$",
        ]
    )
    code = ATTACH + (
        f"s = mw.Session.new()\ns.insert(mw.ModelReply(text={hostile!r}))\n"
        "from IPython.display import Markdown\nMarkdown(s._repr_markdown_())"
    )
    markdown_cell = nb.run(code)
    output = markdown_cell.locator(".jp-RenderedMarkdown")
    expect(output).to_contain_text("onerror=")  # the reply shows, as text
    assert output.locator("img, script").count() == 0
    link = output.get_by_role("link", name="x")
    assert not (link.get_attribute("href") or "").lower().startswith("javascript:")
    expect(output).to_contain_text("math")  # typeset; MathJax's own safe mode drops the script link
    assert output.locator("[href^='javascript' i]").count() == 0
    _, root = widget_cell(nb, "s.widget()")
    card = root.locator(".mw-card[data-kind='model_reply']")
    expect(card.get_by_role("button", name=f"Load image from {collector.host}")).to_have_count(2)
    expect(card.locator("script")).to_have_count(0)
    nb.print_value("1")
    assert collector.paths == []
