"""The scripted vendor server: one local HTTP server that answers each protocol's paths in order.

The test queues replies (`enqueue`), points an official SDK at `url` or `openai_base_url`, and afterwards
asserts on the exact requests the SDK sent. Paths are routed by suffix, so Azure-style prefixes such as
``/openai/deployments/<name>/chat/completions`` work too; Vertex AI's addresses by their pattern.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from . import anthropic, bedrock, openai_chat, openai_models, openai_responses, vertex
from .core import RecordedRequest, Rendered, Reply, dumps

# Every protocol's path suffixes; within a protocol the most specific comes first.
ROUTES = (
    *anthropic.ROUTES,
    *bedrock.ROUTES,
    *openai_chat.ROUTES,
    *openai_responses.ROUTES,
    *vertex.ROUTES,
    *openai_models.ROUTES,
)


def route(path: str) -> str | None:
    """The kind of endpoint a path asks for, or None for an unknown path."""
    path = path.rstrip("/")
    if kind := vertex.route(path):  # the model is in the address, before its method
        return kind
    for suffix, kind in ROUTES:
        if path.endswith(suffix):
            return kind
    return None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: WireServer

    def handle_error(self, request: Any, client_address: Any) -> None:  # quiet on client hang-ups
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    timeout = 30  # an idle keep-alive connection ends after this

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        # As a vendor's server does (uvicorn, nginx, …): each SSE event leaves at once, rather than wait
        # for the client's delayed acknowledgement of the previous one (about 40 ms per short reply).
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().setup()
        self.server.owner.track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        self.server.owner.track(self.connection, add=False)

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def _handle(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        split = urlsplit(self.path)
        request = RecordedRequest(
            method=self.command,
            path=split.path,
            query=parse_qs(split.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            raw_body=raw,
            json=parsed,
            route=route(split.path),
        )
        number = owner.record(request)
        if request.route is None:
            self._send_problem(
                404, f"wire_server: unknown path {self.command} {split.path} (request #{number})"
            )
            return
        reply, problem = owner.take(request, number)
        if reply is None:
            self._send_problem(500, problem)
            return
        try:
            rendered = reply.render(request)
        except Exception as exc:  # a bug in a builder: make it obvious
            owner.problems.append(f"render failed: {exc!r}")
            self._send_problem(500, f"wire_server: rendering the scripted reply failed: {exc!r}")
            return
        if reply.first_byte_delay and owner.stopping.wait(reply.first_byte_delay):
            return
        while reply.gate is not None and not reply.gate.wait(0.05):
            if owner.stopping.is_set():
                return
        try:
            if rendered.disconnect:
                self._hang_up()
            elif rendered.events is not None or rendered.chunks is not None:
                self._send_stream(reply, rendered)
            else:
                self._send_json(rendered.status, rendered.headers, rendered.body)
        except OSError:  # the client went away
            self.close_connection = True

    # --- writing ------------------------------------------------------------------------------

    def _send_problem(self, status: int, message: str) -> None:
        body = {"type": "error", "error": {"type": "api_error", "message": message}}
        self._send_json(status, {"x-should-retry": "false"}, body)

    def _send_json(self, status: int, headers: dict[str, str], body: Any) -> None:
        data = dumps(body).encode()
        self.send_response(status)
        headers = {"content-type": "application/json", **headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_stream(self, reply: Reply, rendered: Rendered) -> None:
        """The reply's SSE events (or binary frames) in a chunked body, one chunk each, with its faults."""
        owner = self.server.owner
        self.send_response(rendered.status)
        for name, value in rendered.headers.items():
            self.send_header(name, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        pieces = rendered.chunks
        if pieces is None:
            sse = [
                (f"event: {name}\n" if name is not None else "") + f"data: {data}\n\n"
                for name, data in rendered.events or []
            ]
            pieces = [text.encode() for text in sse]
        if reply.drop_last:
            pieces = pieces[: -reply.drop_last]
        for number, piece in enumerate(pieces):
            if reply.cut_after is not None and number >= reply.cut_after:
                if reply.cut_cleanly:
                    break
                self._hang_up()
                return
            if number and reply.event_delay and owner.stopping.wait(reply.event_delay):
                self._hang_up()
                return
            self._write_chunk(piece)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _hang_up(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class WireServer:
    """The scripted vendor server. ``start()`` / ``stop()`` (or use it as a context manager)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._conns: set[socket.socket] = set()
        self.stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.problems: list[str] = []  # empty queue, kind mismatch, render failures

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> WireServer:
        """Listen on a free port in a background thread."""
        httpd = _HTTPServer((self._host, self._port), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self.stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="wire-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and hang up every open connection."""
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` — the Anthropic ``base_url``."""
        return f"http://{self._host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``url + "/v1"`` — the OpenAI ``base_url``."""
        return self.url + "/v1"

    # --- scripting ----------------------------------------------------------------------------

    def enqueue(self, *replies: Reply) -> WireServer:
        """Append replies; each request takes the next one in order."""
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._queue)

    def clear(self) -> None:
        """Forget the queued replies, the recorded requests and the problems."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()
            self.problems.clear()

    # --- recording ----------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    def last_request(self) -> RecordedRequest:
        """The most recent request; an AssertionError when none came."""
        with self._lock:
            if not self._requests:
                raise AssertionError("wire_server: no request was received")
            return self._requests[-1]

    def last_json(self) -> Any:
        """The parsed JSON body of the last request."""
        return self.last_request().json

    def json_bodies(self, route: str | None = None) -> list[Any]:
        """The parsed bodies of all requests (optionally only those of one route, e.g.
        ``"anthropic.messages"``)."""
        return [r.json for r in self.requests if route is None or r.route == route]

    # --- internals ----------------------------------------------------------------------------

    def track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

    def record(self, request: RecordedRequest) -> int:
        with self._lock:
            self._requests.append(request)
            return len(self._requests)

    def take(self, request: RecordedRequest, number: int) -> tuple[Reply | None, str]:
        with self._lock:
            if not self._queue:
                problem = (
                    f"wire_server: no scripted response was queued for {request.method} {request.path} "
                    f"(request #{number}); call server.enqueue(...) before the SDK call"
                )
                self.problems.append(problem)
                return None, problem
            reply = self._queue[0]
            if reply.kind is not None and reply.kind != request.route:
                problem = (
                    f"wire_server: the next scripted reply is for {reply.kind} but request #{number} is "
                    f"{request.method} {request.path} ({request.route}); the reply stays queued"
                )
                self.problems.append(problem)
                return None, problem
            self._queue.popleft()
            return reply, ""
