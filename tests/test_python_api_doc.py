"""docs/python-api.md describes every public name of the Python surface — `mw.__all__`, what a session,
a run and the settings editor offer, the card kinds, the events a subscriber receives — names only what
exists, and its examples run as written."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import CARD_CLASSES
from mewrk_jupyter.engine.events import SessionEvent
from mewrk_jupyter.engine.turns.run import Run

from .conftest import run_python

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "python-api.md"
# How the page writes a name of each object: `s.send(…)`, `mw.Session.new(…)`, `run.wait()`, `ed.read(…)`.
SESSION = r"`(?:s|mw\.Session|Session)\.{}\b"
MODULE = r"`mw\.{}\b"
RUN = r"`run\.{}\b"


def _text() -> str:
    return PAGE.read_text(encoding="utf-8")


def _public(names: typing.Iterable[str]) -> set[str]:
    return {name for name in names if not name.startswith("_")}


def _missing(names: set[str], pattern: str) -> list[str]:
    text = _text()
    return sorted(name for name in names if not re.search(pattern.format(re.escape(name)), text))


def _session_and_run() -> tuple[mw.Session, Run]:
    s = mw.Session.new(title="names")
    return s, s.send("hello")


def test_every_name_of_the_package_is_described(workspace):
    missing = _missing(set(mw.__all__), MODULE)
    assert not missing, f"names of mewrk_jupyter.__all__ that docs/python-api.md does not describe: {missing}"


def test_every_method_property_and_attribute_of_a_session_is_described(workspace):
    s, _ = _session_and_run()
    names = _public(dir(mw.Session)) | _public(vars(s))
    missing = _missing(names, SESSION)
    assert not missing, f"Session names that docs/python-api.md does not describe: {missing}"


def test_every_name_of_a_run_is_described(workspace):
    _, run = _session_and_run()
    names = _public(dir(Run)) | _public(vars(run))
    missing = _missing(names, RUN)
    assert not missing, f"Run names that docs/python-api.md does not describe: {missing}"


def test_every_card_kind_and_event_is_described():
    text = _text()
    kinds = sorted(kind for kind in CARD_CLASSES if f"`{kind}`" not in text)
    events = sorted(
        event.__name__ for event in typing.get_args(SessionEvent) if f"`{event.__name__}`" not in text
    )
    assert not kinds and not events, f"not described: card kinds {kinds}, events {events}"


def test_the_page_names_only_what_exists(workspace):
    s, run = _session_and_run()
    text = _text()
    gone = [f"s.{n}" for n in re.findall(r"`s\.(\w+)", text) if not hasattr(s, n)]
    gone += [f"mw.{n}" for n in re.findall(r"`mw\.(\w+)", text) if not hasattr(mw, n)]
    gone += [f"run.{n}" for n in re.findall(r"`run\.(\w+)", text) if not hasattr(run, n)]
    gone += [f"ed.{n}" for n in re.findall(r"`ed\.(\w+)", text) if not hasattr(mw.SettingsEditor, n)]
    assert not gone, f"docs/python-api.md names what does not exist: {sorted(set(gone))}"


def test_the_examples_run_as_written(workspace):
    blocks = re.findall(r"```python\n(.*?)```", _text(), re.S)
    assert len(blocks) >= 10  # one or two per group of names
    script = "".join(blocks) + "print('examples ran:', len(s.cards), 'cards')\n"
    done = run_python(script, workspace, timeout=120)  # an empty folder, a private HOME
    assert done.returncode == 0, done.stderr
    assert "examples ran:" in done.stdout
    assert (workspace / "talk.ipynb").is_file() and (workspace / "talk.md").is_file()
    assert (workspace / ".mewrk" / "preferences.yaml").read_text() == "confirm_delete: true\n"
