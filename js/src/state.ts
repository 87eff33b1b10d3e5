// The view's copy of the timeline: cards sorted by order key, patched in place.
import type { CardPayload, CardRow } from "./protocol";

export class TimelineState {
  private cards = new Map<string, CardPayload>();
  private keys = new Map<string, string>();
  /** Card ids in timeline order. */
  order: string[] = [];

  reset(rows: CardRow[]): void {
    this.cards.clear();
    this.keys.clear();
    const sorted = [...rows].sort((a, b) => compare(a.order_key, b.order_key));
    for (const row of sorted) {
      this.cards.set(row.card.id, row.card);
      this.keys.set(row.card.id, row.order_key);
    }
    this.order = sorted.map((row) => row.card.id);
  }

  get(id: string): CardPayload | undefined {
    return this.cards.get(id);
  }

  get size(): number {
    return this.order.length;
  }

  /** Add a card or replace it, moving it if its key changed. */
  upsert(card: CardPayload, key: string): void {
    const old = this.keys.get(card.id);
    this.cards.set(card.id, card);
    if (old === key) return;
    if (old !== undefined) this.order.splice(this.order.indexOf(card.id), 1);
    this.keys.set(card.id, key);
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(this.keys.get(this.order[mid])!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.order.splice(lo, 0, card.id);
  }

  remove(id: string): void {
    if (!this.cards.delete(id)) return;
    this.keys.delete(id);
    this.order.splice(this.order.indexOf(id), 1);
  }

  /**
   * Streamed text: `text` replaces the card's text from `offset` on. Returns false when the view
   * lacks text before `offset` (it missed a message) and needs a fresh snapshot.
   */
  delta(id: string, offset: number, text: string): boolean {
    const card = this.cards.get(id);
    if (!card) return false;
    const current = card.text ?? "";
    if (current.length >= offset + text.length) return true; // already has it (snapshot was newer)
    if (current.length < offset) return false;
    card.text = current.slice(0, offset) + text;
    return true;
  }

  /** The ids from one card to another, inclusive, in timeline order. */
  range(a: string, b: string): string[] {
    const i = this.order.indexOf(a);
    const j = this.order.indexOf(b);
    if (i < 0 || j < 0) return [];
    return this.order.slice(Math.min(i, j), Math.max(i, j) + 1);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
