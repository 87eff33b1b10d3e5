// The status line under the composer: the context ring (it opens the context panel), the session's
// dashboard line (D1–D4) with what the last request read from the cache and wrote to it, the offer to
// prune the stale tool results, the cost (D6) and, with subagents, the agent filter (D5).
import { h } from "./dom";
import { ring } from "./panels";
import type { ContextMsg } from "./protocol";

export class Dashboard {
  readonly el: HTMLElement;
  private readonly ring = ring();
  private readonly line: HTMLElement;
  private readonly cost: HTMLElement;
  private readonly cache: HTMLElement;
  readonly prune: HTMLButtonElement;
  private readonly agents: HTMLSelectElement;

  constructor(onRing: () => void, onAgent: (sessionId: string) => void, onPrune: () => void) {
    // The dashboard line stays exactly the session's line; the cost is a figure apart.
    this.line = h("span", { class: "mw-dashboard", "data-level": "ok", "data-testid": "mw-dashboard" });
    this.cost = h("span", { class: "mw-cost", "data-testid": "mw-cost" });
    this.cache = h("span", { class: "mw-last-cache", "data-testid": "mw-last-cache", hidden: "" });
    this.prune = h("button", { class: "mw-link mw-prune-stale", type: "button", "data-testid": "mw-prune-stale", hidden: "" });
    this.prune.addEventListener("click", () => onPrune());
    // One figure per agent: the line and the ring are the agent looked at; the filter lists each agent
    // with its own figure and cost, and choosing one shows its conversation here.
    this.agents = h("select", { class: "mw-agent-filter", "aria-label": "Agent", "data-testid": "mw-agent-filter" });
    this.agents.hidden = true;
    this.agents.addEventListener("change", () => onAgent(this.agents.value));
    this.ring.el.addEventListener("click", () => onRing());
    this.el = h("div", { class: "mw-status" }, this.ring.el, this.agents, this.line, this.cache, this.prune, this.cost);
  }

  update(ctx: ContextMsg): void {
    this.line.dataset.level = ctx.level;
    this.line.textContent = ctx.line;
    this.line.title = (ctx.sizes ?? []).join("\n"); // on hover: what each size counts, in a sentence
    this.ring.update(ctx);
    this.cache.textContent = ctx.last_cache ? `· ${ctx.last_cache.text}` : "";
    this.cache.hidden = !ctx.last_cache;
    this.prune.textContent = ctx.stale?.label ?? "";
    this.prune.hidden = !ctx.stale;
    this.cost.textContent = ctx.cost_line ?? "";
    this.cost.hidden = !ctx.cost_line;
    const agents = ctx.agents ?? [];
    this.agents.hidden = agents.length < 2;
    this.agents.replaceChildren(
      ...agents.map((a) => {
        const figure = a.line.split(" · Context: ")[1] ?? a.line;
        const option = h("option", { value: a.session_id, title: `${a.title}\n${a.line}\n${a.cost_line}` }, `${a.agent} — ${figure} — ${a.cost_line}`);
        option.selected = a.current;
        return option;
      }),
    );
  }
}
