import { describe, expect, it } from 'vitest';
import { useServer } from './__fixtures__/serve.ts';
import {
  dataOf,
  openAiChat,
  openAiHeaders,
  post,
  readEvents,
} from './__fixtures__/wire-client.ts';

const serve = useServer();

const hi = [{ role: 'user', content: 'hi there' }];

interface Chunk {
  readonly id: string;
  readonly choices: readonly {
    readonly delta: {
      readonly content?: string | null;
      readonly tool_calls?: readonly {
        readonly index: number;
        readonly id?: string;
        readonly function?: {
          readonly name?: string;
          readonly arguments?: string;
        };
      }[];
    };
    readonly finish_reason: string | null;
  }[];
  readonly usage?: unknown;
}

describe('OpenAI Chat Completions wire', () => {
  it('answers a non-streaming request with a chat.completion body', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a').whenUser('hi').responds('Hello there.');
      }),
    );
    const response = await post(`${url}/v1/chat/completions`, openAiChat(hi));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there.' },
          finish_reason: 'stop',
        },
      ],
      usage: { total_tokens: expect.any(Number) as number },
    });
  });

  it('serves the same wire without the /v1 prefix', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a').responds('ok');
      }),
    );
    const response = await post(`${url}/chat/completions`, openAiChat(hi));
    expect(response.status).toBe(200);
  });

  it('streams text deltas, null usage on chunks, a usage chunk and [DONE]', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a').whenUser('hi').responds('One two three');
      }),
    );
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat(hi, { stream: true, stream_options: { include_usage: true } }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = dataOf(events) as Chunk[];
    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toMatchObject({
      total_tokens: expect.any(Number) as number,
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(
      true,
    );
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const text = chunks
      .flatMap((chunk) => chunk.choices)
      .map((choice) => choice.delta.content ?? '')
      .join('');
    expect(text).toBe('One two three');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('sends no usage field without include_usage', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a').responds('x');
      }),
    );
    const events = await readEvents(
      await post(
        `${url}/v1/chat/completions`,
        openAiChat(hi, { stream: true }),
      ),
    );
    const chunks = dataOf(events) as Chunk[];
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('fragments parallel tool calls by index, cutting JSON tokens, escapes and surrogate pairs', async () => {
    const raw = '{"q":"a\\"b","e":"xy😀é"}';
    const { url } = await serve(
      (server) =>
        server.conversation('c', (c) => {
          c.step('a')
            .whenUser('hi')
            .callsTools([
              { id: 'call_a', name: 'search', args: raw },
              { id: 'call_b', name: 'lookup', args: { id: 7 } },
            ]);
        }),
      { argumentSliceLength: 4 },
    );
    const chunks = dataOf(
      await readEvents(
        await post(
          `${url}/v1/chat/completions`,
          openAiChat(hi, { stream: true }),
        ),
      ),
    ) as Chunk[];
    const fragments = chunks.flatMap(
      (chunk) => chunk.choices[0]?.delta.tool_calls ?? [],
    );
    // The first fragment of each call carries id and name; later ones only arguments.
    expect(fragments.filter((fragment) => fragment.id !== undefined)).toEqual([
      {
        index: 0,
        id: 'call_a',
        type: 'function',
        function: { name: 'search', arguments: '' },
      },
      {
        index: 1,
        id: 'call_b',
        type: 'function',
        function: { name: 'lookup', arguments: '' },
      },
    ]);
    const slices = fragments
      .filter((fragment) => fragment.index === 0)
      .map((fragment) => fragment.function?.arguments ?? '');
    expect(slices.join('')).toBe(raw);
    expect(slices).toContain('{"q"');
    // A slice ends inside the escape sequence \" …
    expect(slices.some((slice) => slice.endsWith('\\'))).toBe(true);
    // … and one ends with half of the emoji's surrogate pair.
    expect(slices.some((slice) => /[\uD800-\uDBFF]$/.test(slice))).toBe(true);
    const second = fragments
      .filter((fragment) => fragment.index === 1)
      .map((fragment) => fragment.function?.arguments ?? '')
      .join('');
    expect(JSON.parse(second)).toEqual({ id: 7 });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('renders scripted failures with OpenAI error bodies and retry headers', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a')
          .fails(429, 'rate_limit_exceeded', 'Rate limit reached', {
            headers: {
              'retry-after': '2',
              'retry-after-ms': '1500',
              'x-should-retry': 'true',
            },
          })
          .fails(503, 'overloaded', 'Try later', { type: 'server_error' })
          .responds('ok');
      }),
    );
    const first = await post(`${url}/v1/chat/completions`, openAiChat(hi));
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(first.headers.get('retry-after-ms')).toBe('1500');
    expect(first.headers.get('x-should-retry')).toBe('true');
    expect(await first.json()).toEqual({
      error: {
        message: 'Rate limit reached',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
    const second = await post(`${url}/v1/chat/completions`, openAiChat(hi));
    expect(second.status).toBe(503);
    expect(await second.json()).toMatchObject({
      error: { type: 'server_error', code: 'overloaded' },
    });
    const third = await post(`${url}/v1/chat/completions`, openAiChat(hi));
    expect(third.status).toBe(200);
  });

  it('rejects a missing or wrong API key with the 401 OpenAI sends', async () => {
    const { url, server } = await serve(() => undefined, { apiKey: 'right' });
    const missing = await post(`${url}/v1/chat/completions`, openAiChat(hi), {
      headers: { 'content-type': 'application/json' },
    });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining(
          "You didn't provide an API key",
        ) as string,
      },
    });
    const wrong = await post(`${url}/v1/chat/completions`, openAiChat(hi), {
      headers: { ...openAiHeaders, authorization: 'Bearer wrong' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({
      error: { code: 'invalid_api_key' },
    });
    expect(server.journal.map((entry) => entry.disposition)).toEqual([
      'rejected',
      'rejected',
    ]);
  });

  it('answers malformed JSON, a missing field and a wrong path in OpenAI shape', async () => {
    const { url, server } = await serve(() => undefined);
    const malformed = await post(`${url}/v1/chat/completions`, '{"model":');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining(
          'could not parse the JSON body',
        ) as string,
      },
    });
    const noMessages = await post(`${url}/v1/chat/completions`, { model: 'm' });
    expect(noMessages.status).toBe(400);
    expect(await noMessages.json()).toMatchObject({
      error: {
        param: 'messages',
        message: "Missing required parameter: 'messages'.",
      },
    });
    const wrongPath = await post(`${url}/v1/completion`, openAiChat(hi));
    expect(wrongPath.status).toBe(404);
    expect(await wrongPath.json()).toMatchObject({
      error: { message: 'Invalid URL (POST /v1/completion)' },
    });
    const wrongMethod = await fetch(`${url}/v1/chat/completions`);
    expect(wrongMethod.status).toBe(404);
    expect(server.journal.map((entry) => entry.reason?.split(':')[0])).toEqual([
      'malformed-json',
      'invalid-request',
      'unknown-path',
      'unknown-path',
    ]);
    expect(server.journal[0]?.body).toBeUndefined();
  });

  it('rejects a body larger than maxBodyBytes with a 413', async () => {
    const { url } = await serve(() => undefined, { maxBodyBytes: 64 });
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat([{ role: 'user', content: 'x'.repeat(100) }]),
    );
    expect(response.status).toBe(413);
  });
});
