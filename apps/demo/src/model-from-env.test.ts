import { LlmTestServer } from '@candor/testing';
import { describe, expect, it } from 'vitest';
import { modelFromEnv } from './model-from-env.ts';

describe('modelFromEnv', () => {
  it('selects the Responses wire with openai-responses:<model>, Chat Completions with openai:<model>', async () => {
    const server = new LlmTestServer();
    server.conversation('hi', (c) => {
      c.step('responses').responds('Hello.');
      c.step('chat completions').responds('Hello again.');
    });
    const { url, close } = await server.start();
    try {
      for (const spec of ['openai-responses:gpt-test', 'openai:gpt-test']) {
        const model = modelFromEnv({
          CANDOR_MODEL: spec,
          OPENAI_API_KEY: 'test-key',
          OPENAI_BASE_URL: `${url}/v1`,
        });
        expect(model?.provider).toBe('openai');
        expect(model?.model).toBe('gpt-test');
        for await (const _event of model?.stream({
          messages: [{ role: 'user', content: 'hi' }],
          tools: [],
        }) ?? []);
      }
      expect(server.journal.map((attempt) => attempt.path)).toEqual([
        '/v1/responses',
        '/v1/chat/completions',
      ]);
    } finally {
      await close();
    }
  });

  it('needs OPENAI_API_KEY for the Responses wire', () => {
    // The wire falls back to the process's own variable: the test must not see one.
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      expect(() =>
        modelFromEnv({ CANDOR_MODEL: 'openai-responses:gpt-5-mini' }),
      ).toThrow(/openaiResponses: an apiKey is required/);
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
  });
});
