"""A replay (#38): a recorded session's messages asked again of another model or agent, on a branch of it,
each after the previous one's reply, with each turn compared to the recording's.

The branch starts as a new session of the agent does (its system prompt as its file says now, so a
changed prompt is what is tested), with the recording's safety level and memory, then the recording's
other cards above its first message; the recording is left exactly as it was. With tools="recorded" a
call that matches one the recording made at that turn gets the recorded result and nothing runs; any
other call is told it is not in the recording. With tools="live" they run under the safety level and its
approvals, as in any turn: the replay waits while an approval does. Stop ends the turn at work and asks
no more.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from ...cards.inert import for_notebook
from ...cards.models import Card, SystemPrompt, new_card_id
from ...cards.order import key_between
from ...errors import InvalidInput, MewrkError
from ...providers.registry import prices_of, resolve
from ...store.history import request_spans
from ..opening import create_session, new_start
from ..settings.change import why_reasoning_cannot_act
from ..turns.recorded import answer_from
from ..unbuilt import warn_unbuilt
from .compare import ReplayTurn, comparison_card, figures
from .recording import FromRecording, RecordedTurn, Side, recorded_turns
from .report import report_html, report_markdown
from .sessions import ReplayedSession

Tools = Literal["recorded", "live"]
State = Literal["running", "done", "stopped", "failed"]
# The settings of the recording a replay keeps: the model and agent are what it changes.
KEPT = ("safety_level", "memory", "host_container", "plan_mode")
POLL = 0.05  # seconds between looks at the branch while an approval waits
# The replays at work in this process, by their branch's id: a Stop on the branch stops the replay.
RUNNING: dict[str, Replay] = {}


def replay_on(session_id: str) -> Replay | None:
    """The replay at work in this process on the branch `session_id`, if one is."""
    return RUNNING.get(session_id)


def stop_replays(session_id: str) -> int:
    """Stop the replays at work in this process of the session or on it (its branch); how many stopped.
    The session's Stop calls it, so Stop from any surface ends a replay, not one of its turns."""
    found = [r for r in list(RUNNING.values()) if session_id in (r.source.id, r.branch.id)]
    return sum(r.stop() for r in found)


class Replay:
    """A replay at work or ended: `branch` is the new session, `turns` one comparison per message asked so
    far; `wait()` until it ends, `stop()` to end it, `report()` in Markdown."""

    def __init__(
        self, source: ReplayedSession, branch: ReplayedSession, turns: list[RecordedTurn], tools: Tools
    ) -> None:
        self.source = source
        self.branch = branch
        self.tools = tools
        self.recorded_model = recorded_model(source, turns)
        self.model = branch.settings.model
        self.turns: list[ReplayTurn] = []
        self.state: State = "running"
        self.error: str | None = None
        self._asked = turns
        self.messages = len(turns)  # the person's messages it asks again
        self._stopping = threading.Event()
        self._ended = threading.Event()
        self._listeners: list[Callable[[ReplayTurn | None], None]] = []
        self._told = threading.Lock()  # a listener hears each turn once, in order, then the end
        self._recorded_latency = _latencies(source, turns)
        self._thread = threading.Thread(target=self._drive, name=f"mewrk-replay-{branch.id}", daemon=True)
        RUNNING[branch.id] = self
        self._thread.start()

    def __repr__(self) -> str:
        return (
            f"<Replay of {self.source.id} on {self.model}: {self.state}, {len(self.turns)} of "
            f"{len(self._asked)} turns, branch {self.branch.id}>"
        )

    @property
    def done(self) -> bool:
        """Whether it has ended (every message asked, stopped, or failed)."""
        return self._ended.is_set()

    def wait(self, timeout: float | None = None) -> Replay:
        """Wait until it ends (or `timeout` seconds pass); it, for chaining (`s.replay(...).wait().report()`)."""
        self._ended.wait(timeout)
        return self

    def stop(self) -> bool:
        """Stop the turn at work and ask no more messages; False when it had ended already."""
        if self.done or self._stopping.is_set():
            return False  # ended, or stopping already (the branch's own Stop comes back here)
        self._stopping.set()
        self.branch.stop()
        return True

    def follow(self, listener: Callable[[ReplayTurn | None], None]) -> None:
        """Call `listener` with each turn's comparison, those made already first, then with None once the
        replay has ended (its `state` and `error` say how); it runs on the replay's thread."""
        with self._told:
            for turn in self.turns:
                listener(turn)
            if self.done:
                listener(None)
            else:
                self._listeners.append(listener)

    def _tell(self, turn: ReplayTurn | None) -> None:
        with self._told:
            if turn is not None:
                self.turns.append(turn)
            else:
                self._ended.set()
            for listener in self._listeners:
                try:
                    listener(turn)
                except Exception:  # a listener's fault (a closed stream) is its own, not the replay's
                    pass

    def report(self) -> str:
        """The comparison in Markdown: both models, a line per turn, the diffs open where they differ."""
        return report_markdown(self)

    def _repr_markdown_(self) -> str:
        return for_notebook(report_markdown(self))

    def _repr_html_(self) -> str:
        return report_html(self)

    # ---- the turns -----------------------------------------------------------------------------------

    def _drive(self) -> None:
        answers = FromRecording() if self.tools == "recorded" else None
        if answers is not None:
            answer_from(self.branch.id, answers)
        try:
            for turn in self._asked:
                if self._stopping.is_set():
                    break
                if answers is not None:
                    answers.turn = turn
                self._tell(self._ask(turn))
            self.state = "stopped" if self._stopping.is_set() else "done"
        except MewrkError as exc:
            self.state, self.error = "failed", str(exc)
        except Exception as exc:  # an engine fault ends the replay with its sentence, not a silent thread
            self.state, self.error = "failed", f"The replay stopped on an error: {type(exc).__name__}: {exc}"
        finally:
            answer_from(self.branch.id, None)
            RUNNING.pop(self.branch.id, None)
            self._tell(None)

    def _ask(self, turn: RecordedTurn) -> ReplayTurn:
        branch = self.branch
        message = turn.message.model_copy(update={"id": new_card_id(), "created_at": time.time()}, deep=True)
        seen = {c.id for c in branch.cards}
        branch.insert(message)
        run = branch.send(wait=False)
        stopped = False
        while not run.wait(POLL).done:
            if self._stopping.is_set() and not stopped:  # a Stop that came as this turn started ends it too
                branch.stop()
                stopped = True
        while branch.state != "idle" and not self._stopping.is_set():
            self._stopping.wait(POLL)  # an approval waits for the person (tools="live"), or a turn runs on
        new = [c for c in branch.cards if c.id not in seen and c.id != message.id]
        home = self.source.workspace.home
        recorded_by = (turn.side.models or [self.recorded_model])[0]
        compared = ReplayTurn(
            number=turn.number,
            message=turn.message.text,
            recorded=figures(turn.side, recorded_by, self._recorded_latency.get(turn.number), _prices(home)),
            replayed=figures(
                Side(new), self.model, _model_time(branch, message.created_at, None), _prices(home)
            ),
        )
        branch.stored_timeline.append(comparison_card(compared, self.source.id))  # after the turn's cards
        return compared


