import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent.ts';
import { type ChatModel } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { gemini } from './gemini/gemini.ts';
import { fixture, serveAnswers } from './loopback-server.case.ts';

let provider: BasicTracerProvider | undefined;

afterEach(async () => {
  await provider?.shutdown();
  provider = undefined;
});

async function traced(
  make: (url: string) => ChatModel,
  captures: { dir: string; files: string[] },
): Promise<ReadableSpan[]> {
  const base = new URL(`${captures.dir}/`, import.meta.url);
  const server = await serveAnswers(
    captures.files.map((file) => ({ sse: fixture(base, file) })),
  );
  onTestFinished(server.close);
  const exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => ToolResponse.success(String(a + b)),
    }),
  );
  await new Agent({
    model: make(server.url),
    registry,
    telemetry: { tracer: provider.getTracer('t') },
  }).run('add');
  registry.shutdown();
  return exporter.getFinishedSpans();
}

describe('GenAI attributes from the wires', () => {
  it('anthropic: provider name, response id and model, finish reasons', async () => {
    const spans = await traced(
      (url) =>
        anthropic({
          baseURL: url,
          apiKey: 'k',
          model: 'claude-sonnet-4-5',
          thinking: { type: 'enabled', budgetTokens: 1024 },
        }),
      {
        dir: 'anthropic',
        files: ['thinking-tool-use.sse', 'omitted-and-redacted-answer.sse'],
      },
    );
    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats.map((span) => span.attributes)).toMatchObject([
      {
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-sonnet-4-5',
        'gen_ai.response.id': 'msg_01Think',
        'gen_ai.response.model': 'claude-sonnet-4-5-20250929',
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'gen_ai.usage.output_tokens': 96,
      },
      {
        'gen_ai.response.id': 'msg_02Answer',
        'gen_ai.response.finish_reasons': ['stop'],
      },
    ]);
    // Anthropic reports no reasoning count apart: none is made up.
    expect(
      chats[0]?.attributes['gen_ai.usage.reasoning.output_tokens'],
    ).toBeUndefined();
  });

  it('gemini: gcp.gemini, and reasoning tokens included in output tokens, per chat and per run', async () => {
    const spans = await traced(
      (url) =>
        gemini({ baseURL: url, apiKey: 'k', model: 'gemini-3-flash-preview' }),
      { dir: 'gemini', files: ['signed-call.sse', 'signed-text.sse'] },
    );
    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.response.id': 'g1',
      'gen_ai.response.model': 'gemini-3-flash-preview',
      'gen_ai.usage.output_tokens': 132,
      'gen_ai.usage.reasoning.output_tokens': 112,
    });
    const run = spans.find((span) => span.name.startsWith('invoke_agent'));
    expect(run?.attributes).toMatchObject({
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.usage.output_tokens': 178,
      'gen_ai.usage.reasoning.output_tokens': 152,
    });
  });
});
