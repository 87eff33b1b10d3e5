"""Changes to the files the model has read or written: before each request, a file that changed since
the model last saw it (edited in the notebook, by another program, by a command) is told to the model as
a host message with a bounded diff, so that it does not go on from what it remembers.

What the model saw is kept in memory, per session, from its successful `read`, `write` and `edit`
calls; a session reopened in another process starts watching again from its next such call.
"""

from __future__ import annotations

import difflib
import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path

from ...cards.models import HostMessage, ToolCall
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .secrets import SessionSecrets

WATCHED_TOOLS = ("read", "write", "edit")
KEEP_BYTES = 256 * 1024  # a file up to this size is kept whole, to show a diff of its change
MAX_DIFF_LINES = 80
MAX_DIFF_CHARS = 6_000


@dataclass(frozen=True)
class _Seen:
    digest: str
    text: str | None  # None: too large or not text, so only the digest is compared


class FileWatch:
    """What the model last saw of each file it read or wrote, and the host messages of their changes."""

    def __init__(self, workspace: Workspace, timeline: StoredTimeline, secrets: SessionSecrets) -> None:
        self.root = workspace.root
        self.timeline = timeline
        self.secrets = secrets
        self._seen: dict[str, _Seen] = {}
        self._lock = threading.Lock()  # tool calls of one reply run side by side

    def saw(self, call: ToolCall) -> None:
        """Remember the file of a successful `read`, `write` or `edit` as it is now."""
        if call.name not in WATCHED_TOOLS or call.is_error or call.status != "done":
            return
        rel = call.params.get("path")
        path = self._inside(rel)
        if path is None or not isinstance(rel, str):
            return
        seen = _read(path)
        with self._lock:
            if seen is None:
                self._seen.pop(rel, None)
            else:
                self._seen[rel] = seen

    def check(self) -> list[HostMessage]:
        """Tell the model of each watched file that changed since it last saw it; returns the messages added."""
        with self._lock:
            watched = dict(self._seen)
        added = []
        for rel, before in sorted(watched.items()):
            path = self._inside(rel)
            now = _read(path) if path is not None and path.is_file() else None
            if now is not None and now.digest == before.digest:
                continue
            # A secret written into the file is hidden, as in a `read` of it.
            text = self.secrets.redact(_change_text(rel, before, now))
            with self._lock:
                if now is None:
                    self._seen.pop(rel, None)
                else:
                    self._seen[rel] = now
            message = HostMessage(topic="file_changed", text=text)
            self.timeline.append(message)
            added.append(message)
        return added

    def _inside(self, rel: object) -> Path | None:
        if not isinstance(rel, str) or not rel:
            return None
        path = (self.root / rel).resolve()
        return path if path.is_relative_to(self.root.resolve()) else None


def _read(path: Path) -> _Seen | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(data).hexdigest()
    if len(data) > KEEP_BYTES:
        return _Seen(digest, None)
    try:
        return _Seen(digest, data.decode("utf-8"))
    except UnicodeDecodeError:
        return _Seen(digest, None)


def _change_text(rel: str, before: _Seen, now: _Seen | None) -> str:
    if now is None:
        return f"The file `{rel}` was deleted (or can no longer be read) since you last read or wrote it."
    head = f"The file `{rel}` changed since you last read or wrote it"
    if before.text is None or now.text is None:
        return f"{head}; it is too large or not text to show here: read it again before relying on it."
    lines = list(
        difflib.unified_diff(
            before.text.splitlines(keepends=True),
            now.text.splitlines(keepends=True),
            fromfile=f"{rel} (as you saw it)",
            tofile=f"{rel} (now)",
        )
    )
    shown = "".join(lines[:MAX_DIFF_LINES])[:MAX_DIFF_CHARS]
    if not shown.endswith("\n"):
        shown += "\n"
    note = ""
    if len(lines) > MAX_DIFF_LINES or len("".join(lines)) > MAX_DIFF_CHARS:
        note = "(the diff is cut here: read the file again to see all of it)\n"
    return f"{head}:\n```diff\n{shown}```\n{note}".rstrip("\n")
