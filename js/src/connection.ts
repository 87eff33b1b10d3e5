// The view's line to the kernel-side session: hello (which asks for a snapshot), actions and their
// results, and the heartbeat and bye by which the kernel knows that this view is still shown.
import type { Action, AliveMsg, ByeMsg, HelloMsg, ResultMsg } from "./protocol";

/** A Lumino signal, as far as this view uses one. */
interface Signal<T> {
  connect(slot: (sender: unknown, value: T) => void): boolean;
  disconnect(slot: (sender: unknown, value: T) => void): boolean;
}

/** The part of anywidget's model this view uses. */
export interface WidgetModel {
  send(content: unknown, callbacks?: unknown, buffers?: ArrayBuffer[]): void;
  on(event: string, callback: (...args: any[]) => void): void;
  off(event: string, callback?: (...args: any[]) => void): void;
  /** A synced trait of the widget, e.g. `panel`: the panel each view opens with. */
  get?(name: string): unknown;
  /** JupyterLab's widget manager; its kernel tells when the kernel restarts or dies. */
  widget_manager?: { kernel?: { status?: string; statusChanged?: Signal<string> } | null };
}

/**
 * Said on a view whose kernel is gone, where its controls were. The new kernel has no current session:
 * re-running the cell (`%mewrk new` shows the session that cell made) or `%mewrk use ID` brings this one
 * back, and any `%mewrk` command takes up the session the notebook used last.
 */
export function lostSentence(sessionId: string | null): string {
  const use = sessionId ? `\`%mewrk use ${sessionId}\`` : "`%mewrk show`";
  return (
    "This view lost its kernel (it was restarted or shut down), so nothing here reaches the session any more. " +
    `Run \`%load_ext mewrk_jupyter\` again, then re-run this cell or ${use} to work with the session again.`
  );
}

/** The sentence before a view knows its session. */
export const LOST = lostSentence(null);

// Kernel states after which a widget's comm never comes back: a restarted kernel has new widgets.
const GONE = new Set(["restarting", "autorestarting", "dead"]);

export class Connection {
  readonly viewId = Math.random().toString(36).slice(2, 10);
  private nextReq = 1;
  private readonly waiting = new Map<number, (result: ResultMsg) => void>();
  private heartbeat = 0;
  /** Set once the kernel behind this view is gone; every action is then refused with the lost sentence. */
  lost = false;
  /** The session the view shows (from its snapshot), which that sentence names. */
  sessionId: string | null = null;

  constructor(readonly model: WidgetModel) {}

  /**
   * Call `onLost` once when the kernel behind this view restarts, dies or closes the widget. The widget
   * manager marks the view disconnected on a restart (`comm_live_update`); a shut-down kernel only says
   * so through its status, so that is watched too. `host` is the view's element. Returns what stops
   * watching.
   */
  watchKernel(host: HTMLElement, onLost: () => void): () => void {
    const lose = () => {
      if (this.lost) return;
      this.lost = true;
      window.clearInterval(this.heartbeat);
      onLost();
    };
    const kernel = this.model.widget_manager?.kernel;
    const status = (_: unknown, value: string) => GONE.has(value) && lose();
    kernel?.statusChanged?.connect(status);
    // The manager marks the view's element first; a change back to live is not a loss.
    const liveChanged = () => host.closest(".jupyter-widgets-disconnected") && lose();
    this.model.on("comm_live_update", liveChanged);
    this.model.on("comm:close", lose);
    if (kernel?.status && GONE.has(kernel.status)) lose();
    return () => {
      kernel?.statusChanged?.disconnect(status);
      this.model.off("comm_live_update", liveChanged);
      this.model.off("comm:close", lose);
    };
  }

  /** Ask for a snapshot of the timeline (again, after a missed patch). */
  hello(): void {
    this.model.send({ type: "hello", view: this.viewId } satisfies HelloMsg);
  }

  /** Ask the session for an action; `done` gets its result. */
  act(action: Action, done?: (result: ResultMsg) => void): void {
    const req = this.nextReq++;
    if (this.lost) {
      done?.({ type: "result", for: this.viewId, req, ok: false, message: lostSentence(this.sessionId), card_id: null, data: {}, while_state: null });
      return;
    }
    if (done) this.waiting.set(req, done);
    this.model.send({ ...action, type: "action", view: this.viewId, req } satisfies Action);
  }

  /** Hand a result to the action of this view that waits for it; `otherwise` gets one nobody waits for. */
  settle(result: ResultMsg, otherwise: (result: ResultMsg) => void): void {
    if (result.for !== this.viewId) return;
    const done = result.req === null ? undefined : this.waiting.get(result.req);
    if (result.req !== null) this.waiting.delete(result.req);
    (done ?? otherwise)(result);
  }

  /** Tell the kernel now and then that this view is still shown: a closed tab stops its store watch. */
  beat(seconds: number): void {
    window.clearInterval(this.heartbeat);
    this.heartbeat = window.setInterval(() => {
      try {
        this.model.send({ type: "alive", view: this.viewId } satisfies AliveMsg);
      } catch {
        window.clearInterval(this.heartbeat);
      }
    }, seconds * 1000);
  }

  bye(): void {
    if (this.lost) return;
    try {
      this.model.send({ type: "bye", view: this.viewId } satisfies ByeMsg);
    } catch {
      // The kernel is gone already; nothing to tell it.
    }
  }

  dispose(): void {
    window.clearInterval(this.heartbeat);
    this.bye();
  }
}
