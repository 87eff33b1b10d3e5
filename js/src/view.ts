// One view of a session's timeline: cards (virtualised), context menu, in-place editing, composer,
// dashboard. The kernel-side session holds the truth; this view asks for a snapshot, then applies
// patches, and turns every gesture into an action that the session carries out (or refuses).
import { LABELS, cardBody, cardFooter, h, iconButton } from "./card";
import { Composer, type Outgoing } from "./composer";
import { ContextMenu, type MenuEntry } from "./menu";
import { Panels, ring, type PanelName } from "./panels";
import type { Action, CardData, ContextMsg, HistoryRow, KernelMsg, ResultMsg, SnapshotMsg, ToolInfo } from "./protocol";
import { BoxSelection } from "./selection";
import { TimelineState } from "./state";
import { sendFiles } from "./upload";
import { type Editor, makeEditor } from "./editor";
import { CardList, type Slot } from "./list";

/** The part of anywidget's model this view uses. */
export interface WidgetModel {
  send(content: unknown, callbacks?: unknown, buffers?: ArrayBuffer[]): void;
  on(event: string, callback: (...args: any[]) => void): void;
  off(event: string, callback?: (...args: any[]) => void): void;
}

type Where = "before" | "after";

interface Draft {
  id: string;
  kind: string;
  anchor: string | null;
  where: Where;
}



function inTextBox(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === "TEXTAREA" || el.tagName === "INPUT" || el.tagName === "SELECT" || el.isContentEditable);
}

const STATE_WORDS: Record<string, string> = { idle: "idle", running: " running", awaiting_approval: "waiting for approval" };

export class TimelineView {
  readonly viewId = Math.random().toString(36).slice(2, 10);
  private readonly state = new TimelineState();
  private ready = false;
  private running = false;
  private sessionState = "idle";
  private tools: ToolInfo[] = [];
  private chunk = 2 * 1024 * 1024;
  private heartbeat = 0;
  private readonly reasons = new Map<string, string>();
  private kinds: string[] = ["system_prompt", "user_input", "thinking", "model_reply"];
  private editable: Record<string, string[]> = {};
  private confirmDelete = false;
  private nextReq = 1;
  private readonly waiting = new Map<number, (result: ResultMsg) => void>();
  private readonly editors = new Map<string, Editor>();
  private readonly errors = new Map<string, string>();
  private readonly open = new Set<string>();
  private readonly selected = new BoxSelection(
    (a, b) => this.state.range(a, b),
    (ids) => {
      for (const id of ids) this.dirty(id);
      this.schedule();
    },
  );
  private drafts: Draft[] = [];
  private draftCount = 0;
  private focusAfterRender: string | null = null;
  private noticeTimer = 0;
  private readonly menu = new ContextMenu();
  private readonly list: CardList;
  private readonly cleanups: (() => void)[] = [];

  readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly stateBadge: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly composer: Composer;
  private readonly panels: Panels;
  private readonly dashboard: HTMLElement;
  private readonly ring = ring();
  private readonly cost: HTMLElement;

