import { ToolRegistry } from '@candor/registry';
import {
  type ConversationScript,
  LlmTestServer,
  type ScriptedReasoning,
} from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent.ts';
import { type ChatMessage, type ChatModel } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { gemini } from './gemini/gemini.ts';

// Acceptance against @candor/testing's strict server, which answers a follow-up request that
// drops or edits the reasoning state it sent with the vendor's own 400.

let registry: ToolRegistry | undefined;

afterEach(async () => {
  registry?.shutdown();
  registry = undefined;
});

async function strictServer(
  script: (conversation: ConversationScript) => void,
): Promise<{ server: LlmTestServer; url: string }> {
  const server = new LlmTestServer({ strict: true });
  server.conversation('weather', script);
  const started = await server.start();
  onTestFinished(started.close);
  return { server, url: started.url };
}

function weatherRegistry(): ToolRegistry {
  registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'get_weather',
      description: 'The weather in a city',
      input: z.object({ city: z.string() }),
      run: ({ city }) => ToolResponse.success(`sunny in ${city}`),
    }),
  );
  return registry;
}

const blocks: readonly ScriptedReasoning[] = [
  { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
  { type: 'redacted_thinking', data: 'opaque-2' },
  // Shown with its text omitted: still signed, still replayed.
  { type: 'thinking', thinking: '', signature: 'sig-3' },
];

function twoSteps(extra: { callSignature?: string; textSignature?: string }) {
  return (c: ConversationScript) => {
    c.step('ask')
      .whenUser('weather')
      .thinks(blocks)
      .reasoningTokens(300)
      .callsTools([
        {
          id: 'call_1',
          name: 'get_weather',
          args: { city: 'Paris' },
          ...(extra.callSignature === undefined
            ? {}
            : { thoughtSignature: extra.callSignature }),
        },
      ]);
    c.step('answer')
      .whenToolResult('get_weather', 'call_1', 'ok')
      .responds(
        'Sunny.',
        extra.textSignature === undefined
          ? {}
          : { thoughtSignature: extra.textSignature },
      )
      .complete();
  };
}

function claude(url: string): ChatModel {
  return anthropic({
    baseURL: url,
    apiKey: 'test-key',
    model: 'claude-sonnet-4-5',
    maxOutputTokens: 4096,
    thinking: { type: 'enabled', budgetTokens: 2048 },
  });
}

function gemini3(url: string): ChatModel {
  return gemini({
    baseURL: url,
    apiKey: 'test-key',
    model: 'gemini-3-pro-preview',
    thinkingConfig: { thinkingLevel: 'low', includeThoughts: true },
  });
}

type Body = Record<string, unknown>;

describe('the strict test server accepts a two-step tool loop with reasoning state', () => {
  it('Anthropic with thinking: the next request carries the thinking blocks and signatures before the tool_use', async () => {
    const { server, url } = await strictServer(twoSteps({}));
    const result = await new Agent({
      model: claude(url),
      registry: weatherRegistry(),
    }).run('weather in Paris?');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('Sunny.');
    const messages = (server.journal[1]?.body as Body)['messages'] as Body[];
    expect(messages[1]?.['content']).toEqual([
      { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque-2' },
      { type: 'thinking', thinking: '', signature: 'sig-3' },
      {
        type: 'tool_use',
        id: 'call_1',
        name: 'get_weather',
        input: { city: 'Paris' },
      },
    ]);
    server.assertNoUnmatched();
  });

  it('Gemini 3: the signature goes back on the function call part', async () => {
    const { server, url } = await strictServer(
      twoSteps({ callSignature: 'gsig-call', textSignature: 'gsig-text' }),
    );
    const result = await new Agent({
      model: gemini3(url),
      registry: weatherRegistry(),
    }).run('weather in Paris?');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('Sunny.');
    const contents = (server.journal[1]?.body as Body)['contents'] as {
      role: string;
      parts: Body[];
    }[];
    const call = contents[1]?.parts.find((part) => 'functionCall' in part);
    expect(call?.['thoughtSignature']).toBe('gsig-call');
    // The thought summaries count as output, reported apart.
    expect(result.usage.reasoningTokens).toBeGreaterThan(0);
    server.assertNoUnmatched();
  });

  // What the resumed request must carry, read from its body.
  const anthropicState = (body: Body): unknown =>
    ((body['messages'] as Body[])[1]?.['content'] as Body[])[0];
  const geminiState = (body: Body): unknown =>
    (body['contents'] as { parts: Body[] }[])[1]?.parts.find(
      (part) => 'functionCall' in part,
    )?.['thoughtSignature'];

  it.each([
    [
      'anthropic',
      claude,
      {},
      anthropicState,
      { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
    ],
    [
      'gemini',
      gemini3,
      { callSignature: 'gsig-call' },
      geminiState,
      'gsig-call',
    ],
  ] as const)(
    '%s: a conversation saved as JSON mid-run resumes in a fresh agent with its reasoning intact',
    async (_name, make, extra, state, expected) => {
      const { server, url } = await strictServer(twoSteps(extra));
      // Stopped after the tool ran, before the model saw the result: mid-run.
      const stopped = await new Agent({
        model: make(url),
        registry: weatherRegistry(),
        maxSteps: 1,
      }).run('weather in Paris?');
      expect(stopped.stopReason).toBe('max_steps');
      registry?.shutdown();
      const saved = JSON.stringify(stopped.messages);
      const resumed = await new Agent({
        model: make(url),
        registry: weatherRegistry(),
      }).run(JSON.parse(saved) as ChatMessage[]);
      expect(resumed.stopReason).toBe('completed');
      expect(resumed.text).toBe('Sunny.');
      expect(server.journal.map((attempt) => attempt.status)).toEqual([
        200, 200,
      ]);
      expect(state(server.journal[1]?.body as Body)).toEqual(expected);
    },
  );
});
