// The composer: text box, Send and Stop, attachments by button, paste and drop (T18), pasted-text tags,
// and slash commands with a completion list (N4). It only gathers what the person wrote; the view sends it
// and the session decides (the 32 MB rule and the vision gate are the engine's, shown here in advance).
import { formatTokens } from "./card";
import { h } from "./dom";
import type { CommandInfo } from "./protocol";
import { fileChip, megabytes, takeDroppedFiles } from "./upload";

/** At most this many bytes of attachments per message (T18), checked here before anything is sent. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Pasted text longer than this collapses into a "pasted text" tag, expanded on send (T18). */
export const PASTE_COLLAPSE = 800;

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = isMac ? "⌘" : "Ctrl";

export function autosize(area: HTMLTextAreaElement): void {
  area.style.height = "auto";
  area.style.height = `${Math.min(area.scrollHeight + 2, 480)}px`;
}


/** What the person is about to send. */
export interface Outgoing {
  text: string;
  files: File[];
}

export interface ComposerHost {
  /** Send a message (with files) or run a slash command; `done(ok)` says whether to clear the composer. */
  submit(out: Outgoing, done: (ok: boolean) => void): void;
  stop(): void;
  notice(level: "info" | "error", text: string): void;
}

const TAG = /\[Pasted text #(\d+)[^\]]*\]/g;

export class Composer {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  readonly sendButton: HTMLButtonElement;
  readonly stopButton: HTMLButtonElement;
  private readonly attachButton: HTMLButtonElement;
  private readonly fileInput: HTMLInputElement;
  private readonly chips: HTMLElement;
  private readonly warning: HTMLElement;
  private readonly status: HTMLElement;
  private readonly hints: HTMLElement;
  private files: File[] = [];
  private pasted = new Map<number, string>();
  private pasteCount = 0;
  private hintIndex = 0;
  private shown: CommandInfo[] = [];
  private busy = false;
  private ready = false;
  private running = false;
  private lost = false;
  // Why this timeline takes nothing from the person (a workflow step's record), or null.
  private readOnly: string | null = null;
  private readonly placeholder = `Message — ${MOD}+Enter sends; empty continues; / for commands; drop or paste files.`;
  commands: CommandInfo[] = [];
  vision = true;
  model = "";

  constructor(private readonly host: ComposerHost) {
    this.input = h("textarea", {
      class: "mw-input",
      rows: "2",
      "data-testid": "mw-input",
      "aria-label": "Message",
      placeholder: this.placeholder,
    });
    this.sendButton = h("button", { class: "mw-button mw-primary", type: "button", "data-testid": "mw-send" }, "Send");
    this.stopButton = h("button", { class: "mw-button", type: "button", "data-testid": "mw-stop" }, "Stop");
    this.attachButton = h(
      "button",
      { class: "mw-button", type: "button", "data-testid": "mw-attach", title: "Attach files (at most 32 MB per message)" },
      "Attach",
    );
    this.fileInput = h("input", { type: "file", multiple: "", hidden: "", "data-testid": "mw-file" });
    this.chips = h("div", { class: "mw-chips", "data-testid": "mw-chips" });
    this.warning = h("div", { class: "mw-composer-warning", role: "status", "data-testid": "mw-vision" });
    // What the engine is doing beside the cards (e.g. `Compacting the conversation…`), while it does it.
    this.status = h("div", { class: "mw-composer-status", role: "status", "data-testid": "mw-status" });
    this.status.hidden = true;
    this.hints = h("div", { class: "mw-hints", role: "listbox", "aria-label": "Commands", "data-testid": "mw-hints" });
    this.hints.hidden = true;
    const buttons = h("div", { class: "mw-composer-buttons" }, this.sendButton, this.stopButton, this.attachButton);
    this.el = h(
      "div",
      { class: "mw-composer-box", "data-testid": "mw-composer" },
      this.hints,
      this.chips,
      this.warning,
      this.status,
      h("div", { class: "mw-composer" }, this.input, buttons, this.fileInput),
    );
    this.bind();
    this.refresh();
  }

  private bind(): void {
    this.sendButton.addEventListener("click", () => this.submit());
    this.stopButton.addEventListener("click", () => this.host.stop());
    this.attachButton.addEventListener("click", () => this.fileInput.click());
    this.fileInput.addEventListener("change", () => {
      this.addFiles([...(this.fileInput.files ?? [])]);
      this.fileInput.value = "";
    });
    this.input.addEventListener("input", () => {
      autosize(this.input);
      this.dropLostTags();
      this.updateHints();
    });
    this.input.addEventListener("keydown", (event) => this.key(event));
    this.input.addEventListener("paste", (event) => this.paste(event));
    // The list goes a moment after the box loses focus (a click on a hint lands first), unless focus came
    // back meanwhile: JupyterLab takes focus to the cell for an instant when a box in an output is focused.
    this.input.addEventListener("blur", () =>
      window.setTimeout(() => document.activeElement !== this.input && this.hideHints(), 150),
    );
    this.input.addEventListener("focus", () => this.updateHints());
    takeDroppedFiles(this.el, (files) => this.addFiles(files));
  }

  // ---- state from the view ------------------------------------------------------------------------

  setState(ready: boolean, running: boolean): void {
    this.ready = ready;
    this.running = running;
    this.sendButton.disabled = this.lost || !!this.readOnly || !ready || running || this.busy;
    this.stopButton.disabled = this.lost || !running;
  }

  /** A read-only timeline (a workflow step's record): nothing is typed or sent here, and the line says
   * why; null makes it a conversation again (another session shows in the view). */
  setReadOnly(reason: string | null): void {
    this.readOnly = reason;
    this.input.readOnly = this.lost || !!reason;
    this.input.placeholder = reason ?? this.placeholder;
    this.input.title = reason ?? "";
    this.attachButton.disabled = this.lost || !!reason;
    this.setState(this.ready, this.running);
  }

  /** Show what the engine is doing beside the cards; null hides the line. */
  setStatus(text: string | null): void {
    this.status.textContent = text ?? "";
    this.status.hidden = !text;
  }

  /** The kernel is gone: nothing can be sent or stopped from here; what was typed stays to be copied. */
  disconnect(): void {
    this.lost = true;
    this.input.readOnly = true;
    this.attachButton.disabled = true;
    this.hideHints();
    this.setState(false, false);
  }

  // ---- attachments and pasted text (T18, T19) -----------------------------------------------------

  /** Add files unless the message would pass 32 MB; a refused file is named and nothing else is lost. */
  addFiles(files: File[]): void {
    for (const file of files) {
      const held = this.files.reduce((n, f) => n + f.size, 0);
      if (held + file.size > MAX_MESSAGE_BYTES) {
        this.host.notice(
          "error",
          `“${file.name}” (${megabytes(file.size)}) was not attached: a message takes at most 32 MB of attachments` +
            (held ? ` and ${megabytes(held)} are attached already.` : "."),
        );
        continue;
      }
      this.files.push(file);
    }
    this.refresh();
  }

  private paste(event: ClipboardEvent): void {
    const data = event.clipboardData;
    if (!data) return;
    const files = [...data.files];
    if (files.length) {
      event.preventDefault();
      this.addFiles(files);
      return;
    }
    const text = data.getData("text/plain");
    if (text.length <= PASTE_COLLAPSE) return; // short text is pasted as it is
    event.preventDefault();
    const n = ++this.pasteCount;
    this.pasted.set(n, text);
    const lines = text.split("\n").length;
    const tag = `[Pasted text #${n} +${lines} line${lines === 1 ? "" : "s"}]`;
    this.input.setRangeText(tag, this.input.selectionStart, this.input.selectionEnd, "end");
    autosize(this.input);
    this.refresh();
  }

  /** The text as it goes to the model: each pasted-text tag replaced by what was pasted. */
  expanded(): string {
    return this.input.value.replace(TAG, (tag, n) => this.pasted.get(Number(n)) ?? tag);
  }

  private dropLostTags(): void {
    const present = new Set([...this.input.value.matchAll(TAG)].map((m) => Number(m[1])));
    let changed = false;
    for (const n of [...this.pasted.keys()]) {
      if (!present.has(n)) {
        this.pasted.delete(n);
        changed = true;
      }
    }
    if (changed) this.refresh();
  }

  private expandTag(n: number): void {
    const text = this.pasted.get(n);
    if (text === undefined) return;
    this.input.value = this.input.value.replace(TAG, (tag, m) => (Number(m) === n ? text : tag));
    this.pasted.delete(n);
    autosize(this.input);
    this.refresh();
  }

  private removeTag(n: number): void {
    this.input.value = this.input.value.replace(TAG, (tag, m) => (Number(m) === n ? "" : tag));
    this.pasted.delete(n);
    this.refresh();
  }

  private refresh(): void {
    const chips: HTMLElement[] = [];
    this.files.forEach((file, i) => {
      chips.push(
        fileChip(file, "mw-attachment", () => {
          this.files.splice(i, 1);
          this.refresh();
        }),
      );
    });
    for (const [n, text] of this.pasted) {
      const expand = h("button", { class: "mw-chip-x", type: "button", title: "Put the whole text in the box" }, "expand");
      expand.addEventListener("click", () => this.expandTag(n));
      const remove = h("button", { class: "mw-chip-x", type: "button", "aria-label": "Remove the pasted text" }, "×");
      remove.addEventListener("click", () => this.removeTag(n));
      const label = `Pasted text #${n} · ${formatTokens(text.length)} characters`;
      chips.push(h("span", { class: "mw-chip mw-pasted", "data-testid": "mw-pasted" }, label, expand, remove));
    }
    this.chips.replaceChildren(...chips);
    this.chips.hidden = chips.length === 0;
    const images = this.files.filter((f) => f.type.startsWith("image/"));
    const warn = !this.vision && images.length > 0;
    this.warning.hidden = !warn;
    this.warning.textContent = warn
      ? `\`${this.model}\` has no vision input, so a message with images will be refused. Switch the model or remove the images.`
      : "";
  }

  // ---- slash commands (N4) ------------------------------------------------------------------------

  private updateHints(): void {
    const value = this.input.value;
    const word = /^\/(\S*)$/.exec(value);
    if (!word) return this.hideHints();
    const prefix = word[1].toLowerCase();
    this.shown = this.commands.filter((c) => c.name.startsWith(prefix));
    if (!this.shown.length) {
      this.hints.replaceChildren(h("div", { class: "mw-hint mw-muted" }, `No command /${prefix} — /help lists them.`));
      this.hints.hidden = false;
      return;
    }
    this.hintIndex = Math.min(this.hintIndex, this.shown.length - 1);
    this.hints.replaceChildren(
      ...this.shown.map((c, i) => {
        const row = h(
          "div",
          { class: "mw-hint", role: "option", "data-command": c.name, "aria-selected": String(i === this.hintIndex) },
          h("code", {}, `/${c.name}${c.synopsis ? " " + c.synopsis : ""}`),
          h("span", { class: "mw-muted" }, ` ${c.summary}`),
        );
        row.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.complete(c);
        });
        return row;
      }),
    );
    this.hints.hidden = false;
  }

  private hideHints(): void {
    this.hints.hidden = true;
    this.shown = [];
    this.hintIndex = 0;
  }

  private complete(command: CommandInfo): void {
    this.input.value = `/${command.name}${command.synopsis ? " " : ""}`;
    this.hideHints();
    this.updateHints(); // a command without arguments stays offered: Enter runs it
    this.input.focus();
  }

  private key(event: KeyboardEvent): void {
    const hinting = !this.hints.hidden && this.shown.length > 0;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      this.submit();
    } else if (hinting && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      const step = event.key === "ArrowDown" ? 1 : -1;
      this.hintIndex = (this.hintIndex + step + this.shown.length) % this.shown.length;
      this.updateHints();
    } else if (hinting && (event.key === "Tab" || event.key === "Enter")) {
      const chosen = this.shown[this.hintIndex];
      if (event.key === "Enter" && this.input.value === `/${chosen.name}`) {
        this.submit(); // the whole command is typed: Enter runs it
      } else this.complete(chosen);
    } else if (event.key === "Enter" && !event.shiftKey && !event.altKey && this.wholeCommand()) {
      this.submit(); // `/redo` typed whole runs on Enter with the list gone too (Escape, a click away)
    } else if (event.key === "Escape" && !this.hints.hidden) {
      this.hideHints();
    } else return;
    event.preventDefault();
    event.stopPropagation();
  }

  /** The box holds exactly the name of a command that takes nothing more. */
  private wholeCommand(): boolean {
    const name = /^\/(\S+)$/.exec(this.input.value)?.[1].toLowerCase();
    return !!name && this.commands.some((c) => c.name === name && !c.synopsis);
  }

  // ---- sending ------------------------------------------------------------------------------------

  private submit(): void {
    if (this.sendButton.disabled || this.readOnly) return;
    const out: Outgoing = { text: this.expanded(), files: [...this.files] };
    const typed = this.input.value;
    this.hideHints();
    this.busy = true;
    this.sendButton.disabled = true;
    this.host.submit(out, (ok) => {
      this.busy = false;
      this.setState(this.ready, this.running);
      if (!ok) return; // refused: the text, the tags and the files stay for another try
      if (this.input.value === typed) {
        this.input.value = "";
        this.pasted.clear();
      }
      this.files = [];
      autosize(this.input);
      this.refresh();
    });
  }

  /** The composer's own notice of what it was about to do, for /help. */
  helpText(): string {
    return this.commands.map((c) => `/${c.name}${c.synopsis ? " " + c.synopsis : ""} — ${c.summary}`).join("\n");
  }
}
