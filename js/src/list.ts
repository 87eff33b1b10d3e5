// The virtualised card list (DESIGN §5): only the cards near the viewport are in the DOM, each in a
// reusable slot that is rebuilt when marked dirty. What a card shows is the view's business (`fill`).
import {
  Virtualizer,
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
} from "@tanstack/virtual-core";

import { h } from "./dom";

export interface Slot {
  el: HTMLElement;
  head: HTMLElement;
  body: HTMLElement;
  error: HTMLElement;
  foot: HTMLElement;
  dirty: boolean;
}

/** The card (or draft) an event happened in, by its row id. */
export function cardIdOf(target: EventTarget | null): string | null {
  const el = (target as HTMLElement | null)?.closest?.(".mw-card") as HTMLElement | null;
  return el?.dataset.cardId ?? null;
}

/** Text boxes keep the browser's own keys, clicks and menu. */
export function inTextBox(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === "TEXTAREA" || el.tagName === "INPUT" || el.tagName === "SELECT" || el.isContentEditable);
}

export interface ListHooks {
  /** The row ids in order (cards and drafts). */
  rows: () => string[];
  /** Rebuild one slot's parts. */
  fill: (id: string, slot: Slot) => void;
  /** After each render: focus, the empty notice. */
  rendered: (rows: string[]) => void;
  /** The person scrolls the list with the wheel (the list's own scrolling does not count). */
  scrolled: () => void;
}

export class CardList {
  readonly scroller: HTMLElement;
  readonly inner: HTMLElement;
  rows: string[] = [];
  /** Keep the newest card in sight while the person has not scrolled up. */
  stick = true;
  /** The row to focus once it is drawn (a new editor, the next card on an arrow key); `rendered` does it. */
  focusNext: string | null = null;
  private readonly slots = new Map<string, Slot>();
  private readonly virtualizer: Virtualizer<HTMLElement, HTMLElement>;
  private frame = 0;
  private ownTop = -1; // the scrollTop the list set itself, to tell its own scrolling from the person's
  private revealing: string | null = null; // a row to bring into sight once it is drawn
  private revealTries = 0;
  readonly cleanup: () => void;

  constructor(private readonly hooks: ListHooks) {
    this.inner = h("div", { class: "mw-timeline-inner" });
    this.scroller = h("div", { class: "mw-timeline", role: "list", "aria-label": "Timeline" }, this.inner);
    this.virtualizer = new Virtualizer<HTMLElement, HTMLElement>({
      count: 0,
      getScrollElement: () => this.scroller,
      estimateSize: () => 72,
      getItemKey: (index) => this.rows[index] ?? index,
      // The virtualiser scrolls by itself when it measures cards taller or shorter than estimated (its
      // "adjustments"): that is the list's own scrolling, no reason to stop following the end.
      scrollToFn: (offset, options, instance) => {
        elementScroll(offset, options, instance);
        this.ownTop = this.scroller.scrollTop;
      },
      observeElementRect,
      observeElementOffset,
      measureElement,
      overscan: 8,
      gap: 6,
      // Room for the insertion line above the first card and below the last (the scroller clips them).
      paddingStart: 6,
      paddingEnd: 6,
      onChange: () => this.schedule(),
    });
    const unmount = this.virtualizer._didMount();
    // Any other scrolling (the wheel, the scrollbar, keys, find in page) is the person's: the list
    // follows the end again once they are back at it, and not before.
    const s = this.scroller;
    s.addEventListener("scroll", () => {
      if (Math.abs(s.scrollTop - this.ownTop) <= 1) return;
      this.stick = s.scrollTop + s.clientHeight >= s.scrollHeight - 24;
    });
    s.addEventListener("wheel", (event) => {
      if (event.deltaY < 0) this.stick = false; // at once: a streaming card must not pull it back first
      this.hooks.scrolled();
    }, { passive: true });
    this.cleanup = () => {
      cancelAnimationFrame(this.frame);
      unmount();
    };
  }

