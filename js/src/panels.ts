// The panels above the timeline: History (T17), the context breakdown behind the ring (T16, D6) with the
// auto-compaction section under it (compaction.ts), the slash-command list and the settings (settings.ts). One shows at a time; each is a view of what the kernel answers, nothing more.
import { LABELS, formatTokens } from "./card";
import { h } from "./dom";
import { type LoadEntry, historyRow } from "./history";
import type { CommandInfo, ContextMsg, HistoryRow } from "./protocol";

export type PanelName = "history" | "context" | "help" | "settings" | "replay";

export interface PanelHost {
  /** Ask the kernel for the history rows, or for one entry's JSON. */
  loadHistory(done: (rows: HistoryRow[] | null, error?: string) => void): void;
  loadEntry: LoadEntry;
  /** The settings panel (settings.ts): shown here, and read again each time it opens. */
  settings: { el: HTMLElement; load(): void };
  /** The ring's auto-compaction section, under the breakdown: kept while the figures change. */
  compaction: { el: HTMLElement; load(): void };
  /** The Replay panel (replay.ts), from the Session menu: read again each time it opens. */
  replay: { el: HTMLElement; load(): void };
}

export class Panels {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly body: HTMLElement;
  current: PanelName | null = null;
  private context: ContextMsg | null = null;
  commands: CommandInfo[] = [];

  constructor(private readonly host: PanelHost) {
    this.title = h("span", { class: "mw-panel-title" });
    const close = h("button", { class: "mw-icon", type: "button", title: "Close", "aria-label": "Close the panel" }, "×");
    close.addEventListener("click", () => this.close());
    this.body = h("div", { class: "mw-panel-body" });
    this.el = h("section", { class: "mw-panel", "data-testid": "mw-panel" }, h("div", { class: "mw-panel-head" }, this.title, close), this.body);
    this.el.hidden = true;
  }

  toggle(name: PanelName): void {
    if (this.current === name) this.close();
    else this.show(name);
  }

  show(name: PanelName): void {
    this.current = name;
    this.el.hidden = false;
    this.el.dataset.panel = name;
    if (name === "history") this.showHistory();
    else if (name === "context") {
      this.showContext();
      this.host.compaction.load();
    }
    else if (name === "settings") this.showSettings();
    else if (name === "replay") {
      this.title.textContent = "Replay — this session's messages, asked of another model";
      this.body.replaceChildren(this.host.replay.el);
      this.host.replay.load();
    } else this.showHelp();
  }

  close(): void {
    this.current = null;
    this.el.hidden = true;
    delete this.el.dataset.panel;
    this.body.replaceChildren();
  }

  /** New figures: the context panel follows them while it is open. */
  setContext(ctx: ContextMsg): void {
    this.context = ctx;
    if (this.current === "context") this.showContext();
  }

  /** A turn ended or the timeline changed: an open history panel reloads. */
  refresh(): void {
    if (this.current === "history") this.showHistory();
    else if (this.current === "settings") this.host.settings.load(); // the file being edited keeps its text
    else if (this.current === "context") this.host.compaction.load();
  }

  private showSettings(): void {
    this.title.textContent = "Settings";
    this.body.replaceChildren(this.host.settings.el);
    this.host.settings.load();
  }

  private showHistory(): void {
    this.title.textContent = "History — each request as it was really sent, and what came back";
    const list = h("div", { class: "mw-history", "data-testid": "mw-history" }, h("div", { class: "mw-muted" }, "Loading…"));
    this.body.replaceChildren(list);
    this.host.loadHistory((rows, error) => {
      if (this.current !== "history") return;
      if (!rows) return list.replaceChildren(h("div", { class: "mw-card-error" }, error ?? "The history could not be read."));
      if (!rows.length) return list.replaceChildren(h("div", { class: "mw-muted" }, "No requests yet: send a message."));
      list.replaceChildren(...rows.map((row) => historyRow(row, (id, done) => this.host.loadEntry(id, done))));
    });
  }

