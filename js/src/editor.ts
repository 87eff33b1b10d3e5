// The in-place editor of a card (T6): its text, or a tool call's parameters and result, or the form of
// a new tool call (T5). Ctrl/Cmd+Enter saves, Esc cancels; the view decides what saving means.
import { interpolations } from "./card";
import { MOD, autosize } from "./composer";
import { h } from "./dom";
import type { CardPayload, ToolInfo } from "./protocol";
import { toolForm } from "./toolform";
import { fileChip, takeDroppedFiles } from "./upload";

export interface Editor {
  node: HTMLElement;
  fields: () => Record<string, unknown>;
  focus: () => void;
  /** Files dropped on a message being edited: they go with it once it is saved. */
  files: File[];
}

export interface EditorActions {
  /** Save; for a new tool call, `execute` asks for Execute and add. */
  save: (execute: boolean) => void;
  cancel: () => void;
}

/** An editor for `card`, or for a new card when `card` is undefined; `tools` makes it the tool-call form. */
export function makeEditor(card: CardPayload | undefined, tools: ToolInfo[] | null, on: EditorActions): Editor {
  const areas: HTMLTextAreaElement[] = [];
  const area = (value: string, label: string) => {
    const ta = h("textarea", { class: "mw-edit-area", "aria-label": label });
    ta.value = value;
    areas.push(ta);
    ta.addEventListener("input", () => autosize(ta));
    return ta;
  };
  const node = h("div", { class: "mw-editor" });
  const files: File[] = [];
  let fields: () => Record<string, unknown>;
  let firstFocus: (() => void) | null = null;
  if (tools) {
    const form = toolForm(tools);
    node.append(form.node);
    fields = () => ({ ...form.value() });
    firstFocus = form.focus;
  } else if (card?.kind === "tool_call") {
    const params = area(JSON.stringify(card.params ?? {}, null, 2), "Parameters (JSON)");
    const result = area(card.result ?? "", "Result");
    node.append(h("label", { class: "mw-muted" }, "Parameters (JSON)"), params, h("label", { class: "mw-muted" }, "Result"), result);
    fields = () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(params.value || "{}");
      } catch {
        throw new Error("The parameters are not valid JSON.");
      }
      return { params: parsed, result: result.value };
    };
  } else if (card?.kind === "summary_divider") {
    const summary = area(card.summary ?? "", "Summary");
    node.append(h("label", { class: "mw-muted" }, "The summary the model reads in place of the cards above"), summary);
    fields = () => ({ summary: summary.value });
  } else {
    const text = area(card?.text ?? "", "Card text");
    const interpolated = card ? interpolations(card) : null;
    if (interpolated) node.append(interpolated);
    node.append(text);
    fields = () => ({ text: text.value });
    if (card?.kind === "user_input") node.append(droppedFiles(node, files));
  }
  const save = h("button", { class: "mw-button mw-primary", type: "button", "data-testid": "mw-save" }, "Save");
  const cancel = h("button", { class: "mw-button", type: "button" }, "Cancel");
  save.addEventListener("click", () => on.save(false));
  cancel.addEventListener("click", () => on.cancel());
  const bar = h("div", { class: "mw-editor-bar" }, h("span", { class: "mw-muted" }, `${MOD}+Enter saves · Esc cancels`), save);
  if (tools) {
    save.title = "Record the call and the return value; nothing is executed";
    const run = h(
      "button",
      { class: "mw-button", type: "button", "data-testid": "mw-execute", title: "Run it now under the safety level and add the real result" },
      "Execute and add",
    );
    run.addEventListener("click", () => on.save(true));
    bar.append(run);
  }
  bar.append(cancel);
  node.append(bar);
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) on.save(false);
    else if (event.key === "Escape") on.cancel();
    else return;
    event.preventDefault();
    event.stopPropagation();
  });
  const focus = () => {
    if (firstFocus) return firstFocus();
    const first = areas[0];
    for (const ta of areas) autosize(ta);
    first.focus({ preventScroll: true });
    first.setSelectionRange(first.value.length, first.value.length);
  };
  return { node, fields, focus, files };
}

/** The chips of the files dropped on a message's editor (as the composer takes them for a new one). */
function droppedFiles(node: HTMLElement, files: File[]): HTMLElement {
  const chips = h("div", { class: "mw-chips", "data-testid": "mw-edit-attachments" });
  const show = () => {
    chips.replaceChildren(
      ...files.map((file, i) =>
        fileChip(file, "mw-edit-attachment", () => {
          files.splice(i, 1);
          show();
        }),
      ),
    );
    chips.hidden = files.length === 0;
  };
  takeDroppedFiles(node, (dropped) => {
    files.push(...dropped);
    show();
  });
  show();
  return chips;
}
