"""preferences.yaml: validated like every configuration file, read leniently, written atomically (T8)."""

from __future__ import annotations

import pytest

from mewrk_jupyter.config import InvalidConfig, validate_file
from mewrk_jupyter.config.preferences import Preferences
from mewrk_jupyter.config.preferences_file import preference_notes, read_preferences, write_preferences
from mewrk_jupyter.errors import InvalidInput


def test_no_file_gives_the_defaults(home):
    found, problems = read_preferences(home)
    assert problems == ()
    assert found == Preferences(
        confirm_delete=False,
        auto_compaction=True,
        handoff_threshold=80,
        native_threshold=90,
        keep_user_tokens=64_000,
    )


def test_validate_file_knows_the_preferences_file(home, write):
    path = write("preferences.yaml", "confirm_delete: true\nkeep_user_tokens: 0\n")
    assert validate_file("preferences", path).confirm_delete is True
    assert validate_file("preferences", "handoff_threshold: 97\n").handoff_threshold == 97
    with pytest.raises(InvalidConfig) as caught:
        validate_file("preferences", "native_threshold: 10\nconfirm: true\n")
    problems = {p.field: (p.message, p.line) for p in caught.value.problems}
    assert problems["native_threshold"] == (
        "native_threshold must be a whole number from 20 to 97 (percent of the window), not 10",
        1,
    )
    assert "unknown field 'confirm' (allowed: confirm_delete, auto_compaction" in problems["confirm"][0]
    assert all(p.file == "preferences.yaml" for p in caught.value.problems)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "keep_user_tokens: 200000\n",
            "keep_user_tokens must be a whole number from 0 to 128,000, not 200000",
        ),
        ("keep_user_tokens: 1000.5\n", "keep_user_tokens must be a whole number from 0 to 128,000"),
        ("auto_compaction: yes please\n", "auto_compaction must be true or false"),
        (
            "handoff_threshold: .nan\n",
            "handoff_threshold must be a whole number from 20 to 97 (percent of the window)",
        ),
        (
            "handoff_threshold: 82.5\n",
            "handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 82.5",
        ),
        (
            "handoff_threshold: 0.825\n",
            "handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 0.825",
        ),
        ("confirm_delete: 1\n", "confirm_delete must be true or false, not 1"),
        ("- a list\n", "the file must be a mapping of fields"),
        ("confirm_delete: [unclosed\n", "YAML syntax error at line"),
    ],
)
def test_an_invalid_file_is_left_out_and_the_defaults_act(home, write, text, said):
    write("preferences.yaml", text)
    found, problems = read_preferences(home)
    assert found == Preferences()
    assert any(said in p.message for p in problems), problems
    assert all(p.file == "preferences.yaml" for p in problems)


def test_an_empty_or_comment_only_file_keeps_the_defaults(home, write):
    write("preferences.yaml", "# confirm_delete: true\n")
    assert read_preferences(home) == (Preferences(), ())


def test_a_write_changes_only_its_values_and_keeps_comments_and_the_other_fields(home, write):
    path = write(
        "preferences.yaml",
        """\
        # my preferences
        confirm_delete: false   # ask before deleting?
        keep_user_tokens: 1000

        # the end
        """,
    )
    result = write_preferences(home, {"confirm_delete": True, "native_threshold": 50})
    assert result.confirm_delete and result.native_threshold == 50 and result.keep_user_tokens == 1000
    assert path.read_text() == (
        "# my preferences\n"
        "confirm_delete: true   # ask before deleting?\n"
        "keep_user_tokens: 1000\n"
        "\n"
        "# the end\n"
        "native_threshold: 50\n"
    )
    assert read_preferences(home) == (result, ())
    assert [p.name for p in home.iterdir()] == ["preferences.yaml"]  # no temporary file left behind


def test_a_file_that_cannot_be_edited_line_by_line_is_written_again_with_every_value(home, write):
    path = write("preferences.yaml", "{keep_user_tokens: 10, auto_compaction: false}\n")
    write_preferences(home, {"handoff_threshold": 25})
    assert read_preferences(home)[0] == Preferences(
        keep_user_tokens=10, auto_compaction=False, handoff_threshold=25
    )
    assert "native_threshold" not in path.read_text()  # defaults it left out are not added


def test_the_folder_is_made_when_missing(tmp_path):
    home = tmp_path / "new" / ".mewrk"
    write_preferences(home, {"auto_compaction": False})
    assert (home / "preferences.yaml").read_text() == "auto_compaction: false\n"


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        (
            {"handoff_threshold": 98},
            "handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 98",
        ),
        (
            {"handoff_threshold": 0.8},
            "handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 0.8 (in percent: for 80 % of the window write 80)",
        ),
        ({"keep_user_tokens": -1}, "keep_user_tokens must be a whole number from 0 to 128,000, not -1"),
        ({"confirm_delete": "true"}, "confirm_delete must be true or false, not 'true'"),
        ({"auto_compaction": None}, "auto_compaction must be true or false, not None"),
        (
            {"confirm_delete": True, "typo": 1},
            "There is no preference 'typo'; the preferences are confirm_delete,",
        ),
    ],
)
def test_a_refused_write_leaves_the_file_byte_identical(home, write, changes, said):
    path = write("preferences.yaml", "# keep me\r\nconfirm_delete: false\r\n")
    before = path.read_bytes()
    with pytest.raises(InvalidInput) as caught:
        write_preferences(home, changes)
    assert said in str(caught.value)
    assert path.read_bytes() == before


def test_an_invalid_file_is_not_overwritten_by_a_write(home, write):
    path = write("preferences.yaml", "handoff_threshold: 3\n")
    with pytest.raises(InvalidInput) as caught:
        write_preferences(home, {"confirm_delete": True})
    assert str(caught.value) == (
        "preferences.yaml is invalid (handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 3), so it "
        "was not changed; fix or delete the file, then set the preferences again."
    )
    assert path.read_text() == "handoff_threshold: 3\n"


def test_crlf_lines_keep_their_endings(home, write):
    path = home / "preferences.yaml"
    path.write_bytes(b"confirm_delete: false\r\nkeep_user_tokens: 5\r\n")
    write_preferences(home, {"keep_user_tokens": 6})
    assert path.read_bytes() == b"confirm_delete: false\r\nkeep_user_tokens: 6\r\n"


def test_an_older_file_s_fractions_are_read_as_the_percents_they_meant_with_a_note(home, write):
    write("preferences.yaml", "handoff_threshold: 0.85   # hand off early\nnative_threshold: 0.9\n")
    found, problems = read_preferences(home)
    assert problems == ()  # the file is used, its meaning unchanged
    assert (found.handoff_threshold, found.native_threshold) == (85, 90)
    notes = preference_notes(home)
    assert [(n.field, n.line) for n in notes] == [("handoff_threshold", 1), ("native_threshold", 2)]
    assert notes[0].message == (
        "handoff_threshold: 0.85 is read as 85 % of the window, as before; thresholds are written in "
        "percent now — write `handoff_threshold: 85`"
    )


def test_a_write_turns_an_older_file_s_fractions_into_the_same_percents(home, write):
    path = write("preferences.yaml", "handoff_threshold: 0.85   # hand off early\nconfirm_delete: false\n")
    write_preferences(home, {"confirm_delete": True})
    assert path.read_text() == "handoff_threshold: 85   # hand off early\nconfirm_delete: true\n"
    assert preference_notes(home) == ()
