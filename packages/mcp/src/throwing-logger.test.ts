// A logger that throws, given to every MCP entry point: each line it would have written is lost,
// and nothing else changes (the call's result, the server's answers, the reconnection).
import { throwingLogger, throwingProxy } from '@candor/hostile-fixtures';
import { ToolRegistry } from '@candor/registry';
import { type Logger, type ToolResponse } from '@candor/tools';
import {
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { outcomeRegistry } from './__fixtures__/outcome-registry.ts';
import { pingRegistry } from './__fixtures__/ping-registry.ts';
import { type McpImportEvents } from './import-mcp-options.ts';
import { importMcpTools } from './import-mcp-tools.ts';
import { createRegistryServer } from './create-registry-server.ts';
import { type RegistryService } from './serve-options.ts';
import { serveRegistry } from './serve-registry.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A Proxy whose every read throws, child included. */
const hostileProxy = throwingProxy().logger;

function codeOf(response: ToolResponse): string {
  return response.status === 'error'
    ? response.errorInfo.code
    : response.status;
}

async function serveHttp(
  registry: ToolRegistry,
  logger?: Logger,
  port?: number,
): Promise<RegistryService & { url: URL }> {
  const service = await serveRegistry(registry, {
    transport: 'http',
    allowWritesWithoutToken: true,
    ...(logger === undefined ? {} : { logger }),
    ...(port === undefined ? {} : { port }),
  });
  if (service.url === undefined) throw new Error('no url');
  return { ...service, url: service.url };
}

describe('serveRegistry with a logger that throws', () => {
  it('answers a call whose progress notifications cannot be sent (logged at debug)', async () => {
    const { logger, attempts } = throwingLogger();
    const registry = outcomeRegistry();
    const server = createRegistryServer(registry, { logger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // The server's side drops every progress notification with an error, as a broken pipe would.
    const send = serverSide.send.bind(serverSide);
    serverSide.send = async (message, options) => {
      if ('method' in message && message.method === 'notifications/progress') {
        throw new Error('pipe broken');
      }
      await send(message, options);
    };
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
    cleanups.push(async () => {
      await client.close();
      await server.close();
      registry.shutdown();
    });
    const result = await client.callTool(
      { name: 'steps', arguments: {} },
      { onprogress: () => undefined },
    );
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ status: 'success' });
    expect(attempts()).toBeGreaterThan(0);
  });

  it('starts, serves and answers a bad body when child() itself throws', async () => {
    const registry = pingRegistry();
    const service = await serveHttp(registry, hostileProxy);
    cleanups.push(async () => {
      await service.close();
      registry.shutdown();
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(service.url));
    cleanups.push(() => client.close());
    const result = await client.callTool({ name: 'ping', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
    // Logged as a transport error; still answered 400.
    const bad = await fetch(service.url, {
      method: 'POST',
      body: '{"foo":1}',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    expect(bad.status).toBe(400);
  });
});

describe('importMcpTools with a logger that throws', () => {
  it('imports when child() itself throws', async () => {
    const served = pingRegistry();
    const service = await serveHttp(served);
    const registry = new ToolRegistry({ breaker: false });
    const link = await importMcpTools(
      { http: { url: service.url.href } },
      registry,
      {
        logger: hostileProxy,
      },
    );
    cleanups.push(async () => {
      await link.close();
      await service.close();
      registry.shutdown();
      served.shutdown();
    });
    expect((await registry.call('ping', {})).text).toBe('pong');
  });

  it('still says it lost the server, and reconnects', async () => {
    const { logger, attempts } = throwingLogger();
    const served = pingRegistry();
    const first = await serveHttp(served, logger);
    const registry = new ToolRegistry({ breaker: false, logger });
    const link = await importMcpTools(
      { http: { url: first.url.href } },
      registry,
      {
        reconnect: { initialDelayMs: 10, maxDelayMs: 40 },
        logger,
      },
    );
    cleanups.push(async () => {
      await link.close();
      registry.shutdown();
      served.shutdown();
    });
    const next = <K extends keyof McpImportEvents>(event: K) =>
      new Promise<McpImportEvents[K]>((resolve) => {
        const off = link.on(event, (payload) => {
          off();
          resolve(payload);
        });
      });
    expect((await registry.call('ping', {})).text).toBe('pong');
    await first.close();
    const disconnected = next('disconnected');
    expect(codeOf(await registry.call('ping', {}))).toBe('NETWORK_ERROR');
    await disconnected;
    const connected = next('connected');
    const second = await serveHttp(served, logger, Number(first.url.port));
    cleanups.push(() => second.close());
    await connected;
    expect((await registry.call('ping', {})).text).toBe('pong');
    expect(attempts()).toBeGreaterThan(0);
  }, 15_000);
});
