// The DOM helpers every part of the widget builds on: making an element, and keeping JupyterLab's
// shortcuts off the keys pressed in one. They import nothing of the widget, so any module may use them.

/** An element with its attributes (`class` sets the class name) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") el.className = value;
    else el.setAttribute(name, value);
  }
  for (const child of children) el.append(child);
  return el;
}

/**
 * Keep every key pressed inside `el` there: no JupyterLab shortcut acts on a key meant for the widget (D D
 * deleted the cell holding it, A and B inserted cells, Enter and Shift+Enter in a text box ran the cell).
 */
export function keepKeysIn(el: HTMLElement): void {
  // Lumino matches a shortcut's selector from the key's target upward and gives up only at an element
  // marked data-lm-suppress-shortcuts; the notebook's command-mode selector (`.jp-Notebook.jp-mod-commandMode
  // :focus`) matches the focused card or button itself, before the mark on the widget's root is reached.
  // So the element that takes the focus carries the mark, which also covers a JupyterLab that reads keys
  // on their way down (capture), as versions before 4.1 do.
  el.addEventListener("focusin", (event) => (event.target as Element).setAttribute("data-lm-suppress-shortcuts", ""));
  // JupyterLab 4.1 and later read keys as they bubble up to the document: stopped here, neither they nor
  // the notebook's own handlers see them. The widget's handlers sit on this element or inside it.
  for (const type of ["keydown", "keyup", "keypress"]) el.addEventListener(type, (event) => event.stopPropagation());
}