  /** The slot of a card that has one (it is, or was lately, near the viewport). */
  get(id: string): Slot | undefined {
    return this.slots.get(id);
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  ids(): string[] {
    return [...this.slots.keys()];
  }

  dirty(id: string): void {
    const slot = this.slots.get(id);
    if (slot) slot.dirty = true;
  }

  forget(id: string): void {
    this.slots.get(id)?.el.remove();
    this.slots.delete(id);
  }

  /** The line that shows where a new card would go follows the mouse: upper half before, lower after. */
  hover(event: MouseEvent): void {
    const el = (event.target as HTMLElement).closest(".mw-card") as HTMLElement | null;
    this.clearHover(el);
    if (!el || el.classList.contains("mw-editing")) return;
    const rect = el.getBoundingClientRect();
    el.dataset.hover = event.clientY < rect.top + rect.height / 2 ? "before" : "after";
  }

  clearHover(keep: HTMLElement | null = null): void {
    for (const el of this.inner.querySelectorAll<HTMLElement>("[data-hover]")) {
      if (el !== keep) delete el.dataset.hover;
    }
  }

  /** The person works on this row (its menu is open): stop following the end unless it is the newest. */
  hold(id: string): void {
    if (this.rows.indexOf(id) < this.rows.length - 1) this.stick = false;
  }

  /**
   * The person works on this row (an editor, an error on it): bring it into sight — inside the list and
   * in the notebook around it — and stop following the end unless it is the newest row.
   */
  reveal(id: string): void {
    this.revealing = id;
    this.revealTries = 0;
    this.schedule();
  }

  scrollToIndex(index: number): void {
    this.stick = index >= this.rows.length - 1; // going up to a card leaves the end; the newest follows it
    this.virtualizer.scrollToIndex(index, { align: "auto" });
  }

  schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private render(): void {
    this.rows = this.hooks.rows();
    this.scroller.hidden = this.rows.length === 0;
    this.virtualizer.setOptions({ ...this.virtualizer.options, count: this.rows.length });
    this.virtualizer._willUpdate();
    const items = this.virtualizer.getVirtualItems();
    this.inner.style.height = `${this.virtualizer.getTotalSize()}px`;
    const shown = new Set<HTMLElement>();
    let previous: HTMLElement | null = null;
    for (const item of items) {
      const id = this.rows[item.index];
      const slot = this.slot(id);
      if (slot.dirty) {
        slot.dirty = false;
        this.hooks.fill(id, slot);
      }
      slot.el.dataset.index = String(item.index);
      slot.el.style.transform = `translateY(${item.start}px)`;
      // DOM order follows the timeline, for screen readers and Tab.
      const next: ChildNode | null = previous ? previous.nextSibling : this.inner.firstChild;
      if (next !== slot.el) this.inner.insertBefore(slot.el, next);
      previous = slot.el;
      shown.add(slot.el);
    }
    for (const child of [...this.inner.children]) {
      const el = child as HTMLElement;
      if (!shown.has(el) && !el.contains(document.activeElement)) el.remove();
    }
    for (const el of shown) this.virtualizer.measureElement(el);
    if (this.revealing) this.revealNow(this.revealing, shown);
    if (this.stick) {
      this.scroller.scrollTop = this.scroller.scrollHeight;
      this.ownTop = this.scroller.scrollTop;
    }
    this.hooks.rendered(this.rows);
  }

  private revealNow(id: string, shown: Set<HTMLElement>): void {
    const index = this.rows.indexOf(id);
    if (index < 0 || ++this.revealTries > 5) {
      this.revealing = null; // gone meanwhile, or it never came into the window: give up quietly
      return;
    }
    this.stick = index === this.rows.length - 1;
    const el = this.slots.get(id)?.el;
    if (!el || !shown.has(el)) {
      this.virtualizer.scrollToIndex(index, { align: "auto" }); // draw it first; the next frame shows it
      this.ownTop = this.scroller.scrollTop;
      this.schedule();
      return;
    }
    this.revealing = null;
    el.scrollIntoView({ block: "nearest" });
    this.ownTop = this.scroller.scrollTop; // the list's own scrolling: no reason to close a menu
  }

  private slot(id: string): Slot {
    let slot = this.slots.get(id);
    if (!slot) {
      const head = h("div", { class: "mw-card-head" });
      const body = h("div", { class: "mw-card-body" });
      const error = h("div", { class: "mw-card-error", role: "alert" });
      const foot = h("div", { class: "mw-card-foot" });
      const el = h("div", { class: "mw-card", role: "listitem", tabindex: "0", "data-card-id": id }, head, body, error, foot);
      slot = { el, head, body, error, foot, dirty: true };
      this.slots.set(id, slot);
    }
    return slot;
  }
}
