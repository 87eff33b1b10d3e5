// The settings panel's configuration files: the folder's files (server/ read-only, with its reason), one
// file open in a text editor with line numbers, Save with the version read, and what a refusal says — the
// engine's sentence, the refused lines marked in the gutter, or the conflict dialog (overwrite, or abandon
// my changes). The person's text is never dropped by a refusal: only "Abandon my changes" replaces it.
import { MOD } from "./composer";
import { h } from "./dom";
import type { Action, ConfigFileInfo, ConfigFileText, ResultMsg, SettingsAnswer } from "./protocol";

export interface FilesHost {
  act(action: Action, done: (result: ResultMsg) => void): void;
  /** A settings action answered with the panel's sections: show them. */
  answered(answer: SettingsAnswer | undefined): void;
  /** A sentence for the panel's status line. */
  say(level: "info" | "error", text: string): void;
}

/** The editor's file: its path, the version read (null: a new file) and whether it may be changed. */
interface Open {
  path: string;
  version: string | null;
  readOnly: boolean;
  created: boolean;
}

export class ConfigFiles {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly newPath: HTMLInputElement;
  private readonly editor: HTMLElement;
  private readonly title: HTMLElement;
  private readonly gutter: HTMLElement;
  private readonly area: HTMLTextAreaElement;
  private readonly problems: HTMLElement;
  private readonly dialog: HTMLElement;
  private readonly save: HTMLButtonElement;
  private readonly remove: HTMLButtonElement;
  private open: Open | null = null;
  private marked = new Set<number>();

