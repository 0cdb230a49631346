import { type EventSourceMessage } from 'eventsource-parser';
import {
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type FinishReason,
  type ModelEvent,
  type ModelToolCall,
} from './chat-model.ts';
import {
  type CommitState,
  httpModelStream,
  parseFrame,
} from './http-model-stream.ts';
import { ModelError } from './model-error.ts';
import { type RetryOptions, retryPolicy } from './retry-policy.ts';

/** Options of {@link anthropic}. */
export interface AnthropicOptions extends RetryOptions {
  /** Defaults to the ANTHROPIC_API_KEY environment variable; required one way or the other. */
  readonly apiKey?: string;
  readonly model: string;
  /** Defaults to https://api.anthropic.com. */
  readonly baseURL?: string;
  /** Default 4096. */
  readonly maxTokens?: number;
}

function inputObject(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // The registry already told the model its arguments were malformed; echo an empty input.
  }
  return {};
}

function messageToWire(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(message.content === ''
            ? []
            : [{ type: 'text', text: message.content }]),
          ...message.toolCalls.map((call) => ({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: inputObject(call.arguments),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'user',
        content: message.results.map((result) => ({
          type: 'tool_result',
          tool_use_id: result.callId,
          content: result.content,
          ...(result.isError ? { is_error: true } : {}),
        })),
      };
  }
}

function finishReason(value: unknown): FinishReason {
  switch (value) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

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

async function* parseAnthropic(
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
    finishReason: finishReason(stopReason),
    usage: { inputTokens, outputTokens },
  };
}

function anthropicErrorMessage(body: unknown): string | undefined {
  const error = (
    body as { error?: { type?: unknown; message?: unknown } } | null
  )?.error;
  if (typeof error?.message !== 'string') return undefined;
  return typeof error.type === 'string'
    ? `${error.type}: ${error.message}`
    : error.message;
}

/**
 * An Anthropic Messages model, streaming with `fetch` and eventsource-parser. Failed tool calls
 * go back as `tool_result` blocks with `is_error: true`; denials do not carry the flag.
 *
 * @example
 * ```ts
 * const model = anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, model: 'claude-sonnet-4-5' });
 * ```
 */
export function anthropic(options: AnthropicOptions): ChatModel {
  const apiKey = options.apiKey ?? process.env['ANTHROPIC_API_KEY'];
  if (apiKey === undefined || apiKey === '') {
    throw new TypeError(
      'anthropic: an apiKey is required (pass { apiKey } or set ANTHROPIC_API_KEY)',
    );
  }
  if (typeof options.model !== 'string' || options.model === '') {
    throw new TypeError('anthropic: model is required');
  }
  const maxTokens = options.maxTokens ?? 4096;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(
      `anthropic: maxTokens must be a positive integer, got ${String(maxTokens)}`,
    );
  }
  const baseURL = (options.baseURL ?? 'https://api.anthropic.com').replace(
    /\/+$/,
    '',
  );
  try {
    new URL(baseURL);
  } catch {
    throw new TypeError(
      `anthropic: baseURL must be an absolute URL, got ${JSON.stringify(options.baseURL)}`,
    );
  }
  const retry = retryPolicy(options);
  const url = baseURL.endsWith('/v1')
    ? `${baseURL}/messages`
    : `${baseURL}/v1/messages`;
  return {
    provider: 'anthropic',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      return httpModelStream({
        provider: 'anthropic',
        url,
        headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        body: {
          model: options.model,
          max_tokens: maxTokens,
          ...(request.instructions === undefined
            ? {}
            : { system: request.instructions }),
          messages: request.messages.map(messageToWire),
          ...(request.tools.length === 0
            ? {}
            : {
                tools: request.tools.map((tool) => ({
                  name: tool.name,
                  description: tool.description,
                  input_schema: tool.inputSchema,
                })),
              }),
          stream: true,
        },
        parse: parseAnthropic,
        errorMessage: anthropicErrorMessage,
      });
    },
  };
}
