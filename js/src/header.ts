// The header line: which session this is (title, id, model) and what it is doing, beside the History button;
// after a branch or fork was opened in place, the way back to the session it came from; for a session
// continued after a compaction, links to its original and to its handovers; and the Session menu, with
// what acts on the whole session (Replay…).
import { h } from "./dom";
import { ContextMenu } from "./menu";
import type { SnapshotMsg } from "./protocol";

const STATE_WORDS: Record<string, string> = {
  idle: "idle",
  running: " running",
  awaiting_approval: "waiting for approval",
  // Nothing of the conversation's own waits, but an approval of one of its subagents does, on this timeline.
  subagent_awaiting_approval: "a subagent waits for approval",
  disconnected: "disconnected",
};

export class Header {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly badge: HTMLElement;
  private readonly back: HTMLButtonElement;
  private readonly links: HTMLElement;
  private readonly onOpen: (sessionId: string) => void;
  private state = "idle";
  /** The header's word for work on the conversation outside a turn ("compacting"), or null. */
  private busy: string | null = null;

  private readonly menu = new ContextMenu();

  constructor(onHistory: () => void, onBack: () => void, onOpen: (sessionId: string) => void, onReplay: () => void) {
    this.onOpen = onOpen;
    this.links = h("span", { class: "mw-session-links", "data-testid": "mw-session-links" });
    this.title = h("span", { class: "mw-title" }, "Loading the timeline…");
    this.back = h("button", { class: "mw-link mw-back", type: "button", "data-testid": "mw-back" });
    this.back.hidden = true;
    this.back.addEventListener("click", () => onBack());
    this.badge = h("span", { class: "mw-state", "data-state": "idle", "data-testid": "mw-state" });
    const history = h("button", { class: "mw-link", type: "button", "data-testid": "mw-history-button" }, "History");
    history.addEventListener("click", () => onHistory());
    const session = h("button", { class: "mw-link", type: "button", "aria-haspopup": "menu", "data-testid": "mw-session-menu" }, "Session ▾");
    session.title = "What acts on the whole session";
    session.addEventListener("click", () => {
      const at = session.getBoundingClientRect();
      const replay = { label: "Replay on another model…", testid: "replay", run: onReplay };
      this.menu.open([replay], at.left, at.bottom + 2, () => session.focus({ preventScroll: true }));
    });
    const where = h("span", { class: "mw-where" }, this.back, this.title, this.links);
    this.el = h("div", { class: "mw-header" }, where, h("span", { class: "mw-header-tools" }, session, history, this.badge));
  }

  setSession(session: SnapshotMsg["session"], cameFrom?: SnapshotMsg["came_from"]): void {
    this.title.textContent = `${session.title} · ${session.id} · ${session.model}`;
    this.back.hidden = !cameFrom;
    this.back.textContent = cameFrom ? `← back to “${cameFrom.title}”` : "";
    this.back.title = cameFrom ? `Show ${cameFrom.title} (${cameFrom.id}) in this view again` : "";
    const links: HTMLElement[] = [];
    if (session.handover_of) links.push(this.link("continues", session.handover_of, "mw-handover-of"));
    for (const next of session.handovers ?? []) links.push(this.link("continued in", next, "mw-handover"));
    this.links.replaceChildren(...links);
  }

  /** "continues “demo”" or "continued in “demo-handover-1”": opens that session in this view. */
  private link(words: string, target: { id: string; title: string }, testid: string): HTMLElement {
    const open = h("button", { class: "mw-link", type: "button", "data-testid": testid }, `“${target.title}”`);
    open.title = `Show ${target.title} (${target.id}) in this view`;
    open.addEventListener("click", () => this.onOpen(target.id));
    return h("span", { class: "mw-session-link" }, `${words} `, open);
  }

  /** The session's state in words: idle, running (with a spinner), waiting for approval, a subagent waits. */
  setState(state: string): void {
    this.state = state;
    this.show();
  }

  /** What the engine does on the conversation outside a turn ("compacting"), or null once it is done:
   * shown instead of "idle", which the session's state alone would say meanwhile. */
  setBusy(busy: string | null): void {
    this.busy = busy;
    this.show();
  }

  private show(): void {
    const busy = this.state === "disconnected" ? null : this.busy;
    const shown = busy ? "busy" : this.state;
    this.badge.dataset.state = shown;
    const words = busy ? ` ${busy}` : (STATE_WORDS[shown] ?? shown);
    const spin = shown === "running" || shown === "busy";
    this.badge.replaceChildren(...(spin ? [h("span", { class: "mw-spinner" }), words] : [words]));
  }
}
