"""The notebook agent in a real JupyterLab started without a token (`--IdentityProvider.token=''`, the
usual Docker and local set-up) and in one behind a password: the model reads its notebook and, after
approval, changes a cell that the open notebook shows at once. Before, on the first every tool answered
"did not answer (LocalProtocolError)" (an empty `Authorization: token ` header) and on the second the
server refused the kernel; now the kernel signs its command with its connection key (#41.1)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .conftest import PASSWORD, Lab, running_lab
from .notebook import Notebook
from .test_browser_notebook import notebook_with_cells, saved_when, send_line, timeline_of

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


@pytest.fixture(scope="module", params=["none", "password"])
def guarded_lab(request, tmp_path_factory) -> Iterator[Lab]:
    """One JupyterLab at a time: without a token, then behind a password."""
    with running_lab(tmp_path_factory.mktemp(f"lab-{request.param}"), auth=request.param) as running:
        yield running


@pytest.fixture(scope="module")
def guarded_page(guarded_lab, chromium):
    """A browser page on that JupyterLab, logged in where it asks for the password."""
    expect.set_options(timeout=60_000)
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    if guarded_lab.password is not None:
        page.goto(f"{guarded_lab.url}/login")
        page.locator("input[name='password']").fill(PASSWORD)
        page.locator("input[name='password']").press("Enter")
        expect(page).to_have_url(re.compile(r"/(lab|tree)"))
    yield page
    context.close()


def test_the_model_reads_and_fixes_its_notebook_without_a_token(guarded_lab, guarded_page):
    lab, page = guarded_lab, guarded_page
    assert lab.token == ""
    path = notebook_with_cells(lab)
    nb = Notebook.open(page, lab, path)
    nb.run("%load_ext mewrk_jupyter\nx = 41")
    nb.run("%mewrk new")
    root = timeline_of(page)
    calls = root.locator(".mw-card[data-kind='tool_call']")

    send_line(root, "call: notebook_read {}")
    expect(calls.nth(0)).to_contain_text("## cell 1 · id ")
    expect(calls.nth(0)).to_contain_text("print(x + )")
    expect(calls.nth(0)).not_to_contain_text("did not answer")

    send_line(root, 'call: notebook_edit {"mode": "replace", "index": 0, "source": "print(x + 1)"}')
    root.locator(".mw-card[data-kind='approval']").last.locator("[data-testid='mw-approve']").click()
    expect(nb.cell(0).locator(".cm-content")).to_have_text("print(x + 1)")
    expect(calls.nth(1)).to_contain_text("Replaced the source of cell 0")
    saved = saved_when(lab, path, lambda c: c["cells"][0]["source"] == "print(x + 1)")
    assert saved["cells"][0]["source"] == "print(x + 1)"
