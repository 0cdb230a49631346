// http_fetch stays outside the machine: loopback targets, by address or by name, and a redirect
// from an allowed server to one that is not, are refused before the target sees a connection.
// Every server here listens on 127.0.0.1 or ::1; no test sends traffic anywhere else.
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, codeOf } from './__fixtures__/call-tool.ts';
import { httpFetchTool } from './http-fetch-tool.ts';

interface Target {
  readonly port: number;
  readonly seen: { connections: number; requests: number };
  redirectTo?: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

async function target(host: '127.0.0.1' | '::1'): Promise<Target> {
  const seen = { connections: 0, requests: 0 };
  const state: { redirectTo?: string } = {};
  const server = createServer((_request, response) => {
    seen.requests += 1;
    if (state.redirectTo !== undefined) {
      response.writeHead(302, { location: state.redirectTo }).end();
      return;
    }
    response.end('inside');
  });
  server.on('connection', () => {
    seen.connections += 1;
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, host, done));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, { port, seen });
}

describe('http_fetch, by default', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', (port: number) => `http://127.0.0.1:${port}/`],
    ['[::1]', '::1', (port: number) => `http://[::1]:${port}/`],
    ['localhost', '127.0.0.1', (port: number) => `http://localhost:${port}/`],
    [
      'an IPv4-mapped IPv6 literal',
      '127.0.0.1',
      (port: number) => `http://[::ffff:127.0.0.1]:${port}/`,
    ],
  ] as const)(
    'refuses %s with ACCESS_DENIED, and the server sees no connection',
    async (_label, host, url) => {
      const inside = await target(host);
      const response = await callTool(httpFetchTool(), {
        url: url(inside.port),
      });
      expect(codeOf(response)).toBe('ACCESS_DENIED');
      expect(response.text).toMatch(/loopback address/);
      expect(response.text).toContain('allowHosts');
      expect(inside.seen).toEqual({ connections: 0, requests: 0 });
    },
  );
});

describe('http_fetch with allowHosts', () => {
  it('reaches an allowed loopback port', async () => {
    const inside = await target('127.0.0.1');
    const response = await callTool(
      httpFetchTool({ allowHosts: [`127.0.0.1:${inside.port}`] }),
      { url: `http://127.0.0.1:${inside.port}/` },
    );
    expect(response.status).toBe('success');
    expect(response.text).toBe('inside');
    expect(inside.seen.requests).toBe(1);
  });

  it('refuses a redirect from an allowed port to one that is not: the second server sees nothing', async () => {
    const allowed = await target('127.0.0.1');
    const other = await target('127.0.0.1');
    allowed.redirectTo = `http://127.0.0.1:${other.port}/secret`;
    const response = await callTool(
      httpFetchTool({ allowHosts: [`127.0.0.1:${allowed.port}`] }),
      { url: `http://127.0.0.1:${allowed.port}/start` },
    );
    expect(codeOf(response)).toBe('ACCESS_DENIED');
    expect(response.text).toContain(
      `GET http://127.0.0.1:${allowed.port}/start refused: 127.0.0.1 is a loopback address`,
    );
    expect(allowed.seen.requests).toBe(1);
    expect(other.seen).toEqual({ connections: 0, requests: 0 });
  });

  it('refuses a redirect from an allowed name to a loopback name it does not list', async () => {
    const allowed = await target('127.0.0.1');
    const other = await target('127.0.0.1');
    allowed.redirectTo = `http://localhost:${other.port}/`;
    const response = await callTool(
      httpFetchTool({ allowHosts: [`127.0.0.1:${allowed.port}`] }),
      { url: `http://127.0.0.1:${allowed.port}/` },
    );
    expect(codeOf(response)).toBe('ACCESS_DENIED');
    expect(response.text).toContain('localhost (');
    expect(other.seen).toEqual({ connections: 0, requests: 0 });
  });

  it('follows a redirect between two allowed ports (so the refusals above can fail)', async () => {
    const first = await target('127.0.0.1');
    const second = await target('127.0.0.1');
    first.redirectTo = `http://127.0.0.1:${second.port}/`;
    const response = await callTool(
      httpFetchTool({ allowHosts: ['127.0.0.0/8'] }),
      { url: `http://127.0.0.1:${first.port}/` },
    );
    expect(response.status).toBe('success');
    expect(second.seen.requests).toBe(1);
  });

  it('rejects a bad allowHosts entry when the tool is made', () => {
    expect(() => httpFetchTool({ allowHosts: ['http://x/'] })).toThrow(
      /allowHosts entries/,
    );
  });
});
