import { ToolRegistry } from '@candor/registry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../agent.ts';
import { type ChatMessage } from '../chat-model.ts';
import { serveAnswers } from './loopback-server.case.ts';
import { openaiCompatible } from './openai-compatible/openai-compatible.ts';

// A hand-built history whose provider data JSON cannot carry fails before any request, once,
// as the request's fault: never a "connection failed" retried with back-off.

function history(extraContent: unknown): ChatMessage[] {
  return [
    { role: 'user', content: 'hi' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        {
          id: 'c1',
          name: 't',
          arguments: '{}',
          providerData: { openaiCompatible: { extraContent } },
        },
      ],
    },
    {
      role: 'tool',
      results: [{ callId: 'c1', toolName: 't', content: 'ok', isError: false }],
    },
  ] as unknown as ChatMessage[];
}

const loop: Record<string, unknown> = {};
loop['self'] = loop;

describe('a history JSON cannot carry', () => {
  it.each([
    ['a BigInt', { n: 1n }],
    ['a cycle', loop],
  ])(
    'with %s is a malformed request, sent never and retried never',
    async (_, bad) => {
      const server = await serveAnswers([]);
      onTestFinished(server.close);
      const model = openaiCompatible({
        baseURL: server.url,
        apiKey: 'sk-test',
        model: 'm',
      });
      const result = await new Agent({
        model,
        registry: new ToolRegistry(),
      }).run(history(bad));
      expect(result.stopReason).toBe('model_error');
      expect(result.modelError?.kind).toBe('malformed');
      expect(result.modelError?.message).toMatch(
        /could not be written as JSON/,
      );
      expect(server.requests).toHaveLength(0);
    },
  );
});
