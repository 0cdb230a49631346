// The guards of serveRegistry's HTTP transport, attacked directly: missing, wrong and
// near-miss bearer tokens (also on a live session's id), the compare's constant time, and the
// loopback-only default seen from the machine's other addresses.
import * as crypto from 'node:crypto';
import { networkInterfaces } from 'node:os';
import {
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { outcomeRegistry } from './__fixtures__/outcome-registry.ts';
import {
  rawInitialize,
  serveOverHttp,
} from './__fixtures__/serve-over-http.ts';
import { type RegistryService } from './serve-options.ts';
import { serveRegistry } from './serve-registry.ts';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const TOKEN = 's3cret-token';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeEach(() => {
  vi.mocked(crypto.timingSafeEqual).mockClear();
});

function serve(
  options: {
    bearerToken?: string;
    host?: string;
    allowedHosts?: string[];
  } = {},
): Promise<RegistryService & { url: URL }> {
  return serveOverHttp(outcomeRegistry(), options, cleanups);
}

function post(
  url: URL,
  headers: Record<string, string>,
  body = rawInitialize,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

describe('serveRegistry over HTTP with a bearer token', () => {
  it.each([
    ['no Authorization header', {}],
    ['an empty header', { authorization: '' }],
    ['another scheme', { authorization: `Basic ${TOKEN}` }],
    ['the token without the scheme', { authorization: TOKEN }],
    [
      'a wrong token of the same length',
      { authorization: 'Bearer s3cret-tokeN' },
    ],
    ['a prefix of the token', { authorization: 'Bearer s3cret' }],
    ['the token and more', { authorization: `Bearer ${TOKEN}x` }],
  ])('answers 401 to %s, before any routing', async (_label, headers) => {
    const service = await serve({ bearerToken: TOKEN });
    const response = await post(service.url, headers);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    const offPath = await post(new URL('/elsewhere', service.url), headers);
    expect(offPath.status).toBe(401);
  });

  it.each([`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`])(
    'answers 200 to the right token, whatever the case of the scheme (%s)',
    async (authorization) => {
      const service = await serve({ bearerToken: TOKEN });
      const response = await post(service.url, { authorization });
      expect(response.status).toBe(200);
    },
  );

  it('keeps the token itself case-sensitive', async () => {
    const service = await serve({ bearerToken: TOKEN });
    const response = await post(service.url, {
      authorization: `Bearer ${TOKEN.toUpperCase()}`,
    });
    expect(response.status).toBe(401);
  });

  it("refuses a live session's id without the token: the id is not a credential", async () => {
    const service = await serve({ bearerToken: TOKEN });
    const client = new Client({ name: 'test', version: '1' });
    const transport = new StreamableHTTPClientTransport(service.url, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const sessionId = transport.sessionId;
    expect(sessionId).toBeTypeOf('string');
    const hijack = await post(
      service.url,
      {
        'mcp-session-id': String(sessionId),
        'mcp-protocol-version': '2025-06-18',
      },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(hijack.status).toBe(401);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('compares in constant time whatever the length given: timingSafeEqual on equal-length digests', async () => {
    const service = await serve({ bearerToken: TOKEN });
    const given = [
      '',
      'Bearer x',
      `Bearer ${TOKEN}`,
      `Bearer ${'y'.repeat(500)}`,
    ];
    for (const authorization of given)
      await post(service.url, { authorization });
    const calls = vi.mocked(crypto.timingSafeEqual).mock.calls;
    // Every request was compared, none turned away early on its length.
    expect(calls).toHaveLength(given.length);
    for (const [a, b] of calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
  });

  it('refuses an empty token when serving rather than guard nothing', async () => {
    await expect(
      serveRegistry(outcomeRegistry(), { transport: 'http', bearerToken: '' }),
    ).rejects.toThrow(/bearerToken must not be empty/);
  });
});

const outside = Object.values(networkInterfaces())
  .flat()
  .find(
    (entry) =>
      entry !== undefined && !entry.internal && entry.family === 'IPv4',
  );

describe('serveRegistry over HTTP, bound to loopback by default', () => {
  it.skipIf(outside === undefined)(
    "cannot be reached on the machine's other addresses",
    async () => {
      const service = await serve();
      expect(service.url.hostname).toBe('127.0.0.1');
      expect((await post(service.url, {})).status).toBe(200);
      const elsewhere = new URL(service.url);
      elsewhere.hostname = outside?.address ?? '';
      await expect(post(elsewhere, {})).rejects.toThrow();
    },
  );

  it.skipIf(outside === undefined)(
    'is reachable there when the caller binds 0.0.0.0 and allows that Host on purpose (so the test above can fail)',
    async () => {
      const address = outside?.address ?? '';
      const open = await serve({ host: '0.0.0.0' });
      const elsewhere = new URL(open.url);
      elsewhere.hostname = address;
      // Bound everywhere, the Host guard still wants a name it was told about.
      expect((await post(elsewhere, {})).status).toBe(403);
      const allowed = await serve({
        host: '0.0.0.0',
        allowedHosts: ['localhost', address],
      });
      elsewhere.port = allowed.url.port;
      expect((await post(elsewhere, {})).status).toBe(200);
    },
  );
});