  constructor(
    private readonly model: WidgetModel,
    host: HTMLElement,
  ) {
    this.title = h("span", { class: "mw-title" }, "Loading the timeline…");
    this.stateBadge = h("span", { class: "mw-state", "data-state": "idle", "data-testid": "mw-state" });
    this.list = new CardList({
      rows: () => this.computeRows(),
      fill: (id, slot) => this.fill(id, slot),
      rendered: (rows) => this.rendered(rows),
      scrolled: () => this.menu.isOpen && this.menu.close(),
    });
    this.cleanups.push(this.list.cleanup);
    this.empty = h("div", { class: "mw-empty" }, "Loading the timeline…");
    this.notice = h("div", { class: "mw-notice", role: "status", "aria-live": "polite", "data-testid": "mw-notice" });
    this.composer = new Composer({
      submit: (out, done) => this.submit(out, done),
      stop: () => this.act({ action: "stop" }),
      notice: (level, text) => this.showNotice(level, text),
    });
    this.panels = new Panels({
      loadHistory: (done) =>
        this.act({ action: "history" }, (r) => done(r.ok ? ((r.data?.entries as HistoryRow[]) ?? []) : null, r.message)),
      loadEntry: (id, done) =>
        this.act({ action: "history_entry", entry_id: id }, (r) =>
          done(r.ok ? ((r.data?.entry as Record<string, unknown>) ?? null) : null, r.message),
        ),
    });
    // The dashboard line (D1–D4) stays exactly the session's line; the cost (D6) is a figure apart.
    this.dashboard = h("span", { class: "mw-dashboard", "data-level": "ok", "data-testid": "mw-dashboard" });
    this.cost = h("span", { class: "mw-cost", "data-testid": "mw-cost" });
    this.ring.el.addEventListener("click", () => this.panels.toggle("context"));
    const historyButton = h("button", { class: "mw-link", type: "button", "data-testid": "mw-history-button" }, "History");
    historyButton.addEventListener("click", () => this.panels.toggle("history"));
    this.root = h(
      "div",
      // Focusable, so that a click anywhere in the widget brings its keys (undo, redo) here.
      { class: "mw-root", tabindex: "-1", "data-lm-suppress-shortcuts": "", "data-jp-suppress-context-menu": "" },
      h("div", { class: "mw-header" }, this.title, h("span", { class: "mw-header-tools" }, historyButton, this.stateBadge)),
      this.panels.el,
      this.list.scroller,
      this.empty,
      this.notice,
      this.composer.el,
      h("div", { class: "mw-status" }, this.ring.el, this.dashboard, this.cost),
    );
    host.append(this.root);


    this.bind();
    this.updateComposer();
    this.model.send({ type: "hello", view: this.viewId });
    this.beat(20);
  }

  /** Tell the kernel now and then that this view is still shown: a closed tab stops its store watch. */
  private beat(seconds: number): void {
    window.clearInterval(this.heartbeat);
    this.heartbeat = window.setInterval(() => {
      try {
        this.model.send({ type: "alive", view: this.viewId });
      } catch {
        window.clearInterval(this.heartbeat);
      }
    }, seconds * 1000);
  }

  private sayBye(): void {
    try {
      this.model.send({ type: "bye", view: this.viewId });
    } catch {
      // The kernel is gone already; nothing to tell it.
    }
  }

  dispose(): void {
    window.clearInterval(this.heartbeat);
    this.sayBye();
    this.menu.close();
    window.clearTimeout(this.noticeTimer);
    for (const cleanup of this.cleanups) cleanup();
    this.root.remove();
  }

  // ---- wiring -----------------------------------------------------------------------------------

  private bind(): void {
    const onMessage = (msg: KernelMsg) => this.receive(msg);
    this.model.on("msg:custom", onMessage);
    this.cleanups.push(() => this.model.off("msg:custom", onMessage));

    // A tab that closes says bye if it can; the heartbeat covers the cases where it cannot.
    const leaving = () => this.sayBye();
    window.addEventListener("pagehide", leaving);
    this.cleanups.push(() => window.removeEventListener("pagehide", leaving));
    this.list.inner.addEventListener("input", (event) => {
      const box = event.target as HTMLElement;
      const id = this.cardIdOf(box);
      if (id && box.classList.contains("mw-reason")) this.reasons.set(id, (box as HTMLTextAreaElement).value);
    });
    this.root.addEventListener("keydown", (event) => this.key(event));
    this.list.inner.addEventListener("click", (event) => this.click(event));
    this.list.inner.addEventListener("dblclick", (event) => {
      const id = this.cardIdOf(event.target);
      if (id && !inTextBox(event.target) && !this.editors.has(id)) this.startEdit(id);
    });
    this.list.inner.addEventListener("mousedown", (event) => this.mouseDown(event));
    this.list.inner.addEventListener("mouseover", (event) => this.mouseOver(event));
    this.list.inner.addEventListener("mousemove", (event) => !this.menu.isOpen && this.list.hover(event));
    this.list.inner.addEventListener("mouseleave", () => !this.menu.isOpen && this.list.clearHover());
    const up = () => this.selected.up();
    window.addEventListener("mouseup", up);
    this.cleanups.push(() => window.removeEventListener("mouseup", up));
    this.list.scroller.addEventListener("contextmenu", (event) => this.contextMenu(event));
    this.empty.addEventListener("contextmenu", (event) => this.contextMenu(event));
  }

  private act(action: Action, done?: (result: ResultMsg) => void): void {
    const req = this.nextReq++;
    if (done) this.waiting.set(req, done);
    this.model.send({ type: "action", view: this.viewId, req, ...action });
  }

  // ---- kernel messages --------------------------------------------------------------------------

