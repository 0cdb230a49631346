import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runInNewContext } from 'node:vm';
import { classifyError } from './classify-error.ts';
import { scrubUrlSecrets } from './scrub-url-secrets.ts';

const servers: { close: (done: () => void) => unknown }[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((done) => {
          server.close(() => {
            done();
          });
        }),
    ),
  );
});

async function listen(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('no port');
  return address.port;
}

/** A port that nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((done) =>
    server.close(() => {
      done();
    }),
  );
  return port;
}

async function fetchError(url: string): Promise<unknown> {
  try {
    await fetch(url);
  } catch (error: unknown) {
    return error;
  }
  throw new Error(`fetch ${url} did not fail`);
}

describe('classifyError names what happened on the network (real sockets)', () => {
  it('a refused connection names host, port and "connection refused"', async () => {
    const port = await closedPort();
    const classified = classifyError(
      await fetchError(`http://127.0.0.1:${port}/x`),
    );
    expect(classified.code).toBe('NETWORK_ERROR');
    expect(classified.retryable).toBe(true);
    expect(classified.message).toBe(
      `Connection refused by 127.0.0.1:${port}: nothing accepts connections there (ECONNREFUSED)`,
    );
  });

  it('a connection reset by the peer names host and port', async () => {
    const server = createServer((socket) => socket.resetAndDestroy());
    servers.push(server);
    const port = await listen(server);
    const classified = classifyError(
      await fetchError(`http://127.0.0.1:${port}/x`),
    );
    expect(classified.code).toBe('NETWORK_ERROR');
    expect(classified.message).toMatch(
      new RegExp(
        `^(Connection reset by|The connection to) 127\\.0\\.0\\.1:${port}\\b`,
      ),
    );
  });

  it('a redirect loop says so and is not retryable', async () => {
    const server = createHttpServer((_request, response) => {
      response.writeHead(302, { location: '/again' }).end();
    });
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    if (address === null || typeof address === 'string')
      throw new Error('no port');
    const classified = classifyError(
      await fetchError(`http://127.0.0.1:${address.port}/start`),
    );
    expect(classified.code).toBe('NETWORK_ERROR');
    expect(classified.retryable).toBe(false);
    expect(classified.message).toMatch(/redirect loop/);
    expect(classified.details).toEqual({ reason: 'redirect_loop' });
  });

  it.each([
    ['does not speak HTTP', 'NOT HTTP AT ALL\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    [
      'sends a 100 KB header',
      `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(100_000)}\r\ncontent-length: 2\r\n\r\nok`,
      'UND_ERR_HEADERS_OVERFLOW',
    ],
  ])(
    'a server that %s is an API_ERROR naming the cause, not "fetch failed"',
    async (_label, reply, code) => {
      const server = createServer((socket) => {
        socket.on('error', () => undefined);
        socket.once('data', () => socket.end(reply));
      });
      servers.push(server);
      const port = await listen(server);
      const classified = classifyError(
        await fetchError(`http://127.0.0.1:${port}/x`),
      );
      expect(classified.code).toBe('API_ERROR');
      expect(classified.retryable).toBe(false);
      expect(classified.message).toMatch(
        new RegExp(`^The server's answer is not valid HTTP: .+ \\(${code}\\)$`),
      );
      expect(classified.details).toEqual({ systemCode: code });
    },
  );

  it('a DNS failure names the host (the error Node gives for getaddrinfo)', () => {
    const lookup = Object.assign(
      new Error('getaddrinfo ENOTFOUND no-such-host.invalid'),
      {
        code: 'ENOTFOUND',
        errno: -3008,
        syscall: 'getaddrinfo',
        hostname: 'no-such-host.invalid',
      },
    );
    const classified = classifyError(
      new TypeError('fetch failed', { cause: lookup }),
    );
    expect(classified.code).toBe('NETWORK_ERROR');
    expect(classified.message).toBe(
      'DNS lookup failed for no-such-host.invalid: no such host (ENOTFOUND)',
    );
  });

  it('takes host and port from the first error of an AggregateError (both address families refused)', () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}:8080`), {
        code: 'ECONNREFUSED',
        address,
        port: 8080,
      });
    const aggregate = Object.assign(
      new AggregateError([refused('::1'), refused('127.0.0.1')]),
      { code: 'ECONNREFUSED' },
    );
    const classified = classifyError(
      new TypeError('fetch failed', { cause: aggregate }),
    );
    expect(classified.message).toMatch(/^Connection refused by \[::1\]:8080/);
  });
});

describe('scrubUrlSecrets', () => {
  it.each([
    ['http://user:pw@host:1/x', 'http://***@host:1/x'],
    [
      'see https://alice@example.com/a?b=1',
      'see https://***@example.com/a?b=1',
    ],
    [
      'GET http://h/p?api_key=abc123&page=2&token=t0k#frag',
      'GET http://h/p?api_key=***&page=2&token=***#frag',
    ],
    ['no url here: user@host', 'no url here: user@host'],
    // A password may hold a raw `@`; the userinfo ends at the last one (WHATWG URL parsing).
    ['GET https://user:p@ss@host/x failed', 'GET https://***@host/x failed'],
    // OAuth's implicit flow returns its token in the fragment.
    [
      'redirected to https://app/cb#access_token=abc&state=1',
      'redirected to https://app/cb#access_token=***&state=1',
    ],
    // A `?` inside a value does not hide the parameter after it.
    ['http://h/p?a=b?token=t0k', 'http://h/p?a=b?token=***'],
    // ... nor does a `?` or `;` inside a secret value end it.
    ['http://h/p?token=ab?c;d&x=1', 'http://h/p?token=***&x=1'],
  ])('%s → %s', (input, expected) => {
    expect(scrubUrlSecrets(input)).toBe(expected);
  });

  it('takes time linear in the text: a long hostile query does not stall the process', () => {
    // A model chooses http_fetch's URL. With the name pattern able to start at every `?` and to
    // backtrack over every `key` inside it, 4 KB of `?key` took 2 s and these 200 KB would take
    // days. A regular expression cannot be interrupted from a timer, so the scrub runs under
    // vm's watchdog: a hang guard 1000 times what the linear scrub needs, not a speed goal.
    const hostile = `http://h/${'?key'.repeat(50_000)}`;
    const dotted = `${'a.'.repeat(100_000)} http://u:pw@h/?token=x`;
    const [hostileOut, dottedOut] = runInNewContext(
      '[scrub(hostile), scrub(dotted)]',
      { scrub: scrubUrlSecrets, hostile, dotted },
      { timeout: 10_000 },
    ) as [string, string];
    expect(hostileOut).toBe(hostile);
    expect(dottedOut).toBe(`${'a.'.repeat(100_000)} http://***@h/?token=***`);
  });

  it('applies to every classified message', () => {
    const classified = classifyError(
      new TypeError(
        'Request cannot be constructed from a URL that includes credentials: http://root:hunter2@10.0.0.1/?password=hunter2',
      ),
    );
    expect(classified.message).not.toContain('hunter2');
  });
});
