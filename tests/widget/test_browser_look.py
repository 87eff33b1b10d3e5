"""How the widget reads in JupyterLab's light and dark themes: every piece of text meets WCAG AA contrast
(4.5:1) against what is behind it, the insertion line a control's 3:1, and the README's two screenshots
are taken here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

# Each visible piece of text in the widget whose contrast with what is behind it is under 4.5:1, as
# "ratio · text · class". Disabled controls and placeholders are exempt in WCAG; so are they here.
COLOURS = """
  const parse = (c) => {
    // "rgb(r g b)", "rgba(r, g, b, a)" or, for color-mix(), "color(srgb r g b / a)" with 0–1 channels
    const srgb = c.match(/color\\(srgb ([^)]+)\\)/);
    const m = srgb || c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return srgb ? [r * 255, g * 255, b * 255, a] : [r, g, b, a];
  };
  const over = (top, bottom) => top.slice(0, 3).map((v, i) => v * top[3] + bottom[i] * (1 - top[3])).concat(1);
  const background = (el) => {
    const layers = [];
    for (let node = el; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c && c[3] > 0) layers.push(c);
      if (c && c[3] === 1) break;
    }
    let colour = [255, 255, 255, 1];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const luminance = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const contrast = (fg, bg) => {
    const [a, b] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  };
"""
LOW_CONTRAST = (
    """root => {"""
    + COLOURS
    + """
  const low = [];
  for (const el of root.querySelectorAll("*")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length || el.closest("[disabled], [hidden]")) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || Number(style.opacity) === 0) continue;
    const bg = background(el);
    const ratio = contrast(over(parse(style.color), bg), bg);
    if (ratio < 4.5) low.push(`${ratio.toFixed(2)} · ${el.textContent.trim().slice(0, 40)} · ${el.className}`);
  }
  return low;
}"""
)

# The insertion line a card shows on the side where a new card would go (::before above it, ::after
# below it): its height, and its contrast with the timeline behind it, its opacity counted in.
INSERTION_LINE = (
    """card => {"""
    + COLOURS
    + """
  const side = card.dataset.hover === "before" ? "::before" : "::after";
  const style = getComputedStyle(card, side);
  const bg = background(card.parentElement);
  const colour = parse(style.backgroundColor);
  colour[3] *= Number(style.opacity);
  // Inside the timeline's scrolled box, or it is cut off (above the first card, below the last).
  const at = card.getBoundingClientRect(), box = card.closest(".mw-timeline").getBoundingClientRect();
  const top = side === "::before" ? at.top + parseFloat(style.top) : at.bottom - parseFloat(style.bottom) - parseFloat(style.height);
  const inside = top >= box.top && top + parseFloat(style.height) <= box.bottom;
  return { side, inside, height: parseFloat(style.height), ratio: contrast(over(colour, bg), bg) };
}"""
)


def _session_to_look_at(nb: Notebook):
    code = ATTACH + (
        "s = mw.Session.new(title='a first look')\n"
        's.send(\'What is in this folder?\\nthink: Look before answering.\\ncall: ls {"path": "."}\', wait=True)\n'
        "s.send('Thanks. Now in one line, with **bold** where it matters.', wait=True)\n"
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("one line")
    return root


def switch_theme(page, name: str) -> None:
    """Settings → Theme → `name`, as a person does it."""
    item = ".lm-Menu-item:has(.lm-Menu-itemLabel:text-is('{}'))"
    page.get_by_role("menuitem", name="Settings").click()
    page.locator(item.format("Theme")).click()
    page.locator(item.format(name)).click()
    dark = "Dark" in name
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false" if dark else "true")


def low_contrast(page, root) -> list[str]:
    """The texts under 4.5:1 once the theme has settled: its stylesheet loads after the switch, so
    they are read again for a few seconds until none is left (a bound, nothing is timed)."""
    for _ in range(50):
        low = root.evaluate(LOW_CONTRAST)
        if not low:
            return low
        page.wait_for_timeout(200)
    return low


def keep_screenshot(shot: Path) -> None:
    """Copy a screenshot to MEWRK_SCREENSHOTS (the README's images) when that is set."""
    folder = os.environ.get("MEWRK_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(folder) / shot.name)


def test_every_text_meets_aa_contrast_in_the_light_and_dark_themes(lab, page):
    nb = Notebook.open(page, lab)
    root = _session_to_look_at(nb)
    try:
        for theme, shot in (
            ("JupyterLab Light", "timeline-light.png"),
            ("JupyterLab Dark", "timeline-dark.png"),
        ):
            switch_theme(page, theme)
            root.locator(".mw-card[data-kind='model_reply']").last.hover()  # its pencil and trash show
            low = low_contrast(page, root)
            assert not low, f"{theme}, under 4.5:1:\n" + "\n".join(low)
            # The line where a new card goes is a part of the interface: WCAG's 3:1 for one.
            # Above the first card and below the last one too, where the timeline's edge could cut it.
            cards = root.locator(".mw-card")
            for card, side in ((cards.first, "::before"), (cards.last, "::after")):
                card.scroll_into_view_if_needed()
                box = card.bounding_box()
                y = box["y"] + 3 if side == "::before" else box["y"] + box["height"] - 3
                page.mouse.move(box["x"] + 60, y)
                expect(card).to_have_attribute("data-hover", "before" if side == "::before" else "after")
                line = card.evaluate(INSERTION_LINE)
                assert line["side"] == side and line["height"] >= 2 and line["inside"], line
                assert line["ratio"] >= 3, f"{theme}: the insertion line {side} has {line['ratio']:.2f}:1"
            root.locator(".mw-card[data-kind='model_reply']").last.hover()
            path = lab.root / shot
            root.screenshot(path=str(path))
            keep_screenshot(path)
    finally:
        switch_theme(page, "JupyterLab Light")  # the theme is a user setting: later tests expect light
