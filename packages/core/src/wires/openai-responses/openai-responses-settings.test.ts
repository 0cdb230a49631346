import { describe, expect, it } from 'vitest';
import { calculatorRegistry } from '../calculator-registry.case.ts';
import { Agent } from '../../agent.ts';
import { serve } from './loopback-responses-server.case.ts';
import { openaiResponses } from './openai-responses.ts';

function model(
  url: string,
  extra: Partial<Parameters<typeof openaiResponses>[0]> = {},
) {
  return openaiResponses({
    baseURL: url,
    apiKey: 'sk-test-key-123456',
    model: 'gpt-5-mini',
    ...extra,
  });
}

describe('openaiResponses: call settings and options', () => {
  it('maps call settings per model and per run, then merges providerOptions.openai last', async () => {
    const { url, requests } = await serve([{ fixture: 'text.sse' }]);
    const agent = new Agent({
      model: model(url, {
        temperature: 0.2,
        maxOutputTokens: 100,
        reasoning: { effort: 'low' },
        providerOptions: { openai: { parallel_tool_calls: false } },
      }),
      registry: calculatorRegistry(),
    });
    await agent.run('hi', {
      settings: {
        topP: 0.9,
        maxOutputTokens: 200,
        providerOptions: {
          openai: {
            service_tier: 'flex',
            include: ['message.output_text.logprobs'],
            reasoning: { summary: 'detailed' },
          },
          anthropic: { top_k: 3 },
        },
      },
    });
    const body = requests[0]?.body;
    expect(body).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 200,
      parallel_tool_calls: false,
      service_tier: 'flex',
      // Objects merge key by key: the vendor field adds to the wire's reasoning.
      reasoning: { effort: 'low', summary: 'detailed' },
      // The caller's include is added to the wire's, never replacing it.
      include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
      store: false,
      stream: true,
    });
    expect(body).not.toHaveProperty('top_k');
  });

  it('refuses stop sequences and seed, which the Responses API does not have', async () => {
    expect(() =>
      openaiResponses({ apiKey: 'k', model: 'gpt-5', stopSequences: ['END'] }),
    ).toThrow(/openaiResponses: stopSequences is not supported/);
    expect(() =>
      openaiResponses({ apiKey: 'k', model: 'gpt-5', seed: 7 }),
    ).toThrow(/openaiResponses: seed is not supported/);
    const { url, requests } = await serve([{ fixture: 'text.sse' }]);
    const result = await new Agent({
      model: model(url),
      registry: calculatorRegistry(),
    }).run('hi', { settings: { stopSequences: ['END'] } });
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError?.message).toMatch(
      /stopSequences is not supported/,
    );
    expect(requests).toHaveLength(0);
  });

  it('checks its options when the model is made', () => {
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      expect(() => openaiResponses({ model: 'gpt-5' })).toThrow(
        /openaiResponses: an apiKey is required \(pass \{ apiKey \} or set OPENAI_API_KEY\)/,
      );
      expect(() => openaiResponses({ apiKey: 'k', model: '' })).toThrow(
        /model is required/,
      );
      expect(() =>
        openaiResponses({
          apiKey: 'k',
          model: 'gpt-5',
          reasoning: { effort: '' },
        }),
      ).toThrow(/reasoning.effort must be a non-empty string/);
      expect(() =>
        openaiResponses({ apiKey: 'k', model: 'gpt-5', temperature: -1 }),
      ).toThrow(RangeError);
      const made = openaiResponses({ apiKey: 'k', model: 'gpt-5' });
      expect(made.provider).toBe('openai');
      expect(made.model).toBe('gpt-5');
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
  });

  it('sends strict tools when asked', async () => {
    const { url, requests } = await serve([{ fixture: 'text.sse' }]);
    await new Agent({
      model: model(url, { strictTools: true }),
      registry: calculatorRegistry(),
    }).run('hi');
    expect(requests[0]?.body['tools']).toMatchObject([{ strict: true }]);
  });
});