def start_replay(
    source: ReplayedSession,
    model: str | None,
    agent: str | None,
    upto: str | Card | int | None,
    tools: str,
    open_session: Callable[..., ReplayedSession],
) -> Replay:
    """Check what was asked, make the branch and start asking; refused with a sentence, making nothing,
    for an unknown model or agent, a bad `upto` or `tools`, or a session with no message."""
    if tools not in ("recorded", "live"):
        raise InvalidInput(
            f'tools is "recorded" (the recording\'s results, nothing runs) or "live", not {tools!r}.'
        )
    first, turns = recorded_turns(list(source.cards), upto)
    ws = source.workspace
    settings = source.settings
    asked = model or recorded_model(source, turns)
    _, info = resolve(asked, ws.home)
    wanted: dict[str, Any] = {name: getattr(settings, name) for name in KEPT}
    wanted["agent"] = agent or settings.agent
    if settings.reasoning != "off" and why_reasoning_cannot_act(info) is None:
        wanted["reasoning"] = settings.reasoning
    parsed, start, notices = new_start(ws, asked, wanted)
    warn_unbuilt(notices)
    rows = list(start)
    key = rows[-1][0] if rows else None
    for card in source.cards:
        if card.id == first.id:
            break
        if isinstance(card, SystemPrompt):
            continue  # the agent's own, as its file says now, is the branch's first card
        key = key_between(key, None)
        rows.append((key, card.model_copy(deep=True)))
    title = f"{source.title} (replay on {parsed.model})"
    made = create_session(ws, title, parsed, source.id, rows)
    branch = open_session(made, workspace=ws.root)
    return Replay(source, branch, turns, "recorded" if tools == "recorded" else "live")


def recorded_model(source: ReplayedSession, turns: list[RecordedTurn]) -> str:
    """The model the recording's replies name first (a notebook imported elsewhere keeps them), else its
    setting."""
    for turn in turns:
        if turn.side.models:
            return turn.side.models[0]
    return source.settings.model


def _prices(home: Any) -> Any:
    return lambda model: prices_of(model, home)


def _latencies(source: ReplayedSession, turns: list[RecordedTurn]) -> dict[int, float]:
    """Each recorded turn's model time, from its history (an imported notebook has none)."""
    found: dict[int, float] = {}
    for turn in turns:
        took = _model_time(source, turn.message.created_at, turn.ends_at)
        if took is not None:
            found[turn.number] = took
    return found


def _model_time(session: ReplayedSession, since: float, until: float | None) -> float | None:
    """The seconds the model's requests took between two moments, summed; None when none was recorded.
    Read from the store without the requests themselves: a replay asks it after each turn, so reading the
    whole history there would cost a long session more each turn."""
    conn = session.stored_timeline.db.conn()
    spans = [ended - started for started, ended in request_spans(conn, session.id, since, until)]
    return sum(spans) if spans else None
