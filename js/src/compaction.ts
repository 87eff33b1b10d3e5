// The ring's auto-compaction section, shown in the context panel under the breakdown: the switch, the two
// modes as two buttons with their pages (threshold; for native, the kept messages), and Compact now.
// Every change is the settings panel's own action (configure, set_preferences), so the engine checks it and
// its refusal shows beside the control; nothing is validated here.
import "./compaction.css";
import { h } from "./dom";
import type { Action, PreferenceInfo, ResultMsg, SettingsPanelInfo } from "./protocol";

export interface CompactionHost {
  act(action: Action, done: (result: ResultMsg) => void): void;
  /** Show another session in this view (the new session after Compact now). */
  open(sessionId: string): void;
}

type Mode = "handoff" | "native";
type Control = HTMLInputElement | HTMLButtonElement;

const MODES: [Mode, string, string][] = [
  ["handoff", "Handoff", "The model writes handoff documents, and a new session starts from them with the same settings and tools; this one stays as it is."],
  ["native", "Native", "The provider compacts the conversation itself; the new session starts with its compacted item and your newest messages."],
];

export class CompactionMenu {
  readonly el: HTMLElement;
  private readonly uid = Math.random().toString(36).slice(2, 8);
  private readonly said = new Map<string, HTMLElement>();
  private readonly inputs = new Map<string, HTMLInputElement>();
  private readonly modeButtons = new Map<Mode, HTMLButtonElement>();
  private readonly pages = new Map<Mode, HTMLElement>();
  private readonly reason: HTMLElement;
  private readonly nowButton: HTMLButtonElement;
  private readonly nowReason: HTMLElement;
  private readonly nowSaid: HTMLElement;
  /** Why the engine would refuse Compact now, as it said when the section last loaded; null: it would act. */
  private nowRefused: string | null = null;
  /** What each control shows as the engine has it, to go back to after a refusal. */
  private values: Record<string, boolean | number> = {};
  private mode: Mode = "handoff";
  private unavailable: Record<string, string> = {};

  constructor(private readonly host: CompactionHost) {
    const heading = h("h3", { id: this.idOf("heading") }, "Auto-compaction");
    const auto = this.input("auto_compaction", h("input", { type: "checkbox" }));
    const switchRow = h(
      "div",
      { class: "mw-compaction-row" },
      auto,
      h("label", { for: auto.id }, "Compact automatically when the context reaches the threshold"),
      this.line("auto_compaction"),
    );
    this.reason = h("div", { class: "mw-setting-said", id: this.idOf("reason"), "data-testid": "mw-compaction-reason" });
    const buttons = MODES.map(([mode, label]) => {
      const button = h("button", { class: "mw-button mw-compaction-mode", type: "button", "data-mode": mode, "data-testid": `mw-compaction-mode-${mode}` }, label);
      button.addEventListener("click", () => this.choose(mode));
      this.modeButtons.set(mode, button);
      return button;
    });
    const modes = h("div", { class: "mw-compaction-modes", role: "group", "aria-label": "Compaction mode" }, h("span", { class: "mw-compaction-label" }, "Mode"), ...buttons);
    for (const [mode, , words] of MODES) {
      const page = h("div", { class: "mw-compaction-page", "data-testid": `mw-compaction-page-${mode}`, "data-mode": mode }, h("p", { class: "mw-muted" }, words));
      page.append(this.numberRow(`${mode}_threshold`, "Threshold", "% of the context window"));
      if (mode === "native") page.append(this.numberRow("keep_user_tokens", "Kept messages", "tokens of your newest messages"));
      this.pages.set(mode, page);
    }
    this.nowButton = h("button", { class: "mw-button", type: "button", "data-testid": "mw-compact-now" }, "Compact now");
    this.nowButton.title = "Compact into a new session now, whatever the threshold";
    this.nowReason = h("div", { class: "mw-muted", id: this.idOf("now-reason"), "data-testid": "mw-compact-now-reason" });
    this.nowSaid = h("div", { class: "mw-setting-said", role: "status", "data-testid": "mw-compact-now-said" });
    this.nowButton.addEventListener("click", () => this.compactNow());
    this.el = h(
      "section",
      { class: "mw-compaction", "data-testid": "mw-compaction", "aria-labelledby": heading.id },
      heading,
      switchRow,
      modes,
      this.reason,
      this.line("compaction"),
      ...this.pages.values(),
      h("div", { class: "mw-compaction-row" }, this.nowButton, this.nowSaid),
      this.nowReason,
    );
  }

  /** Read the preferences and the session's mode again (the panel opened, or the session changed). */
  load(): void {
    this.host.act({ action: "settings" }, (r) => {
      const panel = r.data.settings?.panel;
      if (panel) this.render(panel);
    });
  }

  /** Another session shows in this view: what was said about the one before goes. */
  forget(): void {
    for (const said of [...this.said.values(), this.nowSaid]) {
      said.replaceChildren();
      delete said.dataset.level;
    }
  }

  private idOf(name: string): string {
    return `mw-compaction-${name}-${this.uid}`;
  }

