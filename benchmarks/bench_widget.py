"""The timeline widget: render time of a 5,000-card timeline in headless Chromium, and the comm messages
of one 2,000-token streamed reply.

Run: python benchmarks/bench_widget.py        (needs /usr/bin/chromium and the playwright package)

Render: the real bundle (mewrk_jupyter/static/widget.js + .css) runs in Debian's Chromium, headless,
on a local page that plays the part of anywidget's model. It receives the real snapshot message that
TimelineWidget builds for the session, as JSON text (what the comm carries), and the time is taken
from the message's arrival to the end of the first frame that shows the cards: JSON parse, state,
virtualised render and layout. JupyterLab itself is left out, so the figure is the widget's own cost.
Each size is measured on fresh pages and the median kept; 100 cards give the ratio.

Comm messages: a kernel-side widget with one view follows `s.send("…\\nlong: 2000")`; every message
it posts is one comm message. `offline/echo` streams its 2,000 words at once (a burst); the paced run
lets the same reply arrive at 5 ms a token, about a fast model's speed.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mewrk_jupyter as mw
from mewrk_jupyter.providers import offline
from mewrk_jupyter.store import cards as card_rows
from mewrk_jupyter.store import sessions as session_rows
from mewrk_jupyter.widget import BUNDLE, STYLES, TimelineWidget

CHROMIUM = "/usr/bin/chromium"
SIZES = (100, 5_000)
PAGES = 5  # fresh pages per size
REPLY_TOKENS = 2_000

PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="widget.css">
<style>body { width: 1000px; }</style></head><body><div id="host"></div>
<script type="module">
import widget from "./widget.js";
// Time spent in animation-frame callbacks (the list renders in one), to tell work from waiting for frames.
let busy = 0;
const raf = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (callback) => raf((t) => { const s = performance.now(); callback(t); busy += performance.now() - s; });
const handlers = [];
const model = {
  send(message) { if (message.type === "hello") window.__hello = message.view; },
  on(event, callback) { if (event === "msg:custom") handlers.push(callback); },
  off() {},
};
widget.render({ model, el: document.getElementById("host") });
window.__deliver = (text) => new Promise((done) => {
  const start = performance.now();
  busy = 0;
  const message = JSON.parse(text);
  message.for = window.__hello;
  for (const callback of handlers) callback(message);
  const sync = performance.now() - start;
  const frame = () => {
    if (!document.querySelector(".mw-card")) return requestAnimationFrame(frame);
    document.body.getBoundingClientRect();  // the layout of that frame
    requestAnimationFrame(() => done({ ms: performance.now() - start, work: sync + busy, shown: document.querySelectorAll(".mw-card").length }));
  };
  requestAnimationFrame(frame);
});
window.__ready = true;
</script></body></html>"""


class CountingWidget(TimelineWidget):
    """A kernel-side widget whose comm messages are kept instead of sent."""

    def __init__(self, session: Any) -> None:
        self.posted: list[dict[str, Any]] = []
        super().__init__(session)

    def _post(self, message: dict[str, Any]) -> None:
        self.posted.append(json.loads(json.dumps(message)))


def fill(n: int) -> mw.Session:
    """A session of n cards — questions and Markdown replies — written in one transaction."""
    s = mw.Session.new(title=f"widget bench {n}")
    reply = "A reply with **bold**, `code` and a list:\n\n- one\n- two\n\n" + "lorem ipsum " * 15
    with s.stored_timeline.db.tx() as conn:
        key = None
        for i in range(n):
            card = mw.UserInput(text=f"question {i}") if i % 2 == 0 else mw.ModelReply(text=f"{i}. {reply}")
            key = card_rows.key_for_insert(conn, s.id) if key is None else card_rows.key_between(key, None)
            card_rows.put_card(conn, s.id, card, key)
        session_rows.bump_rev_later(conn, s.id)
    return s


