// One view of a session's timeline, where its parts are put together: header, panels, the card list,
// composer, notice line and dashboard. The kernel-side session holds the truth; this view asks for a
// snapshot, applies patches, and turns every gesture into an action the session carries out (or refuses).
import { LABELS, cardBody, cardFooter, iconButton } from "./card";
import { CardActions } from "./cardactions";
import { CardMenu } from "./cardmenu";
import { CompactionMenu } from "./compaction";
import { Composer, type Outgoing } from "./composer";
import { Connection, LOST, lostSentence, type WidgetModel } from "./connection";
import { Dashboard } from "./dashboard";
import { h, keepKeysIn } from "./dom";
import { isDraft } from "./drafts";
import { askPrune } from "./economy";
import { Editing } from "./editing";
import { bindGestures } from "./gestures";
import { Header } from "./header";
import { type KeyParts, timelineKey } from "./keys";
import { CardList, cardIdOf, type Slot } from "./list";
import { Notice } from "./notice";
import { Panels, type PanelName } from "./panels";
import { ReplayPanel } from "./replay";
import type { Action, CardPayload, ContextMsg, KernelMsg, ResultMsg, SnapshotMsg, ToolInfo } from "./protocol";
import { BoxSelection } from "./selection";
import { SettingsPanel } from "./settings";
import { TimelineState } from "./state";
import { ToolImages } from "./toolimages";
import { ToolLockLine } from "./toollock";
import { TrustLine } from "./trust";
import { sendFiles } from "./upload";

export class TimelineView {
  private readonly link: Connection;
  private readonly state = new TimelineState();
  private ready = false;
  /** The session this view shows; it changes when a branch or fork is opened here, in place. */
  private sessionId: string | null = null;
  private sessionState = "idle";
  private tools: ToolInfo[] = [];
  private chunk = 2 * 1024 * 1024;
  private readonly open = new Set<string>();
  private readonly images: ToolImages;
  private readonly selected = new BoxSelection(
    (a, b) => this.state.range(a, b),
    (ids) => {
      for (const id of ids) this.list.dirty(id);
      this.list.schedule();
    },
  );
  private readonly list: CardList;
  private readonly editing: Editing;
  private readonly actions: CardActions;
  private readonly menu: CardMenu;
  private readonly parts: KeyParts;
  private readonly cleanups: (() => void)[] = [];

  readonly root: HTMLElement;
  private readonly header: Header;
  private readonly panels: Panels;
  private readonly compaction: CompactionMenu;
  private readonly empty: HTMLElement;
  private readonly lostBanner: HTMLElement;
  private readonly trustLine: TrustLine;
  private readonly toolLockLine: ToolLockLine;
  private readonly notice = new Notice();
  /** Notices and card errors true only while the session is in a state: text → that state. */
  private readonly holding = new Map<string, string>();
  private readonly composer: Composer;
  private readonly dashboard: Dashboard;

