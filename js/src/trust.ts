// The trust line over the timeline: while the workspace's configuration folder is not trusted, it says
// what the folder would use (its servers, secrets, headers, commands) and offers to trust it. The kernel
// decides; this line only asks, and goes once an answer says the folder is trusted.
import { h } from "./dom";

export class TrustLine {
  readonly el: HTMLElement;
  private readonly text: HTMLElement;
  private readonly button: HTMLButtonElement;

  constructor(trust: (done: (ok: boolean) => void) => void) {
    this.text = h("span", { class: "mw-trust-text", "data-testid": "mw-trust-text" });
    this.button = h(
      "button",
      { class: "mw-button mw-primary", type: "button", "data-testid": "mw-trust-button" },
      "Trust this folder",
    );
    this.button.addEventListener("click", () => {
      this.button.disabled = true;
      trust((ok) => {
        this.button.disabled = false;
        if (ok) this.show(null);
      });
    });
    this.el = h("div", { class: "mw-trust", role: "alert", "data-testid": "mw-trust", hidden: "" }, this.text, this.button);
  }

  /** Show what the folder would use, or hide the line when nothing waits for trust (null). */
  show(sentence: string | null | undefined): void {
    this.text.textContent = sentence ?? "";
    this.el.hidden = !sentence;
  }
}
