// The card context menu: a small floating list, driven by mouse or keyboard.
import { h, keepKeysIn } from "./dom";

export type MenuEntry =
  | { label: string; run: () => void; disabled?: boolean; testid?: string }
  | { heading: string }
  | { separator: true };

export class ContextMenu {
  private el: HTMLElement | null = null;
  private onClose: (() => void) | null = null;
  private readonly outside = (event: Event) => {
    if (this.el && !this.el.contains(event.target as Node)) this.close();
  };

  get isOpen(): boolean {
    return this.el !== null;
  }

  /** Show the entries at a viewport position; `onClose` runs however the menu closes. */
  open(entries: MenuEntry[], x: number, y: number, onClose: () => void): void {
    this.close();
    // In document.body, not in the cell: a cell may contain fixed-position children (containment).
    const menu = h("div", {
      class: "mw-menu",
      role: "menu",
      "data-jp-suppress-context-menu": "",
      "data-lm-suppress-shortcuts": "",
    });
    for (const entry of entries) {
      if ("separator" in entry) menu.append(h("div", { class: "mw-menu-sep", role: "separator" }));
      else if ("heading" in entry) menu.append(h("div", { class: "mw-menu-heading" }, entry.heading));
      else {
        const item = h("button", { class: "mw-menu-item", role: "menuitem", type: "button" }, entry.label);
        if (entry.testid) item.dataset.testid = entry.testid;
        item.disabled = !!entry.disabled;
        item.addEventListener("click", (event) => {
          event.stopPropagation();
          this.close();
          entry.run();
        });
        menu.append(item);
      }
    }
    menu.addEventListener("keydown", (event) => this.key(event));
    keepKeysIn(menu);
    menu.addEventListener("contextmenu", (event) => event.preventDefault());
    document.body.append(menu);
    const { innerWidth, innerHeight } = window;
    const rect = menu.getBoundingClientRect();
    menu.style.left = `${Math.max(0, Math.min(x, innerWidth - rect.width - 4))}px`;
    menu.style.top = `${Math.max(0, Math.min(y, innerHeight - rect.height - 4))}px`;
    this.el = menu;
    this.onClose = onClose;
    setTimeout(() => {
      document.addEventListener("mousedown", this.outside, true);
      window.addEventListener("blur", this.outside);
    });
    this.items()[0]?.focus();
  }

  close(): void {
    if (!this.el) return;
    this.el.remove();
    this.el = null;
    document.removeEventListener("mousedown", this.outside, true);
    window.removeEventListener("blur", this.outside);
    const done = this.onClose;
    this.onClose = null;
    done?.();
  }

  private items(): HTMLButtonElement[] {
    return this.el ? [...this.el.querySelectorAll<HTMLButtonElement>(".mw-menu-item:not(:disabled)")] : [];
  }

  private key(event: KeyboardEvent): void {
    const items = this.items();
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      items[(at + step + items.length) % items.length]?.focus();
    } else if (event.key === "Home") items[0]?.focus();
    else if (event.key === "End") items[items.length - 1]?.focus();
    else if (event.key === "Escape" || event.key === "Tab") this.close();
    else return;
    event.preventDefault();
    event.stopPropagation();
  }
}
