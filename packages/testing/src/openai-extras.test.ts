import { describe, expect, it } from 'vitest';
import { useServer } from './__fixtures__/serve.ts';
import {
  dataOf,
  openAiChat,
  post,
  readEvents,
} from './__fixtures__/wire-client.ts';
import type { LlmTestServer } from './llm-test-server.ts';

const serve = useServer();

function weather(server: LlmTestServer): void {
  server.conversation('weather', (c) => {
    c.step('ask')
      .whenUser('weather')
      .thinks([{ type: 'thinking', thinking: 'Check it.', signature: 's' }])
      .callsTools([
        {
          id: 'call_1',
          name: 'get_weather',
          args: { city: 'Paris' },
          thoughtSignature: 'sig-1',
        },
      ]);
    c.step('answer')
      .whenToolResult('get_weather', 'call_1', 'ok')
      .responds('Sunny.');
  });
}

const ask = { role: 'user', content: 'weather in Paris?' };

function replay(extra: Record<string, unknown>): unknown {
  return openAiChat(
    [
      ask,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            ...extra,
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ],
    { model: 'gemini-3-flash-preview' },
  );
}

const signed = { extra_content: { google: { thought_signature: 'sig-1' } } };

describe('Chat Completions extras of OpenAI-compatible servers', () => {
  it('streams reasoning_content and the Gemini signature as extra_content on the first fragment', async () => {
    const { url } = await serve(weather);
    const chunks = dataOf(
      await readEvents(
        await post(
          `${url}/v1beta/openai/chat/completions`,
          openAiChat([ask], { stream: true }),
        ),
      ),
    ) as { choices: { delta: Record<string, unknown> }[] }[];
    const deltas = chunks.map((chunk) => chunk.choices[0]?.delta ?? {});
    expect(
      deltas
        .map((delta) => delta['reasoning_content'])
        .filter((piece) => piece !== undefined),
    ).toEqual(['Check ', 'it.']);
    const first = deltas.find((delta) => 'tool_calls' in delta) as {
      tool_calls: unknown[];
    };
    expect(first.tool_calls[0]).toEqual({
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
      ...signed,
    });
  });

  it('streams no reasoning_content at all for a reply without thinking', async () => {
    const { url } = await serve((server) => {
      server.conversation('plain', (c) => {
        c.step('answer').whenUser('hello').responds('Hi there.');
      });
    });
    const chunks = dataOf(
      await readEvents(
        await post(
          `${url}/v1/chat/completions`,
          openAiChat([{ role: 'user', content: 'hello' }], { stream: true }),
        ),
      ),
    ) as { choices: { delta: Record<string, unknown> }[] }[];
    const deltas = chunks.map((chunk) => chunk.choices[0]?.delta ?? {});
    expect(deltas.some((delta) => 'reasoning_content' in delta)).toBe(false);
    expect(deltas.map((delta) => delta['content']).join('')).toBe('Hi there.');
  });

  it('on Gemini’s OpenAI-compatible path, answers a call replayed without its signature with Google’s 400', async () => {
    const { url } = await serve(weather);
    const path = `${url}/v1beta/openai/chat/completions`;
    await post(path, openAiChat([ask]));
    const dropped = await post(path, replay({}));
    expect(dropped.status).toBe(400);
    expect(
      ((await dropped.json()) as { error: { message: string } }).error.message,
    ).toMatch(
      /^Function call is missing a thought_signature in functionCall parts\..*`default_api:get_weather`/,
    );
    expect((await post(path, replay(signed))).status).toBe(200);
  });

  it('does not check signatures on plain OpenAI Chat Completions', async () => {
    const { url } = await serve(weather);
    const path = `${url}/v1/chat/completions`;
    await post(path, openAiChat([ask]));
    expect((await post(path, replay({}))).status).toBe(200);
  });
});