  private receive(msg: KernelMsg): void {
    if (msg.type === "snapshot") return this.applySnapshot(msg);
    if (msg.type === "result") {
      if (msg.for !== this.viewId) return;
      const done = this.waiting.get(msg.req);
      this.waiting.delete(msg.req);
      if (done) done(msg);
      else if (!msg.ok) this.showNotice("error", msg.message ?? "That did not work.");
      else if (msg.message) this.showNotice("info", msg.message);
      return;
    }
    if (!this.ready) return; // patches before our snapshot are already in it
    switch (msg.type) {
      case "card_added":
      case "card_changed":
        this.state.upsert(msg.card, msg.order_key);
        this.dirty(msg.card.id);
        break;
      case "card_removed":
        this.state.remove(msg.card_id);
        this.forget(msg.card_id);
        break;
      case "text_delta":
        if (!this.state.delta(msg.card_id, msg.offset, msg.text)) {
          this.ready = false;
          this.model.send({ type: "hello", view: this.viewId });
          return;
        }
        this.dirty(msg.card_id);
        break;
      case "state":
        this.sessionState = msg.state;
        this.running = msg.state === "running";
        this.updateComposer();
        if (!this.running) this.panels.refresh();
        return;
      case "notice":
        this.showNotice(msg.level === "error" ? "error" : "info", msg.text);
        return;
      case "context":
        this.updateDashboard(msg);
        return;
    }
    this.schedule();
  }

  private applySnapshot(msg: SnapshotMsg): void {
    if (msg.for && msg.for !== this.viewId) return;
    this.state.reset(msg.cards);
    this.ready = true;
    this.kinds = msg.kinds ?? this.kinds;
    this.editable = msg.editable ?? {};
    this.confirmDelete = !!msg.confirm_delete;
    this.sessionState = msg.state;
    this.running = msg.state === "running";
    this.tools = msg.tools ?? [];
    this.chunk = msg.chunk ?? this.chunk;
    this.composer.commands = msg.commands ?? [];
    this.panels.commands = this.composer.commands;
    this.composer.vision = msg.vision ?? true;
    this.composer.model = msg.session.model;
    if (msg.heartbeat) this.beat(msg.heartbeat);
    this.title.textContent = `${msg.session.title} · ${msg.session.id} · ${msg.session.model}`;
    for (const id of this.list.ids()) {
      if (!this.state.get(id) && !id.startsWith("draft-")) this.forget(id);
      else this.dirty(id);
    }
    this.updateComposer();
    this.updateDashboard(msg.context);
    this.schedule();
  }

  private forget(id: string): void {
    this.list.forget(id);
    this.editors.delete(id);
    this.errors.delete(id);
    this.selected.forget(id);
    this.open.delete(id);
    this.drafts = this.drafts.filter((d) => d.anchor !== id || d.id === id);
  }

  // ---- rendering --------------------------------------------------------------------------------

  private dirty(id: string): void {
    this.list.dirty(id);
  }

  private schedule(): void {
    this.list.schedule();
  }

  private computeRows(): string[] {
    const rows = [...this.state.order];
    for (const draft of this.drafts) {
      const at = draft.anchor === null ? -1 : rows.indexOf(draft.anchor);
      if (at < 0) rows.push(draft.id);
      else rows.splice(draft.where === "before" ? at : at + 1, 0, draft.id);
    }
    return rows;
  }

  private rendered(rows: string[]): void {
    this.empty.hidden = this.ready && rows.length > 0;
    if (this.ready) {
      this.empty.textContent = "The timeline is empty. Write below and Send, or right-click here to insert a card.";
    }
    if (this.focusAfterRender) {
      const id = this.focusAfterRender;
      this.focusAfterRender = null;
      const editor = this.editors.get(id);
      if (editor) editor.focus();
      else this.list.get(id)?.el.focus({ preventScroll: true });
    }
  }

  /** (Re)build a card's parts; an open editor node is kept as it is, so focus and draft survive. */
  private fill(id: string, slot: Slot): void {
    const draft = this.drafts.find((d) => d.id === id);
    const card = this.state.get(id);
    const kind = draft?.kind ?? card?.kind ?? "preview";
    const editor = this.editors.get(id);
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
      if (this.canEdit(card)) tools.append(iconButton("edit", "Edit (Enter)"));
      tools.append(iconButton("delete", "Delete (Del)"));
    }
    slot.head.replaceChildren(label, tools);

