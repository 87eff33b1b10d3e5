// Files travel to the kernel in binary chunks small enough for one websocket frame (the Jupyter server
// takes frames of up to 10 MB); the kernel puts them together (mewrk_jupyter/widget/uploads.py).
import type { WidgetModel } from "./connection";
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
