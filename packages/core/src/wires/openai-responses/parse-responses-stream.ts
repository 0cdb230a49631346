import { type EventSourceMessage } from 'eventsource-parser';
import {
  type JsonValue,
  type ModelEvent,
  type Usage,
} from '../../chat-model.ts';
import { parseFrame } from '../../http-model-stream.ts';
import { type CommitState } from '../../retry-before-first-chunk.ts';
import { ModelError } from '../../model-error.ts';
import { mapResponsesFinishReason } from './map-responses-finish-reason.ts';

// Event and item shapes: openai-node's Responses types,
// https://github.com/openai/openai-node/blob/master/src/resources/responses/responses.ts
// (ResponseStreamEvent), and the streaming reference,
// https://platform.openai.com/docs/api-reference/responses-streaming

interface Item {
  id?: unknown;
  type?: unknown;
  status?: unknown;
  call_id?: unknown;
  name?: unknown;
  arguments?: unknown;
  encrypted_content?: unknown;
  summary?: unknown;
}

interface ResponseObject {
  id?: unknown;
  model?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
  incomplete_details?: { reason?: unknown } | null;
  usage?: {
    input_tokens?: unknown;
    output_tokens?: unknown;
    output_tokens_details?: { reasoning_tokens?: unknown } | null;
  } | null;
}

interface StreamEvent {
  type?: unknown;
  output_index?: unknown;
  summary_index?: unknown;
  delta?: unknown;
  arguments?: unknown;
  item?: Item;
  response?: ResponseObject;
  code?: unknown;
  message?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/** A function call being streamed, by output index. */
interface OpenCall {
  id: string;
  callId: string;
  name: string;
  arguments: string;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

const nonEmpty = (value: string | undefined): string | undefined =>
  value === '' ? undefined : value;

function usageOf(response: ResponseObject | undefined): Usage | undefined {
  const usage = response?.usage;
  if (usage === null || usage === undefined) return undefined;
  // output_tokens already counts the reasoning tokens (the AI SDK's OpenAI provider derives text
  // tokens as output_tokens - reasoning_tokens): they are reported, never added.
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: Number(usage.input_tokens ?? 0),
    outputTokens: Number(usage.output_tokens ?? 0),
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  };
}

function responseOf(
  response: ResponseObject | undefined,
): { id?: string; model?: string } | undefined {
  const id = text(response?.id);
  const model = text(response?.model);
  if (id === undefined && model === undefined) return undefined;
  return {
    ...(id === undefined ? {} : { id }),
    ...(model === undefined ? {} : { model }),
  };
}

/** An in-stream failure (`error` event or `response.failed`) with the provider's code. */
function streamFailure(
  what: string,
  { code, message }: { readonly code: unknown; readonly message: unknown },
  cause: unknown,
): ModelError {
  const label = typeof code === 'string' && code !== '' ? code : 'error';
  const detail = typeof message === 'string' ? message : 'unknown error';
  return new ModelError({
    kind: 'stream',
    message: `The model stream reported ${what} ${label}: ${detail}`,
    cause,
  });
}

/**
 * Responses API SSE (the semantic events of `POST /v1/responses` with `stream: true`) as model
 * events, in the order of the output items: a reasoning item ends with `reasoning-end` carrying
 * `{ id, encrypted_content, summary }` from `response.output_item.done` (the encrypted content
 * in `output_item.added` may be incomplete, says openai-node's `ResponseReasoningItem`), a
 * message with `text-end` carrying its id, a function call with `tool-call` carrying its `fc_`
 * id. A stream without `response.completed` or `response.incomplete` is incomplete.
 */
export async function* parseResponsesStream(
  messages: AsyncIterable<EventSourceMessage>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  const calls = new Map<number, OpenCall>();
  let summaryIndex = -1;
  let hasCalls = false;
  let refused = false;
  // A refusal is a content part of a message item; only that item's text-end says so.
  let itemRefused = false;
  for await (const message of messages) {
    const event = parseFrame(message.data) as StreamEvent;
    const type = typeof event.type === 'string' ? event.type : message.event;
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const delta = event.delta;
        if (typeof delta === 'string' && delta !== '') {
          state.committed = true;
          if (type === 'response.refusal.delta') {
            refused = true;
            itemRefused = true;
          }
          yield { type: 'text-delta', text: delta };
        }
        break;
      }
      case 'response.reasoning_summary_text.delta': {
        const delta = event.delta;
        if (typeof delta !== 'string' || delta === '') break;
        state.committed = true;
        // Summary parts of one item read as paragraphs of one reasoning part; the parts
        // themselves go back verbatim from output_item.done.
        const index =
          typeof event.summary_index === 'number' ? event.summary_index : 0;
        if (summaryIndex !== -1 && index !== summaryIndex)
          yield { type: 'reasoning-delta', text: '\n\n' };
        summaryIndex = index;
        yield { type: 'reasoning-delta', text: delta };
        break;
      }
      case 'response.output_item.added': {
        const item = event.item;
        summaryIndex = -1;
        itemRefused = false;
        if (item?.type === 'function_call') {
          state.committed = true;
          calls.set(Number(event.output_index ?? -1), {
            id: text(item.id) ?? '',
            callId: text(item.call_id) ?? '',
            name: text(item.name) ?? '',
            arguments: text(item.arguments) ?? '',
          });
        }
        break;
      }
      case 'response.function_call_arguments.delta': {
        const call = calls.get(Number(event.output_index ?? -1));
        if (call !== undefined && typeof event.delta === 'string')
          call.arguments += event.delta;
        break;
      }
      case 'response.function_call_arguments.done': {
        // `.done` may lack `name` (recorded streams in vercel/ai's
        // packages/openai/src/responses/__fixtures__ have none): the name stays the one from
        // output_item.added; the arguments are the whole string.
        const call = calls.get(Number(event.output_index ?? -1));
        if (call !== undefined && typeof event.arguments === 'string')
          call.arguments = event.arguments;
        break;
      }
      case 'response.output_item.done': {
        const done = itemDone(event, calls, itemRefused);
        if (done === undefined) break;
        if (done.type === 'tool-call') hasCalls = true;
        state.committed = true;
        yield done;
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        // A call cut off before its output_item.done (or done as `incomplete`) can never run
        // as the model meant it: the answer is incomplete, whatever the response says.
        if (calls.size > 0) throw cutCall();
        const response = event.response;
        const usage = usageOf(response);
        const metadata = responseOf(response);
        yield {
          type: 'finish',
          finishReason: mapResponsesFinishReason({
            incompleteReason:
              type === 'response.incomplete'
                ? (response?.incomplete_details?.reason ?? 'unknown')
                : undefined,
            hasCalls,
            refused,
          }),
          ...(usage === undefined ? {} : { usage }),
          ...(metadata === undefined ? {} : { response: metadata }),
        };
        return;
      }
      case 'response.failed': {
        const error = event.response?.error;
        throw streamFailure(
          'response.failed',
          { code: error?.code, message: error?.message },
          event,
        );
      }
      case 'error':
        throw streamFailure(
          'error',
          {
            code: event.code ?? event.error?.code,
            message: event.message ?? event.error?.message,
          },
          event,
        );
      case undefined:
      default:
        // response.created, content_part and summary_part events, annotations, and event
        // types added later: what they carry arrives again in output_item.done.
        break;
    }
  }
  throw new ModelError({
    kind: 'incomplete',
    message:
      'The model stream ended without response.completed: the answer is incomplete.',
  });
}

