// The timeline's keys: Ctrl/Cmd+Z undoes, Ctrl/Cmd+Shift+Z and Ctrl/Cmd+X redo (T9), Shift+F10 or the menu
// key opens the context menu, Enter or F2 edits, Delete or Backspace deletes (T8), the arrows go from card
// to card and Esc drops the selection. Text boxes and the open menu keep their own keys.
import type { GestureParts } from "./gestures";
import { cardIdOf, inTextBox } from "./list";
import type { Action, ResultMsg } from "./protocol";

export interface KeyParts extends GestureParts {
  act(action: Action, done: (result: ResultMsg) => void): void;
  notice(level: "info" | "error", text: string): void;
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

/** Carry out a key pressed in the widget, when it means something here (the event is then used up). */
export function timelineKey(event: KeyboardEvent, parts: KeyParts): void {
  const { list, selected, editing, actions, menu } = parts;
  if (inTextBox(event.target)) return; // the browser types the key (Enter makes a new line)
  if (menu.isOpen) return;
  const mod = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  const id = cardIdOf(document.activeElement);
  const tell = (r: ResultMsg) => parts.notice(r.ok ? "info" : "error", r.message ?? "");
  if (mod && !event.shiftKey && !event.altKey && key === "z") {
    parts.act({ action: "undo" }, tell);
  } else if (mod && !event.altKey && (key === "x" || (event.shiftKey && key === "z"))) {
    parts.act({ action: "redo" }, tell);
  } else if (((event.shiftKey && event.key === "F10") || event.key === "ContextMenu") && id) {
    menu.atCard(id);
  } else if ((event.key === "Enter" || event.key === "F2") && id && !mod) {
    editing.start(id);
  } else if ((event.key === "Delete" || event.key === "Backspace") && id) {
    actions.remove(id);
  } else if ((event.key === "ArrowDown" || event.key === "ArrowUp") && id) {
    const at = list.rows.indexOf(id) + (event.key === "ArrowDown" ? 1 : -1);
    if (at < 0 || at >= list.rows.length) return;
    list.scrollToIndex(at);
    list.focusNext = list.rows[at];
    list.schedule();
  } else if (event.key === "Escape" && selected.size) {
    selected.set([]);
  } else return;
  event.preventDefault();
}