    if (editor) {
      if (slot.body.firstChild !== editor.node) slot.body.replaceChildren(editor.node);
    } else if (card) {
      slot.body.replaceChildren(
        cardBody(card, {
          reason: this.reasons.get(id),
          open: this.open.has(id),
          onToggle: (open) => {
            if (open) this.open.add(id);
            else this.open.delete(id);
          },
        }),
      );
    }
    const error = this.errors.get(id);
    slot.error.textContent = error ?? "";
    slot.error.hidden = !error;
    const foot = card ? cardFooter(card) : h("div", { class: "mw-card-foot" });
    slot.foot.replaceWith(foot);
    slot.foot = foot;
  }

  private canReexecute(card: CardData): boolean {
    return card.kind === "tool_call" && !!this.tools.find((t) => t.name === card.name && t.reexecute);
  }

  private canEdit(card: CardData): boolean {
    if (!(card.kind in this.editable)) return false;
    if (card.kind === "model_reply" && card.complete === false) return false;
    return !(card.kind === "thinking" && card.encrypted);
  }

  // ---- editing ----------------------------------------------------------------------------------

  private makeEditor(id: string, card: CardData | undefined): Editor {
    const draftKind = this.drafts.find((d) => d.id === id)?.kind;
    return makeEditor(card, draftKind === "tool_call" && !card ? this.tools : null, {
      save: (execute) => this.save(id, execute),
      cancel: () => this.cancelEdit(id),
    });
  }

  private startEdit(id: string): void {
    const card = this.state.get(id);
    if (!card) return;
    if (!this.canEdit(card)) {
      this.errors.set(id, "This card cannot be edited.");
      this.dirty(id);
      this.schedule();
      return;
    }
    this.editors.set(id, this.makeEditor(id, card));
    this.errors.delete(id);
    this.dirty(id);
    this.focusAfterRender = id;
    this.schedule();
  }

  private startDraft(kind: string, anchor: string | null, where: Where): void {
    const draft: Draft = { id: `draft-${++this.draftCount}`, kind, anchor, where };
    this.drafts.push(draft);
    this.editors.set(draft.id, this.makeEditor(draft.id, undefined));
    this.focusAfterRender = draft.id;
    this.schedule();
  }

  private cancelEdit(id: string): void {
    this.editors.delete(id);
    this.errors.delete(id);
    if (id.startsWith("draft-")) {
      const draft = this.drafts.find((d) => d.id === id);
      this.drafts = this.drafts.filter((d) => d.id !== id);
      this.list.forget(id);
      this.focusAfterRender = draft?.anchor ?? null;
    } else {
      this.dirty(id);
      this.focusAfterRender = id;
    }
    this.schedule();
  }

  private save(id: string, execute = false): void {
    const editor = this.editors.get(id);
    if (!editor) return;
    let fields: Record<string, unknown>;
    try {
      fields = editor.fields();
    } catch (exc) {
      this.errors.set(id, (exc as Error).message);
      this.dirty(id);
      this.schedule();
      return;
    }
    const draft = this.drafts.find((d) => d.id === id);
    const done = (result: ResultMsg) => {
      if (!result.ok) {
        this.errors.set(id, result.message ?? "That did not work.");
        this.dirty(id);
        this.schedule();
        return;
      }
      const newId = result.data?.card_id as string | undefined;
      this.cancelEdit(id);
      if (newId) this.focusAfterRender = newId;
    };
    if (draft?.kind === "tool_call") {
      const { name, params, result } = fields as { name: string; params: Record<string, unknown>; result: string | null };
      this.act({ action: "tool_call", name, params, result, execute, anchor: draft.anchor, where: draft.where }, done);
    } else if (draft) this.act({ action: "insert", kind: draft.kind, fields, anchor: draft.anchor, where: draft.where }, done);
    else this.act({ action: "edit", card_id: id, fields }, done);
  }

  // ---- gestures ---------------------------------------------------------------------------------

  private cardIdOf(target: EventTarget | null): string | null {
    const el = (target as HTMLElement | null)?.closest?.(".mw-card") as HTMLElement | null;
    return el?.dataset.cardId ?? null;
  }

  private click(event: MouseEvent): void {
    const button = (event.target as HTMLElement).closest("[data-act]") as HTMLElement | null;
    const id = this.cardIdOf(event.target);
    if (!id) return;
    const act = button?.dataset.act;
    if (act === "reexecute") this.act({ action: "reexecute", card_id: id }, (r) => !r.ok && this.cardOrComposerError(id, r.message));
    else if (act === "approve" || act === "approve-always" || act === "reject") this.decide(id, act);
    else if (act === "edit") this.startEdit(id);
    else if (act === "delete") this.remove(this.selected.targets(id));
    else if (!(event.ctrlKey || event.metaKey || event.shiftKey) && this.selected.size && !inTextBox(event.target)) {
      this.setSelection([]);
    }
  }

  private mouseDown(event: MouseEvent): void {
    const id = this.cardIdOf(event.target);
    if (!id || id.startsWith("draft-") || event.button !== 0 || inTextBox(event.target)) return;
    if (this.selected.down(id, event)) event.preventDefault();
  }

  private mouseOver(event: MouseEvent): void {
    const id = this.cardIdOf(event.target);
    if (id && !id.startsWith("draft-")) this.selected.over(id);
  }

  private setSelection(ids: string[]): void {
    this.selected.set(ids);
  }

  private contextMenu(event: MouseEvent): void {
    if (inTextBox(event.target) || event.shiftKey) return; // text boxes keep the browser's own menu
    event.preventDefault();
    event.stopPropagation();
    if (!this.ready) return;
    const id = this.cardIdOf(event.target);
    if (id && id.startsWith("draft-")) return;
    if (!id) {
      const last = this.state.order[this.state.order.length - 1] ?? null;
      this.openMenu(last, "after", event.clientX, event.clientY);
      return;
    }
    const rect = this.list.get(id)!.el.getBoundingClientRect();
    const where: Where = event.clientY < rect.top + rect.height / 2 ? "before" : "after";
    this.openMenu(id, where, event.clientX, event.clientY);
  }

  private openMenu(id: string | null, where: Where, x: number, y: number): void {
    const card = id ? this.state.get(id) : undefined;
    const el = id ? this.list.get(id)?.el : undefined;
    if (el) el.dataset.hover = where;
    const entries: MenuEntry[] = [{ heading: !card ? "Insert" : where === "before" ? "Insert above" : "Insert below" }];
    for (const kind of this.kinds) {
      entries.push({ label: LABELS[kind] ?? kind, testid: `insert-${kind}`, run: () => this.startDraft(kind, id, where) });
    }
    if (this.tools.length) {
      entries.push({ label: "Tool call…", testid: "insert-tool_call", run: () => this.startDraft("tool_call", id, where) });
    }
    if (card && id) {
      const many = this.selected.has(id) && this.selected.size > 1;
      entries.push({ separator: true });
      if (this.canEdit(card)) entries.push({ label: "Edit", testid: "edit", run: () => this.startEdit(id) });
      entries.push({
        label: many ? `Delete ${this.selected.size} cards` : "Delete",
        testid: "delete",
        run: () => this.remove(this.selected.targets(id)),
      });
      entries.push({ separator: true });
      entries.push({ label: "Fork from here (the cards above)", testid: "fork", run: () => this.copy("fork", id) });
      entries.push({ label: "Branch here (up to this card)", testid: "branch", run: () => this.copy("branch", id) });
    }
    this.menu.open(entries, x, y, () => {
      if (el) delete el.dataset.hover;
      if (!this.focusAfterRender && el && !this.root.contains(document.activeElement)) el.focus({ preventScroll: true });
    });
  }

  private remove(ids: string[]): void {
    // "Confirm before delete" is a session setting, off by default (T8); a delete is undoable anyway.
    if (this.confirmDelete && !window.confirm(ids.length > 1 ? `Delete ${ids.length} cards?` : "Delete this card?")) return;
    this.act({ action: "delete", card_ids: ids }, (result) => {
      if (!result.ok) this.cardOrComposerError(ids[0], result.message);
      else this.setSelection([]);
    });
  }

  private copy(how: "fork" | "branch", id: string): void {
    this.act({ action: how, card_id: id }, (result) => {
      if (!result.ok) this.cardOrComposerError(id, result.message);
      else this.showNotice("info", result.message ?? "");
    });
  }

  private cardOrComposerError(id: string | undefined, message?: string): void {
    const text = message ?? "That did not work.";
    if (id && this.list.has(id)) {
      this.errors.set(id, text);
      this.dirty(id);
      this.schedule();
    } else this.showNotice("error", text);
  }

  private key(event: KeyboardEvent): void {
    if (inTextBox(event.target) || this.menu.isOpen) return;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    const id = this.cardIdOf(document.activeElement);
    if (mod && !event.shiftKey && !event.altKey && key === "z") {
      this.act({ action: "undo" }, (r) => this.showNotice(r.ok ? "info" : "error", r.message ?? ""));
    } else if (mod && !event.altKey && key === "x") {
      this.act({ action: "redo" }, (r) => this.showNotice(r.ok ? "info" : "error", r.message ?? ""));
    } else if (((event.shiftKey && event.key === "F10") || event.key === "ContextMenu") && id) {
      const rect = this.list.get(id)!.el.getBoundingClientRect();
      this.openMenu(id, "after", rect.left + 24, rect.bottom - 4);
    } else if ((event.key === "Enter" || event.key === "F2") && id && !mod) {
      this.startEdit(id);
    } else if ((event.key === "Delete" || event.key === "Backspace") && id) {
      this.remove(this.selected.targets(id));
    } else if ((event.key === "ArrowDown" || event.key === "ArrowUp") && id) {
      const at = this.list.rows.indexOf(id) + (event.key === "ArrowDown" ? 1 : -1);
      if (at < 0 || at >= this.list.rows.length) return;
      this.list.scrollToIndex(at);
      this.focusAfterRender = this.list.rows[at];
      this.schedule();
    } else if (event.key === "Escape" && this.selected.size) {
      this.setSelection([]);
    } else return;
    event.preventDefault();
    event.stopPropagation();
  }

  // ---- composer and dashboard -------------------------------------------------------------------

  /** Send the composer's message (files first, in chunks) or run its slash command. */
  private submit(out: Outgoing, done: (ok: boolean) => void): void {
    const finish = (result: ResultMsg, sent: boolean) => {
      if (!result.ok) {
        this.showNotice("error", result.message ?? "The message was not sent.");
        return done(false);
      }
      const open = result.data?.open as PanelName | undefined;
      if (open) this.panels.show(open);
      if (result.message) this.showNotice("info", result.message);
      else this.clearNotice();
      if (sent) this.list.stick = true;
      done(true);
    };
    if (out.text.startsWith("/") && !out.files.length) {
      this.act({ action: "command", text: out.text }, (r) => finish(r, !!r.data?.sent));
      return;
    }
    sendFiles(this.model, this.viewId, out.files, this.chunk)
      .then((ids) => this.act({ action: "send", text: out.text, attachments: ids }, (r) => finish(r, true)))
      .catch((exc: Error) => {
        this.showNotice("error", `The attachments could not be read: ${exc.message}. Nothing was sent.`);
        done(false);
      });
  }

  /** Approve, approve always, or reject the pending tool call, with the reason typed on the card (A1, A2). */
  private decide(id: string, how: "approve" | "approve-always" | "reject"): void {
    const reason = this.reasons.get(id) ?? "";
    const done = (r: ResultMsg) => {
      if (!r.ok) return this.cardOrComposerError(id, r.message);
      this.reasons.delete(id);
      this.showNotice("info", r.message ?? "");
    };
    if (how === "reject") this.act({ action: "reject", card_id: id, reason }, done);
    else this.act({ action: "approve", card_id: id, reason, always: how === "approve-always" }, done);
  }

  private updateComposer(): void {
    this.composer.setState(this.ready, this.running);
    this.stateBadge.dataset.state = this.sessionState;
    const words = STATE_WORDS[this.sessionState] ?? this.sessionState;
    this.stateBadge.replaceChildren(...(this.running ? [h("span", { class: "mw-spinner" }), words] : [words]));
  }

  private updateDashboard(ctx: ContextMsg): void {
    this.dashboard.dataset.level = ctx.level;
    this.dashboard.textContent = ctx.line;
    this.ring.update(ctx);
    this.cost.textContent = ctx.cost_line ?? "";
    this.cost.hidden = !ctx.cost_line;
    this.panels.setContext(ctx);
  }

  private showNotice(level: "info" | "error", text: string): void {
    window.clearTimeout(this.noticeTimer);
    this.notice.dataset.level = level;
    this.notice.textContent = text;
    this.notice.setAttribute("role", level === "error" ? "alert" : "status");
    if (level === "info" && text) this.noticeTimer = window.setTimeout(() => this.clearNotice(), 8000);
  }

  private clearNotice(): void {
    this.notice.textContent = "";
    delete this.notice.dataset.level;
  }
}
