import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  hostedWireOptions,
  vendorErrorMessage,
} from './hosted-wire-options.ts';

const defaults = {
  apiKeyVariable: 'CANDOR_TEST_KEY',
  baseURL: 'https://api.example.test/',
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('hostedWireOptions', () => {
  it('takes the key from the options, else from the environment variable', () => {
    vi.stubEnv('CANDOR_TEST_KEY', 'from-env');
    expect(
      hostedWireOptions('w', { apiKey: 'k', model: 'm' }, defaults),
    ).toEqual({ apiKey: 'k', baseURL: 'https://api.example.test' });
    expect(hostedWireOptions('w', { model: 'm' }, defaults).apiKey).toBe(
      'from-env',
    );
  });

  it('names the wire and the variable when the key is missing or empty', () => {
    vi.stubEnv('CANDOR_TEST_KEY', '');
    for (const apiKey of [undefined, '']) {
      expect(() =>
        hostedWireOptions(
          'w',
          { ...(apiKey === undefined ? {} : { apiKey }), model: 'm' },
          defaults,
        ),
      ).toThrow(
        'w: an apiKey is required (pass { apiKey } or set CANDOR_TEST_KEY)',
      );
    }
  });

  it('refuses a missing model and a base URL that is not absolute', () => {
    expect(() =>
      hostedWireOptions('w', { apiKey: 'k', model: '' }, defaults),
    ).toThrow('w: model is required');
    expect(() =>
      hostedWireOptions(
        'w',
        { apiKey: 'k', model: 'm', baseURL: '/relative' },
        defaults,
      ),
    ).toThrow('w: baseURL must be an absolute URL, got "/relative"');
  });

  it('drops the trailing slashes of a given base URL', () => {
    expect(
      hostedWireOptions(
        'w',
        { apiKey: 'k', model: 'm', baseURL: 'http://127.0.0.1:9/v1//' },
        defaults,
      ).baseURL,
    ).toBe('http://127.0.0.1:9/v1');
  });
});

describe('vendorErrorMessage', () => {
  it('puts the kind the vendor names before the message', () => {
    const body = {
      error: { type: 'overloaded_error', status: 'UNAVAILABLE', message: 'm' },
    };
    expect(vendorErrorMessage(body, 'type')).toBe('overloaded_error: m');
    expect(vendorErrorMessage(body, 'status')).toBe('UNAVAILABLE: m');
    expect(vendorErrorMessage({ error: { message: 'm' } }, 'type')).toBe('m');
  });

  it('finds nothing in a body without a string message', () => {
    for (const body of [
      null,
      'text',
      42,
      {},
      { error: null },
      { error: 'down' },
      { error: { type: 'x', message: 7 } },
    ])
      expect(vendorErrorMessage(body, 'type')).toBeUndefined();
  });
});
