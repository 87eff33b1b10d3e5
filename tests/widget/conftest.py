"""Real-browser fixtures: JupyterLab on localhost and Debian's Chromium driven by Playwright.

One JupyterLab server and one browser serve the whole module (the machine is small); each test
opens its own notebook. Browser tests are marked `browser` and skipped when Chromium or the
playwright package is missing (set MEWRK_REQUIRE_BROWSER=1 to make that an error instead, as tests/run.sh does).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from tests.ports import WITHOUT_COLLABORATION, free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
# The JupyterLab plugin as built into the package (labextension/ holds its sources).
LABEXTENSION = Path(__file__).resolve().parents[2] / "mewrk_jupyter" / "labextension"
# The password of a JupyterLab started behind one.
PASSWORD = "correct horse"
START_TIMEOUT = 90  # seconds for JupyterLab to answer; a bound, not an assertion about speed


def _browser_missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install playwright)"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _browser_missing()
    for item in items:
        if "lab" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
            # The first one also starts JupyterLab; on two shared cores that alone can take a minute.
            item.add_marker(pytest.mark.timeout(300))
            if reason and os.environ.get("MEWRK_REQUIRE_BROWSER") != "1":
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives JupyterLab in a real Chromium")


@dataclass
class Lab:
    """A running JupyterLab: where it serves, its token (or none, and then maybe a password) and its root
    folder."""

    url: str
    token: str
    root: Path
    password: str | None = None
    _opener: urllib.request.OpenerDirector | None = field(default=None, repr=False)
    _xsrf: str = field(default="", repr=False)

    def api(self, method: str, path: str, body: dict | None = None) -> dict:
        """Call the Jupyter server's REST API: with the token, or as a browser does without one (the
        `_xsrf` cookie echoed in a header, logged in behind a password)."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"token {self.token}"
        else:
            headers["X-XSRFToken"] = self._logged_in()
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method, headers=headers)
        with self._opened().open(request, timeout=30) as response:
            raw = response.read()
        return json.loads(raw) if raw else {}

    def _opened(self) -> urllib.request.OpenerDirector:
        if self._opener is None:
            self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        return self._opener

    def _logged_in(self) -> str:
        """The `_xsrf` cookie's value, once the login page set it (and the password was given)."""
        if not self._xsrf:
            opener = self._opened()
            opener.open(f"{self.url}/lab", timeout=30).read()  # the page (or the login it sends to) sets it
            jar = next(
                h for h in opener.handlers if isinstance(h, urllib.request.HTTPCookieProcessor)
            ).cookiejar
            self._xsrf = next(cookie.value or "" for cookie in jar if cookie.name == "_xsrf")
            if self.password is not None:
                form = urllib.parse.urlencode({"password": self.password, "_xsrf": self._xsrf}).encode()
                opener.open(f"{self.url}/login", data=form, timeout=30).read()
        return self._xsrf

    def new_notebook(self, name: str | None = None) -> str:
        """Create an empty Python notebook in the root folder; returns its path."""
        path = name or f"test-{uuid.uuid4().hex[:8]}.ipynb"
        content = {
            "cells": [
                {"cell_type": "code", "source": "", "metadata": {}, "outputs": [], "execution_count": None}
            ],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        self.api("PUT", f"/api/contents/{path}", {"type": "notebook", "format": "json", "content": content})
        return path

    def shutdown_kernels(self) -> None:
        """Close every notebook session and its kernel, so that the next test starts clean."""
        # A kernel a test has just restarted answers 500 to a shutdown until it is up again: ask again.
        for attempt in range(20):
            try:
                for session in self.api("GET", "/api/sessions") or []:
                    self.api("DELETE", f"/api/sessions/{session['id']}")
                for kernel in self.api("GET", "/api/kernels") or []:
                    self.api("DELETE", f"/api/kernels/{kernel['id']}")
                return
            except urllib.error.HTTPError:
                if attempt == 19:
                    raise
                time.sleep(0.5)


@pytest.fixture
def session(tmp_path, monkeypatch):
    """A session in a fresh workspace with one exchange on its timeline."""
    import mewrk_jupyter as mw

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(workspace=tmp_path, title="widget test")
    s.send("hello", wait=True)
    return s


@pytest.fixture
def widget(session):
    """A kernel-side widget of that session whose wire the test reads."""
    from .recording import RecordingWidget

    w = RecordingWidget(session)
    yield w
    w.close()


@contextmanager
def running_lab(root: Path, auth: str = "token") -> Iterator[Lab]:
    """JupyterLab on a free localhost port, rooted in `root` with its own HOME (`root/.home`); `auth` is
    "token" (a token of its own), "none" (`--IdentityProvider.token=''`) or "password" (no token, the
    password PASSWORD)."""
    home = root / ".home"
    config = home / ".jupyter"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    # No news prompt or update check popping over the notebook.
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}})
    )
    # JupyterLab loads this tree's own build of the package's JupyterLab plugin (whichever copy an install
    # put in share/jupyter comes after it on the path): a data folder whose labextensions/ links to it.
    data = root / ".data"
    (data / "labextensions").mkdir(parents=True)
    (data / "labextensions" / "mewrk-jupyter").symlink_to(LABEXTENSION, target_is_directory=True)
    port, token = free_port(), uuid.uuid4().hex if auth == "token" else ""
    env = {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_PATH": os.pathsep.join(filter(None, [str(data), os.environ.get("JUPYTER_PATH")])),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("JUPYTER_TOKEN", None)
    log = open(root / "jupyterlab.log", "w")  # noqa: SIM115 - closed in the finally below
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        *WITHOUT_COLLABORATION,
    ]
    if auth == "password":
        from jupyter_server.auth import passwd

        command.append(f"--PasswordIdentityProvider.hashed_password={passwd(PASSWORD)}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # CI and these machines run as root
    server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(root / 'jupyterlab.log').read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).read()
                break
            except OSError as failed:
                if isinstance(failed, urllib.error.HTTPError) and failed.code == 403 and auth == "password":
                    break  # up, and asking for the password
                if time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not answer") from None
                time.sleep(0.5)
        yield Lab(url=url, token=token, root=root, password=PASSWORD if auth == "password" else None)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="session")
def lab(tmp_path_factory) -> Iterator[Lab]:
    """JupyterLab on a free localhost port, rooted in a temporary folder with its own HOME."""
    with running_lab(tmp_path_factory.mktemp("lab")) as running:
        yield running


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium under Playwright (no browser download). One for the whole run: Playwright's
    sync API cannot start a second instance while one is alive in the same thread, so every module
    that needs a browser of its own takes a new context of this one."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def browser(lab, chromium):
    """The browser of the session's JupyterLab."""
    return chromium


@pytest.fixture
def page(lab, browser, request):
    """A fresh browser page; on failure a screenshot is left next to the JupyterLab log."""
    from playwright.sync_api import expect

    # Generous bounds: the machine is shared and small. They only stop a broken test from hanging.
    expect.set_options(timeout=60_000)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        shot = lab.root / f"{request.node.name}.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
    context.close()  # the page goes first, so that it does not restart the kernels stopped next
    lab.shutdown_kernels()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.rep_call = report
