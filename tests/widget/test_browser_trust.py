"""The trust line in JupyterLab and Chromium: an untrusted configuration folder is named with what it would
use, and the Trust button trusts it (checked on screen and kernel-side)."""

from __future__ import annotations

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

SETUP = """
import os, pathlib, tempfile, warnings
ws = pathlib.Path(tempfile.mkdtemp(prefix="trust-ws-"))
os.environ["MEWRK_USER_CONFIG"] = str(ws.parent / (ws.name + "-person"))
(ws / ".mewrk" / "llm").mkdir(parents=True)
(ws / ".mewrk" / "llm" / "corp.yaml").write_text(
    "protocol: openai-chat\\nbase_url: http://127.0.0.1:9/v1\\napi_key: ${CORP_KEY}\\nmodels:\\n  m: {}\\n"
)
warnings.simplefilter("ignore", mw.ConfigNotice)
s = mw.Session.new(workspace=ws)
s.widget()
"""


def test_the_trust_button_trusts_the_folder(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + SETUP)
    line = root.locator("[data-testid='mw-trust']")
    expect(line).to_be_visible()
    expect(line).to_contain_text("not trusted yet")
    expect(line).to_contain_text("http://127.0.0.1:9/v1")
    expect(line).to_contain_text("${CORP_KEY}")
    line.locator("[data-testid='mw-trust-button']").click()
    expect(line).to_be_hidden()
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text("Trusted")
    assert nb.print_value("mw.Session.new(workspace=ws, model='corp/m').settings.model") == "corp/m"
