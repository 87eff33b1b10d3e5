"""The widget object: snapshots and patches to the views, the store watch, and which views are alive."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from ..cards.models import CARD_CLASSES
from ..cards.rules import EDITABLE_FIELDS, INSERTABLE, READ_ONLY_REASON
from ..engine.compaction import COMPACTING, session_links
from ..engine.compaction.now import HANDING_OVER
from ..engine.events import (
    CardAdded,
    CardChanged,
    CardRemoved,
    Notice,
    Reloaded,
    SessionEvent,
    SessionLinked,
    SettingsChanged,
    StateChanged,
    StatusChanged,
    TextDelta,
)
from ..engine.settings.preferences import preferences_at
from ..engine.subagents import waiting_status
from ..engine.trust import untrusted_sentence
from ..errors import InvalidInput, MewrkError
from . import commands, protocol
from .actions import CHANGES_FIGURE, ActionHandler
from .deltas import DeltaBuffer
from .payloads import card_payload, context_payload, model_has_vision, tool_forms
from .told import Told
from .uploads import CHUNK, Uploads

if TYPE_CHECKING:
    from ..engine.session import Session

log = logging.getLogger("mewrk_jupyter")

STATIC = Path(__file__).parent.parent / "static"
BUNDLE = STATIC / "widget.js"
STYLES = STATIC / "widget.css"

# Seconds between two looks at the store for what other processes did (their edits, their turns: R4).
WATCH_EVERY = 1.0

# A view says `alive` every HEARTBEAT_EVERY seconds; one silent for VIEW_TIMEOUT is taken as gone (a
# browser tab closed without clearing the output never says bye). Chromium slows the timers of a
# hidden tab to one a minute, so the timeout leaves room for that.
HEARTBEAT_EVERY = 20.0
VIEW_TIMEOUT = 90.0

# Kinds the widget's insert menu offers as a text card; tool calls have their own form (T5).
MENU_KINDS = tuple(kind for kind in INSERTABLE if kind != "tool_call")
# The header's word while the engine works on the conversation outside a turn (the state stays idle):
# by the composer line the work shows meanwhile.
BUSY = {COMPACTING: "compacting", HANDING_OVER: "writing handoff documents"}


class TimelineWidget(anywidget.AnyWidget):
    """The editable timeline of one session, with the composer and the dashboard line.

    Its collaborators: an ActionHandler carries out what views ask (the settings panel's through its
    SettingsHandler), a DeltaBuffer coalesces streamed text, Told records what the views were told,
    Uploads holds the files a view is sending."""

    _esm = BUNDLE
    _css = STYLES

    session_id = traitlets.Unicode("").tag(sync=True)
    # The panel each view opens with ("settings" for `%mewrk settings`); empty: none.
    panel = traitlets.Unicode("").tag(sync=True)

    def __init__(self, session: Session, **kwargs: Any) -> None:
        if not BUNDLE.exists():
            raise MewrkError(
                f"The widget's front end is missing ({BUNDLE}). Reinstall mewrk_jupyter, "
                "or build it with `npm ci && npm run build` in js/."
            )
        super().__init__(session_id=session.id, **kwargs)
        self.session = session
        self._lock = threading.RLock()  # orders snapshots and patches; always taken before the session's
        self._deltas = DeltaBuffer(self._tell, self.flush)  # streamed text not yet sent to the views
        self._told = Told()  # what the views hold
        self._closed = threading.Event()
        self._watcher: threading.Thread | None = None
        self._views: dict[str, float] = {}  # views that said hello and not bye -> when last heard
        self.uploads = Uploads()  # files a view is sending, until a send takes them
        self._trail: list[Session] = []  # the sessions this widget showed before, the latest last
        self._unsubscribe = session.subscribe(self._on_event)
        self.actions = ActionHandler(self)  # carries out what views ask
        self.on_msg(self.receive)

    def close(self) -> None:
        """Stop following the session and close the views."""
        self._unsubscribe()
        self._closed.set()
        with self._lock:
            self._deltas.cancel()
        super().close()

    # ---- which session this widget shows ------------------------------------------------------

    def switch_to(self, session_id: str) -> Session:
        """Show another session of the workspace in this widget, in place; returns it."""
        other = type(self.session).open(session_id, workspace=self.session.workspace.root)
        if other is not self.session:
            self._trail.append(self.session)
            self._rebind(other)
        return other

    def go_back(self) -> Session:
        """Show again the session shown before the last switch; returns it."""
        if not self._trail:
            raise InvalidInput("This view has no earlier session to go back to.")
        previous = self._trail.pop()
        self._rebind(previous)
        return previous

    def _rebind(self, other: Session) -> None:
        """Follow `other` instead of the current session and send every view its whole timeline."""
        with self._lock:  # no patch of either session slips between the switch and the snapshot
            self._unsubscribe()
            self._deltas.clear()  # text of the old session's streaming cards: no view wants it now
            self.session = other
            self.session_id = other.id
            self._unsubscribe = other.subscribe(self._on_event)
            self.snapshot()

    # ---- kernel → front end --------------------------------------------------------------------

    def _post(self, message: dict[str, Any]) -> None:
        """Send one message, as the wire carries it, to every view (tests replace this to read the wire)."""
        self.send(message)

    def _tell(self, message: protocol.SentModel) -> None:
        """Send one protocol message to every view."""
        self._post(protocol.wire(message))

    def tell_views(self, *messages: protocol.SentModel) -> None:
        """Send messages to every view, after the streamed text still pending so that order holds."""
        with self._lock:
            self._deltas.flush()
            for message in messages:
                self._tell(message)

    def snapshot(self, view: str | None = None) -> protocol.SnapshotMsg:
        """Send the whole timeline to one view (or all); returns the message."""
        with self._lock:
            self._deltas.flush()  # views that already follow need that text; the new one ignores it
            timeline = self.session.timeline()
            cards: list[protocol.CardRow] = []
            told = self._told
            told.forget_cards()
            told.unsent = self.session.not_sent()
            for key, card in zip(list(timeline.keys), list(timeline.cards), strict=True):
                payload = card_payload(card, told.unsent.get(card.id))
                self._deltas.knows(card.id, len(payload.get("text") or ""))
                told.cards[card.id] = (key, payload)
                cards.append(protocol.CardRow(card=payload, order_key=key))
            told.state = self.session.state
            back = self._trail[-1] if self._trail else None  # the header's way back
            original, handovers = session_links(self.session)
            locked = self.session.read_only
            message = protocol.SnapshotMsg(
                for_=view,
                session=protocol.SessionInfo(
                    id=self.session.id,
                    title=self.session.title,
                    model=self.session.settings.model,
                    handover_of=protocol.SessionLink(id=original[0], title=original[1]) if original else None,
                    handovers=[protocol.SessionLink(id=i, title=t) for i, t in handovers],
                    read_only=self.session.read_only,
                ),
                came_from=protocol.CameFrom(id=back.id, title=back.title) if back else None,
                cards=cards,
                state=told.state,
                context=context_payload(self.session),
                kinds=list(MENU_KINDS),
                editable={} if locked else {kind: list(n) for kind, n in EDITABLE_FIELDS.items()},
                # A read-only timeline: every kind says why, as a read-only kind does.
                read_only={kind: locked for kind in CARD_CLASSES} if locked else dict(READ_ONLY_REASON),
                # A preference of the folder, read at each snapshot; the watch tells views of a change.
                confirm_delete=self._read_confirm_delete(),
                commands=[protocol.CommandInfo.model_validate(c) for c in commands.offered(self.session)],
                tools=tool_forms(self.session),
                vision=model_has_vision(self.session),
                chunk=CHUNK,
                heartbeat=HEARTBEAT_EVERY,
                trust=untrusted_sentence(self.session.workspace.home),
            )
            self._tell(message)
            self._restate_waiting(waiting_status(timeline.cards), always=True)
            return message

    def _restate_waiting(self, waiting: str | None, always: bool = False) -> None:
        """Tell the views whether a subagent's approval waits on this timeline (the composer's line);
        a line the engine set for something else (a compaction) is not cleared when none waits."""
        if waiting != self._told.waiting or (always and waiting is not None):
            self._told.waiting = waiting
            self._tell(protocol.StatusMsg(text=waiting))

    def _on_event(self, event: SessionEvent) -> None:
        if isinstance(event, Reloaded):
            # Emitted while the session holds its own lock: answer from another thread so that the
            # lock order (widget, then session) is never reversed.
            threading.Thread(target=self.resync, name="mewrk-widget-reload", daemon=True).start()
            return
        if isinstance(event, TextDelta):
            self._queue_delta(event)
            return
        # The header's model, the commands and the figure follow; after a handover, its link.
        if isinstance(event, SettingsChanged | SessionLinked):
            if event.session_id == self.session.id:
                self.snapshot()
            return
        with self._lock:
            if event.session_id != self.session.id:  # sent before this widget switched to another session
                return
            match event:
                case CardAdded(card=card, order_key=key) | CardChanged(card=card, order_key=key):
                    unsent = self.session.not_sent()
                    payload = card_payload(card, unsent.get(card.id))
                    self._deltas.knows(card.id, len(payload.get("text") or ""))  # the card carries that text
                    self._deltas.flush()
                    self._told.cards[card.id] = (key or "", payload)
                    patch = protocol.CardAddedMsg if isinstance(event, CardAdded) else protocol.CardChangedMsg
                    self._tell(patch(card=payload, order_key=key or ""))
                    self._restate_unsent(unsent)
                    if card.kind == "subagent":  # a subagent moved on: the agent filter's figures follow
                        self._tell(context_payload(self.session))
                case CardRemoved(card_id=card_id):
                    self._deltas.forget(card_id)
                    self._told.cards.pop(card_id, None)
                    self._deltas.flush()
                    self._tell(protocol.CardRemovedMsg(card_id=card_id))
                    self._restate_unsent(self.session.not_sent())
                case StateChanged(state=state):
                    self._deltas.flush()
                    self._told.state = state
                    self._tell(protocol.StateMsg(state=state))
                    if state != "running":
                        self._tell(context_payload(self.session))
                case Notice(text=text, level=level):
                    self._deltas.flush()
                    self._tell(protocol.NoticeMsg(level=level, text=text))
                case StatusChanged(text=status):
                    self._deltas.flush()
                    # When the engine is done with its line, a subagent's approval that still waits
                    # keeps the composer's.
                    self._told.waiting = waiting_status(self.session.timeline().cards)
                    line = status if status is not None else self._told.waiting
                    self._tell(protocol.StatusMsg(text=line, busy=BUSY.get(status or "")))

    def _restate_unsent(self, unsent: dict[str, str]) -> None:
        """Patch the cards whose "not sent" note changed: a change above a signed block reaches below it."""
        for key, payload in self._told.unsent_now(unsent):
            self._tell(protocol.CardChangedMsg(card=payload, order_key=key))

    def _queue_delta(self, event: TextDelta) -> None:
        card_id, text = event.card_id, event.text
        with self._lock:
            if event.session_id != self.session.id:
                return
            known = self._deltas.length(card_id)
            if known is None:  # the card was added before this widget subscribed
                found = self.session.timeline().get(card_id)
                current = len(getattr(found[1], "text", "") or "") if found else len(text)
                known = max(0, current - len(text))
            self._deltas.queue(card_id, text, known)

    def flush(self) -> None:
        """Send the text streamed since the last flush, one message per card."""
        with self._lock:
            self._deltas.flush()

    def resync(self) -> None:
        """Patch the views up to the store after another process changed the session (no snapshot)."""
        with self._lock:
            self._deltas.flush()
            timeline = self.session.timeline()
            told = self._told
            told.unsent = self.session.not_sent()
            now = {}
            for key, card in zip(list(timeline.keys), list(timeline.cards), strict=True):
                now[card.id] = (key, card_payload(card, told.unsent.get(card.id)))
            for card_id in [cid for cid in told.cards if cid not in now]:
                told.cards.pop(card_id)
                self._deltas.forget(card_id)
                self._tell(protocol.CardRemovedMsg(card_id=card_id))
            for card_id, (key, payload) in now.items():
                known = told.cards.get(card_id)
                if known == (key, payload):
                    continue
                told.cards[card_id] = (key, payload)
                self._deltas.knows(card_id, len(payload.get("text") or ""))
                patch = protocol.CardChangedMsg if known is not None else protocol.CardAddedMsg
                self._tell(patch(card=payload, order_key=key))
            self._tell(context_payload(self.session))
            self._restate_waiting(waiting_status(timeline.cards))  # another process's subagent

    # ---- the store watch, while views are alive --------------------------------------------------

    def _watch(self) -> None:
        """Look at the store now and then: another kernel, a script or the HTTP API may change the session."""
        while not self._closed.wait(WATCH_EVERY):
            with self._lock:
                silent = time.monotonic() - VIEW_TIMEOUT
                for view in [v for v, heard in self._views.items() if heard < silent]:
                    del self._views[view]  # its tab was closed without a bye
                if not self._views:  # every view is gone: stop looking until one speaks again
                    self._watcher = None
                    return
            try:
                self.session.timeline()  # announces "reloaded" when another process wrote
                with self._lock:
                    state = self.session.state
                    if state != self._told.state:
                        self._told.state = state
                        self._deltas.flush()
                        self._tell(protocol.StateMsg(state=state))
                        if state != "running":
                            self._tell(context_payload(self.session))
                    self._restate_preferences()
            except Exception:  # a damaged store must not kill the thread silently in a loop
                log.exception("the widget could not read session %s", self.session.id)

    def _read_confirm_delete(self) -> bool:
        self._told.confirm_delete = preferences_at(self.session.workspace.home)[0].confirm_delete
        return self._told.confirm_delete

    def _restate_preferences(self) -> None:
        """Tell the views when the folder's preferences changed (mw.set_preferences, an editor, git)."""
        told = self._told.confirm_delete
        if self._read_confirm_delete() != told:
            self._deltas.flush()
            self._tell(protocol.PreferencesMsg(confirm_delete=self._told.confirm_delete))

    def _heard(self, view: Any) -> bool:
        """Note that a view is alive and make sure the watch runs; True if the view was not known."""
        with self._lock:
            new = str(view) not in self._views
            self._views[str(view)] = time.monotonic()
            if self._watcher is None and not self._closed.is_set():
                self._watcher = threading.Thread(
                    target=self._watch, name=f"mewrk-widget-watch-{self.session.id}", daemon=True
                )
                self._watcher.start()
            return new

    # ---- front end → kernel --------------------------------------------------------------------

    @property
    def watcher(self) -> threading.Thread | None:
        """The thread that follows the store while views are alive; None when none is."""
        return self._watcher

    @property
    def views(self) -> dict[str, float]:
        """The views that said hello and not bye, with when each was last heard."""
        with self._lock:
            return dict(self._views)

    def act(self, content: Any, view: str | None = None) -> protocol.ResultMsg:
        """Carry out one action from a view and answer it with a `result` message (also returned); after
        one that may move the dashboard's figures, the views get them again."""
        answer = self.actions.answer(content, view)
        name = content.get("action") if isinstance(content, dict) else None
        self.tell_views(answer, *([context_payload(self.session)] if name in CHANGES_FIGURE else []))
        return answer

    def receive(self, _widget: Any, content: Any, buffers: Any = None) -> None:
        """Handle one message from a view (the comm calls this; tests call it as a view would)."""
        if isinstance(content, dict) and content.get("type") == "action":
            view = content.get("view")
            self.act(content, view if isinstance(view, str) else None)  # even a bad one gets its answer
            return
        try:
            message = protocol.read_view_message(content)
        except InvalidInput as exc:  # nobody waits for an answer: note it for whoever debugs the view
            log.warning("the widget ignored a message from a view: %s", exc)
            return
        if isinstance(message, protocol.HelloMsg):
            self.snapshot(message.view)
            self._heard(message.view)
        elif isinstance(message, protocol.AliveMsg):
            if self._heard(message.view):  # taken for gone while its tab slept: catch up with the store
                threading.Thread(target=self.resync, name="mewrk-widget-wake", daemon=True).start()
        elif isinstance(message, protocol.ByeMsg):
            with self._lock:
                self._views.pop(message.view, None)
        elif isinstance(message, protocol.UploadMsg):
            self.uploads.receive(message, list(buffers or []))
