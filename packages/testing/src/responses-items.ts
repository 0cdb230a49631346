import type { HistoryEvent } from './provider-protocol.ts';
import type { SentState } from './sent-state.ts';

// OpenAI Responses input items, as typed in openai-node (`ResponseInputItem`:
// EasyInputMessage, message, function_call, function_call_output, reasoning, item_reference)
// and documented at https://platform.openai.com/docs/api-reference/responses/create.

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the server remembers of one output item it sent. */
export interface SentItem {
  /** The item as `response.output_item.done` carried it. */
  readonly item: JsonObject;
  /** False when the request that produced it had `store: false`. */
  readonly stored: boolean;
  /** The id of the item that followed a reasoning item in the output. */
  readonly next?: string;
  /** The reasoning item a function call directly followed. */
  readonly reasoning?: string;
}

/** What the server remembers of one response, for `previous_response_id`. */
export interface SentResponse {
  readonly stored: boolean;
  /** Its whole context: the (expanded) input, then its output. */
  readonly items: readonly JsonObject[];
}

export function itemKey(id: string): string {
  return `responses:item:${id}`;
}

export function responseKey(id: string): string {
  return `responses:response:${id}`;
}

/** The input as an item list (a string input is one user message). */
export function inputItems(body: JsonObject): readonly JsonObject[] {
  const input = body['input'];
  if (typeof input === 'string') {
    return [{ type: 'message', role: 'user', content: input }];
  }
  return Array.isArray(input) ? input.filter(isObject) : [];
}

/** True for an item given by id alone (`item_reference`, or `{ id }`). */
export function isReference(item: JsonObject): boolean {
  return (
    item['type'] === 'item_reference' ||
    (item['type'] === undefined &&
      item['role'] === undefined &&
      typeof item['id'] === 'string')
  );
}

/**
 * The context a request stands for: the stored response named by `previous_response_id`,
 * then the input, with references to stored items replaced by those items.
 */
export function expandInput(
  body: JsonObject,
  sent: SentState,
): readonly JsonObject[] {
  const previous = body['previous_response_id'];
  const stored =
    typeof previous === 'string'
      ? (sent.recall(responseKey(previous)) as SentResponse | undefined)
      : undefined;
  // A response made with `store: false` cannot be continued by id.
  const before = stored?.stored === true ? stored.items : [];
  const resolved = inputItems(body).map((item) => {
    if (!isReference(item)) return item;
    const known = sent.recall(itemKey(String(item['id']))) as
      SentItem | undefined;
    return known?.stored === true ? known.item : item;
  });
  return [...before, ...resolved];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      isObject(part) && typeof part['text'] === 'string' ? part['text'] : '',
    )
    .join('');
}

function isMessage(item: JsonObject): boolean {
  return (
    item['type'] === 'message' ||
    (item['type'] === undefined && typeof item['role'] === 'string')
  );
}

/** The provider-neutral history of an expanded input. */
export function historyOf(
  body: JsonObject,
  items: readonly JsonObject[],
): readonly HistoryEvent[] {
  const events: HistoryEvent[] = [];
  if (typeof body['instructions'] === 'string') {
    events.push({ type: 'system', text: body['instructions'] });
  }
  // Consecutive assistant messages, reasoning and function calls are one assistant turn.
  let turn: { text: string; calls: { id: string; name: string }[] } | undefined;
  const flush = (): void => {
    if (turn !== undefined) events.push({ type: 'assistant', ...turn });
    turn = undefined;
  };
  for (const item of items) {
    if (isMessage(item) && item['role'] !== 'assistant') {
      flush();
      const text = textOf(item['content']);
      events.push(
        item['role'] === 'user'
          ? { type: 'user', text }
          : { type: 'system', text },
      );
    } else if (isMessage(item)) {
      turn ??= { text: '', calls: [] };
      turn.text += textOf(item['content']);
    } else if (item['type'] === 'function_call') {
      turn ??= { text: '', calls: [] };
      turn.calls.push({
        id: typeof item['call_id'] === 'string' ? item['call_id'] : '',
        name: typeof item['name'] === 'string' ? item['name'] : '',
      });
    } else if (item['type'] === 'function_call_output') {
      flush();
      const output = item['output'];
      events.push({
        type: 'tool-result',
        callId: typeof item['call_id'] === 'string' ? item['call_id'] : '',
        content: Array.isArray(output) ? textOf(output) : output,
        isError: false,
      });
    } else if (item['type'] === 'reasoning') {
      turn ??= { text: '', calls: [] };
    }
  }
  flush();
  return events;
}
