// The wire between the kernel-side TimelineWidget (mewrk_jupyter/widget.py) and a view.

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  estimated: boolean;
}

/** A card as the kernel sends it: the pydantic model's fields, minus opaque blobs. */
export interface CardData {
  id: string;
  kind: string;
  origin: string;
  edited: boolean;
  created_at: number;
  text?: string;
  name?: string;
  params?: Record<string, unknown>;
  result?: string | null;
  is_error?: boolean;
  status?: string;
  model?: string | null;
  usage?: Usage | null;
  complete?: boolean;
  interrupted?: boolean;
  stop_reason?: string | null;
  signed?: boolean;
  encrypted?: boolean;
  summary?: string;
  covered?: number;
  tokens_saved?: number | null;
  decision?: string;
  tool_card_id?: string;
  reason?: string | null;
  agent?: string;
  topic?: string;
  attachments?: { name: string; media_type: string; size: number; sent_as?: string | null }[];
}

export interface ContextMsg {
  type: "context";
  line: string;
  level: "ok" | "amber" | "red";
  percent: number | null;
  /** The figure: the last request's size, or before the first request the next one's estimate. */
  used: number;
  window: number | null;
  estimated: boolean;
  by_kind: Record<string, number>;
  used_text?: string;
  window_text?: string | null;
  /** The vendor's own count of the last request (exact); null before the first request. */
  last_request?: number | null;
  last_text?: string | null;
  /** The size the next request will have: an estimate from the timeline as it stands. */
  next_request?: number;
  next_text?: string;
  /** Each size in a sentence that says what it counts: the next request's, then the last one's. */
  sizes?: string[];
  cost?: number | null;
  cost_line?: string;
}

/** A slash command of the composer (N4), as the kernel offers it. */
export interface CommandInfo {
  name: string;
  synopsis: string;
  summary: string;
}

/** An enabled tool, for the tool-call form (T5). */
export interface ToolInfo {
  name: string;
  description: string;
  input_schema: JsonSchema;
  reexecute: boolean;
}

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  items?: JsonSchema;
}

/** A request of the history in plain words, as the kernel's summariser writes it (engine/history_summary.py). */
export interface HistorySummary {
  number: number;
  entry_id: number;
  title: string;
  meta: string;
  sizes: string;
  changes: string[];
  messages: string[];
  received: string[];
  error: string | null;
}

/** One request of the history (T17), without its JSON; `number` counts from 1 in the session. */
export interface HistoryRow {
  id: number;
  number: number;
  summary: HistorySummary;
  run_id: string | null;
  model: string;
  protocol: string;
  started_at: number;
  ended_at: number | null;
  messages: number | null;
  usage: Record<string, number | boolean> | null;
  error: string | null;
  answered: boolean;
}

export interface SnapshotMsg {
  type: "snapshot";
  for: string | null;
  session: { id: string; title: string; model: string };
  /** The session this widget showed before it opened this one in place: the header's way back. */
  came_from?: { id: string; title: string } | null;
  cards: { card: CardData; order_key: string }[];
  state: string;
  context: ContextMsg;
  kinds: string[];
  editable: Record<string, string[]>;
  confirm_delete: boolean;
  commands?: CommandInfo[];
  tools?: ToolInfo[];
  vision?: boolean;
  chunk?: number;
  heartbeat?: number;
}

export interface ResultMsg {
  type: "result";
  for: string | null;
  req: number;
  ok: boolean;
  message?: string;
  card_id?: string | null;
  data?: Record<string, unknown>;
  /** The message is true only while the session is in this state (a refusal while a turn runs). */
  while_state?: string;
}

export type KernelMsg =
  | SnapshotMsg
  | { type: "card_added" | "card_changed"; card: CardData; order_key: string }
  | { type: "card_removed"; card_id: string }
  | { type: "text_delta"; card_id: string; offset: number; text: string }
  | { type: "state"; state: string }
  | { type: "notice"; level: string; text: string }
  | ContextMsg
  | ResultMsg;

/** What the front end asks of the session; every action is answered by a `result`. */
export type Action =
  | { action: "edit"; card_id: string; fields: Record<string, unknown> }
  | { action: "insert"; kind: string; fields: Record<string, unknown>; anchor: string | null; where: "before" | "after" }
  | { action: "delete"; card_ids: string[] }
  | { action: "undo" }
  | { action: "redo" }
  | { action: "send"; text: string; attachments?: string[] }
  | { action: "command"; text: string }
  | { action: "history" }
  | { action: "history_entry"; entry_id: number }
  | {
      action: "tool_call";
      name: string;
      params: Record<string, unknown>;
      result: string | null;
      execute: boolean;
      anchor: string | null;
      where: "before" | "after";
    }
  | { action: "reexecute"; card_id: string }
  | { action: "approve"; card_id: string; reason: string; always: boolean }
  | { action: "reject"; card_id: string; reason: string }
  | { action: "stop" }
  | { action: "branch"; card_id: string }
  | { action: "fork"; card_id: string }
  /** Show another session (a branch or fork just made) in this widget, in place; `back` returns. */
  | { action: "open_session"; session_id: string }
  | { action: "back" };
