"""A store path that is not a file: `.mewrk/mewrk.db` made a folder (by a copy gone wrong, a mount) is
refused with the store's sentence, instead of SQLite's raw error."""

import pytest

import mewrk_jupyter as mw


def test_a_store_that_is_a_folder_is_refused_with_a_sentence(workspace):
    (workspace / ".mewrk" / "mewrk.db").mkdir(parents=True)
    with pytest.raises(mw.StoreError) as err:
        mw.Session.new()
    assert str(err.value).startswith("The store ")
    assert "is a folder, not a file" in str(err.value)
    assert (workspace / ".mewrk" / "mewrk.db").is_dir()  # left as it was
