import { describe, expect, it } from 'vitest';
import { useServer } from './__fixtures__/serve.ts';
import {
  dataOf,
  geminiHeaders,
  geminiStreamPath,
  post,
  readEvents,
} from './__fixtures__/wire-client.ts';
import { deliveryFaults } from './delivery-faults.ts';
import type { LlmTestServer } from './llm-test-server.ts';

const serve = useServer();
const headers = { headers: geminiHeaders };
const model = 'gemini-3-pro-preview';

interface Chunk {
  candidates?: {
    content: { parts: Record<string, unknown>[] };
    finishReason?: string;
  }[];
  usageMetadata?: Record<string, number>;
  promptFeedback?: { blockReason: string };
}

function weather(server: LlmTestServer): void {
  server.conversation('weather', (c) => {
    c.step('ask')
      .whenUser('weather')
      .thinks([
        { type: 'thinking', thinking: 'Two cities.', signature: 'unused' },
      ])
      .reasoningTokens(120)
      .callsTools([
        {
          id: 'fc_1',
          name: 'get_weather',
          args: { city: 'Paris' },
          thoughtSignature: 'sig-1',
        },
        // Parallel call: Gemini signs only the first part.
        { id: 'fc_2', name: 'get_weather', args: { city: 'Rome' } },
      ]);
    c.step('answer')
      .whenToolResult('get_weather', 'fc_1', 'ok')
      .responds('Sunny in both.', { thoughtSignature: 'sig-text' })
      .complete();
  });
}

const ask = { role: 'user', parts: [{ text: 'weather in Paris and Rome?' }] };
const thinkingConfig = {
  generationConfig: { thinkingConfig: { includeThoughts: true } },
};

function results(): unknown {
  return {
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: 'fc_1',
          name: 'get_weather',
          response: { output: 'sunny' },
        },
      },
      {
        functionResponse: {
          id: 'fc_2',
          name: 'get_weather',
          response: { output: 'sunny' },
        },
      },
    ],
  };
}

function callParts(first: Record<string, unknown> = {}): unknown[] {
  return [
    {
      functionCall: {
        id: 'fc_1',
        name: 'get_weather',
        args: { city: 'Paris' },
      },
      ...first,
    },
    {
      functionCall: { id: 'fc_2', name: 'get_weather', args: { city: 'Rome' } },
    },
  ];
}

async function stream(url: string, body: unknown): Promise<Response> {
  return post(`${url}${geminiStreamPath(model)}`, body, headers);
}

