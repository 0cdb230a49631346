import {
  Agent,
  type ChatModel,
  type ChatRequest,
  ModelError,
  type ModelEvent,
} from '@candor/core';
import { scriptedModel } from '@candor/core/testing';
import { type ToolRegistry } from '@candor/registry';
import { APICallError } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  scenarioCalls,
  scenarioRegistry,
} from './__fixtures__/adapter-conformance.ts';
import { fromLanguageModel } from './from-language-model.ts';

type StreamPart = Record<string, unknown> & { type: string };
type DoStream = MockLanguageModelV3['doStream'];

const finish = (unified: string): StreamPart => ({
  type: 'finish',
  finishReason: { unified, raw: undefined },
  usage: {
    inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 3, text: 3, reasoning: 0 },
  },
});

function streamOf(parts: StreamPart[]): Awaited<ReturnType<DoStream>> {
  return {
    stream: convertArrayToReadableStream(parts),
  } as unknown as Awaited<ReturnType<DoStream>>;
}

/** A mock whose turns are scripted as stream parts, or as errors thrown by doStream. */
function mockModel(turns: (StreamPart[] | Error)[]): MockLanguageModelV3 {
  let next = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const turn = turns[next];
      next += 1;
      if (turn === undefined) throw new Error('the script ran out');
      if (turn instanceof Error) throw turn;
      return streamOf(turn);
    },
  });
}

async function collect(model: ChatModel, request?: Partial<ChatRequest>) {
  const events: ModelEvent[] = [];
  for await (const event of model.stream({
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    ...request,
  }))
    events.push(event);
  return events;
}

function apiError(statusCode: number): APICallError {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://127.0.0.1/v1',
    requestBodyValues: {},
    statusCode,
    responseHeaders: { 'retry-after-ms': '5' },
  });
}

const noSleep = { sleep: async () => undefined };

const registries: ToolRegistry[] = [];
afterEach(() => {
  for (const registry of registries.splice(0)) registry.shutdown();
});

