import { type EventSourceMessage } from 'eventsource-parser';
import { type ModelEvent, type ModelToolCall } from '../../chat-model.ts';
import { parseFrame } from '../../http-model-stream.ts';
import { type CommitState } from '../../retry-before-first-chunk.ts';
import { ModelError } from '../../model-error.ts';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.ts';

interface Block {
  type: string;
  id: string;
  name: string;
  json: string;
  stopped: boolean;
}

interface StreamData {
  type?: unknown;
  index?: unknown;
  message?: { usage?: { input_tokens?: unknown } };
  content_block?: { type?: unknown; id?: unknown; name?: unknown };
  delta?: {
    type?: unknown;
    text?: unknown;
    partial_json?: unknown;
    stop_reason?: unknown;
  };
  usage?: { output_tokens?: unknown };
  error?: { type?: unknown; message?: unknown };
}

/**
 * Anthropic Messages SSE as model events. A tool call is emitted once its block stopped and
 * the stream reached `message_stop`; a stream without `message_stop` is incomplete.
 */
export async function* parseAnthropicStream(
  messages: AsyncIterable<EventSourceMessage>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  const blocks = new Map<number, Block>();
  let inputTokens = 0;
  let outputTokens = 0;
  let stopReason: unknown;
  let done = false;
  for await (const message of messages) {
    const data = parseFrame(message.data) as StreamData;
    const type = typeof data.type === 'string' ? data.type : message.event;
    const index = typeof data.index === 'number' ? data.index : -1;
    switch (type) {
      case 'message_start':
        inputTokens = Number(data.message?.usage?.input_tokens ?? 0);
        break;
      case 'content_block_start': {
        const kind =
          typeof data.content_block?.type === 'string'
            ? data.content_block.type
            : 'unknown';
        blocks.set(index, {
          type: kind,
          id:
            typeof data.content_block?.id === 'string'
              ? data.content_block.id
              : '',
          name:
            typeof data.content_block?.name === 'string'
              ? data.content_block.name
              : '',
          json: '',
          stopped: false,
        });
        if (kind === 'tool_use') state.committed = true;
        break;
      }
      case 'content_block_delta': {
        if (
          data.delta?.type === 'text_delta' &&
          typeof data.delta.text === 'string' &&
          data.delta.text !== ''
        ) {
          state.committed = true;
          yield { type: 'text-delta', text: data.delta.text };
        } else if (
          data.delta?.type === 'input_json_delta' &&
          typeof data.delta.partial_json === 'string'
        ) {
          const block = blocks.get(index);
          if (block) block.json += data.delta.partial_json;
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(index);
        if (block) block.stopped = true;
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
        const text =
          typeof data.error?.message === 'string'
            ? data.error.message
            : 'unknown error';
        throw new ModelError({
          kind: 'stream',
          message: `The model stream reported ${kind}: ${text}`,
        });
      }
      case 'ping':
      case undefined:
      default:
        // ping, and event types added later: clients must ignore what they do not know.
        break;
    }
    if (done) break;
  }
  if (!done) {
    throw new ModelError({
      kind: 'incomplete',
      message:
        'The model stream ended without message_stop: the answer is incomplete.',
    });
  }
  const calls: ModelToolCall[] = [];
  for (const [, block] of [...blocks.entries()].sort(([a], [b]) => a - b)) {
    if (block.type !== 'tool_use') continue;
    if (!block.stopped || block.id === '' || block.name === '') {
      throw new ModelError({
        kind: 'malformed',
        message: 'The model sent an unfinished tool call.',
      });
    }
    calls.push({
      id: block.id,
      name: block.name,
      arguments: block.json === '' ? '{}' : block.json,
    });
  }
  for (const call of calls) yield { type: 'tool-call', call };
  yield {
    type: 'finish',
    finishReason: mapAnthropicFinishReason(stopReason),
    usage: { inputTokens, outputTokens },
  };
}
