import { describe, expect, it } from 'vitest';
import { runWireConformance } from '../wire-conformance.case.ts';
import { anthropic } from './anthropic.ts';

interface Body {
  messages: Record<string, unknown>[];
  tools?: unknown;
}

runWireConformance({
  name: 'anthropic',
  model: (url, retry) =>
    anthropic({
      baseURL: url,
      apiKey: 'test-key',
      model: 'claude-test',
      ...retry,
    }),
  toolResults: (body) =>
    (body as Body).messages.flatMap((message) =>
      Array.isArray(message['content'])
        ? (message['content'] as Record<string, unknown>[])
            .filter((block) => block['type'] === 'tool_result')
            .map((block) => ({
              id: String(block['tool_use_id']),
              content: block['content'],
              isError: block['is_error'] as boolean | undefined,
            }))
        : [],
    ),
  toolsSent: (body) => (body as Body).tools,
  hasErrorChannel: true,
  framesBeforeContent: 1,
  framesThroughFirstText: 4,
  overloaded: { status: 529, code: 'overloaded_error', message: 'Overloaded' },
  badRequestCode: 'invalid_request_error',
  reasoningModel: (url) =>
    anthropic({
      baseURL: url,
      apiKey: 'test-key',
      model: 'claude-test',
      maxOutputTokens: 4096,
      thinking: { type: 'enabled', budgetTokens: 2048 },
    }),
});

describe('anthropic', () => {
  it('needs an API key, from the options or ANTHROPIC_API_KEY', () => {
    const saved = process.env['ANTHROPIC_API_KEY'];
    delete process.env['ANTHROPIC_API_KEY'];
    try {
      expect(() => anthropic({ model: 'claude-test' })).toThrow(
        /anthropic: an apiKey is required/,
      );
      expect(() => anthropic({ apiKey: ' \t', model: 'claude-test' })).toThrow(
        /anthropic: an apiKey is required/,
      );
    } finally {
      if (saved !== undefined) process.env['ANTHROPIC_API_KEY'] = saved;
    }
  });
});
