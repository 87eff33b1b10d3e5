"""A server started without a token, as the README shows it: a POST needs the `_xsrf` cookie and header."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from .conftest import REPO, Server, start_server, stop_server


@pytest.fixture(scope="module")
def tokenless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`jupyter server --IdentityProvider.token=''` on a workspace of its own."""
    running = start_server(tmp_path_factory.mktemp("tokenless"), token="")
    try:
        yield running
    finally:
        stop_server(running)


def readme_tokenless_block() -> str:
    """The README's bash block for a server without a token."""
    text = (REPO / "README.md").read_text()
    after = text.split("A server started without a token", 1)[1]
    return after.split("```bash\n", 1)[1].split("```", 1)[0]


def bash(script: str, server: Server) -> str:
    """Run `script` with the README's address replaced by the test server's; its standard output."""
    script = script.replace("http://localhost:8888/", server.url)
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_post_without_the_cookie_is_refused_as_the_person_saw(tokenless: Server):
    answer = bash(
        "curl -s -w ' %{http_code}' -d '{\"model\": \"offline/echo\"}' http://localhost:8888/mewrk/v2/sessions",
        tokenless,
    )
    assert answer.endswith(" 403") and "_xsrf" in answer


def test_the_readme_way_without_a_token_creates_a_session_and_the_lines_above_work(tokenless: Server):
    readme = (REPO / "README.md").read_text()
    # One line of the token block above, as the README says it then works as written.
    listing = next(line for line in readme.splitlines() if line.startswith('curl -H "$AUTH" $API/sessions '))
    out = bash(f"{readme_tokenless_block()}\necho\n{listing.split('#')[0]}", tokenless)
    made, listed = out.strip().splitlines()[-2:]
    session = json.loads(made)
    assert session["title"] == "no token" and session["model"] == "offline/echo"
    assert session["id"] in {s["id"] for s in json.loads(listed)["sessions"]}
