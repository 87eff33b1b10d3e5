/**
 * A `%%mewrk` cell holds a message to the model, not Python: its editor highlights it as Markdown, as a
 * Markdown cell is, and gives the cell back the kernel's language once its first line stops saying
 * `%%mewrk`.
 *
 * JupyterLab gives every code cell the kernel's language (the notebook sets each code cell's mime type from
 * the kernel's `language_info`, when the cell is made and when that changes) and has no hook for cell
 * magics, so this plugin watches each code cell's source and mime type and sets its own where they apply.
 */

import type { JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import type { ICellModel } from "@jupyterlab/cells";
import { IEditorLanguageRegistry } from "@jupyterlab/codemirror";
import { INotebookTracker, type Notebook, type NotebookPanel } from "@jupyterlab/notebook";
import type { IObservableList } from "@jupyterlab/observables";
import { NotebookBridge } from "./bridge";

/** The language of a Markdown cell's editor: Markdown with the notebook's LaTeX. */
const MESSAGE_MIME = "text/x-ipythongfm";

/**
 * Whether a cell's source runs as `%%mewrk`: IPython drops leading blank lines and the first line's
 * indentation, then reads the cell magic's name up to the first space.
 */
function isMessageCell(source: string): boolean {
  return /^(?:[ \t]*\r?\n)*[ \t]*%%mewrk(?:[ \t]|\r?\n|$)/.test(source);
}

/** Keeps the Markdown language on the `%%mewrk` cells of one notebook. */
class MessageCells {
  /** The cells this plugin gave the Markdown language, to give back the kernel's when that stops. */
  private readonly marked = new WeakSet<ICellModel>();
  private readonly watched = new WeakSet<ICellModel>();

  constructor(
    private readonly notebook: Notebook,
    private readonly languages: IEditorLanguageRegistry,
  ) {
    notebook.modelChanged.connect(() => this.watchModel());
    this.watchModel();
  }

  private watchModel(): void {
    const model = this.notebook.model;
    if (!model) {
      return;
    }
    model.cells.changed.connect(this.onCellsChanged, this);
    for (const cell of model.cells) {
      this.watch(cell);
    }
  }

  private onCellsChanged(_: unknown, change: IObservableList.IChangedArgs<ICellModel>): void {
    for (const cell of change.newValues) {
      this.watch(cell);
    }
  }

  private watch(cell: ICellModel): void {
    if (cell.type !== "code" || this.watched.has(cell)) {
      return;
    }
    this.watched.add(cell);
    cell.sharedModel.changed.connect((_, change) => {
      if (change.sourceChange) {
        void this.apply(cell);
      }
    });
    // The notebook sets the kernel's language when it makes the cell and when the kernel changes.
    cell.mimeTypeChanged.connect(() => void this.apply(cell));
    void this.apply(cell);
  }

  private wanted(cell: ICellModel): string | null {
    if (isMessageCell(cell.sharedModel.getSource())) {
      return MESSAGE_MIME;
    }
    return this.marked.has(cell) ? this.notebook.codeMimetype : null;
  }

  private async apply(cell: ICellModel): Promise<void> {
    const first = this.wanted(cell);
    if (first === null || first === cell.mimeType) {
      return;
    }
    // The editor applies each language it is given once that language has loaded, so the last to load
    // wins: setting ours while the one it was just given still loads would let that one win. Wait until
    // both have loaded; this also lets the change that called us reach every listener, the editor too.
    await this.languages.getLanguage(cell.mimeType);
    await this.languages.getLanguage(first);
    const mime = this.wanted(cell);
    if (mime === null || mime === cell.mimeType || cell.isDisposed) {
      return;
    }
    if (mime === MESSAGE_MIME) {
      this.marked.add(cell);
    } else {
      this.marked.delete(cell);
    }
    cell.mimeType = mime;
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: "mewrk-jupyter:message-cells",
  description: "Highlights a %%mewrk cell's message as Markdown instead of Python.",
  autoStart: true,
  requires: [INotebookTracker, IEditorLanguageRegistry],
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker, languages: IEditorLanguageRegistry) => {
    tracker.widgetAdded.connect((_, panel: NotebookPanel) => {
      new MessageCells(panel.content, languages);
    });
  },
};

/** The notebook tools' way to the notebooks open in this window (see bridge.ts). */
const bridge: JupyterFrontEndPlugin<void> = {
  id: "mewrk-jupyter:notebook-bridge",
  description: "Lets a kernel's mewrk_jupyter session read, edit and run the cells of the notebooks open here.",
  autoStart: true,
  requires: [INotebookTracker],
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker) => {
    new NotebookBridge(tracker);
  },
};

export default [plugin, bridge];
