"""Markdown made inert: a notebook rendering a reply runs no script, handler or script link, loads no image."""

from __future__ import annotations

import html
import random
import re

import pytest

from mewrk_jupyter.cards.inert import code_block, code_span, inert_inline, inert_markdown
from mewrk_jupyter.cards.models import ModelReply
from tests.markup import (
    HOSTILE_MARKDOWN,
    live_in_markdown,
    live_markup,
    render_all_with_marked,
    render_with_marked,
    visible_text,
)

ATTACK = HOSTILE_MARKDOWN[0]


def test_the_attack_is_live_as_written():
    # The check itself: a notebook would run these as they are.
    assert live_in_markdown(ATTACK) == [
        "<script>",
        "<img>",
        "<img onerror=…>",
        "<a href=javascript:alert(1)>",
    ]


@pytest.mark.parametrize("payload", HOSTILE_MARKDOWN)
def test_nothing_in_a_reply_acts_once_rendered(payload: str):
    assert live_in_markdown(inert_markdown(payload)) == []
    assert live_in_markdown(inert_inline(payload)) == []


def test_a_card_shows_a_hostile_reply_as_text():
    shown = ModelReply(text=ATTACK)._repr_markdown_()
    assert live_in_markdown(shown) == []
    text = visible_text(render_with_marked(shown))
    assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert(1)>" in text


def _code_texts(markdown: str) -> list[str]:
    rendered = render_with_marked(markdown)
    return [html.unescape(c) for c in re.findall(r"<code[^>]*>(.*?)</code>", rendered, re.DOTALL)]


def test_code_keeps_its_text():
    reply = (
        "Use `a < b && c > d` or ``x ` y``:\n\n"
        '```html\n<div class="x">&amp; <b>bold</b></div>\n```\n\n'
        "- in a list:\n  ```py\n  if a < b:\n      pass\n  ```\n"
    )
    assert _code_texts(inert_markdown(reply)) == [
        "a < b && c > d",
        "x ` y",
        '<div class="x">&amp; <b>bold</b></div>\n',
        "if a < b:\n    pass\n",
    ]
    assert 'class="language-html"' in render_with_marked(inert_markdown(reply))


def test_prose_keeps_its_words_and_markup():
    rendered = render_with_marked(inert_markdown("**Bold**, a < b & c, [a link](https://example.org)."))
    assert rendered == (
        '<p><strong>Bold</strong>, a &lt; b &amp; c, <a href="https://example.org">a link</a>.</p>\n'
    )


def test_an_image_becomes_a_link_and_a_script_target_a_fragment():
    rendered = render_with_marked(
        inert_markdown("![chart](https://example.org/c.png) [x](javascript:alert(1))")
    )
    assert rendered == (
        '<p><a href="https://example.org/c.png">image: chart</a> <a href="#javascript:alert(1)">x</a></p>\n'
    )


@pytest.mark.parametrize("content", ["plain", "```\n<img src=x onerror=alert(1)>\n````", "a`b<i>", "x\n```"])
def test_a_code_block_or_span_holds_whatever_it_is_given(content: str):
    assert _code_texts(code_block(content)) == [content + "\n"]
    assert live_in_markdown(code_block(content)) == []
    assert _code_texts(code_span(content)) == [content.replace("\n", " ")]
    assert live_in_markdown(code_span(content)) == []


def test_a_plain_span_stays_backticks():
    assert code_span("grep(pattern='x')") == "`grep(pattern='x')`"


# Pieces that start, end or escape Markdown constructs; random texts made of them probe the rules'
# seams (a fixed seed: the same texts on every run).
PIECES = [
    "<img src=x onerror=alert(1)>",
    "<script>",
    "</script>",
    "<",
    ">",
    "&",
    "&#106;",
    "javascript:",
    "data:",
    "JaVaScRiPt\\:",
    "[",
    "]",
    "(",
    ")",
    "](",
    "]: ",
    "![",
    "!",
    "\\",
    "\\\\",
    "`",
    "``",
    "```",
    "~~~",
    "    ",
    "  ",
    "\n",
    "\n\n",
    "> ",
    "- ",
    "1. ",
    "|",
    "---",
    '"',
    "'",
    "*",
    "_",
    "$",
    "x",
    "alert(1)",
    " ",
]


def test_random_texts_from_markup_pieces_stay_inert():
    rng = random.Random(11)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40))) for _ in range(400)]
    rendered = render_all_with_marked([inert_markdown(t) for t in texts])
    live = [(t, found) for t, html_ in zip(texts, rendered, strict=True) if (found := live_markup(html_))]
    assert live == []