  constructor(model: WidgetModel, host: HTMLElement) {
    this.link = new Connection(model);
    const act = this.link.act.bind(this.link);
    const notice = this.notice.show.bind(this.notice);
    this.list = new CardList({
      rows: () => this.editing.drafts.place(this.state.order),
      fill: (id, slot) => this.fill(id, slot),
      rendered: (rows) => this.rendered(rows),
      scrolled: () => this.menu.isOpen && this.menu.close(),
    });
    this.cleanups.push(this.list.cleanup);
    this.editing = new Editing(this.state, this.list, {
      act,
      tools: () => this.tools,
      blocked: () => (this.link.lost ? lostSentence(this.sessionId) : null),
      upload: (files) => sendFiles(this.link.model, this.link.viewId, files, this.chunk),
    });
    this.images = new ToolImages(act, (id) => {
      this.list.dirty(id);
      this.list.schedule();
    });
    this.actions = new CardActions(this.state, this.list, this.editing, this.selected, { act, notice, told: (r) => this.told(r) });
    this.header = new Header(
      () => this.panels.toggle("history"),
      () => this.navigate({ action: "back" }),
      (id) => this.navigate({ action: "open_session", session_id: id }),
      () => this.panels.show("replay"),
    );
    this.compaction = new CompactionMenu({ act, open: (id) => this.navigate({ action: "open_session", session_id: id }) });
    this.panels = new Panels({
      loadHistory: (done) =>
        act({ action: "history" }, (r) => done(r.ok ? (r.data.entries ?? []) : null, r.message)),
      loadEntry: (id, done) =>
        act({ action: "history_entry", entry_id: id }, (r) => done(r.ok ? (r.data.entry ?? null) : null, r.message)),
      settings: new SettingsPanel({ act }),
      compaction: this.compaction,
      // The replay's branch shows here now (its snapshot came first): the panel goes, the notice says so.
      replay: new ReplayPanel({ act, started: (r) => (this.panels.close(), this.notice.show("info", r.message)) }),
    });
    this.empty = h("div", { class: "mw-empty" }, "Loading the timeline…");
    this.lostBanner = h("div", { class: "mw-lost", role: "alert", "data-testid": "mw-lost", hidden: "" }, LOST);
    this.composer = new Composer({
      submit: (out, done) => this.submit(out, done),
      stop: () => act({ action: "stop" }),
      notice,
    });
    this.dashboard = new Dashboard(
      () => this.panels.toggle("context"),
      (id) => this.navigate({ action: "open_session", session_id: id }),
      () => askPrune(act, "stale", (text) => notice("info", text), (text) => notice("error", text)),
    );
    this.trustLine = new TrustLine((done) =>
      act({ action: "trust" }, (r) => {
        this.notice.show(r.ok ? "info" : "error", r.message ?? "");
        done(r.ok);
      }),
    );
    this.toolLockLine = new ToolLockLine((done) =>
      act({ action: "accept_tool_change" }, (r) => {
        this.notice.show(r.ok ? "info" : "error", r.message ?? "");
        done();
      }),
    );
    this.root = h(
      "div",
      // Focusable, so that a click anywhere in the widget brings its keys (undo, redo) here.
      { class: "mw-root", tabindex: "-1", "data-lm-suppress-shortcuts": "", "data-jp-suppress-context-menu": "" },
      this.header.el,
      this.lostBanner,
      this.trustLine.el,
      this.panels.el,
      this.list.scroller,
      this.empty,
      this.notice.el,
      this.toolLockLine.el,
      this.composer.el,
      this.dashboard.el,
    );
    const { state, list, selected, editing, actions, root } = this;
    this.menu = new CardMenu({ state, list, selected, editing, actions, root, ready: () => this.ready && !this.link.lost, tools: () => this.tools });
    this.parts = { list, selected, editing, actions, menu: this.menu, act, notice };
    host.append(this.root);

    this.bind();
    this.updateState();
    this.link.hello();
    this.link.beat(20);
    if (model.get?.("panel") === "settings") this.panels.show("settings"); // `%mewrk settings` in a cell
    this.cleanups.push(this.link.watchKernel(host, () => this.disconnected()));
  }

  /** The kernel behind this view is gone: say so where the controls were, and disable them. */
  private disconnected(): void {
    this.root.dataset.disconnected = "";
    this.lostBanner.textContent = lostSentence(this.sessionId);
    this.lostBanner.hidden = false;
    this.menu.close();
    this.composer.disconnect();
    this.header.setState("disconnected");
    this.notice.clear();
    for (const id of this.list.ids()) this.list.dirty(id);
    this.list.schedule();
  }

  dispose(): void {
    this.link.dispose();
    this.menu.close();
    this.notice.dispose();
    for (const cleanup of this.cleanups) cleanup();
    this.root.remove();
  }

  // ---- wiring -----------------------------------------------------------------------------------

  private bind(): void {
    const onMessage = (msg: KernelMsg) => this.receive(msg);
    this.link.model.on("msg:custom", onMessage);
    this.cleanups.push(() => this.link.model.off("msg:custom", onMessage));

    // A tab that closes says bye if it can; the heartbeat covers the cases where it cannot.
    const leaving = () => this.link.bye();
    window.addEventListener("pagehide", leaving);
    this.cleanups.push(() => window.removeEventListener("pagehide", leaving));
    this.list.inner.addEventListener("input", (event) => {
      const box = event.target as HTMLElement;
      const id = cardIdOf(box);
      if (id && box.classList.contains("mw-reason")) this.actions.reasons.set(id, (box as HTMLTextAreaElement).value);
    });
    this.root.addEventListener("keydown", (event) => timelineKey(event, this.parts));
    keepKeysIn(this.root);
    this.cleanups.push(bindGestures(this.parts, this.empty));
  }

  // ---- kernel messages --------------------------------------------------------------------------