def snapshot_text(session: mw.Session) -> tuple[str, float]:
    """The snapshot message as the comm carries it, and the kernel's time to build it (ms)."""
    widget = CountingWidget(session)
    start = time.perf_counter()
    widget.receive(widget, {"type": "hello", "view": "bench"})
    took = (time.perf_counter() - start) * 1000
    widget.close()
    return json.dumps(widget.posted[-1]), took


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves the page without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Say nothing."""


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    """A local static server for the page and the bundle (module scripts need http, not file://)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/page.html"


def render_times(texts: dict[int, str]) -> dict[int, tuple[float, float, int]]:
    """Median render time and main-thread work (ms), and cards in the DOM, for each size."""
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="mewrk-bench-widget-"))
    (folder / "page.html").write_text(PAGE)
    (folder / "widget.js").write_bytes(BUNDLE.read_bytes())
    (folder / "widget.css").write_bytes(STYLES.read_bytes())
    server, url = serve(folder)
    out: dict[int, tuple[float, float, int]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(url)  # warm: the bundle is compiled once, as in a notebook after the first output
            page.wait_for_function("window.__ready && window.__hello")
            page.evaluate("text => window.__deliver(text)", texts[min(texts)])
            for n, text in texts.items():
                runs = []
                for _ in range(PAGES):
                    page.goto(url)
                    page.wait_for_function("window.__ready && window.__hello")
                    runs.append(page.evaluate("text => window.__deliver(text)", text))
                out[n] = (
                    statistics.median(r["ms"] for r in runs),
                    statistics.median(r["work"] for r in runs),
                    runs[-1]["shown"],
                )
            browser.close()
    finally:
        server.shutdown()
    return out


def comm_messages(model: str, delay: float | None) -> tuple[Counter, int, float]:
    """Messages posted while one 2,000-token reply streams: by type, the engine's text deltas, seconds."""
    if delay is not None:
        offline.MODELS[model.split("/")[1]]["delay"] = delay
    s = mw.Session.new(model=model, title="stream bench")
    widget = CountingWidget(s)
    widget.receive(widget, {"type": "hello", "view": "bench"})
    deltas = []
    unsubscribe = s.subscribe(lambda e: deltas.append(1) if e.kind == "text_delta" else None)
    widget.posted.clear()
    start = time.perf_counter()
    s.send(f"stream please\nlong: {REPLY_TOKENS}", wait=True)
    took = time.perf_counter() - start
    widget.flush()
    unsubscribe()
    widget.close()
    return Counter(m["type"] for m in widget.posted), len(deltas), took


def main() -> None:
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    os.chdir(tempfile.mkdtemp(prefix="mewrk-bench-"))
    os.environ["HOME"] = os.getcwd()
    texts, builds = {}, {}
    for n in SIZES:
        texts[n], builds[n] = snapshot_text(fill(n))
    rendered = render_times(texts)
    small, large = SIZES
    print(f"Render in headless Chromium (median of {PAGES} fresh pages; snapshot JSON in, first frame out)")
    print(
        f"{'cards':>7} | {'snapshot':>9} | {'kernel builds it':>16} | {'render':>9} | {'of it, work':>11} | in the DOM"
    )
    for n in SIZES:
        ms, work, shown = rendered[n]
        size = f"{len(texts[n]) / 1e6:.2f} MB"
        print(
            f"{n:>7,} | {size:>9} | {builds[n]:>13.1f} ms | {ms:>6.1f} ms | {work:>8.1f} ms | {shown} cards"
        )
    (big, big_work, _), (little, little_work, _) = rendered[large], rendered[small]
    print(
        f"ratio {large:,} / {small}: render {big / little:.1f}x, work {big_work / little_work:.1f}x, for 50x the cards"
    )
    print()
    print(
        f"Comm messages for one {REPLY_TOKENS:,}-token streamed reply (offline model, `long: {REPLY_TOKENS}`)"
    )
    for label, model, delay in (
        ("burst (offline/echo)", "offline/echo", None),
        ("paced 5 ms/token", "offline/slow", 0.005),
    ):
        counts, engine_deltas, took = comm_messages(model, delay)
        total = sum(counts.values())
        detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(
            f"  {label:<21} {took * 1000:7.0f} ms: {total} comm messages ({detail}); "
            f"{engine_deltas} engine text deltas → {counts['text_delta']} text_delta messages"
        )


if __name__ == "__main__":
    main()
