"""Content-addressed parts: a JSON value packed into parts reads back exactly, and is stored once."""

import base64
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mewrk_jupyter.store.db import Database
from mewrk_jupyter.store.parts import pack, reader, unpack, unpack_field


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "store.db")
    yield database
    database.close()


def stored(db: Database) -> tuple[int, int]:
    """How many parts the store holds, and their bytes."""
    row = db.conn().execute("SELECT count(*), COALESCE(SUM(length(data)), 0) FROM blobs").fetchone()
    return row[0], row[1]


def roundtrip(db: Database, value):
    with db.tx() as conn:
        root = pack(conn, value)
    return root, unpack(reader(db.conn()), root)


FILE = os.urandom(50_000)
TRICKY = {
    "$": "a dict of the value with a dollar key",
    "nested": [{"$": "r", "h": "not a reference"}, {"$": "o", "k": [], "v": []}] * 40,
    "text": "ünïcødé — " * 1000,
    "image": base64.b64encode(FILE).decode(),
    "data_url": "data:application/pdf;base64," + base64.b64encode(FILE).decode(),
    "almost_base64": "QR==" * 2000,  # valid characters, but it would not read back the same decoded
    "not_base64": "a line\n" * 1000,
    "numbers": [0, -1, 2**70, 1.5, 1e-300, float("inf"), True, False, None],
    "long_list": [{"role": "user", "text": f"message {i} " * (i % 7)} for i in range(3000)],
    "lists_of_lists": [[i, [i, {"k": str(i)}]] for i in range(500)],
    "empty": [{}, [], "", {"": ""}],
}


def test_a_packed_value_reads_back_as_json_would_give_it(db):
    root, back = roundtrip(db, TRICKY)
    assert back == json.loads(json.dumps(TRICKY))
    assert json.dumps(back) == json.dumps(json.loads(json.dumps(TRICKY)))  # key order too
    assert len(root) < 200  # the row keeps a root; the content is in parts


def test_one_field_reads_back_without_the_others_parts(db):
    with db.tx() as conn:
        root = pack(conn, TRICKY)
        small = pack(conn, {"tools": [{"name": "read"}], "model": "m"})
    asked = []
    read = reader(db.conn())

    def counting(h: str) -> bytes:
        asked.append(h)
        return read(h)

    assert unpack_field(counting, root, "lists_of_lists") == TRICKY["lists_of_lists"]
    every = []
    unpack(lambda h: every.append(h) or read(h), root)
    assert 0 < len(asked) < len(every) / 4  # the long list, the image and the texts stay unread
    assert unpack_field(counting, root, "$") == TRICKY["$"]  # a dict with a "$" key of its own
    assert unpack_field(read, small, "tools") == [{"name": "read"}]
    assert unpack_field(read, small, "messages") is None


def test_values_json_would_rewrite_are_packed_as_json_would_write_them(db):
    value = {"t": (1, 2), 3: "int key", "nested": [{True: None}]}
    assert roundtrip(db, value)[1] == json.loads(json.dumps(value))


def test_the_same_content_is_stored_once(db):
    roundtrip(db, TRICKY)
    before = stored(db)
    roundtrip(db, TRICKY)
    roundtrip(db, {"other": "root", "same": TRICKY})
    count, size = stored(db)
    assert size - before[1] < 2_000 and count - before[0] <= 2


def test_a_file_is_stored_as_its_bytes_once_whether_plain_or_in_a_data_url(db):
    encoded = base64.b64encode(os.urandom(200_000)).decode()
    roundtrip(db, {"a": encoded, "b": "data:image/png;base64," + encoded, "c": [encoded]})
    assert 200_000 <= stored(db)[1] < 210_000  # not the 267 kB of base64, and not three times


def test_an_edit_in_the_middle_of_a_long_list_stores_a_few_chunks_not_the_rest(db):
    messages = [{"role": "user", "text": f"message {i} " + "lorem ipsum " * 20} for i in range(4000)]
    roundtrip(db, {"messages": messages})
    before = stored(db)[1]
    changed = [*messages[:2000], {"role": "user", "text": "inserted"}, *messages[2000:]]
    changed[100] = {"role": "user", "text": "edited"}
    root, back = roundtrip(db, {"messages": changed})
    assert back == {"messages": changed}
    grown = stored(db)[1] - before
    assert grown < 40_000, grown  # the whole list is 1.1 MB


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=8)
        | st.dictionaries(st.sampled_from(["$", "h", "k", "v", "o"]) | st.text(max_size=4), inner, max_size=6)
        | st.dictionaries(st.integers(-3, 3), inner, max_size=3)
    ),  # keys JSON turns into strings
    max_leaves=60,
)


@settings(max_examples=150, deadline=None)
@given(value=JSON_VALUES, padding=st.integers(0, 1500))
def test_any_json_value_reads_back_as_json_would_give_it(tmp_path_factory, value, padding):
    """Small nodes go out in one piece and large ones in parts: either way the value reads back."""
    database = Database(tmp_path_factory.mktemp("parts") / "store.db")
    try:
        whole = {"value": value, "padding": "x" * padding, "list": [value] * 3}
        assert roundtrip(database, whole)[1] == json.loads(json.dumps(whole))
    finally:
        database.close()