  constructor(private readonly host: FilesHost) {
    this.list = h("ul", { class: "mw-config-files", "data-testid": "mw-config-files" });
    this.newPath = h("input", {
      class: "mw-input mw-config-new",
      type: "text",
      placeholder: "llm/vendor.yaml",
      "aria-label": "Path of a new configuration file",
      "data-testid": "mw-config-new-path",
    });
    const create = h("button", { class: "mw-button", type: "button", "data-testid": "mw-config-new" }, "New file");
    create.addEventListener("click", () => this.startNew());
    this.newPath.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.startNew();
      }
    });
    this.title = h("strong", { class: "mw-config-path", "data-testid": "mw-config-path" });
    this.gutter = h("div", { class: "mw-gutter", "aria-hidden": "true", "data-testid": "mw-gutter" });
    this.area = h("textarea", {
      class: "mw-config-text",
      spellcheck: "false",
      rows: "14",
      "aria-label": "The file's text",
      "data-testid": "mw-config-text",
    });
    this.area.addEventListener("input", () => this.numberLines());
    this.area.addEventListener("scroll", () => (this.gutter.scrollTop = this.area.scrollTop));
    this.area.addEventListener("keydown", (event) => {
      // Ctrl/Cmd+Enter saves, as in every text box of the widget; Ctrl/Cmd+S too, as in a file editor
      // (the browser's "save page" is not what the person means here).
      const key = event.key.toLowerCase();
      if ((event.ctrlKey || event.metaKey) && (key === "enter" || key === "s")) {
        event.preventDefault();
        this.store(false);
      }
    });
    this.problems = h("div", { class: "mw-config-problems", role: "alert", "data-testid": "mw-config-problems" });
    this.dialog = h("div", { class: "mw-config-dialog", role: "alertdialog", "data-testid": "mw-config-conflict", hidden: "" });
    this.dialog.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.stopPropagation();
        this.dialog.hidden = true;
        this.area.focus();
      }
    });
    this.save = h("button", { class: "mw-button mw-primary", type: "button", "data-testid": "mw-config-save", title: `Save (${MOD}+Enter)` }, "Save");
    this.save.addEventListener("click", () => this.store(false));
    this.remove = h("button", { class: "mw-button", type: "button", "data-testid": "mw-config-delete" }, "Delete file");
    this.remove.addEventListener("click", () => this.deleteFile(false));
    const close = h("button", { class: "mw-button", type: "button", "data-testid": "mw-config-close" }, "Close");
    close.addEventListener("click", () => this.close());
    this.editor = h(
      "div",
      { class: "mw-config-editor", "data-testid": "mw-config-editor", hidden: "" },
      h("div", { class: "mw-config-bar" }, this.title, this.remove, close, this.save),
      h("div", { class: "mw-config-lines" }, this.gutter, this.area),
      this.problems,
      this.dialog,
    );
    this.el = h(
      "div",
      { class: "mw-config" },
      this.list,
      h("div", { class: "mw-config-create" }, this.newPath, create),
      this.editor,
    );
  }

  /** The folder's files, as the kernel lists them now (the open file stays open, with its text). */
  setFiles(files: ConfigFileInfo[]): void {
    if (!files.length) {
      this.list.replaceChildren(h("li", { class: "mw-muted" }, "No configuration files yet: the built-in offline models and the default safety level are used."));
      return;
    }
    this.list.replaceChildren(
      ...files.map((file) => {
        const button = h("button", { class: "mw-link", type: "button", "data-path": file.path }, file.path);
        button.addEventListener("click", () => this.read(file.path));
        const item = h("li", { "data-testid": "mw-config-file" }, button);
        if (file.read_only) item.append(h("span", { class: "mw-muted" }, ` — read-only: ${file.reason ?? ""}`));
        return item;
      }),
    );
  }

  /** Open a file of the folder in the editor. */
  read(path: string): void {
    this.host.act({ action: "config_read", path }, (r) => {
      if (!r.ok) return this.host.say("error", r.message);
      const file = r.data.settings?.file;
      if (file) this.show(file);
    });
  }

  private show(file: ConfigFileText, focus = true): void {
    this.open = { path: file.path, version: file.version, readOnly: file.read_only, created: true };
    this.title.textContent = file.read_only ? `${file.path} (read-only: ${file.reason ?? ""})` : file.path;
    this.area.value = file.text;
    this.area.readOnly = file.read_only;
    this.save.disabled = file.read_only;
    this.remove.disabled = file.read_only;
    this.editor.hidden = false;
    this.dialog.hidden = true;
    this.mark([]);
    if (focus) this.area.focus();
  }

  /** A new file: the editor opens empty, and Save creates it through the same checks as any save. */
  private startNew(): void {
    const path = this.newPath.value.trim();
    if (!path) {
      this.host.say("error", "Write the new file's path first, like llm/vendor.yaml or agents/main.yaml.");
      this.newPath.focus();
      return;
    }
    this.open = { path, version: null, readOnly: false, created: false };
    this.title.textContent = `${path} (new — Save creates it)`;
    this.area.value = "";
    this.area.readOnly = false;
    this.save.disabled = false;
    this.remove.disabled = true;
    this.editor.hidden = false;
    this.dialog.hidden = true;
    this.mark([]);
    this.area.focus();
  }

  private close(): void {
    this.open = null;
    this.editor.hidden = true;
    this.area.value = "";
    this.mark([]);
  }

  /** Save the editor's text (a new file: create it); `overwrite` writes over a change made on disk. */
  private store(overwrite: boolean): void {
    const open = this.open;
    if (!open || open.readOnly) return;
    const text = this.area.value;
    const action: Action = open.created
      ? { action: "config_save", path: open.path, text, version: open.version, overwrite }
      : { action: "config_create", path: open.path, text };
    this.save.disabled = true;
    this.host.act(action, (r) => {
      this.save.disabled = false;
      const answer = r.data.settings;
      if (!r.ok) return this.refused(r.message, answer, "save");
      this.dialog.hidden = true;
      this.mark([]);
      if (answer?.file) {
        // The person's text stays as typed (the kernel wrote exactly it); only the version moves on.
        open.version = answer.file.version;
        open.created = true;
        this.title.textContent = open.path;
        this.remove.disabled = false;
      }
      this.host.answered(answer);
      this.host.say("info", [r.message, answer?.notice].filter(Boolean).join(" "));
    });
  }

  private deleteFile(overwrite: boolean): void {
    const open = this.open;
    if (!open || !open.created || open.readOnly) return;
    this.host.act({ action: "config_delete", path: open.path, version: open.version, overwrite }, (r) => {
      const answer = r.data.settings;
      if (!r.ok) return this.refused(r.message, answer, "delete");
      this.close();
      this.host.answered(answer);
      this.host.say("info", [r.message, answer?.notice].filter(Boolean).join(" "));
    });
  }

  /** A refusal: its sentence under the text, the refused lines marked, or the conflict dialog. */
  private refused(message: string, answer: SettingsAnswer | undefined, doing: "save" | "delete"): void {
    const problems = answer?.problems ?? [];
    this.mark(problems.map((p) => p.line).filter((line): line is number => typeof line === "number"));
    // Each problem under the text, led by its line where the sentence does not name it already.
    const lines = problems.map((p) => (p.line && !p.message.includes(`line ${p.line}`) ? `Line ${p.line}: ${p.message}` : p.message));
    this.problems.textContent = lines.length ? lines.join("\n") : message;
    this.host.say("info", ""); // the panel's status line no longer holds: the refusal is under the text
    if (answer?.conflict) this.conflict(message, doing);
    else this.area.focus();
  }

  private conflict(message: string, doing: "save" | "delete"): void {
    const again = h("button", { class: "mw-button mw-primary", type: "button", "data-testid": "mw-config-overwrite" }, doing === "save" ? "Overwrite" : "Delete anyway");
    const abandon = h("button", { class: "mw-button", type: "button", "data-testid": "mw-config-abandon" }, doing === "save" ? "Abandon my changes" : "Keep the file");
    again.addEventListener("click", () => (doing === "save" ? this.store(true) : this.deleteFile(true)));
    abandon.addEventListener("click", () => {
      const open = this.open;
      if (open) this.reload(open.path);
    });
    this.dialog.replaceChildren(h("div", { class: "mw-config-dialog-text" }, message), h("div", { class: "mw-config-bar" }, abandon, again));
    this.dialog.hidden = false;
    abandon.focus();
  }

  /** Read the file's current text over the person's (what "Abandon my changes" asks for). */
  private reload(path: string): void {
    this.host.act({ action: "config_read", path }, (r) => {
      const file = r.data.settings?.file;
      if (!r.ok || !file) {
        // Gone from disk: nothing to go back to, so the person's text stays, as a new file to create.
        this.dialog.hidden = true;
        if (this.open) this.open = { ...this.open, version: null, created: false };
        return this.host.say("error", r.message);
      }
      this.show(file);
      this.problems.textContent = "";
      this.host.say("info", `Your changes were abandoned: ${path} shows its text on disk now.`);
    });
  }

  // ---- line numbers and the refused lines ---------------------------------------------------------

  private mark(lines: number[]): void {
    this.marked = new Set(lines);
    if (!lines.length) this.problems.textContent = "";
    this.numberLines();
    const first = Math.min(...lines);
    if (Number.isFinite(first)) this.gutter.querySelector(`[data-line="${first}"]`)?.scrollIntoView({ block: "nearest" });
  }

  private numberLines(): void {
    const count = this.area.value.split("\n").length;
    const rows: HTMLElement[] = [];
    for (let line = 1; line <= count; line++) {
      const row = h("div", { "data-line": String(line) }, String(line));
      if (this.marked.has(line)) row.className = "mw-gutter-error";
      rows.push(row);
    }
    for (const line of this.marked) {
      if (line > count) rows.push(h("div", { "data-line": String(line), class: "mw-gutter-error" }, String(line)));
    }
    this.gutter.replaceChildren(...rows);
    this.gutter.scrollTop = this.area.scrollTop;
  }
}
