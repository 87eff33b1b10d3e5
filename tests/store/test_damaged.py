"""Damaged stores stay untouched: a store whose pages are damaged (its header intact) is refused with the
store's sentence, before anything is written, and damage found later stops every write."""

import hashlib
import random
import threading

import pytest

import mewrk_jupyter as mw
from tests.conftest import forget_process_state


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def filled_store(workspace) -> tuple[str, object]:
    """A real session's store, many pages long, closed as a process leaves it (no write-ahead log left)."""
    s = mw.Session.new()
    for i in range(30):
        s.send(f"message {i}: " + "some words of the question " * 20)
    path = s.stored_timeline.db.path
    forget_process_state()
    assert not path.with_name(path.name + "-wal").exists()
    return s.id, path


def damage(path, seed: int, pages: int = 1) -> None:
    """Overwrite whole pages in the middle of the file with noise; the header (page 1) stays intact."""
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    count = len(data) // page_size
    rng = random.Random(seed)
    first = count // 2
    for page in range(first, min(first + pages, count)):
        data[page * page_size : (page + 1) * page_size] = rng.randbytes(page_size)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("seed", range(3))
def test_a_store_with_damaged_pages_is_refused_and_its_bytes_stay_as_they_were(workspace, seed):
    session_id, path = filled_store(workspace)
    damage(path, seed)
    before = digest(path)
    attempts = {
        "open": lambda: mw.Session.open(session_id),
        "list": mw.list_sessions,
        "new": lambda: mw.Session.new(),
        "send": lambda: mw.Session.open(session_id).send("are you there?"),
    }
    for name, attempt in attempts.items():
        with pytest.raises(mw.StoreError) as refused:
            attempt()
        message = str(refused.value)
        assert message.startswith(f"The store {path} is damaged ("), (name, message)
        assert message.endswith(
            "and it was left untouched: move it aside to start with an empty store, or restore it from a backup."
        )
        forget_process_state()
    assert digest(path) == before


def test_damage_found_after_opening_is_the_store_error_and_nothing_more_is_written(workspace):
    session_id, path = filled_store(workspace)
    s = mw.Session.open(session_id)
    cards = len(s.cards)
    damage(path, seed=7, pages=path.stat().st_size // 4096 // 2)  # half the pages, under the open store
    before = digest(path)
    found: list[BaseException] = []

    def read_elsewhere() -> None:  # a new thread's connection reads the pages from the file again
        try:
            s.history  # noqa: B018
        except BaseException as exc:
            found.append(exc)

    reader = threading.Thread(target=read_elsewhere)
    reader.start()
    reader.join()
    assert len(found) == 1 and isinstance(found[0], mw.StoreError), found
    assert str(found[0]).startswith(f"The store {path} is damaged (database disk image is malformed)")
    assert "nothing more is written to it" in str(found[0])
    with pytest.raises(mw.StoreError, match="damaged"):
        s.insert(mw.UserInput(text="one more card"))
    assert len(s.cards) == cards  # the refused card is not on the timeline either
    forget_process_state()
    assert digest(path) == before
