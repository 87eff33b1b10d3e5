// The header line: which session this is (title, id, model) and what it is doing, beside the History button.
import { h } from "./card";
import type { SnapshotMsg } from "./protocol";

const STATE_WORDS: Record<string, string> = {
  idle: "idle",
  running: " running",
  awaiting_approval: "waiting for approval",
  disconnected: "disconnected",
};

export class Header {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly badge: HTMLElement;

  constructor(onHistory: () => void) {
    this.title = h("span", { class: "mw-title" }, "Loading the timeline…");
    this.badge = h("span", { class: "mw-state", "data-state": "idle", "data-testid": "mw-state" });
    const history = h("button", { class: "mw-link", type: "button", "data-testid": "mw-history-button" }, "History");
    history.addEventListener("click", () => onHistory());
    this.el = h("div", { class: "mw-header" }, this.title, h("span", { class: "mw-header-tools" }, history, this.badge));
  }

  setSession(session: SnapshotMsg["session"]): void {
    this.title.textContent = `${session.title} · ${session.id} · ${session.model}`;
  }

  /** The session's state in words: idle, running (with a spinner), waiting for approval. */
  setState(state: string): void {
    this.badge.dataset.state = state;
    const words = STATE_WORDS[state] ?? state;
    this.badge.replaceChildren(...(state === "running" ? [h("span", { class: "mw-spinner" }), words] : [words]));
  }
}
