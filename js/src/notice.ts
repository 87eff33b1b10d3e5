// The notice line under the timeline: what an action did, or why it did not. Information fades after a
// while; an error stays until the next notice, so that it is not missed, and so does an offer (a sentence
// with a link, such as "Open it here" after a branch), which stays true until something else is said.
import { h } from "./dom";

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

  /** A sentence with one link that does what it offers, kept until the next notice. */
  offer(text: string, label: string, run: () => void): void {
    this.show("info", "");
    window.clearTimeout(this.timer);
    const link = h("button", { class: "mw-link", type: "button", "data-testid": "mw-notice-offer" }, label);
    link.addEventListener("click", () => {
      this.clear();
      run();
    });
    this.el.replaceChildren(`${text} `, link);
  }

  /** Clear the line if it still says `text`. */
  clearIf(text: string): void {
    if (this.el.textContent === text) this.clear();
  }

  clear(): void {
    this.el.textContent = "";
    delete this.el.dataset.level;
  }

  dispose(): void {
    window.clearTimeout(this.timer);
  }
}
