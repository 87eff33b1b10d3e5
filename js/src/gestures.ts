// The timeline's mouse gestures: a card's buttons, double-click to edit, box selection (T10), the line that
// shows where a new card would go, and the right-click menu. Text boxes keep the browser's own.
import type { CardActions, Decision } from "./cardactions";
import type { CardMenu } from "./cardmenu";
import { isDraft } from "./drafts";
import type { Editing } from "./editing";
import { type CardList, cardIdOf, inTextBox } from "./list";
import type { BoxSelection } from "./selection";

/** The parts of a view that gestures act on. */
export interface GestureParts {
  list: CardList;
  selected: BoxSelection;
  editing: Editing;
  actions: CardActions;
  menu: CardMenu;
}

/** Listen for the gestures in the list (and right-clicks on `empty`); returns what stops the window's listener. */
export function bindGestures(parts: GestureParts, empty: HTMLElement): () => void {
  const { list, selected, editing, menu } = parts;
  const inner = list.inner;
  inner.addEventListener("click", (event) => click(event, parts));
  inner.addEventListener("dblclick", (event) => {
    const id = cardIdOf(event.target);
    if (id && !inTextBox(event.target) && !editing.editors.has(id)) editing.start(id);
  });
  inner.addEventListener("mousedown", (event) => {
    const id = cardIdOf(event.target);
    if (!id || isDraft(id) || event.button !== 0 || inTextBox(event.target)) return;
    if (selected.down(id, event)) event.preventDefault();
  });
  inner.addEventListener("mouseover", (event) => {
    const id = cardIdOf(event.target);
    if (id && !isDraft(id)) selected.over(id);
  });
  inner.addEventListener("mousemove", (event) => !menu.isOpen && list.hover(event));
  inner.addEventListener("mouseleave", () => !menu.isOpen && list.clearHover());
  list.scroller.addEventListener("contextmenu", (event) => menu.pointer(event));
  empty.addEventListener("contextmenu", (event) => menu.pointer(event));
  // A drag may end outside the widget.
  const up = () => selected.up();
  window.addEventListener("mouseup", up);
  return () => window.removeEventListener("mouseup", up);
}

/** A click on a card: one of its buttons, or a plain click that drops the selection. */
function click(event: MouseEvent, { selected, editing, actions }: GestureParts): void {
  const button = (event.target as HTMLElement).closest("[data-act]") as HTMLElement | null;
  const id = cardIdOf(event.target);
  if (!id) return;
  const act = button?.dataset.act;
  if (act === "open-subagent" && button?.dataset.session && !(event.target as HTMLElement).closest("summary, pre")) {
    actions.openSession(button.dataset.session);
  } else if (act === "reexecute") actions.reexecute(id);
  else if (act === "revert") actions.revert(id);
  else if (act === "approve" || act === "approve-always" || act === "reject") actions.decide(id, act as Decision);
  else if (act === "edit") editing.start(id);
  else if (act === "delete") actions.remove(id);
  else if (!(event.ctrlKey || event.metaKey || event.shiftKey) && selected.size && !inTextBox(event.target)) {
    selected.set([]);
  }
}
