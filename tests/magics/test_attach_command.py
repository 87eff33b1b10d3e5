"""`%mewrk attach NAME|Out[N]|In[N]` and `/attach` in the composer: the kernel's objects as cards."""

import pandas as pd
import pytest

import mewrk_jupyter as mw
from mewrk_jupyter import magics
from mewrk_jupyter.widget.commands import run_command


def test_attach_a_variable_an_output_and_a_cell_source(ip, mewrk):
    ip.user_ns["sales"] = pd.DataFrame({"region": ["north", "south"], "total": [10, 20]})
    ip.run_cell("40 + 2", store_history=True)
    n = ip.execution_count - 1
    mewrk("new")
    shown = mewrk("attach sales")
    session = magics.current_session()
    table = session.cards[-1]
    assert (
        "Attached `sales` at the end of the timeline; the model reads it with your next message." in shown
        and table.id in shown
    )
    assert table.text.startswith("`sales`: pandas DataFrame, 2 rows × 2 columns")
    mewrk(f"attach Out[{n}]")
    assert session.cards[-1].text == f"`Out[{n}]`: int\n\n```\n42\n```"
    mewrk(f"attach In[{n}]")
    assert session.cards[-1].text == f"`In[{n}]`:\n\n```\n40 + 2\n```"
    assert [c.kind for c in session.cards] == ["user_input"] * 3  # nothing was sent


def test_attach_of_an_unknown_name_says_so_and_adds_nothing(mewrk):
    mewrk("new")
    shown = mewrk("attach no_such_variable")
    assert "`no_such_variable` is not a name or an expression of names defined in the kernel" in shown
    assert magics.current_session().cards == []


def test_attach_of_an_output_that_does_not_exist_speaks_of_attaching_not_of_braces(ip, mewrk):
    mewrk("new")
    shown = mewrk("attach Out[99]")
    assert shown.endswith(
        " could not be attached (KeyError: 99); nothing was added to the timeline — "
        "check the name or the cell number, or run the cell that makes it first."
    )
    assert "interpolated" not in shown and "braces" not in shown
    with pytest.raises(mw.InvalidInput, match=r"^`Out\[99\]` could not be attached \(KeyError: 99\)"):
        run_command(magics.current_session(), "/attach Out[99]")  # the composer's words, plain
    refused = mewrk("attach eval('1')")
    assert " was not attached: it calls " in refused and "attach the result" in refused
    assert "interpolated" not in refused
    assert magics.current_session().cards == []


def test_the_composer_attaches_through_the_same_table(ip, mewrk):
    ip.user_ns["numbers"] = [1, 2, 3]
    mewrk("new")
    session = magics.current_session()
    answer = run_command(session, "/attach numbers")
    said, data = answer.message, answer.data
    assert said == "Attached `numbers` at the end of the timeline; the model reads it with your next message."
    assert data["card_id"] == session.cards[-1].id and "[1, 2, 3]" in session.cards[-1].text


def test_export_writes_the_notebook_from_a_cell(mewrk, workspace):
    mewrk("new")
    mewrk("send hello")
    shown = mewrk("export talk.ipynb")
    assert f"Exported the session to `{workspace / 'talk.ipynb'}`." in shown
    assert (workspace / "talk.ipynb").exists()


def test_export_to_a_place_that_cannot_be_written_says_why_in_the_cell(mewrk, workspace):
    mewrk("new")
    (workspace / "taken").write_text("a file")
    shown = mewrk("export taken/talk.ipynb")
    assert shown.startswith("**mewrk:** Could not write `") and "taken` is a file, not a folder." in shown
    assert "Traceback" not in shown


def test_export_elsewhere_says_the_full_path_written_in_every_surface(mewrk, workspace, tmp_path):
    mewrk("new")
    mewrk("send hello")
    session = magics.current_session()
    elsewhere = tmp_path / "elsewhere"
    written = session.export(
        "../elsewhere/py.ipynb"
    )  # a path as a person types it, relative to the workspace
    assert written == elsewhere / "py.ipynb" and written.is_file()
    answer = run_command(session, f"/export {elsewhere}/x.ipynb")
    said, data = answer.message, answer.data
    assert said == f"Exported the session to {elsewhere / 'x.ipynb'}." and data["path"] == str(
        elsewhere / "x.ipynb"
    )
    shown = mewrk(f"export {elsewhere}/cell.md")
    assert f"Exported the session to `{elsewhere / 'cell.md'}`." in shown
