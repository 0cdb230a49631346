import { type EventSourceMessage } from 'eventsource-parser';
import {
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type FinishReason,
  type ModelEvent,
  type ModelToolCall,
  type Usage,
} from './chat-model.ts';
import {
  type CommitState,
  httpModelStream,
  parseFrame,
} from './http-model-stream.ts';
import { ModelError } from './model-error.ts';
import { type RetryOptions, retryPolicy } from './retry-policy.ts';

/** Options of {@link openaiCompatible}. */
export interface OpenAICompatibleOptions extends RetryOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` for Ollama. */
  readonly baseURL: string;
  /** Required for api.openai.com; local servers often need none. */
  readonly apiKey?: string;
  readonly model: string;
  readonly headers?: Readonly<Record<string, string>>;
}

type WireMessage = Record<string, unknown>;

function toWire(request: ChatRequest): WireMessage[] {
  const wire: WireMessage[] = [];
  if (request.instructions !== undefined)
    wire.push({ role: 'system', content: request.instructions });
  for (const message of request.messages) wire.push(...messageToWire(message));
  return wire;
}

function messageToWire(message: ChatMessage): WireMessage[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.content }];
    case 'assistant':
      return [
        {
          role: 'assistant',
          content:
            message.content === '' && message.toolCalls.length > 0
              ? null
              : message.content,
          ...(message.toolCalls.length === 0
            ? {}
            : {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }),
        },
      ];
    case 'tool':
      // OpenAI has no error flag: the content itself says "[CODE] …" for a failed call.
      return message.results.map((result) => ({
        role: 'tool',
        tool_call_id: result.callId,
        content: result.content,
      }));
  }
}

function finishReason(value: unknown, hasCalls: boolean): FinishReason {
  switch (value) {
    case 'stop':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return hasCalls ? 'tool_calls' : 'other';
  }
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

interface Chunk {
  error?: { message?: unknown };
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  choices?: {
    delta?: {
      content?: unknown;
      tool_calls?: {
        index?: unknown;
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
      }[];
    };
    finish_reason?: unknown;
  }[];
}

async function* parseOpenAI(
  messages: AsyncIterable<EventSourceMessage>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  const calls = new Map<number, PartialCall>();
  let reason: unknown;
  let usage: Usage | undefined;
  let done = false;
  for await (const message of messages) {
    if (message.data === '[DONE]') {
      done = true;
      break;
    }
    const chunk = parseFrame(message.data) as Chunk;
    if (message.event === 'error' || chunk.error !== undefined) {
      const text =
        typeof chunk.error?.message === 'string'
          ? chunk.error.message
          : 'unknown error';
      throw new ModelError({
        kind: 'stream',
        message: `The model stream reported an error: ${text}`,
      });
    }
    if (chunk.usage) {
      usage = {
        inputTokens: Number(chunk.usage.prompt_tokens ?? 0),
        outputTokens: Number(chunk.usage.completion_tokens ?? 0),
      };
    }
    for (const choice of chunk.choices ?? []) {
      const content = choice.delta?.content;
      if (typeof content === 'string' && content !== '') {
        state.committed = true;
        yield { type: 'text-delta', text: content };
      }
      for (const fragment of choice.delta?.tool_calls ?? []) {
        state.committed = true;
        const index = typeof fragment.index === 'number' ? fragment.index : 0;
        const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (typeof fragment.id === 'string' && fragment.id !== '')
          call.id = fragment.id;
        if (typeof fragment.function?.name === 'string' && call.name === '')
          call.name = fragment.function.name;
        if (typeof fragment.function?.arguments === 'string')
          call.arguments += fragment.function.arguments;
        calls.set(index, call);
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined)
        reason = choice.finish_reason;
    }
  }
  if (!done) {
    throw new ModelError({
      kind: 'incomplete',
      message:
        'The model stream ended without [DONE]: the answer is incomplete.',
    });
  }
  const ordered: ModelToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => call);
  for (const call of ordered) {
    if (call.id === '' || call.name === '') {
      throw new ModelError({
        kind: 'malformed',
        message: 'The model sent a tool call without an id or a name.',
      });
    }
  }
  for (const call of ordered) yield { type: 'tool-call', call };
  yield {
    type: 'finish',
    finishReason: finishReason(reason, ordered.length > 0),
    ...(usage === undefined ? {} : { usage }),
  };
}

function openAIErrorMessage(body: unknown): string | undefined {
  const message = (body as { error?: { message?: unknown } } | null)?.error
    ?.message;
  return typeof message === 'string' ? message : undefined;
}

/**
 * A Chat Completions model: OpenAI, Ollama, vLLM, llama.cpp and other compatible servers. It
 * streams with `fetch`, parses SSE with eventsource-parser and assembles tool calls by index.
 *
 * @example
 * ```ts
 * const model = openaiCompatible({ baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4o-mini' });
 * ```
 */
export function openaiCompatible(options: OpenAICompatibleOptions): ChatModel {
  let base: URL;
  try {
    base = new URL(options.baseURL);
  } catch {
    throw new TypeError(
      `openaiCompatible: baseURL must be an absolute URL, got ${JSON.stringify(options.baseURL)}`,
    );
  }
  if (typeof options.model !== 'string' || options.model === '') {
    throw new TypeError('openaiCompatible: model is required');
  }
  if (
    base.hostname === 'api.openai.com' &&
    (options.apiKey === undefined || options.apiKey === '')
  ) {
    throw new TypeError(
      'openaiCompatible: an apiKey is required for api.openai.com (set OPENAI_API_KEY)',
    );
  }
  const retry = retryPolicy(options);
  const url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const headers = {
    ...(options.apiKey === undefined || options.apiKey === ''
      ? {}
      : { authorization: `Bearer ${options.apiKey}` }),
    ...options.headers,
  };
  return {
    provider: 'openai-compatible',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      return httpModelStream({
        provider: 'openai-compatible',
        url,
        headers,
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        body: {
          model: options.model,
          messages: toWire(request),
          ...(request.tools.length === 0
            ? {}
            : {
                tools: request.tools.map((tool) => ({
                  type: 'function',
                  function: {
                    name: tool.name,
                    description: tool.description,
                    parameters: tool.inputSchema,
                  },
                })),
              }),
          stream: true,
          stream_options: { include_usage: true },
        },
        parse: parseOpenAI,
        errorMessage: openAIErrorMessage,
      });
    },
  };
}
