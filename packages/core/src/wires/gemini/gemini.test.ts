import { describe, expect, it } from 'vitest';
import { runWireConformance } from '../wire-conformance.case.ts';
import { gemini } from './gemini.ts';

interface Body {
  contents: { role: string; parts: Record<string, unknown>[] }[];
  tools?: unknown;
}

interface FunctionResponse {
  id?: string;
  name: string;
  response: { output?: unknown; error?: { code: string; message: unknown } };
}

runWireConformance({
  name: 'gemini',
  model: (url, retry) =>
    gemini({
      baseURL: url,
      apiKey: 'test-key',
      model: 'gemini-test',
      ...retry,
    }),
  toolResults: (body) =>
    (body as Body).contents.flatMap((content) =>
      content.parts
        .map((part) => part['functionResponse'] as FunctionResponse | undefined)
        .filter((response) => response !== undefined)
        .map(({ id, response }) => ({
          id: String(id),
          content: response.error?.message ?? response.output,
          isError: response.error === undefined ? undefined : true,
        })),
    ),
  toolsSent: (body) => (body as Body).tools,
  hasErrorChannel: true,
  framesBeforeContent: 0,
  framesThroughFirstText: 1,
  overloaded: {
    status: 503,
    code: 'UNAVAILABLE',
    message: 'The model is overloaded. Please try again later.',
  },
  badRequestCode: 'INVALID_ARGUMENT',
  inStreamStatus: true,
  reasoningModel: (url) =>
    gemini({
      baseURL: url,
      apiKey: 'test-key',
      model: 'gemini-3-test',
      thinkingConfig: { includeThoughts: true },
    }),
});

describe('gemini', () => {
  it('needs an API key, from the options or GEMINI_API_KEY', () => {
    const saved = process.env['GEMINI_API_KEY'];
    delete process.env['GEMINI_API_KEY'];
    try {
      expect(() => gemini({ model: 'gemini-test' })).toThrow(
        /gemini: an apiKey is required/,
      );
      expect(() => gemini({ apiKey: ' \n', model: 'gemini-test' })).toThrow(
        /gemini: an apiKey is required/,
      );
    } finally {
      if (saved !== undefined) process.env['GEMINI_API_KEY'] = saved;
    }
    expect(() =>
      gemini({ apiKey: 'k', model: 'm', baseURL: 'not a url' }),
    ).toThrow(/baseURL must be an absolute URL/);
    expect(() => gemini({ apiKey: 'k', model: '' })).toThrow(
      /model is required/,
    );
  });
});