describe('Gemini thought signatures', () => {
  it('signs only the first parallel call, sends thought parts when asked, and counts thoughtsTokenCount', async () => {
    const { url } = await serve(weather);
    const chunks = dataOf(
      await readEvents(
        await stream(url, { contents: [ask], ...thinkingConfig }),
      ),
    ) as Chunk[];
    const parts = chunks.flatMap(
      (chunk) => chunk.candidates?.[0]?.content.parts ?? [],
    );
    expect(parts.filter((part) => part['thought'] === true)).toEqual([
      { text: 'Two ', thought: true },
      { text: 'cities.', thought: true },
    ]);
    expect(parts.filter((part) => 'functionCall' in part)).toEqual(
      callParts({ thoughtSignature: 'sig-1' }),
    );
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({
      thoughtsTokenCount: 120,
      totalTokenCount:
        (chunks.at(-1)?.usageMetadata?.['promptTokenCount'] ?? 0) +
        (chunks.at(-1)?.usageMetadata?.['candidatesTokenCount'] ?? 0) +
        120,
    });
  });

  it('sends no thought parts unless thinkingConfig.includeThoughts is set', async () => {
    const { url } = await serve(weather);
    const chunks = dataOf(
      await readEvents(await stream(url, { contents: [ask] })),
    ) as Chunk[];
    const parts = chunks.flatMap(
      (chunk) => chunk.candidates?.[0]?.content.parts ?? [],
    );
    expect(parts.some((part) => part['thought'] === true)).toBe(false);
  });

  it('completes the loop when the client replays the signature, and signs the text answer on a final empty part', async () => {
    const { server, url } = await serve(weather);
    await stream(url, { contents: [ask] });
    const response = await stream(url, {
      contents: [
        ask,
        { role: 'model', parts: callParts({ thoughtSignature: 'sig-1' }) },
        results(),
      ],
    });
    expect(response.status).toBe(200);
    const chunks = dataOf(await readEvents(response)) as Chunk[];
    expect(chunks.at(-1)?.candidates?.[0]?.content.parts).toEqual([
      { text: '', thoughtSignature: 'sig-text' },
    ]);
    expect(server.journal.map((attempt) => attempt.step)).toEqual([
      'ask',
      'answer',
    ]);
  });

  it('answers a replay that drops the signature with Google’s 400', async () => {
    const { url } = await serve(weather);
    await stream(url, { contents: [ask] });
    const response = await stream(url, {
      contents: [ask, { role: 'model', parts: callParts() }, results()],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 400,
        message:
          'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
        status: 'INVALID_ARGUMENT',
      },
    });
  });

  it('answers an edited signature with Google’s 400, and accepts the documented placeholder', async () => {
    const { url } = await serve(weather);
    await stream(url, { contents: [ask] });
    const edited = await stream(url, {
      contents: [
        ask,
        { role: 'model', parts: callParts({ thoughtSignature: 'forged' }) },
        results(),
      ],
    });
    expect(edited.status).toBe(400);
    expect(
      ((await edited.json()) as { error: { message: string } }).error.message,
    ).toBe('Corrupted thought signature.');
    const placeholder = await stream(url, {
      contents: [
        ask,
        {
          role: 'model',
          parts: callParts({
            thoughtSignature: 'skip_thought_signature_validator',
          }),
        },
        results(),
      ],
    });
    expect(placeholder.status).toBe(200);
  });

  it('validates only the current turn: an unsigned call before the latest user text passes', async () => {
    const { url } = await serve((server) => {
      weather(server);
      server.conversation('later', (c) => {
        c.step('thanks').whenUser('thanks').responds('You are welcome.');
      });
    });
    await stream(url, { contents: [ask] });
    const response = await stream(url, {
      contents: [
        ask,
        { role: 'model', parts: callParts() },
        results(),
        { role: 'model', parts: [{ text: 'Sunny in both.' }] },
        { role: 'user', parts: [{ text: 'thanks' }] },
      ],
    });
    expect(response.status).toBe(200);
  });

  it('on a Gemini 3 model, requires a signature (or the placeholder) on a call it never sent', async () => {
    const { url } = await serve((server) =>
      server.conversation('moved', (c) => {
        c.step('after')
          .whenToolResult('get_weather', 'toolu_9', 'ok')
          .responds('Sunny.');
      }),
    );
    const foreign = (first: Record<string, unknown>) =>
      stream(url, {
        contents: [
          ask,
          {
            role: 'model',
            parts: [
              {
                functionCall: {
                  id: 'toolu_9',
                  name: 'get_weather',
                  args: { city: 'Paris' },
                },
                ...first,
              },
            ],
          },
          {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  id: 'toolu_9',
                  name: 'get_weather',
                  response: { output: 'sunny' },
                },
              },
            ],
          },
        ],
      });
    const unsigned = await foreign({});
    expect(unsigned.status).toBe(400);
    expect(
      ((await unsigned.json()) as { error: { message: string } }).error.message,
    ).toMatch(/^Function call is missing a thought_signature/);
    // Moving another provider's tool calls onto Gemini needs the placeholder.
    const moved = await foreign({
      thoughtSignature: 'skip_thought_signature_validator',
    });
    expect(moved.status).toBe(200);
  });
});

describe('Gemini ends', () => {
  it('blocks a prompt with promptFeedback.blockReason and no candidates', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('blocked').whenUser('weather').blocksPrompt();
      }),
    );
    const chunks = dataOf(
      await readEvents(await stream(url, { contents: [ask] })),
    ) as Chunk[];
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.promptFeedback).toEqual({ blockReason: 'SAFETY' });
    expect(chunks[0]?.candidates).toBeUndefined();
  });

  it('sends Google’s in-stream error chunk with its status', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('busy')
          .whenUser('weather')
          .deliversWith(
            deliveryFaults.inStreamError(1, {
              status: 503,
              code: 'UNAVAILABLE',
              message: 'The model is overloaded. Please try again later.',
            }),
          )
          .responds('never seen');
      }),
    );
    const chunks = dataOf(
      await readEvents(await stream(url, { contents: [ask] })),
    );
    expect(chunks.at(-1)).toEqual({
      error: {
        code: 503,
        message: 'The model is overloaded. Please try again later.',
        status: 'UNAVAILABLE',
      },
    });
  });
});
