// The tool-call form (T5) and the approval card's controls (A1, A2). Fields come from the tool's JSON
// schema; Save records the call and the typed return value and runs nothing, Execute and add runs it
// under the conversation's safety level. Approve / Approve always / Reject go to the session as they are.
import { h } from "./dom";
import type { CardPayload, JsonSchema, ToolInfo } from "./protocol";

export interface ToolFormValue {
  name: string;
  params: Record<string, unknown>;
  result: string | null;
}

export interface ToolForm {
  node: HTMLElement;
  value: () => ToolFormValue;
  focus: () => void;
}

function typeOf(schema: JsonSchema): string {
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== "null") : schema.type;
  return t ?? "string";
}

/** One parameter's input, by the schema's type; `read` turns what was typed into the JSON value. */
function field(name: string, schema: JsonSchema, required: boolean): { row: HTMLElement; read: () => unknown } {
  const type = typeOf(schema);
  const label = h("label", { class: "mw-field-label" }, `${name}${required ? " *" : ""}`);
  const help = schema.description ? h("span", { class: "mw-muted" }, ` ${schema.description}`) : "";
  let input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
  let read: () => unknown;
  if (schema.enum) {
    const select = h("select", { class: "mw-field", "data-param": name });
    if (!required) select.append(h("option", { value: "" }, "—"));
    for (const option of schema.enum) select.append(h("option", { value: JSON.stringify(option) }, String(option)));
    input = select;
    read = () => (select.value === "" ? undefined : JSON.parse(select.value));
  } else if (type === "boolean") {
    const box = h("input", { class: "mw-field", type: "checkbox", "data-param": name });
    box.checked = schema.default === true;
    input = box;
    read = () => box.checked;
  } else if (type === "integer" || type === "number") {
    const num = h("input", { class: "mw-field", type: "number", "data-param": name });
    if (type === "integer") num.step = "1";
    input = num;
    read = () => {
      if (num.value === "") return undefined;
      const n = Number(num.value);
      if (!Number.isFinite(n) || (type === "integer" && !Number.isInteger(n))) throw new Error(`${name} must be ${type === "integer" ? "a whole number" : "a number"}.`);
      return n;
    };
  } else if (type === "object" || type === "array") {
    const area = h("textarea", { class: "mw-edit-area mw-field", rows: "2", "data-param": name, placeholder: "JSON" });
    input = area;
    read = () => {
      if (!area.value.trim()) return undefined;
      try {
        return JSON.parse(area.value);
      } catch {
        throw new Error(`${name} is not valid JSON.`);
      }
    };
  } else {
    const area = h("textarea", { class: "mw-edit-area mw-field", rows: "1", "data-param": name });
    input = area;
    read = () => (area.value === "" && !required ? undefined : area.value);
  }
  input.setAttribute("aria-label", name);
  const row = h("div", { class: "mw-field-row" }, label, help, input);
  const wrapped = () => {
    const value = read();
    if (required && (value === undefined || value === "")) throw new Error(`${name} is required.`);
    return value;
  };
  return { row, read: wrapped };
}

/** The form of a new tool call: tool picker, its parameters, the return value. */
export function toolForm(tools: ToolInfo[]): ToolForm {
  const picker = h("select", { class: "mw-field", "data-testid": "mw-tool-picker", "aria-label": "Tool" });
  for (const tool of tools) picker.append(h("option", { value: tool.name }, tool.name));
  const about = h("div", { class: "mw-muted mw-tool-about" });
  const params = h("div", { class: "mw-params", "data-testid": "mw-params" });
  const result = h("textarea", {
    class: "mw-edit-area",
    rows: "2",
    "data-testid": "mw-tool-result",
    "aria-label": "Return value",
    placeholder: "What the tool returned (recorded by Save; Execute and add records the real result)",
  });
  let readers: [string, () => unknown][] = [];
  const build = () => {
    const tool = tools.find((t) => t.name === picker.value);
    about.textContent = tool?.description ?? "";
    const schema = tool?.input_schema ?? {};
    const required = new Set(schema.required ?? []);
    readers = [];
    params.replaceChildren();
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const f = field(name, prop, required.has(name));
      readers.push([name, f.read]);
      params.append(f.row);
    }
  };
  picker.addEventListener("change", build);
  build();
  const node = h(
    "div",
    { class: "mw-tool-form", "data-testid": "mw-tool-form" },
    h("label", { class: "mw-field-label" }, "Tool"),
    picker,
    about,
    params,
    h("label", { class: "mw-field-label" }, "Return value"),
    result,
  );
  const value = (): ToolFormValue => {
    const out: Record<string, unknown> = {};
    for (const [name, read] of readers) {
      const v = read();
      if (v !== undefined) out[name] = v;
    }
    return { name: picker.value, params: out, result: result.value === "" ? null : result.value };
  };
  return { node, value, focus: () => picker.focus({ preventScroll: true }) };
}

