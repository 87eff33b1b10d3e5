// Box selection (T10): Ctrl/Cmd+drag selects a range of cards, Shift+click extends it; the context menu
// and Delete then act on all of them, and one undo brings them back.

export class BoxSelection {
  readonly ids = new Set<string>();
  private anchor: string | null = null;
  private dragging = false;

  /**
   * `range(a, b)`: the card ids from a to b in timeline order; `changed(ids)`: these cards were selected
   * or unselected and need drawing again.
   */
  constructor(
    private readonly range: (a: string, b: string) => string[],
    private readonly changed: (ids: string[]) => void,
  ) {}

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** What an action on `id` applies to: the whole selection when `id` is in it, else `id` alone. */
  targets(id: string): string[] {
    return this.ids.has(id) ? [...this.ids] : [id];
  }

  set(ids: string[]): void {
    const touched = [...this.ids, ...ids];
    this.ids.clear();
    for (const id of ids) this.ids.add(id);
    this.changed(touched);
  }

  /** A mouse press on a card; true when it started or extended a selection (the press is then used up). */
  down(id: string, event: MouseEvent): boolean {
    if (event.ctrlKey || event.metaKey) {
      this.dragging = true;
      this.anchor = id;
      this.set([id]);
      return true;
    }
    if (event.shiftKey && this.anchor) {
      this.set(this.range(this.anchor, id));
      return true;
    }
    return false;
  }

  /** The mouse moved over a card: a drag in progress takes in the cards up to it. */
  over(id: string): void {
    if (this.dragging && this.anchor) this.set(this.range(this.anchor, id));
  }

  up(): void {
    this.dragging = false;
  }

  forget(id: string): void {
    this.ids.delete(id);
  }
}
