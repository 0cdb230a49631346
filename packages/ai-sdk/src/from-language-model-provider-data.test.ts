import { Agent, type ChatMessage, type ModelEvent } from '@candor/core';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { stepCountIs, streamText, tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromLanguageModel } from './from-language-model.ts';

type StreamPart = Record<string, unknown> & { type: string };
type DoStream = MockLanguageModelV3['doStream'];

const usage = {
  inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 9, text: 2, reasoning: 7 },
};

// A Gemini-style tool call (its thought signature on the call) after an Anthropic-style signed
// reasoning part (the signature arriving on an empty delta, as @ai-sdk/anthropic streams it).
const toolTurn: StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  {
    type: 'response-metadata',
    id: 'resp_1',
    modelId: 'mock-model-2026',
    timestamp: new Date(0),
  },
  { type: 'reasoning-start', id: 'r0' },
  { type: 'reasoning-delta', id: 'r0', delta: 'The user wants ' },
  { type: 'reasoning-delta', id: 'r0', delta: 'the weather.' },
  {
    type: 'reasoning-delta',
    id: 'r0',
    delta: '',
    providerMetadata: { anthropic: { signature: 'sig-r0' } },
  },
  { type: 'reasoning-end', id: 'r0' },
  {
    type: 'tool-call',
    toolCallId: 'call_1',
    toolName: 'weather',
    input: '{"city":"Paris"}',
    providerMetadata: { google: { thoughtSignature: 'ts-call-1' } },
  },
  {
    type: 'finish',
    finishReason: { unified: 'tool-calls', raw: 'STOP' },
    usage,
  },
];

const textTurn: StreamPart[] = [
  { type: 'text-start', id: 't0' },
  { type: 'text-delta', id: 't0', delta: 'Sunny.' },
  { type: 'text-end', id: 't0' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' }, usage },
];

function mockModel(turns: StreamPart[][]): MockLanguageModelV3 {
  let next = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const turn = turns[next];
      next += 1;
      if (turn === undefined) throw new Error('the script ran out');
      return {
        stream: convertArrayToReadableStream(turn),
      } as unknown as Awaited<ReturnType<DoStream>>;
    },
  });
}

const registries: ToolRegistry[] = [];
afterEach(() => {
  for (const registry of registries.splice(0)) registry.shutdown();
});

function weatherRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registries.push(registry);
  registry.register(
    defineTool({
      name: 'weather',
      description: 'The weather in a city',
      input: z.object({ city: z.string() }),
      run: ({ city }) => ToolResponse.success(`Sunny in ${city}`),
    }),
  );
  return registry;
}

const assistantOf = (mock: MockLanguageModelV3, call: number) =>
  mock.doStreamCalls[call]?.prompt.find(
    (message) => message.role === 'assistant',
  )?.content;

const signedTurn = [
  {
    type: 'reasoning',
    text: 'The user wants the weather.',
    providerOptions: { anthropic: { signature: 'sig-r0' } },
  },
  {
    type: 'tool-call',
    toolCallId: 'call_1',
    toolName: 'weather',
    input: { city: 'Paris' },
    providerOptions: { google: { thoughtSignature: 'ts-call-1' } },
  },
];