describe('fromLanguageModel', () => {
  it('gives the model the same texts as the scripted model, outcome for outcome', async () => {
    const visible = async (
      model: ChatModel,
      read: () => unknown,
    ): Promise<unknown> => {
      const { registry } = await scenarioRegistry();
      registries.push(registry);
      const agent = new Agent({
        model,
        registry,
        errorBudget: {
          maxErrors: 100,
          maxConsecutiveErrors: 100,
          maxRepeatedFailures: 100,
        },
      });
      const result = await agent.run('Try every outcome.');
      expect(result.stopReason).toBe('completed');
      return read();
    };
    const scripted = scriptedModel([
      {
        toolCalls: scenarioCalls.map((call) => ({
          id: call.id,
          name: call.name,
          arguments: call.input,
        })),
      },
      { text: 'done' },
    ]);
    const mock = mockModel([
      [
        ...scenarioCalls.map((call) => ({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.name,
          input: JSON.stringify(call.input),
        })),
        finish('tool-calls'),
      ],
      [{ type: 'text-delta', id: 't', delta: 'done' }, finish('stop')],
    ]);
    const fromScripted = await visible(scripted, () =>
      scripted.requests[1]?.messages
        .flatMap((message) => (message.role === 'tool' ? message.results : []))
        .map((result) => ({
          id: result.callId,
          text: result.content,
          error: result.isError,
        })),
    );
    const fromMock = await visible(fromLanguageModel(mock), () =>
      (mock.doStreamCalls[1]?.prompt ?? [])
        .flatMap((message) => (message.role === 'tool' ? message.content : []))
        .map((part) => {
          const output = (part as { output: { type: string; value: string } })
            .output;
          return {
            id: (part as { toolCallId: string }).toolCallId,
            text: output.value,
            error: output.type === 'error-text',
          };
        }),
    );
    expect(fromMock).toEqual(fromScripted);
    expect(fromMock).toHaveLength(scenarioCalls.length);
    // The tools reached the model as the registry's specs (the agent hides the open circuit),
    // and the assistant turn went back too.
    expect(mock.doStreamCalls[0]?.tools?.map((tool) => tool.name)).toEqual([
      'probe',
    ]);
    expect(
      mock.doStreamCalls[1]?.prompt.find(
        (message) => message.role === 'assistant',
      )?.content,
    ).toHaveLength(scenarioCalls.length);
  });

  it('streams text and tool calls and reports usage', async () => {
    const model = fromLanguageModel(
      mockModel([
        [
          { type: 'stream-start', warnings: [] },
          { type: 'text-delta', id: 't', delta: 'Hel' },
          { type: 'text-delta', id: 't', delta: 'lo' },
          {
            type: 'tool-call',
            toolCallId: 'c',
            toolName: 'x',
            input: '{"a":1}',
          },
          finish('tool-calls'),
        ],
      ]),
    );
    expect(model).toMatchObject({
      provider: 'mock-provider',
      model: 'mock-model-id',
    });
    expect(await collect(model)).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'tool-call', call: { id: 'c', name: 'x', arguments: '{"a":1}' } },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        usage: { inputTokens: 12, outputTokens: 3, reasoningTokens: 0 },
      },
    ]);
  });

  it('retries a retryable failure before the first chunk, waiting as the server asked', async () => {
    const waits: number[] = [];
    const mock = mockModel([
      apiError(503),
      [{ type: 'text-delta', id: 't', delta: 'ok' }, finish('stop')],
    ]);
    const model = fromLanguageModel(mock, {
      retry: { sleep: async (ms) => void waits.push(ms) },
    });
    const retries: unknown[] = [];
    const events = await collect(model, {
      onRetry: (retry) => retries.push(retry),
    });
    expect(events[0]).toEqual({ type: 'text-delta', text: 'ok' });
    expect(mock.doStreamCalls).toHaveLength(2);
    expect(waits).toEqual([5]);
    // The agent's telemetry hears of the retry, as with core's own wires.
    expect(retries).toEqual([
      {
        attempt: 1,
        delayMs: 5,
        error: expect.objectContaining({
          kind: 'http',
          status: 503,
        }) as unknown,
      },
    ]);
  });

  it('never retries once a chunk arrived, nor a request the server refused', async () => {
    const midStream = mockModel([
      [
        { type: 'text-delta', id: 't', delta: 'half' },
        { type: 'error', error: apiError(503) },
      ],
      [finish('stop')],
    ]);
    await expect(
      collect(fromLanguageModel(midStream, { retry: noSleep })),
    ).rejects.toThrow(ModelError);
    expect(midStream.doStreamCalls).toHaveLength(1);

    const refused = mockModel([apiError(400), [finish('stop')]]);
    await expect(
      collect(fromLanguageModel(refused, { retry: noSleep })),
    ).rejects.toMatchObject({ kind: 'http', status: 400, attempts: 1 });
    expect(refused.doStreamCalls).toHaveLength(1);

    const always = mockModel([
      apiError(500),
      apiError(500),
      apiError(500),
      [finish('stop')],
    ]);
    await expect(
      collect(
        fromLanguageModel(always, { retry: { ...noSleep, maxRetries: 2 } }),
      ),
    ).rejects.toMatchObject({ kind: 'http', status: 500, attempts: 3 });
    expect(always.doStreamCalls).toHaveLength(3);
  });

  it('fails a stream that ends without its finish part, and an aborted request', async () => {
    await expect(
      collect(
        fromLanguageModel(
          mockModel([[{ type: 'text-delta', id: 't', delta: 'x' }]]),
        ),
      ),
    ).rejects.toMatchObject({ kind: 'incomplete' });
    const controller = new AbortController();
    controller.abort();
    const aborting = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => {
        abortSignal?.throwIfAborted();
        return streamOf([finish('stop')]);
      },
    });
    await expect(
      collect(fromLanguageModel(aborting), { signal: controller.signal }),
    ).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('refuses a model id string with a clear error', () => {
    expect(() => fromLanguageModel('openai/gpt-4o' as never)).toThrow(
      'fromLanguageModel: pass an AI SDK model object',
    );
  });
});
