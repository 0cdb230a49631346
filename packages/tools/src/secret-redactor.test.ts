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

  it('censor: scrubs keys and known values at any depth, and shares what has no secret', () => {
    const clean = { rows: [1, 2, 3], note: 'fine' };
    const value = {
      clean,
      out: ['key sk-123456 used'],
      nested: { apiKey: 'sk-123456' },
    };
    const censored = redactor.censor(value, ['sk-123456']) as typeof value;
    expect(censored).toEqual({
      clean,
      out: ['key [REDACTED] used'],
      nested: { apiKey: '[REDACTED]' },
    });
    expect(censored.clean).toBe(clean);
    expect(redactor.censor(clean)).toBe(clean);
    expect(value.nested.apiKey).toBe('sk-123456');
  });

  it('censor: never shares a cyclic object that holds a secret, and fails closed on a throwing getter', () => {
    const cyclic: Record<string, unknown> = { password: 'hunter22' };
    cyclic['self'] = { back: cyclic };
    expect(JSON.stringify(redactor.censor(cyclic))).not.toContain('hunter22');
    const hostile = new Proxy(
      { token: 'hunter22' },
      {
        ownKeys: () => {
          throw new Error('no keys for you');
        },
      },
    );
    expect(redactor.censor({ hostile })).toBe('[Unreadable]');
  });
});

describe('SecretRedactor: what JSON.stringify would write', () => {
  // A walk over own keys sees `toJSON` as a method and moves on; JSON.stringify then calls it,
  // and the keys it returns were never looked at.
  const hidden = {
    id: 7,
    creds: {
      toJSON: (key: string) => ({ key, password: 'hunter2-from-toJSON' }),
    },
    list: [{ toJSON: () => ({ apiKey: 'k3y-from-toJSON-in-array' }) }],
    when: new Date(0),
  };

  it('redact and censor censor the keys a toJSON returns, and keep what a Date writes', () => {
    const redactor = new SecretRedactor();
    for (const copy of [redactor.redact(hidden), redactor.censor(hidden)]) {
      const json = JSON.stringify(copy);
      expect(json).not.toContain('from-toJSON');
      expect(JSON.parse(json)).toEqual({
        id: 7,
        creds: { key: 'creds', password: '[REDACTED]' },
        list: [{ apiKey: '[REDACTED]' }],
        when: '1970-01-01T00:00:00.000Z',
      });
    }
  });

  it('secretValues and collectSecrets find the secrets a toJSON returns', () => {
    const redactor = new SecretRedactor();
    expect(redactor.secretValues(hidden)).toEqual([
      'hunter2-from-toJSON',
      'k3y-from-toJSON-in-array',
    ]);
    const found: string[] = [];
    expect(redactor.collectSecrets(hidden, found)).toBe(true);
    expect(found).toHaveLength(2);
  });

  it('censor fails closed on a toJSON that throws', () => {
    const redactor = new SecretRedactor();
    const hostile = {
      toJSON: () => {
        throw new Error('no');
      },
    };
    expect(redactor.censor({ hostile })).toBe('[Unreadable]');
  });
});

describe('SecretRedactor: one walk instead of two', () => {
  const redactor = new SecretRedactor();

  it('redact(value, found) collects what secretValues collects, in the same walk', () => {
    const value = {
      q: 'weather',
      auth: { user: 'ada', pass: 'hunter22', pin: 1234 },
      list: [{ apiKey: 'sk-123456' }, { note: 'sk-123456 is not here' }],
    };
    const found: string[] = [];

    const copy = redactor.redact(value, found);

    expect(copy).toEqual({
      q: 'weather',
      auth: '[REDACTED]',
      list: [{ apiKey: '[REDACTED]' }, { note: 'sk-123456 is not here' }],
    });
    expect(found.sort()).toEqual(redactor.secretValues(value).sort());
    expect(found.sort()).toEqual(['1234', 'hunter22', 'sk-123456']);
  });

  it('collectSecrets says whether any secret key is there, even one too short to collect', () => {
    const found: string[] = [];
    expect(
      redactor.collectSecrets({ rows: [1, 2], nested: { a: 'b' } }, found),
    ).toBe(false);
    expect(redactor.collectSecrets('sk-123456', found)).toBe(false);
    expect(found).toEqual([]);

    expect(redactor.collectSecrets({ deep: [{ token: 'ab' }] }, found)).toBe(
      true,
    );
    expect(found).toEqual([]);
    expect(
      redactor.collectSecrets({ deep: { password: 'hunter22' } }, found),
    ).toBe(true);
    expect(found).toEqual(['hunter22']);
  });

  it('collectSecrets ends on cycles and shared objects, and fails closed on a throwing read', () => {
    const cyclic: Record<string, unknown> = { inner: { secret: 'topsecret' } };
    cyclic['self'] = cyclic;
    (cyclic['inner'] as Record<string, unknown>)['back'] = cyclic;
    const found: string[] = [];
    expect(redactor.collectSecrets(cyclic, found)).toBe(true);
    expect(found).toEqual(['topsecret']);

    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no keys for you');
        },
      },
    );
    expect(redactor.collectSecrets({ hostile }, [])).toBe(true);
    expect(redactor.censor({ hostile })).toBe('[Unreadable]');
  });

  it('censor returns primitives as they are and scrubs a bare string', () => {
    expect(redactor.censor(42, ['42'])).toBe(42);
    expect(redactor.censor(null)).toBe(null);
    expect(redactor.censor('key sk-123456', ['sk-123456'])).toBe(
      'key [REDACTED]',
    );
  });
});
