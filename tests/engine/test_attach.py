"""`s.attach(obj)`: an object of the kernel as a user input — tables, arrays, figures, images, errors, text."""

import base64
import io
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest
from PIL import Image

import mewrk_jupyter as mw
from mewrk_jupyter.engine.represent import MAX_ROWS, MAX_TEXT_CHARS

matplotlib.use("Agg")  # no display in tests; a figure still draws to PNG
from matplotlib import pyplot as plt  # noqa: E402 — after choosing the backend


def test_a_dataframe_is_a_bounded_markdown_table_with_shape_dtypes_and_what_was_left_out(workspace):
    df = pd.DataFrame({"city": [f"c{i}" for i in range(50)], "sales": [i * 1.5 for i in range(50)]})
    s = mw.Session.new()
    card = s.attach(df, "df")
    assert card.kind == "user_input" and s.cards == [card]
    assert card.attached == "df"  # its text is Markdown the engine wrote: the widget renders the table
    lines = card.text.splitlines()
    assert lines[0] == "`df`: pandas DataFrame, 50 rows × 2 columns"
    assert (
        "dtypes: `city` object, `sales` float64" in card.text
        or "dtypes: `city` str, `sales` float64" in card.text
    )
    assert "|  0 | c0     |     0   |" in card.text  # tabulate's Markdown table
    assert f"c{MAX_ROWS - 1}" in card.text and f"c{MAX_ROWS}" not in card.text
    assert card.text.endswith(f"_Not shown: {50 - MAX_ROWS} more rows._")
    s.send("What stands out?")
    sent = s.history[-1].request["messages"][0]["parts"]
    assert sent[0]["text"] == card.text  # the table reaches the model as the card shows it


def test_a_series_and_a_wide_frame_say_what_they_hold(workspace):
    s = mw.Session.new()
    series = s.attach(pd.Series([1, 2, 3], name="n"), "counts")
    assert series.text.startswith("`counts`: pandas Series `n`, 3 values, dtype int64")
    wide = s.attach(pd.DataFrame([[0] * 30]), "wide")
    assert wide.text.endswith("_Not shown: 10 more columns._")


def test_a_numpy_array_gives_shape_dtype_and_a_bounded_preview(workspace):
    s = mw.Session.new()
    card = s.attach(np.arange(10_000).reshape(100, 100), "grid")
    assert card.text.startswith("`grid`: NumPy array, shape 100 × 100, dtype int64")
    assert "..." in card.text and "9999" in card.text and len(card.text) < 2_000


def png_size(card):
    data = base64.b64decode(card.attachments[0].data)
    return Image.open(io.BytesIO(data)).size


def test_a_figure_and_an_image_become_png_attachments_under_the_vision_gate(workspace):
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([1, 3, 2])
    s = mw.Session.new()
    figure = s.attach(fig, "fig")
    plt.close(fig)
    assert figure.attachments[0].media_type == "image/png" and figure.attachments[0].name == "fig.png"
    assert png_size(figure)[0] > 0
    picture = s.attach(Image.new("RGB", (7, 5), "red"), "img")
    assert picture.text == "`img`: an image, 7 × 5 pixels, mode RGB (attached as PNG)"
    assert png_size(picture) == (7, 5)
    # The offline models read no images: sending is refused until the model changes or the images go.
    with pytest.raises(mw.InvalidInput, match="holds images .*fig.png, img.png.* has no vision input"):
        s.send("what do you see?")


def test_an_exception_carries_its_traceback_and_long_text_is_cut(workspace):
    try:
        {}["missing"]
    except KeyError as exc:
        error = exc
    s = mw.Session.new()
    card = s.attach(error, "err")
    assert card.text.startswith("`err`: KeyError") and "Traceback (most recent call last)" in card.text
    assert "KeyError: 'missing'" in card.text
    long = s.attach("x" * (MAX_TEXT_CHARS + 10), "log")
    assert (
        f"[cut: {MAX_TEXT_CHARS + 10:,} characters in all, the first {MAX_TEXT_CHARS:,} shown]" in long.text
    )
    plain = s.attach({"a": 1})
    assert plain.text == "`dict`: dict\n\n```\n{'a': 1}\n```"


def test_attach_is_refused_while_a_turn_runs_like_an_insert(workspace):
    s = mw.Session.new(model="offline/slow")
    run = s.send("long: 400", wait=False)
    with pytest.raises(mw.SessionBusy):
        s.attach(1, "one")
    s.stop()
    run.wait()


def test_without_tabulate_a_table_goes_as_pandas_plain_text(workspace, monkeypatch):
    monkeypatch.setitem(sys.modules, "tabulate", None)  # as in a kernel without the `notebook` extra
    s = mw.Session.new()
    card = s.attach(pd.DataFrame({"a": [1, 2]}), "df")
    assert card.text.endswith("```\n   a\n0  1\n1  2\n```")


def test_long_values_in_a_table_are_cut_so_the_table_stays_bounded(workspace, monkeypatch):
    s = mw.Session.new()
    frame = s.attach(pd.DataFrame({"note": ["y" * 3_000] * 30, "n": range(30)}), "notes")
    assert len(frame.text) < 10_000  # 20 rows of 3,000 characters each would be 60,000
    assert frame.text.splitlines()[0] == "`notes`: pandas DataFrame, 30 rows × 2 columns"
    assert "y" * 3_000 not in frame.text and "y" * 100 in frame.text
    assert frame.text.endswith(
        "_Not shown: 10 more rows._\n\n_Values longer than 200 characters are cut to their first 200 (20 values)._"
    )
    series = s.attach(pd.Series(["z" * 5_000, "short"], name="text"), "texts")
    assert "z" * 201 not in series.text and "| short " in series.text
    assert series.text.endswith("_Values longer than 200 characters are cut to their first 200 (1 value)._")
    monkeypatch.setitem(sys.modules, "tabulate", None)  # pandas' plain text cuts the same values
    plain = s.attach(pd.DataFrame({"note": ["y" * 3_000] * 3}), "plain")
    assert "y" * 201 not in plain.text and "(3 values)" in plain.text
