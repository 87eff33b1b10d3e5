/**
 * The notebook bridge, window side: a kernel's notebook tools (notebook_read, notebook_edit, notebook_run)
 * reach the notebooks open in this window through the Jupyter server (mewrk_jupyter/server/notebooks.py).
 *
 * The window keeps one websocket to `/mewrk/v2/notebook/views`, says which notebooks it has open (with
 * their kernels) whenever that changes, and answers each command there. A change goes into the notebook's
 * shared model — every view of it shows it at once, and a collaborator's too where real-time collaboration
 * is on — and the notebook is then saved as JupyterLab saves it. A replace or delete carries the source the
 * kernel last read: when the cell says something else now (a person typed meanwhile), nothing changes and
 * the answer gives both texts.
 */

import { CodeCell } from "@jupyterlab/cells";
import { URLExt } from "@jupyterlab/coreutils";
import type { INotebookTracker, NotebookPanel } from "@jupyterlab/notebook";
import { ServerConnection } from "@jupyterlab/services";
import type { ICellModel } from "@jupyterlab/cells";

type Json = Record<string, unknown>;

interface Command {
  type: "command";
  id: number;
  op: "read" | "edit" | "run";
  path: string;
  args: Json;
}

/** A refusal: one sentence, and what else the kernel shows with it (the cell's text now). */
class Refusal extends Error {
  constructor(
    message: string,
    readonly data: Json = {},
  ) {
    super(message);
  }
}

const RETRY_FIRST = 1000;
const RETRY_MOST = 15000;

function cellJson(cell: ICellModel, index: number): Json {
  const shared = cell.sharedModel.toJSON() as unknown as Json;
  return { index, ...shared, id: cell.id };
}

export class NotebookBridge {
  private socket: WebSocket | null = null;
  private retry = RETRY_FIRST;
  private readonly watched = new WeakSet<NotebookPanel>();

  constructor(private readonly tracker: INotebookTracker) {
    tracker.widgetAdded.connect((_, panel) => this.watch(panel));
    tracker.forEach((panel) => this.watch(panel));
    this.connect();
  }

  private watch(panel: NotebookPanel): void {
    if (this.watched.has(panel)) {
      return;
    }
    this.watched.add(panel);
    const tell = () => this.tell();
    panel.context.pathChanged.connect(tell);
    panel.sessionContext.kernelChanged.connect(tell);
    panel.sessionContext.ready.then(tell, () => undefined);
    panel.disposed.connect(() => setTimeout(tell, 0));
    tell();
  }

