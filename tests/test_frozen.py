"""quick_init: the per-token events built through their slots are the same frozen values."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from mewrk_jupyter.engine.events import TextDelta as TextAppended
from mewrk_jupyter.frozen import quick_init
from mewrk_jupyter.providers.base import TextDelta, ThinkingDelta


@dataclasses.dataclass(frozen=True, slots=True)
class Plain:
    index: int
    text: str


@quick_init
@dataclasses.dataclass(frozen=True, slots=True)
class Quick:
    index: int
    text: str


def test_an_event_built_quickly_equals_one_built_by_the_dataclass_and_stays_frozen() -> None:
    quick = Quick(3, "abc")
    assert (quick.index, quick.text) == (3, "abc")
    assert quick == Quick(index=3, text="abc")
    assert hash(quick) == hash(Quick(3, "abc"))
    assert repr(quick) == repr(Plain(3, "abc")).replace("Plain", "Quick")
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.text = "changed"  # type: ignore[misc]
    assert dataclasses.replace(quick, text="x") == Quick(3, "x")
    assert copy.copy(quick) == quick
    assert pickle.loads(pickle.dumps(TextDelta(1, "t"))) == TextDelta(1, "t")
    match quick:
        case Quick(index=i, text=t):
            assert (i, t) == (3, "abc")
    with pytest.raises(TypeError):
        Quick(1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick(1, "a", "b")  # type: ignore[call-arg]


def test_the_per_token_events_are_built_quickly_and_stay_frozen() -> None:
    for event in (TextDelta(0, "a"), ThinkingDelta(0, "a"), TextAppended("s", "c", "a")):
        assert type(event).__init__.__qualname__ == f"{type(event).__qualname__}.__init__"
        assert "_set_text" in type(event).__init__.__code__.co_names
        with pytest.raises(dataclasses.FrozenInstanceError):
            event.text = "b"  # type: ignore[misc]
    assert TextAppended(session_id="s", card_id="c", text="a").card_id == "c"


def test_a_class_it_cannot_build_is_refused_with_the_reason() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(slots=True)
    class NotFrozen:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithDefault:
        a: int = 0

    with pytest.raises(TypeError, match="frozen dataclass with slots"):
        quick_init(NoSlots)
    with pytest.raises(TypeError, match="frozen dataclass with slots"):
        quick_init(NotFrozen)

    @dataclasses.dataclass(frozen=True, slots=True)
    class KeywordOnly:
        a: int = dataclasses.field(kw_only=True)

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithInitVar:
        a: int
        b: dataclasses.InitVar[int]

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithPostInit:
        a: int

        def __post_init__(self) -> None:
            pass

    for cls in (WithDefault, KeywordOnly, WithInitVar, WithPostInit):
        with pytest.raises(TypeError, match="every field required and positional"):
            quick_init(cls)