describe('fromLanguageModel keeps what the provider needs back', () => {
  it('sends signed reasoning and a signed tool call back as providerOptions, as the SDK loop does', async () => {
    const mock = mockModel([toolTurn, textTurn]);
    const agent = new Agent({
      model: fromLanguageModel(mock),
      registry: weatherRegistry(),
    });
    const result = await agent.run('Weather in Paris?');
    expect(result.stopReason).toBe('completed');
    expect(assistantOf(mock, 1)).toEqual(signedTurn);

    // The AI SDK's own loop, on the same stream, sends the same assistant turn back.
    const own = mockModel([toolTurn, textTurn]);
    const sdk = streamText({
      model: own,
      prompt: 'Weather in Paris?',
      tools: {
        weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: ({ city }) => `Sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(2),
    });
    await sdk.consumeStream();
    expect(own.doStreamCalls).toHaveLength(2);
    expect(assistantOf(own, 1)).toEqual(assistantOf(mock, 1));
  });

  it('reports reasoning tokens and the response id and model on finish', async () => {
    const model = fromLanguageModel(mockModel([toolTurn]));
    const events: ModelEvent[] = [];
    for await (const event of model.stream({ messages: [], tools: [] }))
      events.push(event);
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool_calls',
      usage: { inputTokens: 20, outputTokens: 9, reasoningTokens: 7 },
      response: { id: 'resp_1', model: 'mock-model-2026' },
    });
    expect(events.slice(0, 4)).toEqual([
      { type: 'reasoning-delta', text: 'The user wants ' },
      { type: 'reasoning-delta', text: 'the weather.' },
      { type: 'reasoning-delta', text: '' },
      {
        type: 'reasoning-end',
        providerData: { aiSdk: { anthropic: { signature: 'sig-r0' } } },
      },
    ]);
  });

  it('resumes a conversation saved as JSON mid-run with its signatures', async () => {
    const first = mockModel([toolTurn]);
    const interrupted = await new Agent({
      model: fromLanguageModel(first),
      registry: weatherRegistry(),
      maxSteps: 1,
    }).run('Weather in Paris?');
    expect(interrupted.stopReason).toBe('max_steps');
    const saved = JSON.stringify(interrupted.messages);

    const second = mockModel([textTurn]);
    const resumed = await new Agent({
      model: fromLanguageModel(second),
      registry: weatherRegistry(),
    }).run(JSON.parse(saved) as ChatMessage[]);
    expect(resumed.text).toBe('Sunny.');
    expect(assistantOf(second, 0)).toEqual(signedTurn);
    expect(second.doStreamCalls[0]?.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 'call_1', output: { value: 'Sunny in Paris' } }],
    });
  });

  it('drops another wire’s provider data and leaves out empty text, as the SDK does', async () => {
    const mock = mockModel([textTurn]);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [],
        parts: [
          {
            type: 'reasoning',
            text: 'thought',
            providerData: { anthropic: { signature: 'from-anthropic-wire' } },
          },
          {
            type: 'text',
            text: '',
            providerData: { aiSdk: { google: { thoughtSignature: 'x' } } },
          },
          { type: 'text', text: 'Hello', providerData: { google: { a: 1 } } },
        ],
      },
      { role: 'user', content: 'again' },
    ];
    const events: ModelEvent[] = [];
    for await (const event of fromLanguageModel(mock).stream({
      messages,
      tools: [],
    }))
      events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    expect(assistantOf(mock, 0)).toEqual([
      { type: 'reasoning', text: 'thought' },
      { type: 'text', text: 'Hello' },
    ]);
  });
});

describe('fromLanguageModel call settings', () => {
  it('passes the model’s settings and the run’s, merged, to doStream', async () => {
    const mock = mockModel([textTurn, textTurn]);
    const agent = new Agent({
      model: fromLanguageModel(mock, {
        temperature: 0.2,
        maxOutputTokens: 512,
        stopSequences: ['END'],
        providerOptions: {
          google: { thinkingConfig: { includeThoughts: true } },
        },
      }),
      registry: weatherRegistry(),
    });
    await agent.run('hi');
    await agent.run('hi', {
      settings: {
        temperature: 0.9,
        topP: 0.5,
        seed: 7,
        providerOptions: { google: { cachedContent: 'c1' } },
      },
    });
    expect(mock.doStreamCalls[0]).toMatchObject({
      temperature: 0.2,
      maxOutputTokens: 512,
      stopSequences: ['END'],
      providerOptions: {
        google: { thinkingConfig: { includeThoughts: true } },
      },
    });
    expect(mock.doStreamCalls[0]?.topP).toBeUndefined();
    expect(mock.doStreamCalls[1]).toMatchObject({
      temperature: 0.9,
      topP: 0.5,
      seed: 7,
      maxOutputTokens: 512,
      stopSequences: ['END'],
      providerOptions: {
        google: {
          thinkingConfig: { includeThoughts: true },
          cachedContent: 'c1',
        },
      },
    });
  });

  it('refuses a bad setting when the model is made, naming it', () => {
    const mock = mockModel([]);
    expect(() => fromLanguageModel(mock, { temperature: -1 })).toThrow(
      RangeError,
    );
    expect(() => fromLanguageModel(mock, { maxTokens: 5 } as never)).toThrow(
      /fromLanguageModel: unknown setting "maxTokens"/,
    );
  });
});
