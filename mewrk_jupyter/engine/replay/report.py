"""A replay's comparison as a person reads it: Markdown (the report, and a notebook's Markdown view) and
HTML (a notebook's rich view) — both models named, a line per turn, the diffs open where a turn differs."""

from __future__ import annotations

import html

from ...cards.inert import code_block, inert_inline
from ...cards.words import format_cost, verdict
from ..history_summary import first_line
from .compare import ReplayTurn, SideFigures
from .sessions import Reported


def _cost(side: SideFigures) -> str:
    return format_cost(side.cost) if side.cost is not None else "—"


def _seconds(side: SideFigures) -> str:
    return f"{side.latency:.2f} s" if side.latency is not None else "—"


def _verdict(turn: ReplayTurn) -> str:
    return verdict(turn.same_tools, turn.same_text)


def _totals(replay: Reported) -> tuple[str, str]:
    """The recorded and replayed tokens and cost of every turn asked, in words."""
    said = []
    for side in ("recorded", "replayed"):
        figures = [getattr(turn, side) for turn in replay.turns]
        tokens = sum(f.tokens for f in figures)
        costs = [f.cost for f in figures if f.cost is not None]
        said.append(f"{tokens:,} tokens" + (f", {format_cost(sum(costs))}" if costs else ""))
    return said[0], said[1]


def headline(replay: Reported) -> str:
    """Who was compared with whom, how far it got, and how many turns agree."""
    turns = replay.turns
    asked = f"{len(turns)} of {replay.messages} messages asked"
    same_tools = sum(t.same_tools for t in turns)
    same_text = sum(t.same_text for t in turns)
    recorded, replayed = _totals(replay)
    return (
        f"Replay of “{replay.source.title}” ({replay.source.id}): recorded on `{replay.recorded_model}`, "
        f"replayed on `{replay.model}` with {replay.tools} tools, in the branch {replay.branch.id} — {replay.state}, "
        f"{asked}. The same tool calls in {same_tools} of {len(turns)}, the same text in {same_text}. "
        f"Recorded {recorded}; replayed {replayed}."
    )


def started_sentence(replay: Reported) -> str:
    """What a surface says once a replay has started: what it asks of which model, and where."""
    how = "tool calls answered from the recording" if replay.tools == "recorded" else "tools run live"
    asked = f"{replay.messages} message{'' if replay.messages == 1 else 's'}"
    return (
        f"Replaying “{replay.source.title}” on {replay.model} ({asked}, {how}) in “{replay.branch.title}” "
        f"(id {replay.branch.id}): each turn's comparison follows its new reply."
    )


def report_markdown(replay: Reported) -> str:
    """The report in Markdown, inert: a title, a message or a reply that holds HTML shows it as text."""
    lines = [f"### {inert_inline(headline(replay))}", ""]
    if replay.error:
        lines += [f"**The replay stopped:** {inert_inline(replay.error)}", ""]
    if not replay.turns:
        return "\n".join([*lines, "No message was asked again yet."])
    lines += [
        "| # | message | result | tool calls (recorded → replayed) | tokens | cost | model time |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in replay.turns:
        message = inert_inline(first_line(t.message, 60)).replace("|", "\\|")
        calls = f"{len(t.recorded.tools)} → {len(t.replayed.tools)}"
        lines.append(
            f"| {t.number} | {message} | {_verdict(t)} | {calls} | {t.recorded.tokens:,} → {t.replayed.tokens:,} "
            f"| {_cost(t.recorded)} → {_cost(t.replayed)} | {_seconds(t.recorded)} → {_seconds(t.replayed)} |"
        )
    for t in replay.turns:
        if t.same_text and t.same_tools:
            continue
        lines += ["", f"<details open><summary>Turn {t.number}: {_verdict(t)}</summary>", ""]
        for part in (t.tools_diff, t.diff):
            if part:
                lines += [code_block(part, "diff"), ""]
        lines.append("</details>")
    return "\n".join(lines)


def report_html(replay: Reported) -> str:
    """The report as HTML, for a notebook's output."""
    e = html.escape
    rows = "".join(
        f"<tr><td>{t.number}</td><td>{e(first_line(t.message, 60))}</td><td>{e(_verdict(t))}</td>"
        f"<td>{len(t.recorded.tools)} → {len(t.replayed.tools)}</td>"
        f"<td>{t.recorded.tokens:,} → {t.replayed.tokens:,}</td>"
        f"<td>{e(_cost(t.recorded))} → {e(_cost(t.replayed))}</td>"
        f"<td>{e(_seconds(t.recorded))} → {e(_seconds(t.replayed))}</td></tr>"
        for t in replay.turns
    )
    table = (
        "<table><thead><tr><th>#</th><th>message</th><th>result</th><th>tool calls</th><th>tokens</th>"
        f"<th>cost</th><th>model time</th></tr></thead><tbody>{rows}</tbody></table>"
        if replay.turns
        else "<p>No message was asked again yet.</p>"
    )
    diffs = "".join(
        f"<details open><summary>Turn {t.number}: {e(_verdict(t))}</summary>"
        + "".join(f"<pre>{e(part)}</pre>" for part in (t.tools_diff, t.diff) if part)
        + "</details>"
        for t in replay.turns
        if not (t.same_text and t.same_tools)
    )
    error = f"<p><b>The replay stopped:</b> {e(replay.error)}</p>" if replay.error else ""
    return f'<div class="mewrk-replay"><p>{e(headline(replay))}</p>{error}{table}{diffs}</div>'
