import { describe, expect, it } from 'vitest';
import { scrubSecrets, SecretRedactor } from './secret-redactor.ts';

describe('SecretRedactor: the one redaction every surface uses', () => {
  const redactor = new SecretRedactor();

  it.each([
    'password',
    'apiKey',
    'x-api-key',
    'X-API-KEY',
    'authorization',
    'bearer',
    'bearerToken',
    'accessToken',
    'client_secret',
  ])('treats %s as a secret key', (key) => {
    expect(redactor.isSecretKey(key)).toBe(true);
  });

  it.each(['maxTokens', 'path', 'query', 'tokensUsed'])(
    'leaves %s alone',
    (key) => {
      expect(redactor.isSecretKey(key)).toBe(false);
    },
  );

  it('censors nested secrets, cuts cycles and keeps __proto__ as data', () => {
    const cyclic: Record<string, unknown> = { headers: { Bearer: 'abcd' } };
    cyclic['self'] = cyclic;
    const polluted = JSON.parse('{"__proto__":{"polluted":1}}') as object;
    expect(redactor.redact(cyclic)).toEqual({
      headers: { Bearer: '[REDACTED]' },
      self: '[Circular]',
    });
    const copy = redactor.redact(polluted) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('collects secret values so they can be scrubbed from free text', () => {
    const secrets = redactor.secretValues({
      auth: { 'x-api-key': 'sk-123456' },
    });
    expect(secrets).toEqual(['sk-123456']);
    expect(scrubSecrets('failed with key sk-123456', secrets)).toBe(
      'failed with key [REDACTED]',
    );
  });
});
