import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../agent.ts';
import { type ChatMessage } from '../../chat-model.ts';
import {
  fixture,
  type LoopbackAnswer,
  serveAnswers,
} from '../loopback-server.case.ts';
import { openaiCompatible } from './openai-compatible.ts';

const deepseek = fixture(import.meta.url, 'deepseek-reasoning-tool-call.sse');
const geminiCompat = fixture(import.meta.url, 'gemini-compat-signed-call.sse');
const answer = fixture(import.meta.url, 'answer.sse');

let registry: ToolRegistry | undefined;

afterEach(async () => {
  registry?.shutdown();
  registry = undefined;
});

async function serve(answers: LoopbackAnswer[]) {
  const server = await serveAnswers(answers);
  onTestFinished(server.close);
  return server;
}

function agent(url: string): Agent {
  registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => ToolResponse.success(String(a + b)),
    }),
  );
  return new Agent({
    model: openaiCompatible({ baseURL: `${url}/v1`, model: 'm' }),
    registry,
  });
}

type Messages = Record<string, unknown>[];

describe('OpenAI-compatible reasoning and vendor extras', () => {
  it('sends reasoning_content back on the tool-call turn (DeepSeek), and not on a text turn', async () => {
    const server = await serve([
      { sse: deepseek },
      { sse: answer },
      { sse: answer },
    ]);
    const first = await agent(server.url).run('add');
    expect(first.stopReason).toBe('completed');
    expect(first.usage).toEqual({
      inputTokens: 20,
      outputTokens: 30,
      reasoningTokens: 18,
    });
    const step2 = server.requests[1]?.body['messages'] as Messages;
    expect(step2[1]).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: 'Need the sum; call calc.',
      tool_calls: [
        {
          id: 'call_ds',
          type: 'function',
          function: { name: 'calc', arguments: '{"a":2,"b":12}' },
        },
      ],
    });
    // Saved as JSON and resumed: still there on the tool-call turn, absent on the text turn.
    const restored = JSON.parse(
      JSON.stringify(first.messages),
    ) as ChatMessage[];
    await agent(server.url).run([...restored, { role: 'user', content: 'ok' }]);
    const resumed = server.requests[2]?.body['messages'] as Messages;
    expect(resumed[1]?.['reasoning_content']).toBe('Need the sum; call calc.');
    expect(resumed[3]).toEqual({ role: 'assistant', content: 'It is 14.' });
  });

  it('keeps Gemini’s extra_content thought signature on the tool call and sends it back', async () => {
    const server = await serve([{ sse: geminiCompat }, { sse: answer }]);
    const result = await agent(server.url).run('add');
    expect(result.stopReason).toBe('completed');
    const step2 = server.requests[1]?.body['messages'] as Messages;
    expect(step2[1]?.['tool_calls']).toEqual([
      {
        id: 'function-call-1',
        type: 'function',
        function: { name: 'calc', arguments: '{"a":2,"b":12}' },
        extra_content: {
          google: { thought_signature: 'R2VtaW5pLWNvbXBhdA==' },
        },
      },
    ]);
  });

  it('never sends another wire’s reasoning or signatures', async () => {
    const server = await serve([{ sse: answer }]);
    await agent(server.url).run([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'c1',
            name: 'calc',
            arguments: '{"a":1,"b":1}',
            providerData: { google: { thoughtSignature: 'Zm9yZWlnbg==' } },
          },
        ],
        parts: [
          {
            type: 'reasoning',
            text: 'Claude thought',
            providerData: { anthropic: { signature: 's' } },
          },
          {
            type: 'tool-call',
            call: {
              id: 'c1',
              name: 'calc',
              arguments: '{"a":1,"b":1}',
              providerData: { google: { thoughtSignature: 'Zm9yZWlnbg==' } },
            },
          },
        ],
      },
      {
        role: 'tool',
        results: [
          { callId: 'c1', toolName: 'calc', content: '2', isError: false },
        ],
      },
    ]);
    const messages = server.requests[0]?.body['messages'] as Messages;
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'c1',
          type: 'function',
          function: { name: 'calc', arguments: '{"a":1,"b":1}' },
        },
      ],
    });
  });
});
