import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Headers an OpenAI client sends. */
export const openAiHeaders = {
  authorization: 'Bearer test-key',
  'content-type': 'application/json',
} as const;

/** Headers an Anthropic client sends. */
export const anthropicHeaders = {
  'x-api-key': 'test-key',
  'anthropic-version': '2023-06-01',
  'content-type': 'application/json',
} as const;

/** POSTs a JSON body (or a raw string) to `url`. */
export function post(
  url: string,
  body: unknown,
  options: {
    readonly headers?: Readonly<Record<string, string>>;
    readonly signal?: AbortSignal;
  } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: options.headers ?? openAiHeaders,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** Reads a whole SSE body with eventsource-parser, the parser our core uses. */
export async function readEvents(
  response: Response,
): Promise<readonly EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => {
      events.push(event);
    },
  });
  parser.feed(await response.text());
  return events;
}

/** Parses each event's data as JSON, except OpenAI's `[DONE]`. */
export function dataOf(
  events: readonly EventSourceMessage[],
): readonly unknown[] {
  return events
    .filter((event) => event.data !== '[DONE]')
    .map((event) => JSON.parse(event.data) as unknown);
}

/** An OpenAI chat request body. */
export function openAiChat(
  messages: readonly unknown[],
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return { model: 'gpt-test', messages, ...extra };
}

/** An Anthropic messages request body. */
export function anthropicChat(
  messages: readonly unknown[],
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return { model: 'claude-test', max_tokens: 256, messages, ...extra };
}

/** Headers a Gemini client sends. */
export const geminiHeaders = {
  'x-goog-api-key': 'test-key',
  'content-type': 'application/json',
} as const;

/** The streaming Gemini path for `model`. */
export function geminiStreamPath(model: string): string {
  return `/v1beta/models/${model}:streamGenerateContent?alt=sse`;
}

/** POSTs an OpenAI chat request with these messages. */
export function chat(
  url: string,
  messages: readonly unknown[],
  signal?: AbortSignal,
): Promise<Response> {
  return post(
    `${url}/v1/chat/completions`,
    openAiChat(messages),
    signal === undefined ? {} : { signal },
  );
}

/** The first choice's message content of an OpenAI chat response. */
export async function contentOf(response: Response): Promise<unknown> {
  const body = (await response.json()) as {
    choices?: { message?: { content?: unknown } }[];
  };
  return body.choices?.[0]?.message?.content;
}

/** An OpenAI user message. */
export const user = (content: string): unknown => ({ role: 'user', content });

/** An OpenAI assistant message calling these `[id, name]` tools with `{}` arguments. */
export const assistantCalls = (
  ...calls: readonly (readonly [string, string])[]
): unknown => ({
  role: 'assistant',
  content: null,
  tool_calls: calls.map(([id, name]) => ({
    id,
    type: 'function',
    function: { name, arguments: '{}' },
  })),
});

/** Reads a body until it ends or breaks; returns what arrived and the error, if any. */
export async function readUntilError(
  response: Response,
): Promise<{ readonly text: string; readonly error: unknown }> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) {
        return { text: text + decoder.decode(), error: undefined };
      }
      text += decoder.decode(chunk.value as Uint8Array, { stream: true });
    }
  } catch (error: unknown) {
    return { text, error };
  }
}

/** Parses SSE text with eventsource-parser. */
export function parseEvents(text: string): readonly EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  createParser({ onEvent: (event) => events.push(event) }).feed(text);
  return events;
}
