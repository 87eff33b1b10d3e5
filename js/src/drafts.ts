// New cards being written (T4, T5): each is a row of its own in the list, beside the card it was inserted
// at, until it is saved as a card or cancelled. Drafts live only in this view; the session never sees them.

export type Where = "before" | "after";

export interface Draft {
  id: string;
  kind: string;
  anchor: string | null;
  where: Where;
}

/** Whether a row of the list is a draft rather than a card. */
export function isDraft(id: string): boolean {
  return id.startsWith("draft-");
}

export class Drafts {
  private drafts: Draft[] = [];
  private count = 0;

  add(kind: string, anchor: string | null, where: Where): Draft {
    const draft: Draft = { id: `draft-${++this.count}`, kind, anchor, where };
    this.drafts.push(draft);
    return draft;
  }

  get(id: string): Draft | undefined {
    return this.drafts.find((d) => d.id === id);
  }

  remove(id: string): void {
    this.drafts = this.drafts.filter((d) => d.id !== id);
  }

  /** A card is gone: drafts written beside it move to the end, so that nothing typed is lost. */
  forgetAnchor(id: string): void {
    for (const draft of this.drafts) {
      if (draft.anchor === id) {
        draft.anchor = null;
        draft.where = "after";
      }
    }
  }

  /** The rows of the list: the cards in order, each draft beside its anchor (at the end without one). */
  place(order: string[]): string[] {
    const rows = [...order];
    for (const draft of this.drafts) {
      const at = draft.anchor === null ? -1 : rows.indexOf(draft.anchor);
      if (at < 0) rows.push(draft.id);
      else rows.splice(draft.where === "before" ? at : at + 1, 0, draft.id);
    }
    return rows;
  }
}
