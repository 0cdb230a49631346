import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { type ChatMessage } from './chat-model.ts';
import { scriptedModel } from './scripted-model.ts';
import { UnendedSpans } from './wires/wire-conformance-ends.case.ts';

function calc(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => ToolResponse.success(String(a + b)),
    }),
  );
  return registry;
}

describe('scriptedModel with reasoning', () => {
  it('scripts reasoning with provider data, kept in order in the turn and sent back on the next request', async () => {
    const model = scriptedModel([
      {
        reasoning: [
          {
            text: 'Add them.',
            providerData: { anthropic: { signature: 'sig-1' } },
          },
          {
            redacted: true,
            providerData: { anthropic: { redactedData: 'x' } },
          },
        ],
        toolCalls: [
          {
            id: 'c1',
            name: 'calc',
            arguments: { a: 2, b: 12 },
            providerData: { google: { thoughtSignature: 'g1' } },
          },
        ],
        usage: { inputTokens: 10, outputTokens: 50, reasoningTokens: 40 },
      },
      { text: 'It is 14.', usage: { inputTokens: 20, outputTokens: 5 } },
    ]);
    const registry = calc();
    const result = await new Agent({ model, registry }).run('add');
    registry.shutdown();
    expect(result.usage).toEqual({
      inputTokens: 30,
      outputTokens: 55,
      reasoningTokens: 40,
    });
    const sent = model.requests[1]?.messages[1] as Extract<
      ChatMessage,
      { role: 'assistant' }
    >;
    expect(sent.parts).toEqual([
      {
        type: 'reasoning',
        text: 'Add them.',
        providerData: { anthropic: { signature: 'sig-1' } },
      },
      {
        type: 'reasoning',
        text: '',
        redacted: true,
        providerData: { anthropic: { redactedData: 'x' } },
      },
      {
        type: 'tool-call',
        call: {
          id: 'c1',
          name: 'calc',
          arguments: '{"a":2,"b":12}',
          providerData: { google: { thoughtSignature: 'g1' } },
        },
      },
    ]);
    // What a saved conversation holds survives JSON.
    expect(JSON.parse(JSON.stringify(result.messages))).toEqual(
      result.messages,
    );
  });

  it('records the run’s call settings on each request it receives', async () => {
    const model = scriptedModel([{ text: 'Hi.' }]);
    const registry = calc();
    await new Agent({ model, registry }).run('hi', {
      settings: { temperature: 0.3, providerOptions: { google: { a: 1 } } },
    });
    registry.shutdown();
    expect(model.requests[0]?.settings).toEqual({
      temperature: 0.3,
      providerOptions: { google: { a: 1 } },
    });
    await expect(
      new Agent({ model, registry }).run('hi', {
        settings: { temperature: -1 },
      }),
    ).rejects.toThrow(RangeError);
  });

  it('scripts a blocked answer: the run ends content_filter, with an error on its span', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const registry = calc();
    const result = await new Agent({
      model: scriptedModel([{ finishReason: 'content_filter' }]),
      registry,
      telemetry: { tracer: provider.getTracer('t') },
    }).run('blocked');
    registry.shutdown();
    expect(result.stopReason).toBe('content_filter');
    const run = exporter
      .getFinishedSpans()
      .find((span) => span.name.startsWith('invoke_agent'));
    expect(run?.attributes['error.type']).toBe('content_filter');
    await provider.shutdown();
  });

  it('leaves no span unended when the caller breaks out of stream()', async () => {
    const spans = new UnendedSpans();
    const provider = new BasicTracerProvider({ spanProcessors: [spans] });
    const registry = calc();
    const agent = new Agent({
      model: scriptedModel([{ reasoning: [{ text: 'hm' }], text: 'Hello.' }]),
      registry,
      telemetry: { tracer: provider.getTracer('t') },
    });
    for await (const event of agent.stream('hi')) {
      if (event.type === 'text-delta') break;
    }
    registry.shutdown();
    expect(spans.open).toEqual([]);
    expect(spans.ended).toEqual(['chat scripted', 'invoke_agent agent']);
    await provider.shutdown();
  });
});