function cutCall(): ModelError {
  return new ModelError({
    kind: 'incomplete',
    message:
      'The model stream ended a function call before its arguments were complete: the answer is incomplete.',
  });
}

/** The event that closes one output item, from its `output_item.done` form. */
function itemDone(
  event: StreamEvent,
  calls: Map<number, OpenCall>,
  refused: boolean,
): ModelEvent | undefined {
  const item = event.item;
  const id = text(item?.id);
  switch (item?.type) {
    case 'reasoning': {
      const summary = Array.isArray(item.summary)
        ? (item.summary as JsonValue[])
        : [];
      const encrypted = text(item.encrypted_content);
      const data: Record<string, JsonValue> = { summary };
      if (id !== undefined) data['id'] = id;
      if (encrypted !== undefined) data['encrypted_content'] = encrypted;
      const shown = summary.some(
        (part) =>
          typeof part === 'object' &&
          part !== null &&
          !Array.isArray(part) &&
          typeof (part as Record<string, unknown>)['text'] === 'string' &&
          (part as Record<string, unknown>)['text'] !== '',
      );
      return {
        type: 'reasoning-end',
        providerData: { openai: data },
        ...(shown ? {} : { redacted: true }),
      };
    }
    case 'message':
      return {
        type: 'text-end',
        ...(id === undefined && !refused
          ? {}
          : {
              providerData: {
                openai: {
                  ...(id === undefined ? {} : { id }),
                  ...(refused ? { refusal: true } : {}),
                },
              },
            }),
      };
    case 'function_call': {
      const index = Number(event.output_index ?? -1);
      const open = calls.get(index);
      if (item.status === 'incomplete') throw cutCall();
      calls.delete(index);
      const callId = text(item.call_id) ?? open?.callId ?? '';
      const name = text(item.name) ?? open?.name ?? '';
      if (callId === '' || name === '') {
        throw new ModelError({
          kind: 'malformed',
          message: 'The model sent a function call without a call_id or name.',
        });
      }
      const itemId = id ?? open?.id ?? '';
      return {
        type: 'tool-call',
        call: {
          id: callId,
          name,
          arguments:
            nonEmpty(text(item.arguments)) ?? nonEmpty(open?.arguments) ?? '{}',
          ...(itemId === ''
            ? {}
            : { providerData: { openai: { id: itemId } } }),
        },
      };
    }
    default:
      return undefined;
  }
}
