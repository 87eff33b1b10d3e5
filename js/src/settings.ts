// The settings panel (/settings, %mewrk settings): the session's conversation settings, the configuration
// folder's preferences and its files. Every change is an action the kernel carries out with the engine's
// own method (Session.configure, mw.set_preferences, mw.SettingsEditor); a refusal shows as the engine's
// sentence beside the control, which goes back to the value the session still has.
import "./settings.css";
import { h } from "./dom";
import { ConfigFiles } from "./configfiles";
import type { Action, ConversationSettingsInfo, PreferenceInfo, ResultMsg, SettingsAnswer, SettingsPanelInfo } from "./protocol";

export interface SettingsHost {
  act(action: Action, done: (result: ResultMsg) => void): void;
}

/** The conversation settings the panel offers, in the order a person meets them, with their words. */
const CONVERSATION: [keyof ConversationSettingsInfo, string][] = [
  ["model", "Model"],
  ["safety_level", "Safety level"],
  ["reasoning", "Reasoning"],
  ["host_container", "Host-message container"],
  ["compaction", "Compaction mode"],
  ["async_tools", "Async tool calls"],
  ["plan_mode", "Plan mode"],
];

type Value = string | number | boolean;

export class SettingsPanel {
  readonly el: HTMLElement;
  private readonly conversation: HTMLElement;
  private readonly preferences: HTMLElement;
  private readonly status: HTMLElement;
  private readonly folder: HTMLElement;
  private readonly files: ConfigFiles;
  private loaded = false;
  /** Tells this panel's controls from another view's on the same page (label `for` needs unique ids). */
  private readonly uid = Math.random().toString(36).slice(2, 8);
  /** The refusal shown beside each control, kept when the rows are drawn again: name → sentence. */
  private readonly refusals = new Map<string, string>();

  constructor(private readonly host: SettingsHost) {
    this.conversation = h("div", { class: "mw-settings-grid", "data-testid": "mw-settings-conversation" });
    this.preferences = h("div", { class: "mw-settings-grid", "data-testid": "mw-settings-preferences" });
    this.status = h("div", { class: "mw-settings-status", role: "status", "aria-live": "polite", "data-testid": "mw-settings-status" });
    this.folder = h("span", { class: "mw-muted" });
    this.files = new ConfigFiles({
      act: host.act,
      answered: (answer) => this.answered(answer),
      say: (level, text) => this.say(level, text),
    });
    this.el = h(
      "div",
      { class: "mw-settings", "data-testid": "mw-settings" },
      this.status,
      h("h3", {}, "Conversation settings ", h("span", { class: "mw-muted" }, "— this session's, kept with it")),
      this.conversation,
      h("h3", {}, "Preferences ", h("span", { class: "mw-muted" }, "— of the configuration folder, for every session")),
      this.preferences,
      h("h3", {}, "Configuration files ", this.folder),
      this.files.el,
    );
  }

  /** Read the three sections again; the file open in the editor keeps its text. */
  load(): void {
    if (!this.loaded) this.conversation.replaceChildren(h("div", { class: "mw-muted" }, "Loading…"));
    this.host.act({ action: "settings" }, (r) => {
      if (!r.ok) return this.say("error", r.message);
      this.answered(r.data.settings);
    });
  }

  private answered(answer: SettingsAnswer | undefined): void {
    if (answer?.panel) this.render(answer.panel);
  }

  private say(level: "info" | "error", text: string): void {
    this.status.dataset.level = level;
    this.status.textContent = text;
    this.status.setAttribute("role", level === "error" ? "alert" : "status");
  }

