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
