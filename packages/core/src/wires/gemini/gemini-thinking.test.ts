import { describe, expect, it, onTestFinished } from 'vitest';
import { calculatorRegistry } from '../calculator-registry.case.ts';
import { Agent } from '../../agent.ts';
import { type ChatMessage } from '../../chat-model.ts';
import {
  fixture,
  type LoopbackAnswer,
  serveAnswers,
} from '../loopback-server.case.ts';
import { gemini, type GeminiOptions } from './gemini.ts';

const signedCall = fixture(import.meta.url, 'signed-call.sse');
const signedText = fixture(import.meta.url, 'signed-text.sse');
const blocked = fixture(import.meta.url, 'prompt-blocked.sse');
const unavailable = fixture(import.meta.url, 'in-stream-unavailable.sse');

async function serve(answers: LoopbackAnswer[]) {
  const server = await serveAnswers(answers);
  onTestFinished(server.close);
  return server;
}

function model(url: string, extra: Partial<GeminiOptions> = {}) {
  return gemini({
    baseURL: url,
    apiKey: 'k',
    model: 'gemini-3-flash-preview',
    ...extra,
  });
}

type Contents = { role: string; parts: Record<string, unknown>[] }[];

describe('Gemini thought signatures and thinking', () => {
  it('sends each signature back on its own part: the first parallel call signed, the second not', async () => {
    const server = await serve([{ sse: signedCall }, { sse: signedText }]);
    const result = await new Agent({
      model: model(server.url, {
        thinkingConfig: { thinkingLevel: 'low', includeThoughts: true },
      }),
      registry: calculatorRegistry(),
    }).run('add 2 and 12, and 1 and 1');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('It is 14 and 2.');
    expect(server.requests[0]?.body['generationConfig']).toEqual({
      thinkingConfig: { thinkingLevel: 'low', includeThoughts: true },
    });
    const contents = server.requests[1]?.body['contents'] as Contents;
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'Two additions are needed.', thought: true },
        {
          functionCall: { name: 'calc', args: { a: 2, b: 12 } },
          thoughtSignature: 'Q2lnbmF0dXJlLW9uZQ==',
        },
        { functionCall: { name: 'calc', args: { a: 1, b: 1 } } },
      ],
    });
    // candidates + thoughts on each turn: (20 + 112) + (6 + 40).
    expect(result.usage).toEqual({
      inputTokens: 90,
      outputTokens: 178,
      reasoningTokens: 152,
    });
  });

  it('resumes a conversation saved as JSON with the text signature on the text', async () => {
    const server = await serve([
      { sse: signedCall },
      { sse: signedText },
      { sse: signedText },
    ]);
    const first = await new Agent({
      model: model(server.url),
      registry: calculatorRegistry(),
    }).run('add');
    const restored = JSON.parse(
      JSON.stringify(first.messages),
    ) as ChatMessage[];
    const again = await new Agent({
      model: model(server.url),
      registry: calculatorRegistry(),
    }).run([...restored, { role: 'user', content: 'thanks' }]);
    expect(again.stopReason).toBe('completed');
    const contents = server.requests[2]?.body['contents'] as Contents;
    expect(contents.map((content) => content.role)).toEqual([
      'user',
      'model',
      'user',
      'model',
      'user',
    ]);
    expect(contents[1]?.parts[1]?.['thoughtSignature']).toBe(
      'Q2lnbmF0dXJlLW9uZQ==',
    );
    expect(contents[3]).toEqual({
      role: 'model',
      parts: [
        { text: 'It is 14 and 2.', thoughtSignature: 'VGV4dC1zaWduYXR1cmU=' },
      ],
    });
  });

  it('gives another provider’s tool calls Google’s placeholder in the current turn only, and drops their data', async () => {
    const server = await serve([{ sse: signedText }]);
    const foreignTurn = (id: string): ChatMessage[] => [
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id,
            name: 'calc',
            arguments: '{"a":1,"b":2}',
            providerData: { openaiCompatible: { extraContent: { x: 1 } } },
          },
          { id: `${id}-2`, name: 'calc', arguments: '{"a":3,"b":4}' },
        ],
        parts: [
          {
            type: 'reasoning',
            text: 'Claude thought',
            providerData: { anthropic: { signature: 'sig' } },
          },
          {
            type: 'tool-call',
            call: {
              id,
              name: 'calc',
              arguments: '{"a":1,"b":2}',
              providerData: { openaiCompatible: { extraContent: { x: 1 } } },
            },
          },
          {
            type: 'tool-call',
            call: { id: `${id}-2`, name: 'calc', arguments: '{"a":3,"b":4}' },
          },
        ],
      },
      {
        role: 'tool',
        results: [
          { callId: id, toolName: 'calc', content: '3', isError: false },
          { callId: `${id}-2`, toolName: 'calc', content: '7', isError: false },
        ],
      },
    ];
    await new Agent({
      model: model(server.url),
      registry: calculatorRegistry(),
    }).run([
      { role: 'user', content: 'earlier' },
      ...foreignTurn('old'),
      { role: 'user', content: 'now' },
      ...foreignTurn('new'),
    ]);
    const contents = server.requests[0]?.body['contents'] as Contents;
    // The earlier turn is not validated: no placeholder there.
    expect(contents[1]?.parts).toEqual([
      { functionCall: { id: 'old', name: 'calc', args: { a: 1, b: 2 } } },
      { functionCall: { id: 'old-2', name: 'calc', args: { a: 3, b: 4 } } },
    ]);
    expect(contents[4]?.parts).toEqual([
      {
        functionCall: { id: 'new', name: 'calc', args: { a: 1, b: 2 } },
        thoughtSignature: 'skip_thought_signature_validator',
      },
      { functionCall: { id: 'new-2', name: 'calc', args: { a: 3, b: 4 } } },
    ]);
  });

  it('ends a run on a blocked prompt with content_filter, never completed', async () => {
    const server = await serve([{ sse: blocked }]);
    const result = await new Agent({
      model: model(server.url),
      registry: calculatorRegistry(),
    }).run('something blocked');
    expect(result.stopReason).toBe('content_filter');
    expect(result.text).toBe('');
  });

  it('reports Google’s in-stream 503 as a stream error with its status and code', async () => {
    const server = await serve([{ sse: unavailable }]);
    const result = await new Agent({
      model: model(server.url, { maxRetries: 0 }),
      registry: calculatorRegistry(),
    }).run('hi');
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError).toEqual({
      kind: 'stream',
      status: 503,
      code: 'UNAVAILABLE',
      message:
        'The model stream reported UNAVAILABLE: The model is overloaded. Please try again later.',
    });
  });

  it('retries the in-stream 503 when it came before any content', async () => {
    const server = await serve([{ sse: unavailable }, { sse: signedText }]);
    const result = await new Agent({
      model: model(server.url, { sleep: async () => undefined }),
      registry: calculatorRegistry(),
    }).run('hi');
    expect(result.stopReason).toBe('completed');
    expect(server.requests).toHaveLength(2);
  });

  it('names itself gcp.gemini and refuses a thinking option it cannot send', () => {
    expect(model('http://127.0.0.1:1').provider).toBe('gcp.gemini');
    expect(() =>
      model('http://127.0.0.1:1', {
        thinkingConfig: { thinkingLevel: 'max' as 'high' },
      }),
    ).toThrow(/thinkingLevel must be one of minimal, low, medium, high/);
    expect(() =>
      model('http://127.0.0.1:1', { thinkingConfig: { thinkingBudget: 1.5 } }),
    ).toThrow(/thinkingBudget must be an integer/);
  });
});
