// The context economy in a view (#39): a prune (of the stale results, a card or a box selection) asked
// first as a dry run, so that its confirm says what it saves and what it spends of the prompt cache; and
// the cache preview line that an open editor, a new card's form or a delete confirm shows.
import type { Action, CachePreviewInfo, CardPayload, PruneInfo, ResultMsg } from "./protocol";

export type Act = (action: Action, done: (result: ResultMsg) => void) => void;

const PRUNED = "[pruned:";

/** Whether pruning makes sense on `card`: a tool call with its result, or thinking, not pruned yet. */
export function prunable(card: CardPayload | undefined): boolean {
  if (card?.kind === "tool_call") {
    return ["done", "denied", "rejected"].includes(card.status ?? "") && card.result != null && !card.result.startsWith(PRUNED);
  }
  return card?.kind === "thinking" && !(card.text ?? "").startsWith(PRUNED);
}

/** A cache preview after what it is about: "Editing this card: 12k tokens from the cache, …". */
export function previewLine(lead: string, cache: CachePreviewInfo): string {
  return `${lead}: ${cache.line}`;
}

/** The prune's confirm: what it saves, then what the next request reads from the cache from the first card it changes. */
function pruneQuestion(plan: PruneInfo): string {
  return plan.cache ? `${plan.text}\n\n${previewLine("From the first pruned card on", plan.cache)}` : plan.text;
}

/**
 * Prune `cards` ("stale", or card ids) once the person confirms what it saves and spends of the cache;
 * `told` gets the prune's sentence (or "Nothing to prune."), `failed` a refusal.
 */
export function askPrune(act: Act, cards: "stale" | string[], told: (text: string) => void, failed: (text: string) => void): void {
  act({ action: "prune", cards, dry_run: true }, (asked) => {
    const plan = asked.data.prune;
    if (!asked.ok || !plan) return failed(asked.message || "That did not work.");
    if (!plan.first) return told(plan.text);
    if (!window.confirm(pruneQuestion(plan))) return;
    act({ action: "prune", cards }, (r) => (r.ok ? told(r.message) : failed(r.message || "That did not work.")));
  });
}

/** Show in `el` what changing `cardId` spends of the cache, after `lead`; nothing when it cannot be said. */
export function fillPreview(act: Act, cardId: string, lead: string, el: HTMLElement): void {
  act({ action: "cache_preview", card_id: cardId }, (r) => {
    const cache = r.ok ? r.data.cache : undefined;
    el.textContent = cache ? previewLine(lead, cache) : "";
    el.hidden = !cache;
  });
}

/** Ask `question` with what the change at `cardId` spends of the cache under it; `go` once confirmed. */
export function confirmWithPreview(act: Act, question: string, cardId: string, lead: string, go: () => void): void {
  act({ action: "cache_preview", card_id: cardId }, (r) => {
    const cache = r.ok ? r.data.cache : undefined;
    if (window.confirm(cache ? `${question}\n\n${previewLine(lead, cache)}` : question)) go();
  });
}
