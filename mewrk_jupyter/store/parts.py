"""Content-addressed parts: a JSON value kept as pieces named by their sha256, each piece stored once.

A request of a long session repeats the session: packed, its unchanged messages, attachments and
tool lists are the pieces the store already holds, so a request adds what is new in it and a small
root. The packed form is JSON in which a dict with a "$" key stands for something else:

    {"$": "r", "h": H}            the JSON value stored as part H
    {"$": "s", "h": H}            a long string, stored as its UTF-8 bytes in part H
    {"$": "b", "h": H, "p": P}    a base64 string (after the prefix P, e.g. a data URL's), stored as
                                  the bytes it encodes in part H — the same part as the card's file
    {"$": "l", "h": [H…], "d": D} a long list cut into chunks; at depth 1 each chunk holds elements,
                                  deeper each holds the hashes of the chunks one level down
    {"$": "o", "k": [...], "v": [...]}  a dict of the value that itself has a "$" key

Chunk boundaries follow the content (an element whose checksum ends in four zero bits closes a chunk),
so an inserted or edited message changes the chunk it falls in, not every chunk after it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import sqlite3
import threading
import zlib
from collections.abc import Callable
from typing import Any

from ..errors import StoreError

INLINE = 1024  # a packed node longer than this is stored as its own part
LONG_STRING = 4096  # a string longer than this is stored as its own part
CHUNK_MASK = 0xF  # about 16 elements per chunk…
CHUNK_MAX = 64  # …and never more than this
_BASE64 = re.compile(r"(data:[\w.+-]+/[\w.+-]+;base64,)?([A-Za-z0-9+/]*={0,2})", re.ASCII)

Reader = Callable[[str], bytes]


# One encoder: json.dumps with arguments builds a new one at each call, a few microseconds each time.
_dump = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def digest(data: bytes) -> str:
    """The name of a part: the sha256 of its bytes, in hex."""
    return hashlib.sha256(data).hexdigest()


def put_part(conn: sqlite3.Connection, data: bytes) -> str:
    """Store bytes once under their digest; returns the digest."""
    h = digest(data)
    conn.execute("INSERT INTO blobs (hash, data) VALUES (?, ?) ON CONFLICT DO NOTHING", (h, data))
    return h


def get_part(conn: sqlite3.Connection, h: str) -> bytes:
    """The bytes of a stored part; a missing part is a damaged store."""
    row = conn.execute("SELECT data FROM blobs WHERE hash = ?", (h,)).fetchone()
    if row is None:
        raise StoreError(
            f"The store lacks the part {h[:12]} (a piece of a request or an attached file): it was damaged "
            f"or changed outside mewrk_jupyter. Restore it from a backup to read what holds that part."
        )
    return bytes(row[0])


# A session's files come back in every request: remember the digests of the last few, so a request
# does not decode and hash 20 MB again to learn that the store already holds them. Few, since each
# entry keeps its string alive.
_KNOWN: dict[tuple[int, int], tuple[str, str]] = {}
_KNOWN_MAX = 4
_KNOWN_LOCK = threading.Lock()


def base64_part(conn: sqlite3.Connection, encoded: str) -> str | None:
    """Store the bytes a canonical base64 string encodes, once; their digest, or None if it is not one."""
    key = (len(encoded), hash(encoded))
    with _KNOWN_LOCK:
        known = _KNOWN.get(key)
    if known is not None and known[0] == encoded:
        h = known[1]
        if conn.execute("SELECT 1 FROM blobs WHERE hash = ?", (h,)).fetchone():
            return h
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(data).decode("ascii") != encoded:  # it must read back exactly as it was
        return None
    h = put_part(conn, data)
    with _KNOWN_LOCK:
        if len(_KNOWN) >= _KNOWN_MAX:
            _KNOWN.pop(next(iter(_KNOWN)))
        _KNOWN[key] = (encoded, h)
    return h


def _surely_long(value: Any) -> bool:
    """Whether the JSON of `value` is surely longer than INLINE: a lower bound of its length (each string
    and key with its quotes, one character for anything else) passes it within the first few pieces
    looked at. A large node then costs a few steps,
    where encoding it would cost all of it; a node of many small pieces is left to the encoder (False only
    means "try encoding it"). Exact types only: a subclass counts as one character, still a lower bound."""
    total, stack, looked = 0, [value], 0
    pop, extend = stack.pop, stack.extend
    while stack and looked < 64:
        looked += 1
        item = pop()
        kind = type(item)
        if kind is str:
            total += len(item) + 2
        elif kind is dict:
            total += 1 + len(item)  # the braces and the commas, then each key with its quotes and colon
            for key in item:
                total += len(key) + 3 if type(key) is str else 2
            extend(item.values())
        elif kind is list or kind is tuple:
            total += 1 + len(item)
            extend(item)
        else:
            total += 1
        if total > INLINE:
            return True
    return False


class _Packer:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def text(self, value: Any) -> str:
        """The packed JSON text of a value, its large pieces stored as parts."""
        if isinstance(value, str):
            return _dump(self.string(value)) if len(value) > LONG_STRING else _dump(value)
        if isinstance(value, dict | list | tuple) and value:
            small = self.small(value)
            if small is not None:
                return small
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise _NotJson
            if "$" in value:  # the value's own "$" would read as a packed node: keys and values apart
                values = ",".join(self.text(v) for v in value.values())
                return self.ref('{"$":"o","k":' + _dump(list(value)) + ',"v":[' + values + "]}")
            return self.ref("{" + ",".join(f"{_dump(k)}:{self.text(v)}" for k, v in value.items()) + "}")
        if isinstance(value, list | tuple):
            items = [self.text(v) for v in value]
            if len(items) > CHUNK_MAX:
                return self.chunks(items, 1)
            return self.ref("[" + ",".join(items) + "]")
        if value is None or isinstance(value, bool | int | float):
            return _dump(value)
        raise _NotJson

    def small(self, value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> str | None:
        """The node's JSON in one call of the C encoder when it is stored inline as it stands: short, and
        no "$" key anywhere in it. None otherwise: it is walked piece by piece. (A key that is not a
        string is written as the string JSON makes of it, as the walk's JSON round trip would.)"""
        if _surely_long(value):  # its JSON would be encoded only to learn that: walked at once
            return None
        try:
            body = _dump(value)
        except (TypeError, ValueError):
            return None
        # A "$" key anywhere would need wrapping; `"$"` in the text may also be a value: walked then.
        if len(body) > INLINE or '"$"' in body:
            return None
        return body

    def ref(self, body: str) -> str:
        if len(body) <= INLINE:
            return body
        return '{"$":"r","h":"' + put_part(self.conn, body.encode()) + '"}'

    def string(self, value: str) -> dict[str, Any]:
        match = _BASE64.fullmatch(value)
        if match:
            h = base64_part(self.conn, match.group(2))
            if h is not None:
                return {"$": "b", "h": h, "p": match.group(1) or ""}
        return {"$": "s", "h": put_part(self.conn, value.encode())}

    def chunks(self, items: list[str], depth: int) -> str:
        hashes, chunk = [], []
        for item in items:
            chunk.append(item)
            if len(chunk) >= CHUNK_MAX or zlib.crc32(item.encode()) & CHUNK_MASK == 0:
                hashes.append(put_part(self.conn, ("[" + ",".join(chunk) + "]").encode()))
                chunk = []
        if chunk:
            hashes.append(put_part(self.conn, ("[" + ",".join(chunk) + "]").encode()))
        if len(hashes) > CHUNK_MAX:
            return self.chunks([f'"{h}"' for h in hashes], depth + 1)
        return _dump({"$": "l", "h": hashes, "d": depth})


class _NotJson(Exception):
    """A value JSON would write differently (a tuple key, an object): packed after a JSON round trip."""


def pack(conn: sqlite3.Connection, value: Any) -> str:
    """Store a JSON value as parts; returns the small root text that `unpack` reads back."""
    try:
        return _Packer(conn).text(value)
    except _NotJson:
        return _Packer(conn).text(json.loads(json.dumps(value, ensure_ascii=False)))


def unpack(read: Reader, text: str) -> Any:
    """The value `pack` stored, exactly as `json.loads(json.dumps(value))` would give it."""

    def restore(node: dict[str, Any]) -> Any:  # called by the JSON parser on each dict, inner first
        tag = node.get("$")  # only a packed node has a "$" key: a value's own dict with one is wrapped
        if tag is None:
            return node
        if tag == "o":
            return dict(zip(node["k"], node["v"], strict=True))
        if tag == "r":
            return json.loads(read(node["h"]), object_hook=restore)
        if tag == "s":
            return read(node["h"]).decode()
        if tag == "b":
            return node["p"] + base64.b64encode(read(node["h"])).decode("ascii")
        if tag == "l":
            return elements(node["h"], node["d"])
        raise ValueError(f"unknown packed node {tag!r}")

    def elements(hashes: list[str], depth: int) -> list[Any]:
        out: list[Any] = []
        for h in hashes:
            out.extend(
                json.loads(read(h), object_hook=restore)
                if depth == 1
                else elements(json.loads(read(h)), depth - 1)
            )
        return out

    return json.loads(text, object_hook=restore)


def unpack_field(read: Reader, text: str, key: str) -> Any:
    """One field of a packed dict (None if it has none), without reading the other fields' parts: the
    tools of a long session's request, say, without its messages and files."""
    root = json.loads(text)
    while isinstance(root, dict) and root.get("$") == "r":  # a large root is itself a part
        root = json.loads(read(root["h"]))
    if not isinstance(root, dict):
        return None
    if root.get("$") == "o":  # a dict that has a "$" key of its own
        root = dict(zip(root["k"], root["v"], strict=True))
    if key not in root:
        return None
    return unpack(read, json.dumps(root[key]))


def reader(conn: sqlite3.Connection) -> Reader:
    """Read parts through one connection, each part once (a history's requests share most of theirs)."""
    cache: dict[str, bytes] = {}

    def read(h: str) -> bytes:
        data = cache.get(h)
        if data is None:
            data = cache[h] = get_part(conn, h)
        return data

    return read