  private connect(): void {
    const settings = ServerConnection.makeSettings();
    let url = URLExt.join(settings.wsUrl, "mewrk", "v2", "notebook", "views");
    if (settings.token) {
      url += `?token=${encodeURIComponent(settings.token)}`;
    }
    const socket = new settings.WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.retry = RETRY_FIRST;
      this.tell();
    };
    socket.onmessage = (event) => void this.onMessage(event.data);
    socket.onclose = () => {
      if (this.socket === socket) {
        this.socket = null;
        setTimeout(() => this.connect(), this.retry);
        this.retry = Math.min(this.retry * 2, RETRY_MOST);
      }
    };
  }

  /** Say which notebooks this window has open, each with its kernel. */
  private tell(): void {
    if (this.socket?.readyState !== WebSocket.OPEN) {
      return;
    }
    const notebooks: Json[] = [];
    this.tracker.forEach((panel) => {
      if (!panel.isDisposed) {
        notebooks.push({ path: panel.context.path, kernelId: panel.sessionContext.session?.kernel?.id ?? null });
      }
    });
    this.socket.send(JSON.stringify({ type: "notebooks", notebooks }));
  }

  private async onMessage(raw: unknown): Promise<void> {
    let command: Command;
    try {
      command = JSON.parse(String(raw)) as Command;
    } catch {
      return;
    }
    if (command.type !== "command") {
      return;
    }
    let answer: Json;
    try {
      answer = { ok: true, data: await this.carryOut(command) };
    } catch (error) {
      const refusal = error instanceof Refusal ? error : null;
      const message = refusal ? refusal.message : `JupyterLab could not do that: ${String(error)}`;
      answer = { ok: false, error: message, data: refusal?.data ?? {} };
    }
    this.socket?.send(JSON.stringify({ type: "answer", id: command.id, ...answer }));
  }

  private panelFor(path: string): NotebookPanel {
    const panel = this.tracker.find((p) => p.context.path === path && !p.isDisposed);
    if (!panel) {
      throw new Refusal(`${path} is not open in this JupyterLab window: open it, then ask again.`);
    }
    return panel;
  }

  private async carryOut(command: Command): Promise<Json> {
    const panel = this.panelFor(command.path);
    await panel.context.ready;
    switch (command.op) {
      case "read":
        return this.read(panel, command.args);
      case "edit":
        return this.edit(panel, command.args);
      case "run":
        return this.run(panel, command.args);
    }
  }

  /** The notebook's cells — only those `args.cells` names (by index or id), when it names some. */
  private read(panel: NotebookPanel, args: Json): Json {
    const model = panel.context.model;
    const wanted = Array.isArray(args.cells) ? new Set<unknown>(args.cells) : null;
    const cells: Json[] = [];
    for (let i = 0; i < model.cells.length; i++) {
      const cell = model.cells.get(i);
      if (!wanted || wanted.has(i) || wanted.has(cell.id)) {
        cells.push(cellJson(cell, i));
      }
    }
    return { cells, count: model.cells.length, dirty: model.dirty, kernelId: panel.sessionContext.session?.kernel?.id ?? null };
  }

  /** The cell a command names: by its id, or by its index. */
  private find(panel: NotebookPanel, args: Json): { cell: ICellModel; index: number } {
    const cells = panel.context.model.cells;
    if (typeof args.cell_id === "string") {
      for (let i = 0; i < cells.length; i++) {
        if (cells.get(i).id === args.cell_id) {
          return { cell: cells.get(i), index: i };
        }
      }
      throw new Refusal(`${panel.context.path} has no cell with id ${args.cell_id}: read the notebook again for its ids.`);
    }
    if (typeof args.index === "number") {
      const index = args.index;
      if (Number.isInteger(index) && index >= 0 && index < cells.length) {
        return { cell: cells.get(index), index };
      }
      throw new Refusal(`${panel.context.path} has ${cells.length} cells (indices 0 to ${cells.length - 1}); there is no cell ${index}.`);
    }
    throw new Refusal("Name the cell by `cell_id` or by `index`.");
  }

  /** Refuse when the cell's text is no longer what the kernel read: a person changed it meanwhile. The
   * kernel sends the text itself, or (for a call that waited for approval) its SHA-256. */
  private async unchanged(cell: ICellModel, index: number, args: Json): Promise<void> {
    const now = cell.sharedModel.getSource();
    if (typeof args.expected_digest === "string") {
      if (!globalThis.crypto?.subtle) {
        throw new Refusal("This window cannot compute a digest.", { no_digest: true });
      }
      const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(now));
      const hex = Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, "0")).join("");
      if (hex !== args.expected_digest) {
        throw new Refusal(`Cell ${index} changed while the call waited for approval: nothing was changed.`, {
          changed: true,
          digest: true,
          current: now,
          cell: cellJson(cell, index),
        });
      }
    }
    if (typeof args.expected === "string" && now !== args.expected) {
      throw new Refusal(`Cell ${index} changed since it was read: nothing was changed.`, {
        changed: true,
        expected: args.expected,
        current: now,
        cell: cellJson(cell, index),
      });
    }
  }

  private async edit(panel: NotebookPanel, args: Json): Promise<Json> {
    const shared = panel.context.model.sharedModel;
    let answer: Json;
    if (args.mode === "replace") {
      const { cell, index } = this.find(panel, args);
      await this.unchanged(cell, index, args);
      const before = cellJson(cell, index);
      cell.sharedModel.setSource(String(args.source ?? ""));
      answer = { before, cell: cellJson(cell, index) };
    } else if (args.mode === "insert") {
      // Before the cell named, or at `index` (the number of cells: at the end), or else at the end.
      const count = shared.cells.length;
      let index = count;
      if (typeof args.cell_id === "string") {
        index = this.find(panel, args).index;
      } else if (typeof args.index === "number") {
        if (!Number.isInteger(args.index) || args.index < 0 || args.index > count) {
          throw new Refusal(`${panel.context.path} has ${count} cells: a cell goes in at an index from 0 to ${count}.`);
        }
        index = args.index;
      }
      const type = args.cell_type === "markdown" || args.cell_type === "raw" ? args.cell_type : "code";
      const made: Parameters<typeof shared.insertCell>[1] = { cell_type: type, source: String(args.source ?? ""), metadata: {} };
      if (typeof args.id === "string") {
        made.id = args.id; // a deleted cell put back keeps its id
      }
      shared.insertCell(index, made);
      answer = { cell: cellJson(panel.context.model.cells.get(index), index) };
    } else if (args.mode === "delete") {
      const { cell, index } = this.find(panel, args);
      await this.unchanged(cell, index, args);
      const before = cellJson(cell, index);
      shared.deleteCell(index);
      answer = { before };
    } else {
      throw new Refusal("`mode` is replace, insert or delete.");
    }
    await panel.context.save();
    return answer;
  }

  private async run(panel: NotebookPanel, args: Json): Promise<Json> {
    const { cell, index } = this.find(panel, args);
    if (cell.type !== "code") {
      throw new Refusal(`Cell ${index} is a ${cell.type} cell: only a code cell runs.`);
    }
    const kernel = panel.sessionContext.session?.kernel;
    if (!kernel) {
      throw new Refusal(`${panel.context.path} has no kernel running: start one, then ask again.`);
    }
    if (args.check_busy === true && kernel.status === "busy") {
      throw new Refusal(`The kernel of ${panel.context.path} is busy running a cell: ask again when it is done.`);
    }
    const widget = panel.content.widgets.find((w) => w.model === cell);
    if (!(widget instanceof CodeCell)) {
      throw new Refusal(`Cell ${index} is not shown as a code cell in this window.`);
    }
    const reply = await CodeCell.execute(widget, panel.sessionContext);
    const status = reply ? reply.content.status : "aborted";
    await panel.context.save();
    return { status, cell: cellJson(cell, index) };
  }
}
