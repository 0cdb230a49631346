import { type EventSourceMessage } from 'eventsource-parser';
import { type ModelEvent } from '../../chat-model.ts';
import { parseFrame } from '../../http-model-stream.ts';
import { type CommitState } from '../../retry-before-first-chunk.ts';
import { ModelError } from '../../model-error.ts';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.ts';

interface Block {
  type: string;
  id: string;
  name: string;
  json: string;
  signature: string;
  /** A `redacted_thinking` block's encrypted `data`, whole in its start event. */
  data: string | undefined;
}

interface StreamData {
  type?: unknown;
  index?: unknown;
  message?: {
    id?: unknown;
    model?: unknown;
    usage?: { input_tokens?: unknown };
  };
  content_block?: {
    type?: unknown;
    id?: unknown;
    name?: unknown;
    data?: unknown;
    thinking?: unknown;
    signature?: unknown;
  };
  delta?: {
    type?: unknown;
    text?: unknown;
    thinking?: unknown;
    signature?: unknown;
    partial_json?: unknown;
    stop_reason?: unknown;
  };
  usage?: { output_tokens?: unknown };
  error?: { type?: unknown; message?: unknown };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Anthropic Messages SSE as model events, block by block in their order: `thinking` blocks as
 * reasoning (their signature, from `signature_delta`, in `providerData.anthropic.signature`),
 * `redacted_thinking` as redacted reasoning (`providerData.anthropic.redactedData`), text, and
 * tool calls. Thinking and text stream as they come until the first `tool_use` block; from there
 * on everything is held until `message_stop`, so a stream cut short never runs half a tool call.
 * `output_tokens` already counts thinking tokens. Source:
 * https://platform.claude.com/docs/en/build-with-claude/streaming
 */
export async function* parseAnthropicStream(
  messages: AsyncIterable<EventSourceMessage>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  const blocks = new Map<number, Block>();
  // Events from the first tool_use block on, released at message_stop.
  let held: ModelEvent[] | undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  let stopReason: unknown;
  let id: string | undefined;
  let model: string | undefined;
  let done = false;
  for await (const message of messages) {
    const data = parseFrame(message.data) as StreamData;
    const type = typeof data.type === 'string' ? data.type : message.event;
    const index = typeof data.index === 'number' ? data.index : -1;
    const out: ModelEvent[] = [];
    switch (type) {
      case 'message_start':
        inputTokens = Number(data.message?.usage?.input_tokens ?? 0);
        if (typeof data.message?.id === 'string') id = data.message.id;
        if (typeof data.message?.model === 'string') model = data.message.model;
        break;
      case 'content_block_start': {
        const start = data.content_block;
        const kind = typeof start?.type === 'string' ? start.type : 'unknown';
        blocks.set(index, {
          type: kind,
          id: text(start?.id),
          name: text(start?.name),
          json: '',
          signature: text(start?.signature),
          data: typeof start?.data === 'string' ? start.data : undefined,
        });
        if (kind === 'tool_use') {
          state.committed = true;
          held ??= [];
        }
        if (kind === 'thinking' && text(start?.thinking) !== '') {
          state.committed = true;
          out.push({ type: 'reasoning-delta', text: text(start?.thinking) });
        }
        break;
      }
      case 'content_block_delta': {
        const delta = data.delta;
        const block = blocks.get(index);
        if (delta?.type === 'text_delta' && text(delta.text) !== '') {
          state.committed = true;
          out.push({ type: 'text-delta', text: text(delta.text) });
        } else if (
          delta?.type === 'thinking_delta' &&
          text(delta.thinking) !== ''
        ) {
          state.committed = true;
          out.push({ type: 'reasoning-delta', text: text(delta.thinking) });
        } else if (delta?.type === 'signature_delta' && block) {
          block.signature += text(delta.signature);
        } else if (delta?.type === 'input_json_delta' && block) {
          block.json += text(delta.partial_json);
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(index);
        if (block === undefined) break;
        blocks.delete(index);
        const ended = blockEnd(block);
        if (ended !== undefined) out.push(ended);
        break;
      }
      case 'message_delta':
        if (data.delta?.stop_reason !== undefined)
          stopReason = data.delta.stop_reason;
        if (data.usage?.output_tokens !== undefined)
          outputTokens = Number(data.usage.output_tokens);
        break;
      case 'message_stop':
        done = true;
        break;
      case 'error': {
        const kind =
          typeof data.error?.type === 'string' ? data.error.type : 'error';
        const detail =
          typeof data.error?.message === 'string'
            ? data.error.message
            : 'unknown error';
        throw new ModelError({
          kind: 'stream',
          code: kind,
          message: `The model stream reported ${kind}: ${detail}`,
        });
      }
      case 'ping':
      case undefined:
      default:
        // ping, and event types added later: clients must ignore what they do not know.
        break;
    }
    if (held === undefined) yield* out;
    else held.push(...out);
    if (done) break;
  }
  if (!done) {
    throw new ModelError({
      kind: 'incomplete',
      message:
        'The model stream ended without message_stop: the answer is incomplete.',
    });
  }
  // A block never stopped is unfinished; a tool call among them must not run.
  for (const block of blocks.values()) {
    if (block.type === 'tool_use') unfinishedCall();
  }
  if (held !== undefined) yield* held;
  yield {
    type: 'finish',
    finishReason: mapAnthropicFinishReason(stopReason),
    usage: { inputTokens, outputTokens },
    ...(id === undefined && model === undefined
      ? {}
      : {
          response: {
            ...(id === undefined ? {} : { id }),
            ...(model === undefined ? {} : { model }),
          },
        }),
  };
}

function unfinishedCall(): never {
  throw new ModelError({
    kind: 'malformed',
    message: 'The model sent an unfinished tool call.',
  });
}

/** The event that closes a block: its reasoning with provider data, its text, or its call. */
function blockEnd(block: Block): ModelEvent | undefined {
  switch (block.type) {
    case 'thinking':
      return {
        type: 'reasoning-end',
        ...(block.signature === ''
          ? {}
          : { providerData: { anthropic: { signature: block.signature } } }),
      };
    case 'redacted_thinking':
      return {
        type: 'reasoning-end',
        redacted: true,
        ...(block.data === undefined
          ? {}
          : { providerData: { anthropic: { redactedData: block.data } } }),
      };
    case 'text':
      return { type: 'text-end' };
    case 'tool_use':
      if (block.id === '' || block.name === '') unfinishedCall();
      return {
        type: 'tool-call',
        call: {
          id: block.id,
          name: block.name,
          arguments: block.json === '' ? '{}' : block.json,
        },
      };
    default:
      return undefined;
  }
}
