// One card's DOM: a small label, the content by kind, a muted footer (model, tokens, time, notes).
import type { CardPayload, CellChangeInfo, ComparedSideInfo } from "./protocol";
import { h } from "./dom";
import { renderMarkdownInto } from "./markdown";
import { approvalBody, diffView } from "./toolform";

export const LABELS: Record<string, string> = {
  system_prompt: "System prompt",
  user_input: "You",
  thinking: "Thinking",
  tool_call: "Tool call",
  model_reply: "Model",
  host_message: "Host",
  summary_divider: "Summary",
  handoff: "Handoff",
  native_compaction: "Native compaction",
  approval: "Approval",
  subagent: "Subagent",
  workflow: "Workflow",
  preview: "Preview",
  comparison: "Replay",
};

const ICONS: Record<string, string> = {
  edit: '<path d="M3 17.25V21h3.75L17.8 9.94l-3.75-3.75L3 17.25zm17.7-10.2a1 1 0 0 0 0-1.42l-2.33-2.33a1 1 0 0 0-1.42 0l-1.83 1.83 3.75 3.75 1.83-1.83z"/>',
  delete: '<path d="M6 19a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2V7H6v12zM19 4h-3.5l-1-1h-5l-1 1H5v2h14V4z"/>',
  reexecute: '<path d="M17.65 6.35A7.96 7.96 0 0 0 12 4a8 8 0 1 0 7.75 10h-2.08A6 6 0 1 1 12 6c1.66 0 3.14.69 4.22 1.78L13 11h7V4l-2.35 2.35z"/>',
};

/** A small icon button of a card's toolbar (pencil, trash); the SVG is our own constant markup. */
/** A notebook_edit call's change: which cell, and Revert (or that it was reverted). */
function revertLine(change: CellChangeInfo): HTMLElement {
  const what = { replace: "Changed", insert: "Inserted", delete: "Deleted" }[change.mode];
  const line = h("div", { class: "mw-revert-line", "data-testid": "mw-change" }, `${what} cell ${change.index} of ${change.path}`);
  if (change.reverted) {
    line.append(h("span", { class: "mw-muted", "data-testid": "mw-reverted" }, " · reverted"));
  } else {
    line.append(
      " ",
      h("button", { class: "mw-button", type: "button", "data-act": "revert", "data-testid": "mw-revert", title: "Put the cell back as it was before this call" }, "Revert"),
    );
  }
  return line;
}

export function iconButton(act: "edit" | "delete" | "reexecute", title: string): HTMLButtonElement {
  const button = h("button", { class: "mw-icon", type: "button", "data-act": act, "data-testid": `mw-${act}`, title, "aria-label": title });
  button.innerHTML = `<svg viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" fill="currentColor">${ICONS[act]}</svg>`;
  return button;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10000) return (n / 1000).toFixed(1).replace(/\.0$/, "") + "k";
  return Math.round(n / 1000) + "k";
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 100 ? line.slice(0, 100) + "…" : line;
}

