"""`%mewrk set`: the conversation settings from a cell."""


def test_set_in_a_cell_shows_and_changes_the_settings(mewrk):
    mewrk("new settings")
    assert "| `model` | 'offline/echo' |" in mewrk("set")
    said = mewrk("set model offline/thinker")
    assert "model 'offline/echo' → 'offline/thinker'" in said
    assert "async_tools is not built yet" in mewrk("set async_tools on")
