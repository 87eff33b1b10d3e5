// The timeline's context menu (T4, T11): insert a card of any kind above or below the card under the
// pointer (at the end, below the last card), and edit, delete, prune, fork or branch at that card. A right-click
// opens it where the pointer is; Shift+F10 or the menu key opens it under the focused card.
import { LABELS } from "./card";
import type { CardActions } from "./cardactions";
import { type Where, isDraft } from "./drafts";
import type { Editing } from "./editing";
import { type CardList, cardIdOf, inTextBox } from "./list";
import { ContextMenu, type MenuEntry } from "./menu";
import type { ToolInfo } from "./protocol";
import type { BoxSelection } from "./selection";
import type { TimelineState } from "./state";

export interface CardMenuParts {
  state: TimelineState;
  list: CardList;
  selected: BoxSelection;
  editing: Editing;
  actions: CardActions;
  /** The widget's root: focus that is still inside it when the menu closes stays where it is. */
  root: HTMLElement;
  /** Whether the first snapshot has come (before it, there is nothing to insert at). */
  ready: () => boolean;
  tools: () => ToolInfo[];
}

export class CardMenu {
  /** The kinds of card a person may insert, as the session says. */
  kinds: string[] = ["system_prompt", "user_input", "thinking", "model_reply"];
  private readonly menu = new ContextMenu();

  constructor(private readonly parts: CardMenuParts) {}

  get isOpen(): boolean {
    return this.menu.isOpen;
  }

  close(): void {
    this.menu.close();
  }

  /** A right-click in the timeline: insert above or below the card by which half was clicked. */
  pointer(event: MouseEvent): void {
    if (inTextBox(event.target) || event.shiftKey) return; // text boxes keep the browser's own menu
    event.preventDefault();
    event.stopPropagation();
    if (!this.parts.ready()) return;
    const { state, list } = this.parts;
    const id = cardIdOf(event.target);
    if (id && isDraft(id)) return;
    if (!id) {
      const last = state.order[state.order.length - 1] ?? null;
      this.open(last, "after", event.clientX, event.clientY);
      return;
    }
    const rect = list.get(id)!.el.getBoundingClientRect();
    const where: Where = event.clientY < rect.top + rect.height / 2 ? "before" : "after";
    this.open(id, where, event.clientX, event.clientY);
  }

  /** The menu of a focused card, from the keyboard: it opens under the card, inserting below it. */
  atCard(id: string): void {
    const rect = this.parts.list.get(id)!.el.getBoundingClientRect();
    this.open(id, "after", rect.left + 24, rect.bottom - 4);
  }

  private open(id: string | null, where: Where, x: number, y: number): void {
    const { list, root } = this.parts;
    const el = id ? list.get(id)?.el : undefined;
    if (el) el.dataset.hover = where;
    if (id) list.hold(id); // a card being worked on stays where it is while a turn streams below
    this.menu.open(this.entries(id, where), x, y, () => {
      if (el) delete el.dataset.hover;
      if (!list.focusNext && el && !root.contains(document.activeElement)) el.focus({ preventScroll: true });
    });
  }

  private entries(id: string | null, where: Where): MenuEntry[] {
    const { state, selected, editing, actions } = this.parts;
    const card = id ? state.get(id) : undefined;
    const entries: MenuEntry[] = [{ heading: !card ? "Insert" : where === "before" ? "Insert above" : "Insert below" }];
    for (const kind of this.kinds) {
      entries.push({ label: LABELS[kind] ?? kind, testid: `insert-${kind}`, run: () => editing.startDraft(kind, id, where) });
    }
    if (this.parts.tools().length) {
      entries.push({ label: "Tool call…", testid: "insert-tool_call", run: () => editing.startDraft("tool_call", id, where) });
    }
    if (card && id) {
      const many = selected.has(id) && selected.size > 1;
      entries.push({ separator: true });
      if (editing.canEdit(card)) entries.push({ label: "Edit", testid: "edit", run: () => editing.start(id) });
      entries.push({ label: many ? `Delete ${selected.size} cards` : "Delete", testid: "delete", run: () => actions.remove(id) });
      // Tool results and thinking become one-line stubs; of a selection, those among it.
      const pruned = actions.pruneTargets(id).length;
      if (pruned) entries.push({ label: many ? `Prune ${pruned} of them` : "Prune", testid: "prune", run: () => actions.prune(id) });
      entries.push({ separator: true });
      entries.push({ label: "Fork from here (the cards above)", testid: "fork", run: () => actions.copy("fork", id) });
      entries.push({ label: "Branch here (up to this card)", testid: "branch", run: () => actions.copy("branch", id) });
    }
    return entries;
  }
}
