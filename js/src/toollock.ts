// The tool lock's line over the composer: while the prompt cache is warm and the conversation's tools
// changed, requests keep the last one's tools; the line says so and offers to accept the cache loss. It
// goes by itself when the cache cools (the kernel's time), or once a new dashboard says nothing is held.
import { h } from "./dom";
import type { ToolLockInfo } from "./protocol";

export class ToolLockLine {
  readonly el: HTMLElement;
  private readonly text: HTMLElement;
  private readonly button: HTMLButtonElement;
  private timer: number | undefined;

  constructor(accept: (done: () => void) => void) {
    this.text = h("span", { class: "mw-toollock-text", "data-testid": "mw-toollock-text" });
    this.button = h(
      "button",
      { class: "mw-button", type: "button", "data-testid": "mw-toollock-accept" },
      "Accept the cache loss",
    );
    this.button.addEventListener("click", () => {
      this.button.disabled = true;
      accept(() => (this.button.disabled = false));
    });
    this.el = h("div", { class: "mw-toollock", role: "status", "data-testid": "mw-toollock", hidden: "" }, this.text, this.button);
  }

  /** Show what the lock holds until the cache cools, or hide the line when nothing is held (null). */
  show(lock: ToolLockInfo | null | undefined): void {
    window.clearTimeout(this.timer);
    this.text.textContent = lock?.text ?? "";
    this.el.hidden = !lock;
    if (lock) this.timer = window.setTimeout(() => this.show(null), Math.max(0, lock.until * 1000 - Date.now()));
  }
}