  private receive(msg: KernelMsg): void {
    if (msg.type === "snapshot") return this.applySnapshot(msg);
    if (msg.type === "result") {
      if (msg.ok && msg.data.trusted) this.trustLine.show(null); // by the button or by /trust
      if (msg.while_state && msg.message) this.holding.set(msg.message, msg.while_state);
      return this.link.settle(msg, (result) => {
        if (!result.ok) this.notice.show("error", result.message ?? "That did not work.");
        else if (result.message) this.notice.show("info", result.message);
      });
    }
    if (!this.ready) return; // patches before our snapshot are already in it
    switch (msg.type) {
      case "card_added":
      case "card_changed":
        this.images.follow(this.state.get(msg.card.id), msg.card);
        this.state.upsert(msg.card, msg.order_key);
        this.list.dirty(msg.card.id);
        break;
      case "card_removed":
        this.state.remove(msg.card_id);
        this.forget(msg.card_id);
        break;
      case "text_delta":
        if (!this.state.delta(msg.card_id, msg.offset, msg.text)) {
          this.ready = false;
          this.link.hello();
          return;
        }
        this.list.dirty(msg.card_id);
        break;
      case "state":
        this.sessionState = msg.state;
        this.updateState();
        this.expireNotices();
        if (msg.state !== "running") this.panels.refresh();
        return;
      case "notice":
        this.notice.show(msg.level === "error" ? "error" : "info", msg.text);
        return;
      case "preferences":
        this.actions.confirmDelete = !!msg.confirm_delete;
        // Changed elsewhere: the settings panel and the ring's compaction section follow.
        if (this.panels.current === "settings" || this.panels.current === "context") this.panels.refresh();
        return;
      case "status":
        this.composer.setStatus(msg.text);
        this.header.setBusy(msg.busy ?? null);
        return;
      case "context":
        this.showContext(msg);
        return;
    }
    this.list.schedule();
  }

  private applySnapshot(msg: SnapshotMsg): void {
    if (msg.for && msg.for !== this.link.viewId) return;
    const switched = this.sessionId !== null && this.sessionId !== msg.session.id;
    this.sessionId = msg.session.id;
    this.link.sessionId = msg.session.id;
    if (switched) {
      // Another session now shows here: start at its end, and let nothing of the old one linger.
      this.selected.set([]);
      this.list.stick = true;
      this.notice.clear();
      this.compaction.forget();
    }
    this.state.reset(msg.cards);
    this.ready = true;
    this.menu.kinds = msg.kinds ?? this.menu.kinds;
    this.editing.editable = msg.editable ?? {};
    this.editing.readOnly = msg.read_only ?? {};
    this.actions.confirmDelete = !!msg.confirm_delete;
    this.sessionState = msg.state;
    this.expireNotices();
    this.tools = msg.tools ?? [];
    this.chunk = msg.chunk ?? this.chunk;
    this.composer.commands = msg.commands ?? [];
    this.panels.commands = this.composer.commands;
    this.composer.vision = msg.vision ?? true;
    this.composer.model = msg.session.model;
    this.composer.setReadOnly(msg.session.read_only ?? null);
    if (msg.heartbeat) this.link.beat(msg.heartbeat);
    this.header.setSession(msg.session, msg.came_from);
    this.trustLine.show(msg.trust);
    // Another session, or this one's settings changed (a snapshot follows each change): panels read again.
    if (switched || this.panels.current === "settings" || this.panels.current === "context") this.panels.refresh();
    for (const id of this.list.ids()) {
      if (!this.state.get(id) && !isDraft(id)) this.forget(id);
      else this.list.dirty(id);
    }
    this.updateState();
    this.showContext(msg.context);
    this.list.schedule();
  }

  private forget(id: string): void {
    this.list.forget(id);
    this.editing.forget(id);
    this.selected.forget(id);
    this.open.delete(id);
    this.images.forget(id);
  }

  private showContext(ctx: ContextMsg): void {
    this.dashboard.update(ctx);
    this.panels.setContext(ctx);
    this.toolLockLine.show(ctx.tool_lock);
  }

  /** Refusals such as "The model is running…" and "Stopping…" go once the state they describe ends. */
  private expireNotices(): void {
    for (const [text, during] of [...this.holding]) {
      if (during === this.sessionState) continue;
      this.holding.delete(text);
      this.notice.clearIf(text);
      this.editing.clearErrors(text);
    }
  }

  private updateState(): void {
    if (this.link.lost) return;
    this.composer.setState(this.ready, this.sessionState === "running");
    this.header.setState(this.sessionState);
  }

  // ---- rendering --------------------------------------------------------------------------------

  private rendered(rows: string[]): void {
    this.empty.hidden = this.ready && rows.length > 0;
    if (this.ready) {
      this.empty.textContent = "The timeline is empty. Write below and Send, or right-click here to insert a card.";
    }
    const id = this.list.focusNext;
    if (id) {
      this.list.focusNext = null;
      const editor = this.editing.editors.get(id);
      if (editor) editor.focus();
      else this.list.get(id)?.el.focus({ preventScroll: true });
    }
  }

