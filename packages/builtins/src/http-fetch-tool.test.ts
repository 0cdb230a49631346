import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, codeOf } from './__fixtures__/call-tool.ts';
import { httpFetchTool } from './http-fetch-tool.ts';

type Handler = (
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
) => void;

const routes: Record<string, Handler> = {
  '/ok': (_q, r) => r.end('hello'),
  '/error-text': (_q, r) =>
    r.end('Error: this body says error but the status is 200'),
  '/json': (_q, r) => {
    r.setHeader('content-type', 'application/json');
    r.end('{"items":[1,2]}');
  },
  '/echo': (q, r, body) => r.end(`${q.method ?? ''} ${body}`),
  '/redirect': (_q, r) => {
    r.statusCode = 302;
    r.setHeader('location', '/ok');
    r.end();
  },
  '/big': (_q, r) => r.end('x'.repeat(10_000)),
  '/hang': () => undefined,
  '/404': (_q, r) => {
    r.statusCode = 404;
    r.end('no such item');
  },
  '/401': (_q, r) => {
    r.statusCode = 401;
    r.end();
  },
  '/403': (_q, r) => {
    r.statusCode = 403;
    r.end();
  },
  '/429': (_q, r) => {
    r.statusCode = 429;
    r.setHeader('retry-after', '7');
    r.end('slow down');
  },
  '/500': (_q, r) => {
    r.statusCode = 500;
    r.end();
  },
  '/503': (_q, r) => {
    r.statusCode = 503;
    r.end();
  },
};
for (const status of [400, 408, 409, 410, 412, 422, 504]) {
  routes[`/${String(status)}`] = (_q, r) => {
    r.statusCode = status;
    r.end();
  };
}

// These tests talk to servers on 127.0.0.1, which http_fetch reaches only when told to.
const LOCAL = { allowHosts: ['127.0.0.1', '::1'] } as const;

let server: Server;
let base: string;
let closedPortUrl: string;

