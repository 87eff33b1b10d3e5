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
  reason?: string | null;
  agent?: string;
  topic?: string;
  attachments?: { name: string; media_type: string; size: number }[];
}

export interface ContextMsg {
  type: "context";
  line: string;
  level: "ok" | "amber" | "red";
  percent: number | null;
  used: number;
  window: number | null;
  estimated: boolean;
  by_kind: Record<string, number>;
}

export interface SnapshotMsg {
  type: "snapshot";
  for: string | null;
  session: { id: string; title: string; model: string };
  cards: { card: CardData; order_key: string }[];
  state: string;
  context: ContextMsg;
  kinds: string[];
  editable: Record<string, string[]>;
  confirm_delete: boolean;
}

export interface ResultMsg {
  type: "result";
  for: string | null;
  req: number;
  ok: boolean;
  message?: string;
  card_id?: string | null;
  data?: Record<string, unknown>;
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
  | { action: "send"; text: string }
  | { action: "stop" }
  | { action: "branch"; card_id: string }
  | { action: "fork"; card_id: string };
