// Files travel to the kernel in binary chunks small enough for one websocket frame (the Jupyter server
// takes frames of up to 10 MB); the kernel puts them together (mewrk_jupyter/widget/uploads.py).
import type { WidgetModel } from "./connection";
import { h } from "./dom";
import type { UploadMsg } from "./protocol";

let counter = 0;

/** Send each file as `upload` messages with one binary chunk each; returns the upload ids, in order. */
export async function sendFiles(model: WidgetModel, view: string, files: File[], chunk: number): Promise<string[]> {
  const ids: string[] = [];
  for (const file of files) {
    const id = `${view}-${++counter}`;
    const bytes = await file.arrayBuffer();
    let offset = 0;
    do {
      const meta: UploadMsg = { type: "upload", view, upload_id: id, name: file.name, media_type: file.type, size: bytes.byteLength, offset };
      model.send(meta, undefined, [bytes.slice(offset, offset + chunk)]);
      offset += chunk;
    } while (offset < bytes.byteLength);
    ids.push(id);
  }
  return ids;
}

/** Let files be dropped on `el` (the composer, a message being edited): `add` gets them; the browser
 * neither opens them nor types their text, and `data-drop` marks the element while files hover over it. */
export function takeDroppedFiles(el: HTMLElement, add: (files: File[]) => void): void {
  const hovering = (event: DragEvent) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    event.preventDefault();
    el.dataset.drop = "";
  };
  el.addEventListener("dragenter", hovering);
  el.addEventListener("dragover", hovering);
  el.addEventListener("dragleave", () => delete el.dataset.drop);
  el.addEventListener("drop", (event) => {
    delete el.dataset.drop;
    const files = [...(event.dataTransfer?.files ?? [])];
    if (!files.length) return;
    event.preventDefault();
    event.stopPropagation(); // the message's editor takes it, not the card list or the notebook under it
    add(files);
  });
}

/** A file waiting to go with a message, as a chip with its size and a button that takes it off. */
export function fileChip(file: File, testid: string, remove: () => void): HTMLElement {
  const x = h("button", { class: "mw-chip-x", type: "button", title: `Remove ${file.name}`, "aria-label": `Remove ${file.name}` }, "×");
  x.addEventListener("click", remove);
  return h("span", { class: "mw-chip", "data-testid": testid }, `${file.name} · ${sizeText(file.size)}`, x);
}

/** A file's size in words: bytes, KB or MB. */
export function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return megabytes(n);
}

export function megabytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