function listen(target: Server): Promise<number> {
  return new Promise((resolve) => {
    target.listen(0, '127.0.0.1', () => {
      resolve((target.address() as AddressInfo).port);
    });
  });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const handler = routes[request.url ?? ''];
      if (handler === undefined) {
        response.statusCode = 404;
        response.end();
      } else handler(request, response, body);
    });
  });
  base = `http://127.0.0.1:${await listen(server)}`;
  // A port that was just free: nothing listens there any more.
  const closed = createServer();
  closedPortUrl = `http://127.0.0.1:${await listen(closed)}/`;
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('http_fetch outcomes', () => {
  it.each([
    ['200', '/ok', 'success'],
    ['200 whose body says "Error"', '/error-text', 'success'],
    ['a redirect to 200', '/redirect', 'success'],
    ['404', '/404', 'NOT_FOUND'],
    ['401', '/401', 'ACCESS_DENIED'],
    ['403', '/403', 'ACCESS_DENIED'],
    ['429', '/429', 'RATE_LIMIT'],
    ['500', '/500', 'API_ERROR'],
    ['503', '/503', 'API_ERROR'],
    ['410', '/410', 'NOT_FOUND'],
    ['400', '/400', 'INVALID_PARAM'],
    ['422', '/422', 'INVALID_PARAM'],
    ['408', '/408', 'TIMEOUT'],
    ['504', '/504', 'TIMEOUT'],
    ['409', '/409', 'CONFLICT'],
    ['412', '/412', 'CONFLICT'],
  ])('%s → %s', async (_name, path, expected) => {
    const response = await callTool(httpFetchTool(LOCAL), {
      url: `${base}${path}`,
    });
    expect(codeOf(response)).toBe(expected);
  });

  it.each([
    ['a file URL', { url: 'file:///etc/passwd' }],
    ['not a URL', { url: 'not a url' }],
    ['a GET with a body', { url: 'http://127.0.0.1/', body: 'x' }],
    ['an unknown method', { url: 'http://127.0.0.1/', method: 'DELETE' }],
  ])('%s → INVALID_PARAM', async (_name, args) => {
    const response = await callTool(httpFetchTool(LOCAL), args);
    expect(codeOf(response)).toBe('INVALID_PARAM');
  });

  it('returns status, headers and body, and parses JSON', async () => {
    const response = await callTool(httpFetchTool(LOCAL), {
      url: `${base}/json`,
    });
    expect(response.status).toBe('success');
    expect(response.text).toBe('{"items":[1,2]}');
    expect(response.data).toMatchObject({
      status: 200,
      method: 'GET',
      json: { items: [1, 2] },
      headers: { 'content-type': 'application/json' },
    });
  });

  it('POSTs a body', async () => {
    const response = await callTool(httpFetchTool(LOCAL), {
      url: `${base}/echo`,
      method: 'POST',
      body: 'payload',
    });
    expect(response.text).toBe('POST payload');
  });

  it('takes retryAfterMs from Retry-After on 429', async () => {
    const response = await callTool(httpFetchTool(LOCAL), {
      url: `${base}/429`,
    });
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'RATE_LIMIT',
      retryable: true,
      retryAfterMs: 7000,
    });
    expect(response.data).toMatchObject({ status: 429, body: 'slow down' });
  });

  it('marks 5xx retryable and 404 not', async () => {
    const server500 = await callTool(httpFetchTool(LOCAL), {
      url: `${base}/500`,
    });
    const missing = await callTool(httpFetchTool(LOCAL), {
      url: `${base}/404`,
    });
    expect(server500.status === 'error' && server500.errorInfo.retryable).toBe(
      true,
    );
    expect(missing.status === 'error' && missing.errorInfo.retryable).toBe(
      false,
    );
    expect(missing.text).toContain('no such item');
  });

  it('is PARTIAL over the body cap', async () => {
    const response = await callTool(
      httpFetchTool({ ...LOCAL, maxBodyBytes: 100 }),
      {
        url: `${base}/big`,
      },
    );
    expect(response.status).toBe('partial');
    if (response.status !== 'partial') return;
    expect(response.reason).toBe('body_cap');
    expect(response.data).toMatchObject({
      bytes: 100,
      truncated: true,
      body: 'x'.repeat(100),
    });
  });

  it('keeps secrets in the URL out of an HTTP error and a success, as out of a network failure', async () => {
    routes['/401?api_key=k3y-in-query'] = (_q, r) => {
      r.statusCode = 401;
      r.end('who are you');
    };
    routes['/ok?token=t0k-in-query'] = (_q, r) => r.end('hello');
    const tool = httpFetchTool(LOCAL);
    const denied = await callTool(tool, {
      url: `${base}/401?api_key=k3y-in-query`,
    });
    expect(codeOf(denied)).toBe('ACCESS_DENIED');
    expect(denied.status === 'error' && denied.errorInfo.message).toContain(
      '?api_key=*** answered 401',
    );
    const fine = await callTool(tool, { url: `${base}/ok?token=t0k-in-query` });
    expect(fine.status).toBe('success');
    expect(fine.text).toBe('hello');
    expect((fine.data as { url: string }).url).toBe(`${base}/ok?token=***`);
    const refused = await callTool(tool, {
      url: `${closedPortUrl}?token=t0k-in-query`,
    });
    for (const response of [denied, fine, refused]) {
      expect(JSON.stringify(response)).not.toMatch(/k3y-in-query|t0k-in-query/);
    }
  });

  it('on a redirect to another origin drops Authorization but not x-api-key (docs/builtins.md says so)', async () => {
    let seen: Record<string, unknown> = {};
    const other = createServer((request, response) => {
      seen = request.headers;
      response.end('elsewhere');
    });
    const port = await listen(other);
    routes['/to-other-origin'] = (_q, r) => {
      r.statusCode = 302;
      r.setHeader('location', `http://localhost:${String(port)}/x`);
      r.end();
    };
    try {
      const response = await callTool(
        httpFetchTool({
          ...LOCAL,
          headers: { authorization: 'Bearer opt-auth', 'x-api-key': 'opt-key' },
        }),
        { url: `${base}/to-other-origin` },
      );
      expect(response.status).toBe('success');
      expect(seen['authorization']).toBeUndefined();
      expect(seen['x-api-key']).toBe('opt-key');
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('is NETWORK_ERROR when nothing listens', async () => {
    const response = await callTool(httpFetchTool(LOCAL), {
      url: closedPortUrl,
    });
    expect(codeOf(response)).toBe('NETWORK_ERROR');
  });

  it('is TIMEOUT when the server never answers', async () => {
    const response = await callTool(httpFetchTool(LOCAL), {
      url: `${base}/hang`,
      timeoutMs: 100,
    });
    expect(codeOf(response)).toBe('TIMEOUT');
    expect(response.text).toContain('within 100 ms');
  });

  it('is a cancellation, not a timeout, when the caller aborts', async () => {
    const controller = new AbortController();
    const call = callTool(
      httpFetchTool(LOCAL),
      { url: `${base}/hang` },
      { signal: controller.signal },
    );
    controller.abort();
    const response = await call;
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
  });
});