  /** (Re)build a card's parts; an open editor node is kept as it is, so focus and draft survive. */
  private fill(id: string, slot: Slot): void {
    const draft = this.editing.drafts.get(id);
    const card = this.state.get(id);
    const kind = draft?.kind ?? card?.kind ?? "preview";
    const editor = this.editing.editors.get(id);
    const el = slot.el;
    el.className = `mw-card mw-kind-${kind}`;
    el.classList.toggle("mw-draft", !!draft);
    el.classList.toggle("mw-editing", !!editor);
    el.classList.toggle("mw-selected", this.selected.has(id));
    el.classList.toggle("mw-running", !!card && card.kind === "model_reply" && card.complete === false);
    el.dataset.kind = kind;
    el.setAttribute("aria-label", LABELS[kind] ?? kind);

    const label = h("span", { class: "mw-label" }, draft ? `New ${(LABELS[kind] ?? kind).toLowerCase()}` : LABELS[kind] ?? kind);
    const tools = h("span", { class: "mw-card-tools" });
    if (card && !editor) {
      if (this.canReexecute(card)) tools.append(iconButton("reexecute", "Re-execute with these parameters"));
      if (this.editing.canEdit(card)) tools.append(iconButton("edit", "Edit (Enter)"));
      tools.append(iconButton("delete", "Delete (Del)"));
    }
    slot.head.replaceChildren(label, tools);

    if (editor) {
      if (slot.body.firstChild !== editor.node) slot.body.replaceChildren(editor.node);
    } else if (card) {
      slot.body.replaceChildren(
        cardBody(card, {
          reason: this.actions.reasons.get(id),
          image: (index) => this.images.get(id, index),
          open: this.open.has(id),
          onToggle: (open) => {
            if (open) this.open.add(id);
            else this.open.delete(id);
          },
        }),
      );
    }
    const error = this.editing.error(id);
    slot.error.textContent = error ?? "";
    slot.error.hidden = !error;
    const foot = card ? cardFooter(card) : h("div", { class: "mw-card-foot" });
    slot.foot.replaceWith(foot);
    slot.foot = foot;
    if (this.link.lost) {
      // Nothing reaches the session any more: no button on a card may look as if it would.
      for (const button of el.querySelectorAll("button")) button.disabled = true;
      slot.head.querySelector(".mw-card-tools")?.replaceChildren();
    }
  }

  private canReexecute(card: CardPayload): boolean {
    return card.kind === "tool_call" && !!this.tools.find((t) => t.name === card.name && t.reexecute);
  }

  // ---- other sessions ---------------------------------------------------------------------------

  /** What an action said; after a branch or fork, with the offer to open the new session here. */
  private told(result: ResultMsg): void {
    const id = result.data.session_id;
    if (result.data.offer_open && typeof id === "string") {
      this.notice.offer(result.message ?? "", "Open it here", () => this.navigate({ action: "open_session", session_id: id }));
    } else if (result.message) this.notice.show("info", result.message);
  }

  /** Show another session in this view (or the one before): the kernel answers with its snapshot. */
  private navigate(action: Action): void {
    this.link.act(action, (r) => this.notice.show(r.ok ? "info" : "error", r.message ?? ""));
  }

  // ---- composer ---------------------------------------------------------------------------------

  /** Send the composer's message (files first, in chunks) or run its slash command. */
  private submit(out: Outgoing, done: (ok: boolean) => void): void {
    const finish = (result: ResultMsg, sent: boolean) => {
      if (!result.ok) {
        this.notice.show("error", result.message ?? "The message was not sent.");
        return done(false);
      }
      const open = result.data.open as PanelName | undefined;
      if (open) this.panels.show(open);
      if (result.message) this.told(result);
      else this.notice.clear();
      if (sent) this.list.stick = true;
      done(true);
    };
    if (out.text.startsWith("/")) {
      if (out.files.length) {
        // A command takes no files: keep both rather than guess which one the person meant.
        this.notice.show("error", "A /command runs without attachments — remove the files, or start with a space to send them with this text.");
        return done(false);
      }
      this.link.act({ action: "command", text: out.text }, (r) => finish(r, !!r.data.sent));
      return;
    }
    sendFiles(this.link.model, this.link.viewId, out.files, this.chunk)
      .then((ids) => this.link.act({ action: "send", text: out.text, attachments: ids }, (r) => finish(r, true)))
      .catch((exc: Error) => {
        this.notice.show("error", `The attachments could not be read: ${exc.message}. Nothing was sent.`);
        done(false);
      });
  }
}