/** Who asks for the call: a subagent, the person who ran it by hand, or the model. */
function asker(card: CardPayload): string {
  if (card.session_id) return "A subagent asks to run ";
  return card.asked_by === "person" ? "You asked to run " : "The model asks to run ";
}

/** The approval card (A1): the tool's name and full input; while pending, a reason box and the three decisions. */
/** A unified diff, each line marked as removed, added, a hunk's head or context. */
export function diffView(diff: string, testid = "mw-approval-diff"): HTMLElement {
  const view = h("pre", { class: "mw-diff", "data-testid": testid });
  for (const line of diff.split("\n")) {
    const kind = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "same";
    view.append(h("span", { class: `mw-diff-${kind}`, "data-diff": kind }, line), "\n");
  }
  return view;
}

export function approvalBody(card: CardPayload, reason: string): HTMLElement {
  // The code of a `python` call is read as code; other calls show their parameters as JSON.
  const code = card.name === "python" && typeof card.params?.code === "string" ? card.params.code : null;
  const input = code ?? JSON.stringify(card.params ?? {}, null, 2);
  const shown = code !== null ? h("code", { class: "language-python" }, input) : input;
  const body = h(
    "div",
    { class: "mw-approval" },
    h("div", { "data-testid": "mw-approval-asker" }, asker(card), h("code", {}, card.name ?? "a tool"), ":"),
    h("pre", { class: code !== null ? "mw-tool-code" : "mw-tool-result", "data-testid": "mw-approval-input" }, shown),
  );
  if (card.diff) {
    body.append(diffView(card.diff));
  }
  if (card.hook_reason) body.append(h("div", { class: "mw-muted", "data-testid": "mw-hook-reason" }, card.hook_reason));
  const decision = card.decision ?? "pending";
  if (decision !== "pending") {
    const words: Record<string, string> = {
      approved: "Approved",
      approved_always: "Approved for this session",
      rejected: "Rejected",
      expired: "This approval can no longer be resumed — send a new message to continue",
    };
    body.append(h("div", { class: "mw-muted", "data-testid": "mw-decision" }, `${decidedWords(card, words)}${card.reason ? ` — ${card.reason}` : ""}`));
    return body;
  }
  const box = h("textarea", {
    class: "mw-edit-area mw-reason",
    rows: "1",
    "aria-label": "Reason",
    "data-testid": "mw-reason",
    placeholder: "Reason (optional; the model reads it)",
  });
  box.value = reason;
  body.append(
    box,
    h(
      "div",
      { class: "mw-editor-bar mw-approval-bar" },
      h("button", { class: "mw-button mw-primary", type: "button", "data-act": "approve", "data-testid": "mw-approve" }, "Approve"),
      h("button", { class: "mw-button", type: "button", "data-act": "reject", "data-testid": "mw-reject" }, "Reject"),
    ),
    alwaysBar(card),
  );
  return body;
}

/** What "approve always" will add, chosen before it is added: the whole tool, this very command, or
 * commands like it (the rules themselves are shown), for the session or in the policy file (A5). */
function alwaysBar(card: CardPayload): HTMLElement {
  const choice = h("select", { class: "mw-select mw-always-choice", "aria-label": "Approve always", "data-testid": "mw-always-choice" });
  const option = (value: string, label: string, title: string) => {
    const o = h("option", { value, title }, label);
    choice.append(o);
  };
  const tool = card.name ?? "the tool";
  const thisRules = card.rules_this ?? [];
  const likeRules = card.rules_like ?? [];
  if (thisRules.length) option("command", `this command: ${thisRules.join(", ")}`, thisRules.join("\n"));
  if (likeRules.length) option("like", `commands like this: ${likeRules.join(", ")}`, likeRules.join("\n"));
  option("tool", `every call of ${tool}`, tool);
  const policy = h("input", { type: "checkbox", "data-testid": "mw-always-policy" }) as HTMLInputElement;
  return h(
    "div",
    { class: "mw-editor-bar mw-always-bar" },
    h("button", { class: "mw-button", type: "button", "data-act": "approve-always", "data-testid": "mw-approve-always" }, "Approve always:"),
    choice,
    h("label", { class: "mw-muted mw-always-policy", title: "Add it to the safety level's policy file (policy/<level>.yaml) instead of this session" }, policy, " in the policy file"),
  );
}

/** How a decided approval reads: what an "approve always" added, and where. */
function decidedWords(card: CardPayload, words: Record<string, string>): string {
  const decision = card.decision ?? "pending";
  const granted = card.granted ?? [];
  if (decision !== "approved_always" || !granted.length || (granted.length === 1 && granted[0] === card.name)) {
    return words[decision] ?? decision;
  }
  const where = !card.granted_in || card.granted_in === "session" ? "for this session" : `in ${card.granted_in}`;
  return `Approved always ${where}: ${granted.join(", ")}`;
}
