// In-place editing (T6) and the saving of drafts as new cards (T4, T5): which rows have an editor open,
// the error each row shows, and what Save asks of the session (edit, insert, or a recorded tool call).
import { h } from "./dom";
import { Drafts, type Where, isDraft } from "./drafts";
import { fillPreview } from "./economy";
import { type Editor, makeEditor } from "./editor";
import type { CardList } from "./list";
import type { Action, CardPayload, ResultMsg, ToolInfo } from "./protocol";
import type { TimelineState } from "./state";

export interface EditingHost {
  act(action: Action, done: (result: ResultMsg) => void): void;
  /** The tools a new tool call may name. */
  tools(): ToolInfo[];
  /** Why nothing can be edited from this view at all (its kernel is gone), or null. */
  blocked(): string | null;
  /** Send files to the kernel; the promise gives their upload ids. */
  upload(files: File[]): Promise<string[]>;
}

export class Editing {
  readonly editors = new Map<string, Editor>();
  readonly drafts = new Drafts();
  /** The fields each kind of card may have edited, as the session says. */
  editable: Record<string, string[]> = {};
  /** Why a kind cannot be edited at all, as the session says (shown on an edit attempt). */
  readOnly: Record<string, string> = {};
  private readonly errors = new Map<string, string>();

  constructor(
    private readonly state: TimelineState,
    private readonly list: CardList,
    private readonly host: EditingHost,
  ) {}

  canEdit(card: CardPayload): boolean {
    if (!(card.kind in this.editable)) return false;
    if (card.kind === "model_reply" && card.complete === false) return false;
    return !(card.kind === "thinking" && card.encrypted);
  }

  error(id: string): string | undefined {
    return this.errors.get(id);
  }

  /** Show an error on a row (until it is saved, cancelled or edited again). */
  showError(id: string, text: string): void {
    this.errors.set(id, text);
    this.list.dirty(id);
    this.list.reveal(id);
  }

  /** Take back every card error that says `text` (it described a state that has ended). */
  clearErrors(text: string): void {
    for (const [id, error] of [...this.errors]) {
      if (error !== text) continue;
      this.errors.delete(id);
      this.list.dirty(id);
    }
    this.list.schedule();
  }

  start(id: string): void {
    const card = this.state.get(id);
    if (!card) return;
    const blocked = this.host.blocked();
    if (blocked) return this.showError(id, blocked);
    if (!this.canEdit(card)) return this.showError(id, this.readOnly[card.kind] ?? "This card cannot be edited.");
    const editor = this.editorFor(id, card);
    this.editors.set(id, editor);
    this.preview(editor, id, "Editing this card");
    this.errors.delete(id);
    this.list.dirty(id);
    this.list.focusNext = id;
    this.list.reveal(id);
  }

  /** Open an editor for a new card of `kind`, before or after `anchor` (at the end when it is null). */
  startDraft(kind: string, anchor: string | null, where: Where): void {
    if (this.host.blocked()) return;
    const draft = this.drafts.add(kind, anchor, where);
    const editor = this.editorFor(draft.id, undefined);
    this.editors.set(draft.id, editor);
    // The cache is spent from the card after the new one: none at the end, where nothing is spent.
    const order = this.state.order;
    const after = anchor === null ? undefined : where === "before" ? anchor : order[order.indexOf(anchor) + 1];
    if (after) this.preview(editor, after, "Inserting here");
    this.list.focusNext = draft.id;
    this.list.reveal(draft.id); // a new form opens in sight, its Save and Execute buttons included
  }

  cancel(id: string): void {
    this.editors.delete(id);
    this.errors.delete(id);
    if (isDraft(id)) {
      const draft = this.drafts.get(id);
      this.drafts.remove(id);
      this.list.forget(id);
      this.list.focusNext = draft?.anchor ?? null;
    } else {
      this.list.dirty(id);
      this.list.focusNext = id;
    }
    this.list.schedule();
  }

  save(id: string, execute = false): void {
    const editor = this.editors.get(id);
    if (!editor) return;
    let fields: Record<string, unknown>;
    try {
      fields = editor.fields();
    } catch (exc) {
      return this.showError(id, (exc as Error).message);
    }
    const draft = this.drafts.get(id);
    const done = (result: ResultMsg) => {
      if (!result.ok) return this.showError(id, result.message ?? "That did not work.");
      const newId = result.data.card_id;
      this.cancel(id);
      if (newId) this.list.focusNext = newId;
    };
    if (draft?.kind === "tool_call") {
      const { name, params, result } = fields as { name: string; params: Record<string, unknown>; result: string | null };
      this.host.act({ action: "tool_call", name, params, result, execute, anchor: draft.anchor, where: draft.where }, done);
    } else if (draft) this.host.act({ action: "insert", kind: draft.kind, fields, anchor: draft.anchor, where: draft.where }, done);
    else if (!editor.files.length) this.host.act({ action: "edit", card_id: id, fields }, done);
    else {
      // Files dropped on the message go up first; the edit names them, and the card keeps them.
      this.host
        .upload(editor.files)
        .then((attachments) => this.host.act({ action: "edit", card_id: id, fields, attachments }, done))
        .catch((exc: Error) => this.showError(id, `The files could not be read: ${exc.message}. Nothing was saved.`));
    }
  }

  /** A card is gone: its editor and error go too; drafts written beside it stay, at the end. */
  forget(id: string): void {
    this.editors.delete(id);
    this.errors.delete(id);
    this.drafts.forgetAnchor(id);
  }

  /** The line under an editor that says what saving spends of the prompt cache, asked once as it opens. */
  private preview(editor: Editor, cardId: string, lead: string): void {
    const line = h("div", { class: "mw-cache-preview", "data-testid": "mw-cache-preview", hidden: "" });
    editor.node.append(line);
    fillPreview((action, done) => this.host.act(action, done), cardId, lead, line);
  }

  private editorFor(id: string, card: CardPayload | undefined): Editor {
    const draftKind = this.drafts.get(id)?.kind;
    return makeEditor(card, draftKind === "tool_call" && !card ? this.host.tools() : null, {
      save: (execute) => this.save(id, execute),
      cancel: () => this.cancel(id),
    });
  }
}
