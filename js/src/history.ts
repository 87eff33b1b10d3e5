// The History panel's rows (T17): each request in the kernel's readable words first, and the request as
// it was really sent — the raw JSON tree — one click away.
import { h } from "./dom";
import type { HistoryEntryData, HistoryRow } from "./protocol";

/** Message lines shown open; a longer list starts folded. */
const OPEN_LINES = 8;

/** A JSON value as a tree of disclosures: objects and arrays fold, the first `openDepth` levels open. */
export function jsonTree(value: unknown, openDepth = 1, depth = 0): HTMLElement {
  if (value === null || typeof value !== "object") {
    const kind = value === null ? "null" : typeof value;
    return h("span", { class: `mw-json-${kind}` }, JSON.stringify(value) ?? "undefined");
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>);
  const summary = Array.isArray(value)
    ? `[…] ${entries.length} item${entries.length === 1 ? "" : "s"}`
    : `{…} ${entries.map(([k]) => k).slice(0, 6).join(", ")}${entries.length > 6 ? ", …" : ""}`;
  const list = h("div", { class: "mw-json-children" });
  const details = h("details", { class: "mw-json" }, h("summary", {}, summary), list);
  let filled = false;
  const fill = () => {
    if (filled) return;
    filled = true; // children are built when first opened: a long history stays light
    for (const [key, child] of entries) {
      list.append(h("div", { class: "mw-json-row" }, h("span", { class: "mw-json-key" }, `${key}: `), jsonTree(child, openDepth, depth + 1)));
    }
  };
  details.addEventListener("toggle", () => details.open && fill());
  if (depth < openDepth) {
    details.open = true;
    fill();
  }
  return details;
}

export type LoadEntry = (id: number, done: (entry: HistoryEntryData | null, error?: string) => void) => void;

function lines(label: string, items: string[], open: boolean, testid: string): HTMLElement {
  const details = h("details", { class: "mw-history-lines", "data-testid": testid }, h("summary", {}, label), h("pre", {}, items.join("\n")));
  details.open = open;
  return details;
}

/** One request: its summary in words, then a toggle that shows the request and response as sent. */
export function historyRow(row: HistoryRow, loadEntry: LoadEntry): HTMLElement {
  const s = row.summary;
  const raw = h("div", { class: "mw-history-json", "data-testid": "mw-history-json" });
  raw.hidden = true;
  const toggle = h(
    "button",
    { class: "mw-link mw-history-raw", type: "button", "data-testid": "mw-history-raw", "aria-expanded": "false" },
    "Show the request as sent (raw JSON)",
  );
  let loaded = false;
  toggle.addEventListener("click", () => {
    raw.hidden = !raw.hidden;
    toggle.setAttribute("aria-expanded", String(!raw.hidden));
    toggle.textContent = raw.hidden ? "Show the request as sent (raw JSON)" : "Hide the raw JSON";
    if (raw.hidden || loaded) return;
    loaded = true;
    raw.replaceChildren(h("div", { class: "mw-muted" }, "Loading…"));
    loadEntry(row.id, (entry, error) => {
      if (!entry) return raw.replaceChildren(h("div", { class: "mw-card-error" }, error ?? "That request is gone."));
      raw.replaceChildren(
        h("div", { class: "mw-history-part" }, h("strong", {}, "Sent"), jsonTree(entry.request, 2)),
        h("div", { class: "mw-history-part" }, h("strong", {}, "Received"), jsonTree(entry.response ?? null, 2)),
      );
    });
  });
  const parts: HTMLElement[] = [
    h("div", { class: "mw-history-head" }, h("strong", { class: "mw-history-title" }, s.title), h("span", { class: "mw-muted" }, ` · ${s.meta}`)),
    h("div", { class: "mw-muted mw-history-sizes" }, s.sizes),
    ...s.changes.map((line) => h("div", { class: "mw-history-change", "data-testid": "mw-history-change" }, line)),
  ];
  // One line per part of the messages (a reply and its call are two): counted as parts, as the sizes line does.
  const sent = s.messages.length === 1 ? "The 1 part as sent" : `The ${s.messages.length} parts as sent`;
  if (s.messages.length) parts.push(lines(sent, s.messages, s.messages.length <= OPEN_LINES, "mw-history-messages"));
  if (s.received.length) parts.push(lines("Came back", s.received, true, "mw-history-received"));
  if (s.error) parts.push(h("div", { class: "mw-card-error" }, `Error: ${s.error}`));
  parts.push(h("div", {}, toggle), raw);
  return h("section", { class: "mw-history-row", "data-entry": String(row.id), "data-number": String(row.number) }, ...parts);
}
