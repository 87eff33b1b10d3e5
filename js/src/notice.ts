// The notice line under the timeline: what an action did, or why it did not. Information fades after a
// while; an error stays until the next notice, so that it is not missed.
import { h } from "./card";

export class Notice {
  readonly el: HTMLElement;
  private timer = 0;

  constructor() {
    this.el = h("div", { class: "mw-notice", role: "status", "aria-live": "polite", "data-testid": "mw-notice" });
  }

  show(level: "info" | "error", text: string): void {
    window.clearTimeout(this.timer);
    this.el.dataset.level = level;
    this.el.textContent = text;
    this.el.setAttribute("role", level === "error" ? "alert" : "status");
    if (level === "info" && text) this.timer = window.setTimeout(() => this.clear(), 8000);
  }

  clear(): void {
    this.el.textContent = "";
    delete this.el.dataset.level;
  }

  dispose(): void {
    window.clearTimeout(this.timer);
  }
}
