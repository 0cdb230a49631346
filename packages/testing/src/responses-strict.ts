import type { ProviderError } from './provider-protocol.ts';
import {
  expandInput,
  inputItems,
  isObject,
  isReference,
  itemKey,
  responseKey,
  type JsonObject,
  type SentItem,
  type SentResponse,
} from './responses-items.ts';
import type { SentState } from './sent-state.ts';

// OpenAI's own answers to a Responses input that loses reasoning state, as quoted in public
// reports: https://github.com/continuedev/continue/issues/8933 (reasoning without its following
// item), https://github.com/cline/cline/issues/12242 (a function call without its reasoning
// item), https://github.com/can1357/oh-my-pi/issues/41 (an item by id with `store: false`, 404),
// https://github.com/newo-ether/Agora/issues/126 (reasoning without `summary`),
// https://github.com/continuedev/continue/issues/10092 (an output with no call),
// https://github.com/tjardoo/openai-client/pull/124 (a call with no output) and
// https://github.com/openai/codex/issues/8145 (edited encrypted content).

function invalid(
  message: string,
  param: string | null = 'input',
  code: string | null = null,
): ProviderError {
  return { status: 400, code, type: 'invalid_request_error', message, param };
}

function notFound(id: string, storeOff: boolean): ProviderError {
  return {
    status: 404,
    code: null,
    type: 'invalid_request_error',
    param: 'input',
    message: `Item with id '${id}' not found.${
      storeOff
        ? ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.'
        : ''
    }`,
  };
}

function sentItem(sent: SentState, id: unknown): SentItem | undefined {
  return typeof id === 'string'
    ? (sent.recall(itemKey(id)) as SentItem | undefined)
    : undefined;
}

/** True when `item` is the one that followed a reasoning item (`next`), given or by shape. */
function follows(
  item: JsonObject | undefined,
  sent: SentState,
  next: string,
): boolean {
  if (item === undefined) return false;
  if (item['id'] === next) return true;
  const expected = sentItem(sent, next)?.item;
  if (expected === undefined || item['id'] !== undefined) return false;
  return expected['type'] === 'function_call'
    ? item['type'] === 'function_call' &&
        item['call_id'] === expected['call_id']
    : item['role'] === 'assistant';
}

function elide(content: string): string {
  return content.length > 8
    ? `${content.slice(0, 4)}...${content.slice(-4)}`
    : content;
}

/** Checks one input item given by id alone, or a reasoning item, against what was sent. */
function checkReasoning(
  input: { readonly items: readonly JsonObject[]; readonly storeOff: boolean },
  index: number,
  sent: SentState,
): ProviderError | undefined {
  const { items, storeOff } = input;
  const item = items[index] ?? {};
  const id = typeof item['id'] === 'string' ? item['id'] : '';
  const known = sentItem(sent, id);
  if (isReference(item)) {
    return known?.stored === true
      ? undefined
      : notFound(id, storeOff || known !== undefined);
  }
  if (!Array.isArray(item['summary'])) {
    return invalid(
      `Missing required parameter: 'input[${index}].summary'.`,
      `input[${index}].summary`,
      'missing_required_parameter',
    );
  }
  const encrypted = item['encrypted_content'];
  if (typeof encrypted !== 'string') {
    // Without its encrypted content the item must be loaded from server-side state.
    if (known?.stored !== true)
      return notFound(id, storeOff || known !== undefined);
  } else if (
    known !== undefined &&
    typeof known.item['encrypted_content'] === 'string' &&
    known.item['encrypted_content'] !== encrypted
  ) {
    return invalid(
      `The encrypted content ${elide(encrypted)} could not be verified.`,
      null,
      'invalid_encrypted_content',
    );
  }
  if (
    known?.next !== undefined &&
    !follows(items[index + 1], sent, known.next)
  ) {
    return invalid(
      `Item '${id}' of type 'reasoning' was provided without its required following item.`,
    );
  }
  return undefined;
}

/**
 * Strict mode for `POST /v1/responses`: reasoning items, function calls and their outputs must
 * come back as OpenAI requires.
 */
export function checkResponsesInput(
  body: unknown,
  sent: SentState,
): ProviderError | undefined {
  if (!isObject(body)) return undefined;
  const items = inputItems(body);
  const storeOff = body['store'] === false;
  const previous = body['previous_response_id'];
  if (
    typeof previous === 'string' &&
    (sent.recall(responseKey(previous)) as SentResponse | undefined)?.stored !==
      true
  ) {
    return {
      status: 404,
      code: 'previous_response_not_found',
      type: 'invalid_request_error',
      param: 'previous_response_id',
      message: `Previous response with id '${previous}' not found.`,
    };
  }
  for (const [index, item] of items.entries()) {
    const resolved = isReference(item) ? sentItem(sent, item['id']) : undefined;
    if (
      item['type'] === 'reasoning' ||
      (isReference(item) && resolved?.item['type'] === 'reasoning') ||
      (isReference(item) && resolved === undefined)
    ) {
      const error = checkReasoning({ items, storeOff }, index, sent);
      if (error !== undefined) return error;
    }
    const known =
      item['type'] === 'function_call' ? sentItem(sent, item['id']) : undefined;
    if (known?.reasoning !== undefined) {
      const before = items[index - 1];
      if (before?.['id'] !== known.reasoning) {
        return invalid(
          `Item '${String(item['id'])}' of type 'function_call' was provided without its required 'reasoning' item: '${known.reasoning}'.`,
        );
      }
    }
  }
  const context = expandInput(body, sent);
  const calls = new Set(
    context
      .filter((item) => item['type'] === 'function_call')
      .map((item) => String(item['call_id'])),
  );
  const outputs = new Set(
    context
      .filter((item) => item['type'] === 'function_call_output')
      .map((item) => String(item['call_id'])),
  );
  const orphan = context.find(
    (item) =>
      item['type'] === 'function_call_output' &&
      !calls.has(String(item['call_id'])),
  );
  if (orphan !== undefined) {
    return invalid(
      `No tool call found for function call output with call_id ${String(orphan['call_id'])}.`,
    );
  }
  const unanswered = [...calls].find((callId) => !outputs.has(callId));
  if (unanswered !== undefined) {
    return invalid(`No tool output found for function call ${unanswered}.`);
  }
  return undefined;
}