  private render(panel: SettingsPanelInfo): void {
    this.loaded = true;
    // The rows are drawn again: the keyboard stays on the control it was on.
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.setting;
    const inside = !!focused && this.el.contains(document.activeElement);
    const s = panel.settings;
    this.conversation.replaceChildren(
      ...CONVERSATION.map(([name, label]) => {
        const value = s[name] as Value;
        const choices = s.choices[name];
        const control = choices ? select(choices, String(value)) : checkbox(!!value);
        return this.row(name, label, control, value, (v) => ({ action: "configure", changes: { [name]: v } }));
      }),
    );
    this.preferences.replaceChildren(
      ...panel.preferences.map((p) => this.row(p.name, words(p.name), prefControl(p), p.value, (v) => ({ action: "set_preferences", changes: { [p.name]: v } }), p.allowed)),
      ...panel.preference_notices.map((text) => h("div", { class: "mw-settings-wide mw-is-error" }, text)),
    );
    this.folder.textContent = `— ${panel.folder}`;
    this.files.setFiles(panel.files);
    if (inside) document.getElementById(this.idOf(focused))?.focus();
  }

  private idOf(name: string): string {
    return `mw-setting-${name}-${this.uid}`;
  }

  /** One setting: its label, its control, and the line where its refusal shows. */
  private row(
    name: string,
    label: string,
    control: HTMLInputElement | HTMLSelectElement,
    value: Value,
    action: (v: Value | null) => Action,
    allowed?: string,
  ): HTMLElement {
    const id = this.idOf(name);
    control.id = id;
    control.dataset.setting = name;
    control.setAttribute("data-testid", `mw-setting-${name}`);
    const said = h("div", { class: "mw-setting-said", "data-testid": `mw-setting-said-${name}`, role: "status" });
    const refused = this.refusals.get(name);
    if (refused) {
      said.dataset.level = "error";
      said.textContent = refused;
    }
    if (allowed) control.title = allowed;
    const restore = () => {
      if (control instanceof HTMLInputElement && control.type === "checkbox") control.checked = !!value;
      else control.value = String(value);
    };
    control.addEventListener("change", () => {
      const next = read(control); // a number box left empty is sent as null: the engine says what it takes
      control.disabled = true;
      this.host.act(action(next), (r) => {
        control.disabled = false;
        if (!r.ok) {
          restore(); // nothing changed: the control shows the value the session still has
          this.refusals.set(name, r.message);
          said.dataset.level = "error";
          said.textContent = r.message;
          said.setAttribute("role", "alert");
          control.focus();
          return;
        }
        this.refusals.delete(name);
        this.answered(r.data.settings);
        this.say("info", r.message);
      });
    });
    return h("div", { class: "mw-setting", "data-name": name }, h("label", { for: id }, label), control, said);
  }
}

/** The picker of one setting (the model, the safety level): its choices, `value` chosen. */
export function select(choices: string[], value: string): HTMLSelectElement {
  const el = h("select", { class: "mw-input mw-select" });
  for (const choice of choices) el.append(h("option", { value: choice }, choice));
  el.value = value;
  return el;
}

function checkbox(on: boolean): HTMLInputElement {
  const el = h("input", { type: "checkbox" });
  el.checked = on;
  return el;
}

function prefControl(p: PreferenceInfo): HTMLInputElement {
  if (p.kind === "switch") return checkbox(!!p.value);
  const el = h("input", { class: "mw-input mw-number", type: "number", inputmode: "decimal" });
  if (p.low !== null) el.min = String(p.low);
  if (p.high !== null) el.max = String(p.high);
  if (p.step !== null) el.step = String(p.step);
  el.value = String(p.value);
  return el;
}

/** The control's value as the kernel takes it; null for a number box that holds no number. */
function read(control: HTMLInputElement | HTMLSelectElement): Value | null {
  if (control instanceof HTMLSelectElement) return control.value;
  if (control.type === "checkbox") return control.checked;
  const number = Number(control.value);
  return control.value.trim() === "" || !Number.isFinite(number) ? null : number;
}

/** A setting's name as words: "keep_user_tokens" → "Keep user tokens". */
function words(name: string): string {
  const text = name.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}