  private render(panel: SettingsPanelInfo): void {
    const prefs = new Map<string, PreferenceInfo>(panel.preferences.map((p) => [p.name, p]));
    for (const [name, input] of this.inputs) {
      const p = prefs.get(name);
      if (!p) continue;
      this.values[name] = p.value;
      // A threshold is in percent of the window here as everywhere: shown and sent as it is.
      if (input.type === "checkbox") input.checked = !!p.value;
      else {
        input.value = String(p.value);
        if (p.low !== null) input.min = String(p.low);
        if (p.high !== null) input.max = String(p.high);
        if (p.step !== null) input.step = String(p.step);
        input.title = p.allowed;
      }
    }
    this.mode = panel.settings.compaction as Mode;
    this.unavailable = panel.settings.unavailable["compaction"] ?? {};
    for (const [mode, button] of this.modeButtons) {
      const refused = this.unavailable[mode];
      button.setAttribute("aria-pressed", String(mode === this.mode));
      // Still focusable, so that the keyboard reaches it and hears why it cannot be chosen.
      if (refused) {
        button.setAttribute("aria-disabled", "true");
        button.setAttribute("aria-describedby", this.reason.id);
      } else {
        button.removeAttribute("aria-disabled");
        button.removeAttribute("aria-describedby");
      }
    }
    this.reason.textContent = Object.entries(this.unavailable)
      .map(([mode, why]) => `${mode === "native" ? "Native" : "Handoff"} is not available: ${why}`)
      .join(" ");
    for (const [mode, page] of this.pages) page.hidden = mode !== this.mode;
    this.nowRefused = panel.compact_now;
    // Closed like a refused mode: still focusable, so that the keyboard reaches it and hears why.
    if (this.nowRefused) {
      this.nowButton.setAttribute("aria-disabled", "true");
      this.nowButton.setAttribute("aria-describedby", this.nowReason.id);
    } else {
      this.nowButton.removeAttribute("aria-disabled");
      this.nowButton.removeAttribute("aria-describedby");
    }
    this.nowReason.textContent = this.nowRefused ? `Compact now is not available: ${this.nowRefused}` : "";
  }

  /** The line beside a control where its refusal (or what it did) is said. */
  private line(name: string): HTMLElement {
    const said = h("div", { class: "mw-setting-said", "data-testid": `mw-compaction-said-${name}`, role: "status" });
    this.said.set(name, said);
    return said;
  }

  private input(name: string, el: HTMLInputElement): HTMLInputElement {
    el.id = this.idOf(name);
    el.dataset.setting = name;
    el.setAttribute("data-testid", `mw-compaction-${name}`);
    this.inputs.set(name, el);
    el.addEventListener("change", () => {
      const value = this.read(el);
      this.send(el, name, { action: "set_preferences", changes: { [name]: value } }, () => {
        const was = this.values[name];
        if (el.type === "checkbox") el.checked = !!was;
        else el.value = String(was);
      });
    });
    return el;
  }

  private numberRow(name: string, label: string, unit: string): HTMLElement {
    const el = this.input(name, h("input", { class: "mw-input mw-number", type: "number", inputmode: "numeric", step: "1" }));
    return h("div", { class: "mw-compaction-field" }, h("label", { for: el.id }, label), el, h("span", { class: "mw-muted" }, unit), this.line(name));
  }

  /** The control's value as the kernel takes it; an empty box as null. */
  private read(el: HTMLInputElement): boolean | number | null {
    if (el.type === "checkbox") return el.checked;
    const number = Number(el.value);
    return el.value.trim() === "" || !Number.isFinite(number) ? null : number;
  }

  private choose(mode: Mode): void {
    const refused = this.unavailable[mode];
    if (refused) return this.say("compaction", "error", refused);
    if (mode === this.mode) return;
    const button = this.modeButtons.get(mode)!;
    this.send(button, "compaction", { action: "configure", changes: { compaction: mode } }, () => {});
  }

  /** Send a change; the answer redraws the section, a refusal is said beside the control. */
  private send(control: Control, name: string, action: Action, restore: () => void): void {
    control.disabled = true;
    this.host.act(action, (r) => {
      control.disabled = false;
      if (!r.ok) {
        restore(); // nothing changed: the control shows what the engine still has
        this.say(name, "error", r.message);
        control.focus();
        return;
      }
      this.say(name, "info", r.message);
      const panel = r.data.settings?.panel;
      if (panel) this.render(panel);
      control.focus(); // disabled while it waited, it lost the keyboard: give it back
    });
  }

  private say(name: string, level: "info" | "error", text: string): void {
    const said = this.said.get(name);
    if (!said) return;
    said.dataset.level = level;
    said.textContent = text;
    said.setAttribute("role", level === "error" ? "alert" : "status");
  }

  private compactNow(): void {
    if (this.nowRefused) {
      // The engine would refuse it: say why beside the button, as its answer would, and send nothing.
      this.nowSaid.dataset.level = "error";
      this.nowSaid.setAttribute("role", "alert");
      this.nowSaid.replaceChildren(this.nowRefused);
      return;
    }
    this.nowButton.disabled = true;
    this.nowSaid.replaceChildren("Compacting…");
    delete this.nowSaid.dataset.level;
    this.host.act({ action: "compact_now" }, (r) => {
      this.nowButton.disabled = false;
      this.nowSaid.dataset.level = r.ok ? "info" : "error";
      this.nowSaid.setAttribute("role", r.ok ? "status" : "alert");
      this.nowSaid.replaceChildren(r.message);
      if (r.ok) this.load(); // this session has not replied since: the button closes, with the reason
      const id = r.data.session_id;
      if (r.ok && typeof id === "string") {
        const open = h("button", { class: "mw-link", type: "button", "data-testid": "mw-compact-now-open" }, "Open it here");
        open.addEventListener("click", () => this.host.open(id));
        this.nowSaid.append(" ", open);
      }
    });
  }
}
