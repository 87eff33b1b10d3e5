// The Replay panel (#38), opened from the header's Session menu: ask this session's messages again of a
// model — the settings panel's model picker, the session's own model chosen first — with the recording's
// tool results or live tools. The kernel starts the replay and shows its branch in this view, where each
// turn's comparison follows its new reply; a refusal (an unknown model, no message to replay) shows here in
// the engine's words, and nothing was made.
import { h } from "./dom";
import type { Action, ResultMsg } from "./protocol";
import { select } from "./settings";

export interface ReplayHost {
  act(action: Action, done: (result: ResultMsg) => void): void;
  /** The replay started and its branch shows in this view now: what it said. */
  started(result: ResultMsg): void;
}

const TOOLS: [string, string][] = [
  ["recorded", "The recording's results (nothing runs again)"],
  ["live", "Live (they run under the safety level, with its approvals)"],
];

export class ReplayPanel {
  readonly el: HTMLElement;
  private readonly slot: HTMLElement;
  private readonly tools = select(TOOLS.map(([value]) => value), "recorded");
  private readonly button: HTMLButtonElement;
  private readonly said: HTMLElement;
  private model: HTMLSelectElement | null = null;
  private readonly uid = Math.random().toString(36).slice(2, 8);

  constructor(private readonly host: ReplayHost) {
    TOOLS.forEach(([, words], i) => (this.tools.options[i].textContent = words));
    this.tools.id = `mw-replay-tools-${this.uid}`;
    this.tools.setAttribute("data-testid", "mw-replay-tools");
    this.slot = h("span", { class: "mw-muted" }, "Loading…");
    this.button = h("button", { class: "mw-button", type: "button", "data-testid": "mw-replay-start" }, "Replay");
    this.button.addEventListener("click", () => this.start());
    this.said = h("div", { class: "mw-setting-said", role: "status", "data-testid": "mw-replay-said" });
    this.el = h(
      "div",
      { class: "mw-settings mw-replay", "data-testid": "mw-replay" },
      h(
        "p",
        { class: "mw-muted" },
        "Ask each of your messages again, in order, of another model, on a new branch of this session (which stays as it is). ",
        "Each turn's comparison with the recording — the same tool calls? the same text? tokens and cost — follows its new reply.",
      ),
      h(
        "div",
        { class: "mw-settings-grid" },
        h("label", { for: `mw-replay-model-${this.uid}` }, "Model"),
        this.slot,
        h("span", {}),
        h("label", { for: this.tools.id }, "Tool calls"),
        this.tools,
        h("span", {}),
      ),
      h("div", { class: "mw-compaction-row" }, this.button, this.said),
    );
  }

  /** Read the models the session may use, and its own, again (each time the panel opens). */
  load(): void {
    this.said.replaceChildren();
    delete this.said.dataset.level;
    this.host.act({ action: "settings" }, (r) => {
      const settings = r.data.settings?.panel?.settings;
      if (!r.ok || !settings) return this.say("error", r.message || "The models could not be read.");
      const model = select(settings.choices.model ?? [settings.model], settings.model);
      model.id = `mw-replay-model-${this.uid}`;
      model.setAttribute("data-testid", "mw-replay-model");
      this.slot.replaceChildren(model);
      this.model = model;
      model.focus();
    });
  }

  private start(): void {
    if (!this.model) return;
    this.button.disabled = true;
    this.say("info", "Starting the replay…");
    const tools = this.tools.value === "live" ? "live" : "recorded";
    this.host.act({ action: "replay", model: this.model.value, tools }, (r) => {
      this.button.disabled = false;
      if (!r.ok) return this.say("error", r.message);
      this.said.replaceChildren();
      this.host.started(r);
    });
  }

  private say(level: "info" | "error", text: string): void {
    this.said.dataset.level = level;
    this.said.textContent = text;
    this.said.setAttribute("role", level === "error" ? "alert" : "status");
  }
}
