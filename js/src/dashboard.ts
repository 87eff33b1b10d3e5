// The status line under the composer: the context ring (it opens the context panel), the session's
// dashboard line (D1–D4) and the cost (D6).
import { h } from "./card";
import { ring } from "./panels";
import type { ContextMsg } from "./protocol";

export class Dashboard {
  readonly el: HTMLElement;
  private readonly ring = ring();
  private readonly line: HTMLElement;
  private readonly cost: HTMLElement;

  constructor(onRing: () => void) {
    // The dashboard line stays exactly the session's line; the cost is a figure apart.
    this.line = h("span", { class: "mw-dashboard", "data-level": "ok", "data-testid": "mw-dashboard" });
    this.cost = h("span", { class: "mw-cost", "data-testid": "mw-cost" });
    this.ring.el.addEventListener("click", () => onRing());
    this.el = h("div", { class: "mw-status" }, this.ring.el, this.line, this.cost);
  }

  update(ctx: ContextMsg): void {
    this.line.dataset.level = ctx.level;
    this.line.textContent = ctx.line;
    this.line.title = (ctx.sizes ?? []).join("\n"); // on hover: what each size counts, in a sentence
    this.ring.update(ctx);
    this.cost.textContent = ctx.cost_line ?? "";
    this.cost.hidden = !ctx.cost_line;
  }
}
