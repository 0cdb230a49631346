import { describe, expect, it, onTestFinished } from 'vitest';
import { calculatorRegistry } from '../calculator-registry.case.ts';
import { Agent } from '../../agent.ts';
import { type ChatMessage, type ModelEvent } from '../../chat-model.ts';
import {
  fixture,
  type LoopbackAnswer,
  serveAnswers,
} from '../loopback-server.case.ts';
import { anthropic, type AnthropicOptions } from './anthropic.ts';

const toolTurn = fixture(import.meta.url, 'thinking-tool-use.sse');
const answerTurn = fixture(import.meta.url, 'omitted-and-redacted-answer.sse');

async function serve(answers: LoopbackAnswer[]) {
  const server = await serveAnswers(answers);
  onTestFinished(server.close);
  return server;
}

function model(url: string, extra: Partial<AnthropicOptions> = {}) {
  return anthropic({
    baseURL: url,
    apiKey: 'test-key',
    model: 'claude-sonnet-4-5',
    ...extra,
  });
}

const THINKING_BLOCK = {
  type: 'thinking',
  thinking: 'The user wants 2 + 12. I should use the calc tool.',
  signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
};
const TOOL_USE = {
  type: 'tool_use',
  id: 'toolu_01Calc',
  name: 'calc',
  input: { a: 2, b: 12 },
};

describe('Anthropic extended thinking', () => {
  it('sends the thinking block and its signature back before the tool_use, with the interleaved beta', async () => {
    const server = await serve([{ sse: toolTurn }, { sse: answerTurn }]);
    const result = await new Agent({
      model: model(server.url, {
        thinking: { type: 'enabled', budgetTokens: 2048, interleaved: true },
      }),
      registry: calculatorRegistry(),
    }).run('add 2 and 12');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('It is 14.');
    const [first, second] = server.requests;
    expect(first?.body['thinking']).toEqual({
      type: 'enabled',
      budget_tokens: 2048,
    });
    expect(first?.headers['anthropic-beta']).toBe(
      'interleaved-thinking-2025-05-14',
    );
    const messages = second?.body['messages'] as Record<string, unknown>[];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        THINKING_BLOCK,
        { type: 'text', text: 'Let me add them.' },
        TOOL_USE,
      ],
    });
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01Calc', content: '14' },
      ],
    });
    // output_tokens already counts thinking: 96 + 310, nothing added.
    expect(result.usage).toEqual({ inputTokens: 222, outputTokens: 406 });
  });

  it('keeps an omitted and a redacted block, and a conversation saved as JSON resumes with them', async () => {
    const server = await serve([
      { sse: toolTurn },
      { sse: answerTurn },
      { sse: answerTurn },
    ]);
    const thinking = {
      type: 'adaptive',
      effort: 'medium',
      display: 'omitted',
    } as const;
    const first = await new Agent({
      model: model(server.url, { thinking }),
      registry: calculatorRegistry(),
    }).run('add 2 and 12');
    const saved = JSON.stringify(first.messages);
    // A fresh agent and model, as in another process, from the JSON alone.
    const restored = JSON.parse(saved) as ChatMessage[];
    const again = await new Agent({
      model: model(server.url, { thinking }),
      registry: calculatorRegistry(),
    }).run([...restored, { role: 'user', content: 'and again?' }]);
    expect(again.stopReason).toBe('completed');
    const body = server.requests[2]?.body;
    expect(body?.['thinking']).toEqual({
      type: 'adaptive',
      display: 'omitted',
    });
    expect(body?.['output_config']).toEqual({ effort: 'medium' });
    expect(server.requests[0]?.headers['anthropic-beta']).toBeUndefined();
    const messages = body?.['messages'] as Record<string, unknown>[];
    expect(messages.map((message) => message['role'])).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect((messages[1]?.['content'] as unknown[])[0]).toEqual(THINKING_BLOCK);
    expect(messages[3]).toEqual({
      role: 'assistant',
      content: [
        // Shown with its text omitted: the empty thinking goes back with its signature.
        {
          type: 'thinking',
          thinking: '',
          signature: 'ErUBCkYIBhgCIkDOmitted0signature',
        },
        {
          type: 'redacted_thinking',
          data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRpEGjH9XZaBt4UvDcPrQ==',
        },
        { type: 'text', text: 'It is 14.' },
      ],
    });
  });

  it('streams reasoning events with the signature, and names the response', async () => {
    const server = await serve([{ sse: toolTurn }]);
    const events: ModelEvent[] = [];
    for await (const event of model(server.url).stream({
      messages: [{ role: 'user', content: 'add' }],
      tools: [],
    }))
      events.push(event);
    expect(events).toEqual([
      { type: 'reasoning-delta', text: 'The user wants 2 + 12. ' },
      { type: 'reasoning-delta', text: 'I should use the calc tool.' },
      {
        type: 'reasoning-end',
        providerData: { anthropic: { signature: THINKING_BLOCK.signature } },
      },
      { type: 'text-delta', text: 'Let me add them.' },
      { type: 'text-end' },
      {
        type: 'tool-call',
        call: {
          id: 'toolu_01Calc',
          name: 'calc',
          arguments: '{"a": 2, "b": 12}',
        },
      },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        usage: { inputTokens: 42, outputTokens: 96 },
        response: { id: 'msg_01Think', model: 'claude-sonnet-4-5-20250929' },
      },
    ]);
  });

  it('never sends another provider’s reasoning, nor reasoning as text', async () => {
    const server = await serve([{ sse: answerTurn }]);
    const result = await new Agent({
      model: model(server.url),
      registry: calculatorRegistry(),
    }).run([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'Hello.',
        toolCalls: [],
        parts: [
          {
            type: 'reasoning',
            text: 'a Gemini thought',
            providerData: { google: { thoughtSignature: 'c2lnbmF0dXJl' } },
          },
          { type: 'reasoning', text: 'unsigned' },
          {
            type: 'text',
            text: 'Hello.',
            providerData: { google: { thoughtSignature: 'dGV4dA==' } },
          },
        ],
      },
      { role: 'user', content: 'more' },
    ]);
    expect(result.stopReason).toBe('completed');
    const messages = server.requests[0]?.body['messages'] as unknown[];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello.' }],
    });
  });

  it('refuses a thinking option it cannot send, naming the field', () => {
    const base = { apiKey: 'k', model: 'claude-sonnet-4-5' };
    expect(() =>
      anthropic({ ...base, thinking: { type: 'enabled', budgetTokens: 100 } }),
    ).toThrow(/thinking.budgetTokens must be an integer of at least 1024/);
    expect(() =>
      anthropic({
        ...base,
        thinking: { type: 'adaptive', effort: 'huge' as 'high' },
      }),
    ).toThrow(/thinking.effort must be one of/);
    expect(() =>
      anthropic({ ...base, thinking: { type: 'on' } as never }),
    ).toThrow(/thinking.type must be/);
    expect(() =>
      anthropic({
        ...base,
        thinking: { type: 'adaptive', display: 'full' as 'omitted' },
      }),
    ).toThrow(/thinking.display must be/);
  });
});
