// What a card's buttons, its menu and the Delete key ask of the session: delete, prune, fork, branch,
// re-execute, and the approval decisions with the reason typed on the card (A1, A2). A refusal shows on the card while
// it is drawn, else in the notice line.
import { type Act, askPrune, confirmWithPreview, prunable } from "./economy";
import type { Editing } from "./editing";
import type { CardList } from "./list";
import type { Action, ResultMsg } from "./protocol";
import type { BoxSelection } from "./selection";
import type { TimelineState } from "./state";

export interface CardActionsHost {
  act(action: Action, done: (result: ResultMsg) => void): void;
  notice(level: "info" | "error", text: string): void;
  /** What an action said, with its offers (a new branch to open here) when it made any. */
  told(result: ResultMsg): void;
}

export type Decision = "approve" | "approve-always" | "reject";

export class CardActions {
  /** The reason typed on each waiting approval, kept while its card is redrawn. */
  readonly reasons = new Map<string, string>();
  /** "Confirm before delete" is a session setting, off by default (T8); a delete is undoable anyway. */
  confirmDelete = false;
  private readonly act: Act = (action, done) => this.host.act(action, done);

  constructor(
    private readonly state: TimelineState,
    private readonly list: CardList,
    private readonly editing: Editing,
    private readonly selected: BoxSelection,
    private readonly host: CardActionsHost,
  ) {}

  /** Delete the card, or the whole selection when the card is in it; the confirm, when it is on, says
   * what the delete spends of the prompt cache from the first card it takes. */
  remove(id: string): void {
    const ids = this.inOrder(this.selected.targets(id));
    const go = () =>
      this.host.act({ action: "delete", card_ids: ids }, (result) => {
        if (!result.ok) this.error(ids[0], result.message);
        else this.selected.set([]);
      });
    if (!this.confirmDelete) return go();
    const question = ids.length > 1 ? `Delete ${ids.length} cards?` : "Delete this card?";
    confirmWithPreview(this.act, question, ids[0], "Deleting here", go);
  }

  /** The cards a prune at `id` takes: the prunable ones of the selection when `id` is in it, else `id`. */
  pruneTargets(id: string): string[] {
    return this.inOrder(this.selected.targets(id)).filter((c) => prunable(this.state.get(c)));
  }

  /** Prune the card (or the selection's tool results and thinking), once the confirm said what it
   * saves and what it spends of the prompt cache. */
  prune(id: string): void {
    const ids = this.pruneTargets(id);
    if (!ids.length) return;
    askPrune(
      this.act,
      ids,
      (text) => {
        this.selected.set([]);
        this.host.notice("info", text);
      },
      (text) => this.error(ids[0], text),
    );
  }

  copy(how: "fork" | "branch", id: string): void {
    this.host.act({ action: how, card_id: id }, (result) => {
      if (!result.ok) this.error(id, result.message);
      else this.host.told(result);
    });
  }

  reexecute(id: string): void {
    this.host.act({ action: "reexecute", card_id: id }, (r) => !r.ok && this.error(id, r.message));
  }

  /** Put the notebook cell a notebook_edit call changed back as it was. */
  revert(id: string): void {
    this.host.act({ action: "revert", card_id: id }, (r) => (r.ok ? this.host.notice("info", r.message ?? "") : this.error(id, r.message)));
  }

  /** Show another session (a subagent's own timeline) in this view; "back" returns. */
  openSession(sessionId: string): void {
    this.host.act({ action: "open_session", session_id: sessionId }, (r) => this.host.notice(r.ok ? "info" : "error", r.message ?? ""));
  }

  /** Approve, approve always, or reject the pending tool call, with the reason typed on the card. */
  decide(id: string, how: Decision): void {
    const reason = this.reasons.get(id) ?? "";
    const done = (r: ResultMsg) => {
      if (!r.ok) return this.error(id, r.message);
      this.reasons.delete(id);
      this.host.notice("info", r.message ?? "");
    };
    if (how === "reject") this.host.act({ action: "reject", card_id: id, reason }, done);
    else if (how === "approve") this.host.act({ action: "approve", card_id: id, reason, always: false }, done);
    else {
      // What "approve always" adds is the one chosen on the card, shown there before it is added.
      const card = this.list.get(id)?.el;
      const chosen = (card?.querySelector("[data-testid=mw-always-choice]") as HTMLSelectElement | null)?.value ?? "tool";
      const inPolicy = (card?.querySelector("[data-testid=mw-always-policy]") as HTMLInputElement | null)?.checked ?? false;
      this.host.act({ action: "approve", card_id: id, reason, always: chosen === "tool" ? true : chosen, in_policy: inPolicy }, done);
    }
  }

  private inOrder(ids: string[]): string[] {
    const chosen = new Set(ids);
    return this.state.order.filter((c) => chosen.has(c));
  }

  private error(id: string | undefined, message?: string): void {
    const text = message ?? "That did not work.";
    if (id && this.list.has(id)) this.editing.showError(id, text);
    else this.host.notice("error", text);
  }
}
