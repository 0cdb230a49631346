import { describe, expect, it } from 'vitest';
import { runWireConformance } from '../wire-conformance.case.ts';
import { openaiCompatible } from './openai-compatible.ts';

interface Body {
  messages: Record<string, unknown>[];
  tools?: unknown;
}

runWireConformance({
  name: 'openai-compatible',
  model: (url, retry) =>
    openaiCompatible({
      baseURL: `${url}/v1`,
      apiKey: 'test-key',
      model: 'gpt-test',
      ...retry,
    }),
  toolResults: (body) =>
    (body as Body).messages
      .filter((message) => message['role'] === 'tool')
      .map((message) => ({
        id: String(message['tool_call_id']),
        content: message['content'],
        isError: undefined,
      })),
  toolsSent: (body) => (body as Body).tools,
  hasErrorChannel: false,
  framesBeforeContent: 1,
  framesThroughFirstText: 2,
  overloaded: { status: 503, code: 'server_error', message: 'Overloaded' },
  badRequestCode: 'invalid_request_error',
});

describe('openaiCompatible', () => {
  it('needs an API key for api.openai.com and an absolute base URL', () => {
    expect(() =>
      openaiCompatible({
        baseURL: 'https://api.openai.com/v1',
        model: 'gpt-4o-mini',
      }),
    ).toThrow(/apiKey is required/);
    // A blank key is missing too, and the host may be written fully qualified.
    for (const baseURL of [
      'https://api.openai.com/v1',
      'https://api.openai.com./v1',
      'https://API.OpenAI.com:443/v1',
    ]) {
      for (const apiKey of [undefined, '', '  \n']) {
        expect(() =>
          openaiCompatible({
            baseURL,
            model: 'gpt-4o-mini',
            ...(apiKey === undefined ? {} : { apiKey }),
          }),
        ).toThrow(/apiKey is required/);
      }
    }
    expect(() =>
      openaiCompatible({ baseURL: 'not a url', model: 'x' }),
    ).toThrow(/baseURL must be an absolute URL/);
    expect(
      openaiCompatible({
        baseURL: 'http://127.0.0.1:11434/v1',
        model: 'llama3',
      }).provider,
    ).toBe('openai');
  });
});