  private showContext(): void {
    const ctx = this.context;
    this.title.textContent = "Context";
    // The figures are drawn again; the compaction section below them stays, with its focus and text.
    const figures = h("div", { class: "mw-panel-body", "data-testid": "mw-context-figures" });
    if (this.body.lastChild !== this.host.compaction.el) this.body.replaceChildren(figures, this.host.compaction.el);
    else this.body.firstChild!.replaceWith(figures);
    if (!ctx) return figures.replaceChildren(h("div", { class: "mw-muted" }, "No figures yet."));
    const total = Object.values(ctx.by_kind).reduce((a, b) => a + b, 0) || 1;
    const rows = Object.entries(ctx.by_kind)
      .filter(([, n]) => n > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([kind, n]) =>
        h(
          "div",
          { class: "mw-kind-row", "data-kind": kind },
          h("span", { class: "mw-kind-name" }, LABELS[kind] ?? kind),
          h("span", { class: "mw-kind-bar" }, h("span", { class: "mw-kind-fill", style: `width: ${(100 * n) / total}%` })),
          h("span", { class: "mw-kind-tokens" }, `≈${formatTokens(n)}`),
        ),
      );
    // The kernel says what each size counts; the next request's is the engine's estimate, the last one's
    // the vendor's count (or the engine's estimate, for a request stopped before the vendor counted it).
    const [next, last] = ctx.sizes ?? [`Next request: ${ctx.used_text ?? formatTokens(ctx.used)}`, ""];
    figures.replaceChildren(
      h("div", { "data-testid": "mw-context-figure" }, next),
      h("div", { "data-testid": "mw-context-last" }, last),
      h("div", { class: "mw-muted" }, "The timeline now, by card kind (estimates):"),
      h("div", { class: "mw-kinds", "data-testid": "mw-kinds" }, ...(rows.length ? rows : [h("div", { class: "mw-muted" }, "The timeline is empty.")])),
      h("div", { class: "mw-cost-detail", "data-testid": "mw-cost-detail" }, ctx.cost_line || "Cost: not known for this model (no prices configured)."),
    );
  }

  private showHelp(): void {
    this.title.textContent = "Commands — type them in the composer";
    this.body.replaceChildren(
      h(
        "div",
        { class: "mw-help", "data-testid": "mw-help" },
        ...this.commands.map((c) =>
          h("div", { class: "mw-help-row" }, h("code", {}, `/${c.name}${c.synopsis ? " " + c.synopsis : ""}`), h("span", { class: "mw-muted" }, ` — ${c.summary}`)),
        ),
        h("div", { class: "mw-muted" }, "CARD: a card id, an id prefix or a position from the end (-1, the default). A message that starts with a space is sent as text."),
      ),
    );
  }
}

/** The context ring (T16): how full the window is; click for the breakdown by card kind. */
export function ring(): { el: HTMLButtonElement; update: (ctx: ContextMsg) => void } {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("width", "16");
  svg.setAttribute("height", "16");
  svg.setAttribute("aria-hidden", "true");
  const track = document.createElementNS(ns, "circle");
  const arc = document.createElementNS(ns, "circle");
  for (const c of [track, arc]) {
    c.setAttribute("cx", "10");
    c.setAttribute("cy", "10");
    c.setAttribute("r", "8");
    c.setAttribute("fill", "none");
    c.setAttribute("stroke-width", "3");
  }
  track.setAttribute("class", "mw-ring-track");
  arc.setAttribute("class", "mw-ring-arc");
  arc.setAttribute("transform", "rotate(-90 10 10)");
  const length = 2 * Math.PI * 8;
  arc.setAttribute("stroke-dasharray", `0 ${length}`);
  // Where auto-compaction acts: a tick across the ring at the threshold.
  const mark = document.createElementNS(ns, "line");
  mark.setAttribute("class", "mw-ring-mark");
  for (const [k, v] of [["x1", "10"], ["y1", "0.5"], ["x2", "10"], ["y2", "5.5"]]) mark.setAttribute(k, v);
  svg.append(track, arc, mark);
  const el = h("button", { class: "mw-ring", type: "button", "data-testid": "mw-ring", title: "Context: breakdown by card kind" });
  el.append(svg);
  const update = (ctx: ContextMsg) => {
    const share = ctx.percent == null ? 0 : Math.min(100, ctx.percent) / 100;
    arc.setAttribute("stroke-dasharray", `${share * length} ${length}`);
    el.dataset.level = ctx.level;
    const used = ctx.used_text ?? formatTokens(ctx.used);
    const figure = ctx.window_text ? `${used} of ${ctx.window_text} (${Math.round(ctx.percent ?? 0)} %)` : `${used} tokens`;
    // The figure is the last request's size once there is one; the next request's estimate stands beside it.
    const said = ctx.last_text != null ? `${ctx.last_words ?? "last request"} ${figure}, next ${ctx.next_text ?? ""}` : figure;
    const at = ctx.compact_at;
    mark.style.display = at == null ? "none" : "";
    if (at != null) mark.setAttribute("transform", `rotate(${(360 * at) / 100} 10 10)`); // at: a percent
    el.dataset.compactAt = at == null ? "" : String(at);
    const auto = at == null ? "" : `; auto-compaction at ${at} %`;
    const says = `Context: ${said}${auto} — show the breakdown by card kind and the auto-compaction settings`;
    el.setAttribute("aria-label", says);
    el.title = says;
  };
  return { el, update };
}
