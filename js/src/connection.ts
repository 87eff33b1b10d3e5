// The view's line to the kernel-side session: hello (which asks for a snapshot), actions and their
// results, and the heartbeat and bye by which the kernel knows that this view is still shown.
import type { Action, ResultMsg } from "./protocol";

/** The part of anywidget's model this view uses. */
export interface WidgetModel {
  send(content: unknown, callbacks?: unknown, buffers?: ArrayBuffer[]): void;
  on(event: string, callback: (...args: any[]) => void): void;
  off(event: string, callback?: (...args: any[]) => void): void;
}

export class Connection {
  readonly viewId = Math.random().toString(36).slice(2, 10);
  private nextReq = 1;
  private readonly waiting = new Map<number, (result: ResultMsg) => void>();
  private heartbeat = 0;

  constructor(readonly model: WidgetModel) {}

  /** Ask for a snapshot of the timeline (again, after a missed patch). */
  hello(): void {
    this.model.send({ type: "hello", view: this.viewId });
  }

  /** Ask the session for an action; `done` gets its result. */
  act(action: Action, done?: (result: ResultMsg) => void): void {
    const req = this.nextReq++;
    if (done) this.waiting.set(req, done);
    this.model.send({ type: "action", view: this.viewId, req, ...action });
  }

  /** Hand a result to the action of this view that waits for it; `otherwise` gets one nobody waits for. */
  settle(result: ResultMsg, otherwise: (result: ResultMsg) => void): void {
    if (result.for !== this.viewId) return;
    const done = this.waiting.get(result.req);
    this.waiting.delete(result.req);
    (done ?? otherwise)(result);
  }

  /** Tell the kernel now and then that this view is still shown: a closed tab stops its store watch. */
  beat(seconds: number): void {
    window.clearInterval(this.heartbeat);
    this.heartbeat = window.setInterval(() => {
      try {
        this.model.send({ type: "alive", view: this.viewId });
      } catch {
        window.clearInterval(this.heartbeat);
      }
    }, seconds * 1000);
  }

  bye(): void {
    try {
      this.model.send({ type: "bye", view: this.viewId });
    } catch {
      // The kernel is gone already; nothing to tell it.
    }
  }

  dispose(): void {
    window.clearInterval(this.heartbeat);
    this.bye();
  }
}