function toolLine(card: CardPayload): string {
  const params = Object.entries(card.params ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(", ");
  return `${card.name ?? "tool"}(${params})`;
}

/** What a message typed in a notebook interpolated: the message as typed, and each `{expression}` with
 * the text it became (the model read the text). Shown on the card and above its editor. */
export function interpolations(card: CardPayload): HTMLElement | null {
  const done = card.interpolated ?? [];
  if (!done.length && !card.template) return null;
  const rows = done.map((i) =>
    h("li", {}, h("code", {}, `{${i.source}}`), " → ", h("span", { class: "mw-plain" }, firstLine(i.text) || "(empty)")),
  );
  const typed = card.template ? [h("div", { class: "mw-muted" }, "Typed as:"), h("div", { class: "mw-plain mw-template" }, card.template)] : [];
  return h("div", { class: "mw-interpolated", "data-testid": "mw-interpolated" }, ...typed, h("ul", {}, ...rows));
}

/** Disclosure (<details>) whose open state survives re-renders. */
function disclosure(summary: string, body: Node, open: boolean, onToggle: (open: boolean) => void): HTMLElement {
  const details = h("details", { class: "mw-disclosure" }, h("summary", {}, summary), body);
  details.open = open;
  details.addEventListener("toggle", () => onToggle(details.open));
  return details;
}

/** An image a tool made: the picture once its bytes came (a `data:` URL the kernel checked is a PNG, JPEG,
 * GIF or WebP), its name until then, and the sentence saying why when it cannot be shown. */
function toolImage(name: string, shown: ToolImage | undefined): HTMLElement {
  if (shown && "src" in shown) return h("img", { class: "mw-tool-figure", "data-testid": "mw-tool-figure", src: shown.src, alt: name });
  const tag = h("span", { class: "mw-tag", "data-testid": "mw-tool-image" }, `image: ${name}`);
  if (shown) tag.title = shown.error;
  return tag;
}

/** A tool image as the view has it: its `data:` URL, or why it is not shown (absent: still on its way). */
export type ToolImage = { src: string } | { error: string };

export interface BodyOptions {
  open: boolean;
  onToggle: (open: boolean) => void;
  /** A tool call's image `index`, asked of the kernel the first time the card shows it. */
  image?: (index: number) => ToolImage | undefined;
  /** What the person typed in an approval's reason box so far. */
  reason?: string;
}

/** The content of a card, by kind. */
export function cardBody(card: CardPayload, opts: BodyOptions): HTMLElement {
  const text = card.text ?? "";
  switch (card.kind) {
    case "model_reply": {
      const body = h("div", { class: "mw-markdown" });
      renderMarkdownInto(body, text);
      return body;
    }
    case "thinking": {
      if (card.encrypted && !text) return h("div", { class: "mw-muted" }, "Encrypted thinking");
      const full = h("div", { class: "mw-plain" }, text);
      return disclosure(firstLine(text) || "(empty)", full, opts.open, opts.onToggle);
    }
    case "tool_call": {
      // A `python` call shows its code as code, not squeezed into one line of parameters.
      const code = card.name === "python" && typeof card.params?.code === "string" ? card.params.code : null;
      const head = code !== null
        ? h("pre", { class: "mw-tool-code", "data-testid": "mw-tool-code" }, h("code", { class: "language-python" }, code))
        : h("code", { class: "mw-tool-line" }, toolLine(card));
      const box = h("div", { class: "mw-tool" }, head);
      // A before_tool hook rewrote the model's input: the card shows both (A5).
      if (card.original_params) {
        const given = h("pre", { class: "mw-tool-result", "data-testid": "mw-original-input" }, JSON.stringify(card.original_params, null, 2));
        box.append(disclosure("The model's input, before a hook rewrote it", given, false, () => undefined));
      }
      if (card.hook_reason) box.append(h("div", { class: "mw-muted", "data-testid": "mw-hook-reason" }, card.hook_reason));
      const images = card.images ?? [];
      if (images.length) box.append(h("div", { class: "mw-tool-images" }, ...images.map((f, i) => toolImage(f.name, opts.image?.(i)))));
      if (card.change) box.append(revertLine(card.change));
      if (card.result != null) {
        const result = h("pre", { class: "mw-tool-result" + (card.is_error ? " mw-is-error" : "") }, card.result);
        box.append(disclosure(firstLine(card.result) || "(empty result)", result, opts.open, opts.onToggle));
      } else {
        const waiting: Record<string, string> = { running: "running…", pending: "not run yet: waiting for a decision" };
        box.append(h("div", { class: "mw-muted" }, waiting[card.status ?? ""] ?? "no result yet"));
      }
      return box;
    }
    case "host_message":
      return h("span", { class: "mw-host-text" }, text);
    case "summary_divider": {
      const parts = [];
      if (card.covered) parts.push(`${card.covered} earlier message${card.covered === 1 ? "" : "s"}`);
      parts.push("compacted into a summary");
      if (card.tokens_saved != null) parts.push(`≈${formatTokens(card.tokens_saved)} tokens saved`);
      if (card.instructions) parts.push("with instructions");
      // A rule across the timeline with the line in its middle; the summary is the model's working
      // material, hidden until asked for (C7: read here, and edited with the card's Edit).
      const line = h("div", { class: "mw-divider-line", role: "separator", "data-testid": "mw-divider" }, h("span", {}, parts.join(" · ")));
      const body = h("div", { class: "mw-plain", "data-testid": "mw-summary" }, card.summary ?? "");
      if (card.instructions) body.prepend(h("div", { class: "mw-muted", "data-testid": "mw-summary-instructions" }, `Written with the instructions: ${card.instructions}`));
      return h("div", {}, line, disclosure("Summary the model reads", body, opts.open, opts.onToggle));
    }
    case "handoff": {
      // The documents the new session starts from, read as the model wrote them.
      const body = h("div", { class: "mw-markdown", "data-testid": "mw-handoff" });
      renderMarkdownInto(body, text);
      return body;
    }
    case "native_compaction":
      return nativeCompaction(card, opts);
    case "approval":
      return approvalBody(card, opts.reason ?? "");
    case "subagent":
      return subagentBody(card, opts);
    case "workflow":
      return workflowBody(card, opts);
    case "comparison":
      return comparisonBody(card, opts);
    case "user_input": {
      // An attached object's text is Markdown the engine wrote (a DataFrame's table): rendered, as a reply is.
      const body = card.attached ? h("div", { class: "mw-markdown" }) : h("div", { class: "mw-plain" }, text);
      if (card.attached) renderMarkdownInto(body, text);
      const interpolated = interpolations(card);
      if (interpolated) body.append(interpolated);
      const files = card.attachments ?? [];
      if (files.length) {
        const tag = (f: (typeof files)[number]) => {
          const how = f.sent_as === "extracted_text" ? " · sent as extracted text" : f.sent_as === "original" ? " · sent as the original" : "";
          return h("span", { class: "mw-tag", "data-testid": "mw-card-attachment" }, `${f.name}${how}`);
        };
        body.append(h("div", { class: "mw-attachments" }, ...files.map(tag)));
      }
      return body;
    }
    default:
      return h("div", { class: "mw-plain" }, text);
  }
}

/** A native compaction: its one line (which model, tokens before → after; never sent), and the person's
 * kept messages, newest first, behind a disclosure. The encrypted item itself is the provider's. */
function nativeCompaction(card: CardPayload, opts: BodyOptions): HTMLElement {
  const kept = card.kept ?? [];
  const box = h("div", { class: "mw-native" }, h("div", { class: "mw-native-line", "data-testid": "mw-native-line" }, card.text || "Compacted by the provider"));
  if (!kept.length) {
    box.append(h("div", { class: "mw-muted" }, "No message of yours was kept beside the compacted item."));
    return box;
  }
  const list = h("ol", { class: "mw-native-kept", "data-testid": "mw-native-kept" }, ...kept.map((message) => h("li", { class: "mw-plain" }, message)));
  const summary = `${kept.length} message${kept.length === 1 ? "" : "s"} of yours kept, newest first`;
  box.append(disclosure(summary, list, opts.open, opts.onToggle));
  return box;
}

/** The muted footer: model, tokens, time and what happened to the card. */
export function cardFooter(card: CardPayload): HTMLElement {
  const parts: (Node | string)[] = [];
  const add = (node: Node | string) => {
    if (parts.length) parts.push(" · ");
    parts.push(node);
  };
  if (card.kind === "model_reply" && card.complete === false) {
    add(h("span", { class: "mw-spinner", "aria-hidden": "true" }));
    parts.push(" writing…");
  }
  if (card.model) add(card.model);
  if (card.usage) add(`${card.usage.estimated ? "≈" : ""}${formatTokens(card.usage.output_tokens)} ${card.usage.output_tokens === 1 ? "token" : "tokens"}`);
  if (card.created_at) {
    const when = new Date(card.created_at * 1000);
    add(when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
  }
  if (card.edited) add("edited");
  if (card.interrupted) add("interrupted");
  if (card.kind === "thinking" && card.signed && card.edited) add("signed: the model still receives the original");
  if (card.kind === "thinking" && card.encrypted) add("encrypted: it can only be deleted");
  if (card.kind === "tool_call" && card.is_error) add("error");
  const foot = h("div", { class: "mw-card-foot" }, ...parts);
  // Its own line, so that a card the next request leaves out says so plainly, not as one more footnote.
  if (card.not_sent) foot.append(h("div", { class: "mw-not-sent", "data-testid": "mw-card-not-sent" }, `Not sent: ${card.not_sent}`));
  return foot;
}

const SUBAGENT_STATES: Record<string, string> = {
  running: "running…",
  awaiting_approval: "waiting for an approval",
  completed: "completed",
  failed: "failed",
  stopped: "stopped",
};

const STEP_STATES: Record<string, string> = { ...SUBAGENT_STATES, waiting: "waiting" };

/** A workflow (X8): its name, state and input, each step with its agent and state and a button to its
 * own timeline once it started, and the workflow's result once it ended. */
function workflowBody(card: CardPayload, opts: BodyOptions): HTMLElement {
  const state = card.state ?? "running";
  const ended = state !== "running" && state !== "awaiting_approval";
  const body = h(
    "div",
    { class: "mw-workflow", "data-testid": "mw-workflow" },
    h("div", {}, h("code", {}, card.name ?? "workflow"), " · ", h("span", { "data-testid": "mw-workflow-state" }, SUBAGENT_STATES[state] ?? state)),
  );
  if (card.text) body.append(h("div", { class: "mw-plain" }, card.text));
  const steps = h("ol", { class: "mw-workflow-steps" });
  for (const step of card.steps ?? []) {
    // A step the workflow never reached, once it ended, did not run; before that it waits its turn.
    const words = step.state === "waiting" && ended ? "not run" : STEP_STATES[step.state] ?? step.state;
    const row = h(
      "li",
      { "data-testid": "mw-workflow-step" },
      h("span", {}, step.name), " · ", h("code", {}, step.agent), " · ", h("span", { "data-testid": "mw-workflow-step-state" }, words),
    );
    if (step.session_id) {
      row.append(
        " ",
        h(
          "button",
          { class: "mw-button", type: "button", "data-act": "open-subagent", "data-session": step.session_id, "data-testid": "mw-open-step" },
          "Open its timeline",
        ),
      );
    }
    steps.append(row);
  }
  body.append(steps);
  if (card.result) {
    const result = h("pre", { class: "mw-tool-result" + (state === "completed" ? "" : " mw-is-error") }, card.result);
    body.append(disclosure(firstLine(card.result) || "(empty result)", result, opts.open, opts.onToggle));
  }
  return body;
}

/** A subagent (T15): its agent, state and task, its result once it ended; a click opens its own timeline here. */
function subagentBody(card: CardPayload, opts: BodyOptions): HTMLElement {
  const state = card.state ?? "running";
  const open = h(
    "button",
    { class: "mw-button", type: "button", "data-act": "open-subagent", "data-session": card.session_id ?? "", "data-testid": "mw-open-subagent" },
    "Open its timeline",
  );
  const body = h(
    "div",
    { class: "mw-subagent", "data-act": "open-subagent", "data-session": card.session_id ?? "", "data-testid": "mw-subagent" },
    h("div", {}, h("code", {}, card.agent ?? "agent"), " · ", h("span", { "data-testid": "mw-subagent-state" }, SUBAGENT_STATES[state] ?? state)),
    h("div", { class: "mw-plain" }, card.text ?? ""),
  );
  if (card.result) {
    const result = h("pre", { class: "mw-tool-result" + (state === "completed" ? "" : " mw-is-error") }, card.result);
    body.append(disclosure(firstLine(card.result) || "(empty result)", result, opts.open, opts.onToggle));
  }
  body.append(open);
  return body;
}

/** A replayed turn beside the recording's (#38): "turn 2 · same tools, other text · 516 → 777 tokens ·
 * $… → $…", both models and their seconds, the diffs behind a disclosure, and the recording to open. */
function comparisonBody(card: CardPayload, opts: BodyOptions): HTMLElement {
  const recorded = card.recorded;
  const replayed = card.replayed;
  const sides = [recorded, replayed];
  const same = !!card.same_text && !!card.same_tools;
  const verdict = same ? "same" : card.same_tools ? "same tools, other text" : "other tools" + (card.same_text ? "" : ", other text");
  const parts = [`turn ${card.number ?? 1}`, verdict, sides.map((s) => formatTokens(s?.tokens ?? 0)).join(" → ") + " tokens"];
  if (sides.some((s) => s?.cost != null)) parts.push(sides.map((s) => money(s?.cost)).join(" → "));
  const line = h(
    "div",
    { class: "mw-comparison-line", "data-testid": "mw-comparison-line" },
    h("span", { class: "mw-comparison-verdict", "data-same": String(same), "data-testid": "mw-comparison-verdict" }, parts.join(" · ")),
  );
  const models = `${recorded?.model ?? "?"} → ${replayed?.model ?? "?"}`;
  const seconds = sides.some((s) => s?.latency != null) ? ` · ${sides.map((s) => (s?.latency != null ? `${s.latency.toFixed(2)} s` : "—")).join(" → ")}` : "";
  const open = h(
    "button",
    { class: "mw-link", type: "button", "data-act": "open-subagent", "data-session": card.source_id ?? "", "data-testid": "mw-open-recording" },
    "open the recording",
  );
  const body = h("div", { class: "mw-comparison", "data-testid": "mw-comparison" }, line, h("div", { class: "mw-muted" }, `${models}${seconds} · `, open));
  const diffs = [card.tools_diff, card.diff].filter((d): d is string => !!d);
  if (diffs.length) {
    const shown = h("div", { "data-testid": "mw-comparison-diffs" }, ...diffs.map((d) => diffView(d, "mw-comparison-diff")));
    const what = [card.same_tools ? "" : "the tool calls", card.same_text ? "" : "the text"].filter(Boolean).join(" and ");
    body.append(disclosure(`How ${what} differ${what === "the text" ? "s" : ""}`, shown, opts.open, opts.onToggle));
  }
  return body;
}

/** A side's cost as the report writes it: $0.0042, $0.042, $1.25; "—" for a model without prices. */
function money(cost: ComparedSideInfo["cost"] | undefined): string {
  if (cost == null) return "—";
  if (cost === 0) return "$0.00";
  return cost < 0.01 ? `$${cost.toFixed(4)}` : cost < 1 ? `$${cost.toFixed(3)}` : `$${cost.toFixed(2)}`;
}
