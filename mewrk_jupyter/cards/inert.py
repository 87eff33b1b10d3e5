"""Markdown from a model, a tool or a person, made inert for a notebook: it shows, and nothing in it acts.

A notebook renders an output's Markdown with its raw HTML live, so a reply's `<script>`, `onerror=` or
`javascript:` link would act in the person's browser. The widget sanitises the HTML it makes; here the
same rule is applied to the Markdown itself, so that it holds whatever renderer reads it:

- raw HTML shows as text: `<` and `&` are escaped everywhere outside code;
- code keeps its text. Renderers disagree on where some constructs end (marked lets a link title run
  across a fence), so code is never trusted to stay code: a block that could act if read as prose
  becomes one line of `<pre><code>` with every sign in it escaped, and so does inline code;
- a link whose target is a `javascript:`, `vbscript:` or `data:` URL loses that target;
- an image becomes a link to it, so nothing loads from a reply's URL until the person clicks.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

# A fence opens a code block: three or more backticks or tildes after nothing but indentation.
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LANGUAGE = re.compile(r"[\w+#.-]+")
_TICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"(\n[ \t]*\n)")
# Signs that could make markup, or end a code span, if a renderer did not read the span as code.
_UNSAFE_IN_SPAN = re.compile(r"[`<>&|\\\[\]\n]")
# Signs with no meaning in Markdown or HTML text, left as they are inside escaped code.
_PLAIN_SIGNS = frozenset(" \t.,-=:;/?%+@")
# What in a code block could act if a renderer read it as prose: HTML, an image, a link's target.
_UNSAFE_IN_BLOCK = re.compile(r"<|!\[|\]\s*[(:]")
# A link's target starts after `](` or a reference's `]:`, whitespace and at most one line break apart.
_SCRIPT_TARGET = re.compile(r"(\]\(\s*|\]:\s*)(?=(?:javascript|vbscript|data)\\?:)", re.IGNORECASE)
# What stands for an image: `![alt](url)` becomes the link `[image: alt](url)`.
IMAGE_LABEL = "image: "
# A sign that starts markup, with the backslashes before it (an odd number escapes it): `<`, `&`, or
# the `!`s before a `[`. The lookbehinds make each run of backslashes or `!` be read once, from its start.
_SIGNS = re.compile(r"(?<!\\)(\\*)([<&])|(?<![\\!])(\\*)(!+)\[")
_ESCAPES = {"<": "&lt;", "&": "&amp;"}
# A `$` with the backslashes before it.
_DOLLAR = re.compile(r"(\\*)\$")


def code_block(text: str, language: str = "") -> str:
    """`text` as a code block that nothing inside can close or turn into markup, on lines of its own."""
    word = _LANGUAGE.match(language.strip())
    name = word.group(0) if word else ""
    body = text if not text or text.endswith("\n") else text + "\n"
    if _UNSAFE_IN_BLOCK.search(text):
        # One line, so no blank line inside can end the HTML block; the browser shows `&#10;` as a break.
        kind = f' class="language-{name}"' if name else ""
        return f"<pre><code{kind}>{_escape_all(body)}</code></pre>"
    longest = max((len(run) for run in _TICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{name}\n{body}{fence}"


def code_span(text: str) -> str:
    """`text` as inline code that nothing inside it can end or turn into markup."""
    if not _UNSAFE_IN_SPAN.search(text) and text.strip() == text and text:
        return f"`{text}`"
    return _code_element(text)


def _code_element(text: str) -> str:
    return f"<code>{_escape_all(text.replace(chr(10), ' '))}</code>"


def _escape_all(text: str) -> str:
    # Every sign Markdown or HTML could read as markup becomes a numeric reference: inside raw HTML,
    # Markdown would still read `*`, `[` or `<`. Letters, digits and the harmless signs stay readable.
    return "".join(c if c.isalnum() or c in _PLAIN_SIGNS or ord(c) > 127 else f"&#{ord(c)};" for c in text)


def inert_markdown(text: str) -> str:
    """Markdown that shows what `text` shows, with no live HTML, script link or auto-loading image."""
    return "\n".join(
        code_block(body, info) if info is not None else _inert_prose(body) for _, body, info in _blocks(text)
    )


def _blocks(text: str) -> list[tuple[str, str, str | None]]:
    """`text` as its prose and its fenced code blocks, in order, each as written and as read:
    (prose, prose, None) or (the block with its fences, its body, its info string)."""
    out: list[tuple[str, str, str | None]] = []
    prose: list[str] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            prose.append(lines[index])
            index += 1
            continue
        if prose:
            out.append(("\n".join(prose), "\n".join(prose), None))
            prose = []
        first = index
        indent, fence = len(opening["indent"]), opening["fence"]
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        index += 1
        while index < len(lines) and not closing.match(lines[index]):
            line = lines[index]
            body.append(line[min(indent, len(line) - len(line.lstrip(" \t"))) :])
            index += 1
        index += 1  # the closing fence, or past the end when the block was never closed
        out.append(("\n".join(lines[first:index]), "\n".join(body), opening["info"]))
    if prose:
        out.append(("\n".join(prose), "\n".join(prose), None))
    return out


def inert_inline(text: str) -> str:
    """One line of `text` made inert for a place inside other markup (a heading, a table cell)."""
    return _inert_paragraph(" ".join(text.splitlines()))


def _inert_prose(text: str) -> str:
    return _by_paragraph(text, _inert_paragraph)


def _by_paragraph(text: str, paragraph: Callable[[str], str]) -> str:
    # A code span never crosses a blank line, so each paragraph is read on its own.
    parts = _BLANK_LINE.split(text)
    return "".join(part if i % 2 else paragraph(part) for i, part in enumerate(parts))


def _inert_paragraph(text: str) -> str:
    return "".join(_inert_text(piece) if code is None else code_span(code) for piece, code in _pieces(text))


def _pieces(text: str) -> list[tuple[str, str | None]]:
    """One paragraph as its text and its code spans, in order: (text, None) or (the span, its content)."""
    runs = list(_TICKS.finditer(text))
    # Where each length of backtick run occurs, so each opening finds its closing run without a rescan.
    by_length: dict[int, list[int]] = {}
    for number, run in enumerate(runs):
        by_length.setdefault(len(run.group()), []).append(number)
    out: list[tuple[str, str | None]] = []
    done = 0
    number = 0
    while number < len(runs):
        opening = runs[number]
        start = opening.start() + _escaped(text, opening.start())  # `\`` is a literal backtick
        size = opening.end() - start
        later = by_length.get(size, [])
        closer = (
            later[bisect.bisect_right(later, number)]
            if size and bisect.bisect_right(later, number) < len(later)
            else None
        )
        if closer is None:
            number += 1
            continue
        out.append((text[done:start], None))
        content = text[opening.end() : runs[closer].start()].replace("\n", " ")
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        out.append((text[start : runs[closer].end()], content))
        done = runs[closer].end()
        number = closer + 1
    out.append((text[done:], None))
    return out


def _escaped(text: str, index: int) -> bool:
    """True when the sign at `index` follows an odd number of backslashes (a Markdown escape)."""
    run = 0
    while index - run > 0 and text[index - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def _escape_sign(match: re.Match[str]) -> str:
    slashes, sign, bang_slashes, bangs = match.groups()
    if sign is not None:
        # An odd run of backslashes escapes the sign already: the renderer shows it as it is.
        return match.group() if len(slashes) % 2 else slashes + _ESCAPES[sign]
    if len(bang_slashes) % 2:  # the first `!` is escaped; the others still count
        bang_slashes, bangs = bang_slashes + "!", bangs[1:]
    if not bangs:
        return match.group()
    # The last `!` opened an image: it becomes a link's label, and every `!` before it is escaped so
    # that none of them opens an image with the `[` instead.
    return bang_slashes + "\\!" * (len(bangs) - 1) + "[" + IMAGE_LABEL


def _inert_text(text: str) -> str:
    return _SCRIPT_TARGET.sub(r"\1#", _SIGNS.sub(_escape_sign, text))


def for_notebook(markdown: str) -> str:
    """Markdown the product writes into a notebook, as JupyterLab is to show it: no `$…$` in its text
    is typeset as LaTeX.

    JupyterLab's MathJax typesets any two `$` in an output's text — `${A}` and `${B}` in one sentence
    became a formula — and a Markdown escape (`\\$`) does not stop it, since the browser's text holds a
    bare `$` again. Each `$` outside code becomes `\\\\$`: the text then holds `\\$`, which MathJax shows as
    `$`. Code spans and blocks keep theirs (MathJax leaves code alone). Every `_repr_markdown_` and every
    Markdown display of the package goes through here.
    """
    return "\n".join(
        written if info is not None else _by_paragraph(written, _mathless_paragraph)
        for written, _, info in _blocks(markdown)
    )


def _mathless_paragraph(text: str) -> str:
    return "".join(
        piece if code is not None else _DOLLAR.sub(_escape_dollar, piece) for piece, code in _pieces(text)
    )


def _escape_dollar(match: re.Match[str]) -> str:
    # Without a backslash before it, `$` becomes `\\$`; after one (a Markdown escape, shown as `$`),
    # `\\\$`. After two or more it is escaped already, so that a second pass changes nothing.
    return match.group() if len(match.group(1)) >= 2 else "\\\\" + match.group()
