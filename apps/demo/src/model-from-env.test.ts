import { describe, expect, it } from 'vitest';
import { modelFromEnv } from './model-from-env.ts';

describe('modelFromEnv', () => {
  it('selects the Responses wire with openai-responses:<model>', () => {
    const model = modelFromEnv({
      CANDOR_MODEL: 'openai-responses:gpt-5-mini',
      OPENAI_API_KEY: 'test-key',
    });
    expect(model?.provider).toBe('openai');
    expect(model?.model).toBe('gpt-5-mini');
    // openai:<model> stays Chat Completions: main.test.ts runs both against the test server
    // and checks the path each requests.
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
