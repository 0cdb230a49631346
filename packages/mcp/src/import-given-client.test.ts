// importMcpTools given an SDK Client or Transport built by the caller: OAuth-style auth headers
// through a custom fetch, and a legacy HTTP+SSE server written with the SDK (v1, which still
// ships the SSE server transport).
/* eslint-disable @typescript-eslint/no-deprecated -- the legacy SSE transports, on purpose */
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ToolRegistry } from '@candor/registry';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pingRegistry } from './__fixtures__/ping-registry.ts';
import { importMcpTools } from './import-mcp-tools.ts';
import { serveRegistry } from './serve-registry.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A registry served with a bearer token, and a fetch that adds it, as an OAuth provider would. */
async function guardedServer(): Promise<{
  url: URL;
  authorisedFetch: typeof fetch;
  sent: () => number;
}> {
  const served = pingRegistry();
  const service = await serveRegistry(served, {
    transport: 'http',
    bearerToken: 'access-token-1',
  });
  cleanups.push(async () => {
    await service.close();
    served.shutdown();
  });
  let sent = 0;
  const authorisedFetch: typeof fetch = (input, init) => {
    sent += 1;
    const headers = new Headers(init?.headers);
    headers.set('authorization', 'Bearer access-token-1');
    return fetch(input, { ...init, headers });
  };
  if (service.url === undefined) throw new Error('no url');
  return { url: service.url, authorisedFetch, sent: () => sent };
}

describe('importMcpTools given a Transport', () => {
  it('uses it as built: auth headers from a custom fetch reach the server', async () => {
    const { url, authorisedFetch, sent } = await guardedServer();
    const registry = new ToolRegistry();
    const link = await importMcpTools(
      new StreamableHTTPClientTransport(url, { fetch: authorisedFetch }),
      registry,
    );
    cleanups.push(async () => {
      await link.close();
      registry.shutdown();
    });
    expect(link.tools).toEqual(['ping']);
    expect((await registry.call('ping', {})).text).toBe('pong');
    expect(sent()).toBeGreaterThan(0);
  });

  it('fails to start without the custom fetch (so the test above can fail)', async () => {
    const { url } = await guardedServer();
    const registry = new ToolRegistry();
    cleanups.push(() => {
      registry.shutdown();
    });
    await expect(
      importMcpTools(new StreamableHTTPClientTransport(url), registry),
    ).rejects.toThrow();
  });
});

describe('importMcpTools given a Client', () => {
  it('uses the connected client, and close() closes it', async () => {
    const { url, authorisedFetch } = await guardedServer();
    const client = new Client({ name: 'mine', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(url, { fetch: authorisedFetch }),
    );
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    const registry = new ToolRegistry();
    const link = await importMcpTools(client, registry, { prefix: 'mine_' });
    cleanups.push(() => {
      registry.shutdown();
    });
    expect((await registry.call('mine_ping', {})).text).toBe('pong');
    await link.close();
    expect(closed).toBe(true);
    const after = await registry.call('mine_ping', {});
    expect(after.status === 'error' && after.errorInfo.code).toBe(
      'NETWORK_ERROR',
    );
  });

  it('rejects a source of the wrong shape with a TypeError', async () => {
    const registry = new ToolRegistry();
    await expect(
      importMcpTools({ url: 'http://x' } as never, registry),
    ).rejects.toThrow(TypeError);
    registry.shutdown();
  });
});

describe('importMcpTools and a legacy HTTP+SSE server', () => {
  it('imports and calls its tools through the SDK SSEClientTransport', async () => {
    const transports = new Map<string, SSEServerTransport>();
    const http: Server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (request.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', response);
        transports.set(transport.sessionId, transport);
        const server = new McpServer({ name: 'legacy', version: '1' });
        server.registerTool(
          'echo',
          {
            description: 'Echoes a message',
            inputSchema: { message: z.string() },
          },
          ({ message }) => ({ content: [{ type: 'text', text: message }] }),
        );
        void server.connect(transport);
        return;
      }
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (request.method === 'POST' && transport !== undefined) {
        void transport.handlePostMessage(request, response);
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    cleanups.push(
      () =>
        new Promise<void>((done) => {
          http.closeAllConnections();
          http.close(() => {
            done();
          });
        }),
    );
    const { port } = http.address() as AddressInfo;
    const registry = new ToolRegistry();
    const link = await importMcpTools(
      new SSEClientTransport(new URL(`http://127.0.0.1:${port}/sse`)),
      registry,
    );
    cleanups.push(async () => {
      await link.close();
      registry.shutdown();
    });
    expect(link.tools).toEqual(['echo']);
    expect((await registry.call('echo', { message: 'over SSE' })).text).toBe(
      'over SSE',
    );
    const invalid = await registry.call('echo', { message: 3 });
    expect(invalid.status === 'error' && invalid.errorInfo.code).toBe(
      'INVALID_PARAM',
    );
  });
});
