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


TWO_SECRETS = """
import os, pathlib, tempfile
ws = pathlib.Path(tempfile.mkdtemp(prefix="math-ws-"))
os.chdir(ws)
os.environ["MEWRK_USER_CONFIG"] = str(ws.parent / (ws.name + "-person"))
(ws / ".mewrk" / "llm").mkdir(parents=True)
(ws / ".mewrk" / "llm" / "acme.yaml").write_text(
    "protocol: openai-chat\\nbase_url: http://127.0.0.1:9/v1\\napi_key: ${A}\\n"
    "headers: {X-Extra: '${B}'}\\nmodels:\\n  m: {context_window: 1000}\\n"
)
import mewrk_jupyter as mw
%load_ext mewrk_jupyter
"""


def test_the_untrusted_folder_s_sentence_shows_its_secrets_as_written_not_as_a_formula(lab, page):
    nb = Notebook.open(page, lab)
    nb.run(TWO_SECRETS)
    said = "${A} (llm/acme.yaml, api_key) and ${B} (llm/acme.yaml, headers.X-Extra)"
    shown = {line: said for line in ("%mewrk new --model acme/m", "%mewrk trust")}
    # A card's text, in the timeline's table and in the card's own view.
    card = "s = mw.Session.new()\ns.insert(mw.ModelReply(text='from ${A} to ${B}'))\n"
    shown.update({card + "s.cards": "from ${A} to ${B}", "s.cards[-1]": "from ${A} to ${B}"})
    outputs = {nb.run(code).locator(".jp-OutputArea-output").first: text for code, text in shown.items()}
    # A formula of its own, typeset after the outputs above: once it shows, MathJax has been over them.
    probe = nb.run("from IPython.display import Markdown\nMarkdown('$x^2$')").locator(".jp-OutputArea-output")
    expect(probe.locator("mjx-container")).to_have_count(1)
    for output, text in outputs.items():
        # Two `$` in one sentence: JupyterLab's MathJax would have typeset what lies between them.
        expect(output).to_contain_text(text)
        expect(output.locator("mjx-container")).to_have_count(0)
