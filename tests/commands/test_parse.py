"""The one parser of `%mewrk …` and `/…` lines: arguments as a shell splits them, free text as typed."""

from __future__ import annotations

import pytest

from mewrk_jupyter.commands import (
    COMMANDS,
    COMPOSER,
    NOTEBOOK,
    Command,
    Result,
    UsageProblem,
    parse,
    split_name,
)


def test_a_line_splits_into_a_lower_case_name_and_the_rest():
    assert split_name("  Undo  ") == ("undo", "")
    assert split_name("edit -1  Two  spaces stay") == ("edit", "-1  Two  spaces stay")
    assert split_name("") == ("", "")


def test_arguments_are_split_as_a_shell_would_and_a_comment_is_dropped():
    delete = COMMANDS["delete"]
    assert parse(delete, "-1 'a b'") == (["-1", "a b"], "")
    assert parse(delete, "-1 -2   # the last two") == (["-1", "-2"], "")
    with pytest.raises(UsageProblem):
        parse(delete, "'unbalanced")
    with pytest.raises(UsageProblem):
        parse(delete, "")


def test_free_text_stays_as_typed_and_one_quoted_string_loses_its_quotes():
    edit, send = COMMANDS["edit"], COMMANDS["send"]
    assert parse(edit, "-1 What's up? # not a comment") == (["-1"], "What's up? # not a comment")
    assert parse(send, '"a quoted question"') == ([], "a quoted question")
    assert parse(send, "") == ([], "")
    with pytest.raises(UsageProblem):
        parse(edit, "-1")  # TEXT is required, [TEXT] is not


def test_a_cell_body_is_the_free_text_and_only_a_free_text_command_takes_one():
    send, cards = COMMANDS["send"], COMMANDS["cards"]
    assert parse(send, "", "line one\n\n  two\n") == ([], "line one\n\n  two\n")
    with pytest.raises(UsageProblem):
        parse(send, "on the line", "and in the body")
    with pytest.raises(UsageProblem):
        parse(cards, "", "a body")
    assert parse(cards, "", "  \n") == ([], "")


def test_reason_is_free_text_too():
    approve = COMMANDS["approve"]
    assert approve.shape() == (0, 0, "[REASON]")
    assert parse(approve, "always it's only a read", surface=COMPOSER) == ([], "always it's only a read")


def test_a_surface_may_take_other_arguments():
    branch = COMMANDS["branch"]
    assert branch.shape(NOTEBOOK) == (1, 1, "") and branch.shape(COMPOSER) == (0, 1, "")
    with pytest.raises(UsageProblem):
        parse(branch, "", surface=NOTEBOOK)
    assert parse(branch, "", surface=COMPOSER) == ([], "")
    assert COMMANDS["history"].shape(NOTEBOOK) == (0, 1, "") and COMMANDS["history"].shape(COMPOSER) == (
        0,
        0,
        "",
    )


def test_the_shape_comes_from_the_synopsis():
    def nothing(_call):
        return Result()

    assert Command("x", "NAME [TEXT]", "", nothing).shape() == (1, 1, "[TEXT]")
    assert Command("x", "[--model vendor/model] [TITLE…]", "", nothing).shape() == (0, None, "")
    assert Command("x", "CARD [CARD…]", "", nothing).shape() == (1, None, "")
