// The images tool calls made (a `python` call's figures, an MCP tool's pictures): their bytes stay out of
// the snapshot and the card patches, so that a timeline of thousands of cards travels light; a card asks
// for each of its images the first time it shows, and keeps it while the card stays on the timeline.
import type { ToolImage } from "./card";
import type { Action, CardPayload, ResultMsg } from "./protocol";

export class ToolImages {
  /** By `card id:index`; null while the kernel has been asked and has not answered yet. */
  private readonly known = new Map<string, ToolImage | null>();

  constructor(
    private readonly act: (action: Action, done: (result: ResultMsg) => void) => void,
    private readonly arrived: (cardId: string) => void,
  ) {}

  /** The image as far as it has come; the first call asks the kernel for it. */
  get(cardId: string, index: number): ToolImage | undefined {
    const key = `${cardId}:${index}`;
    const known = this.known.get(key);
    if (known !== undefined) return known ?? undefined;
    this.known.set(key, null);
    this.act({ action: "tool_image", card_id: cardId, index }, (r) => {
      if (!this.known.has(key)) return; // the card went meanwhile
      this.known.set(key, r.ok && r.data.image ? { src: r.data.image } : { error: r.message || "The image could not be read." });
      this.arrived(cardId);
    });
    return undefined;
  }

  /** A card changed: the images it had are asked again if its list of them is another (an undo, a run). */
  follow(before: CardPayload | undefined, after: CardPayload): void {
    const names = (card: CardPayload | undefined) => JSON.stringify(card?.images ?? []);
    if (before && names(before) !== names(after)) this.forget(after.id);
  }

  /** The card left the timeline (or its images changed): forget what it showed. */
  forget(cardId: string): void {
    for (const key of [...this.known.keys()]) if (key.startsWith(`${cardId}:`)) this.known.delete(key);
  }
}
