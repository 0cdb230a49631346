import { describe, expect, it } from 'vitest';
import { checkCallSettings, mergeCallSettings } from './call-settings.ts';

describe('checkCallSettings', () => {
  it('copies valid settings once', () => {
    let reads = 0;
    const settings = {
      get temperature() {
        reads += 1;
        return 0.5;
      },
      stopSequences: ['END'],
      providerOptions: { anthropic: { top_k: 5 } },
    };
    const checked = checkCallSettings(settings, 'test');
    expect(checked).toEqual({
      temperature: 0.5,
      stopSequences: ['END'],
      providerOptions: { anthropic: { top_k: 5 } },
    });
    expect(reads).toBe(1);
    settings.stopSequences.push('LATER');
    expect(checked.stopSequences).toEqual(['END']);
  });

  it.each([
    [{ temperature: -1 }, /temperature must be a finite number of at least 0/],
    [{ temperature: Number.NaN }, /temperature/],
    [{ temperature: '0.5' }, /temperature/],
    [{ topP: 0 }, /topP must be a number greater than 0 and at most 1/],
    [{ topP: 1.5 }, /topP/],
    [{ maxOutputTokens: 0 }, /maxOutputTokens must be a positive integer/],
    [{ maxOutputTokens: 1.5 }, /maxOutputTokens/],
    [{ seed: 0.5 }, /seed must be an integer/],
    [
      { stopSequences: 'END' },
      /stopSequences must be an array of non-empty strings/,
    ],
    [{ stopSequences: [''] }, /stopSequences/],
    [{ providerOptions: [] }, /providerOptions must be a plain object/],
    [
      { providerOptions: { openai: 1 } },
      /providerOptions.openai must be a plain object/,
    ],
    [{ maxTokens: 10 }, /unknown setting "maxTokens"/],
    [null, /settings must be a plain object/],
  ])('refuses %j with a clear error', (settings, message) => {
    expect(() => checkCallSettings(settings, 'Agent.run settings')).toThrow(
      message,
    );
    expect(() => checkCallSettings(settings, 'Agent.run settings')).toThrow(
      /^Agent\.run settings: /,
    );
  });
});

describe('mergeCallSettings', () => {
  it('lays the run over the model key by key, providerOptions per wire', () => {
    expect(
      mergeCallSettings(
        {
          temperature: 1,
          seed: 3,
          providerOptions: { openai: { a: 1, b: 1 }, google: { x: 1 } },
        },
        { temperature: 0, providerOptions: { openai: { b: 2 } } },
      ),
    ).toEqual({
      temperature: 0,
      seed: 3,
      providerOptions: { openai: { a: 1, b: 2 }, google: { x: 1 } },
    });
  });
});

describe('checkCallSettings: hostile providerOptions', () => {
  it('reads a nested getter once and sends the value it read', () => {
    let reads = 0;
    const generationConfig = {
      get topK() {
        reads += 1;
        return reads;
      },
    };
    const checked = checkCallSettings(
      { providerOptions: { google: { generationConfig } } },
      'test',
    );
    expect(checked.providerOptions?.['google']).toEqual({
      generationConfig: { topK: 1 },
    });
    expect(JSON.stringify(checked)).toContain('"topK":1');
    expect(reads).toBe(1);
  });

  it('a nested Proxy that throws fails the check, not a request', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    expect(() =>
      checkCallSettings({ providerOptions: { openai: { x: hostile } } }, 't'),
    ).toThrow(/boom|JSON/);
  });

  it.each([
    [{ n: 1n }, /providerOptions\.openai\.n must be JSON \(got bigint\)/],
    [{ f: () => 1 }, /providerOptions\.openai\.f must be JSON/],
    [{ d: new Date(0) }, /providerOptions\.openai\.d must be JSON/],
    [{ a: [1, Number.POSITIVE_INFINITY] }, /openai\.a\[1\] must be a finite/],
  ])('refuses %o, naming the path', (value, message) => {
    expect(() =>
      checkCallSettings({ providerOptions: { openai: value } }, 't'),
    ).toThrow(message);
  });

  it('refuses a cycle', () => {
    const loop: Record<string, unknown> = {};
    loop['self'] = loop;
    expect(() =>
      checkCallSettings({ providerOptions: { openai: { loop } } }, 't'),
    ).toThrow(/openai\.loop\.self refers back to itself/);
  });

  it('keeps a value shared twice (no cycle) and drops unset fields', () => {
    const shared = { a: 1 };
    expect(
      checkCallSettings(
        { providerOptions: { openai: { x: shared, y: shared, z: undefined } } },
        't',
      ).providerOptions,
    ).toEqual({ openai: { x: { a: 1 }, y: { a: 1 } } });
  });
});
