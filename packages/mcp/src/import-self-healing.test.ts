// importMcpTools heals: after a stdio crash (respawn) or an HTTP server restart, the next call is
// a normal call (the outage did not open the breakers), and one cut HTTP request fails that call
// only while the session lives on.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse as Responses } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import {
  codeOf,
  misbehavingStdio,
  next,
  stateOf,
} from './__fixtures__/misbehaving-link.ts';
import { z } from 'zod';
import { pingRegistry } from './__fixtures__/ping-registry.ts';
import { importMcpTools } from './import-mcp-tools.ts';
import { type RegistryService } from './serve-options.ts';
import { serveRegistry } from './serve-registry.ts';

// Opens a breaker on two failures out of two, and keeps it open for a minute.
const strictBreaker = {
  minimumCalls: 2,
  failureRatePct: 50,
  resetTimeoutMs: 60_000,
} as const;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a stdio server that crashes and is respawned', () => {
  it('answers the next call normally: the outage did not open the breaker', async () => {
    const registry = new ToolRegistry({ breaker: strictBreaker });
    // The respawn waits 2 s: time enough for the calls below to meet the outage.
    const link = await importMcpTools({ stdio: misbehavingStdio }, registry, {
      reconnect: { initialDelayMs: 2_000 },
    });
    cleanups.push(async () => {
      await link.close();
      registry.shutdown();
    });
    expect((await registry.call('echo', { message: 'before' })).text).toBe(
      'before',
    );
    const disconnected = next(link, 'disconnected');
    const connected = next(link, 'connected');
    expect(codeOf(await registry.call('exits', {}))).toBe('NETWORK_ERROR');
    await disconnected;
    for (let i = 0; i < 3; i += 1) {
      expect(codeOf(await registry.call('echo', { message: 'x' }))).toBe(
        'CIRCUIT_OPEN',
      );
    }
    expect(stateOf(registry, 'echo')).toBe('closed');
    await connected;
    expect((await registry.call('echo', { message: 'after' })).text).toBe(
      'after',
    );
  }, 30_000);
});

describe('an HTTP server that restarts', () => {
  it('answers the next call normally once reconnected', async () => {
    const served = pingRegistry();
    const first = await serveRegistry(served, {
      transport: 'http',
      allowWritesWithoutToken: true,
    });
    const url = first.url;
    if (url === undefined) throw new Error('no url');
    const registry = new ToolRegistry({ breaker: strictBreaker });
    const link = await importMcpTools({ http: { url } }, registry, {
      reconnect: { initialDelayMs: 10, maxDelayMs: 40 },
    });
    const restarted: { service?: RegistryService } = {};
    cleanups.push(async () => {
      await link.close();
      await restarted.service?.close();
      registry.shutdown();
      served.shutdown();
    });
    expect((await registry.call('ping', {})).text).toBe('pong');
    const disconnected = next(link, 'disconnected');
    await first.close();
    expect(codeOf(await registry.call('ping', {}))).toBe('NETWORK_ERROR');
    await disconnected;
    for (let i = 0; i < 3; i += 1) {
      expect(codeOf(await registry.call('ping', {}))).toBe('CIRCUIT_OPEN');
    }
    const connected = next(link, 'connected');
    restarted.service = await serveRegistry(served, {
      transport: 'http',
      allowWritesWithoutToken: true,
      port: Number(url.port),
    });
    await connected;
    const after = await registry.call('ping', {});
    expect(after.text).toBe('pong');
    expect(stateOf(registry, 'ping')).toBe('closed');
  }, 30_000);
});

/** A proxy to `target` that cuts the socket of any request whose body names `cut`. */
async function cuttingProxy(
  target: URL,
): Promise<{ url: URL; cuts: () => number }> {
  let cuts = 0;
  const proxy: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.toString('utf8').includes('"name":"cut"')) {
        cuts += 1;
        request.socket.destroy();
        return;
      }
      const upstream = httpRequest(
        new URL(request.url ?? '/', target),
        {
          method: request.method,
          headers: { ...request.headers, host: target.host },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  cleanups.push(
    () =>
      new Promise<void>((done) => {
        proxy.closeAllConnections();
        proxy.close(() => {
          done();
        });
      }),
  );
  const { port } = proxy.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), cuts: () => cuts };
}

describe('one cut HTTP request', () => {
  it('fails that call with NETWORK_ERROR; the import stays connected and the next call works', async () => {
    const served = pingRegistry();
    served.register(
      defineTool({
        name: 'cut',
        description: 'Its request is cut on the way',
        input: z.object({}),
        run: () => Responses.success('never seen'),
      }),
    );
    const service = await serveRegistry(served, {
      transport: 'http',
      allowWritesWithoutToken: true,
    });
    cleanups.push(async () => {
      await service.close();
      served.shutdown();
    });
    const proxy = await cuttingProxy(service.url ?? new URL('http://x'));
    const registry = new ToolRegistry({ breaker: false });
    const link = await importMcpTools({ http: { url: proxy.url } }, registry);
    cleanups.push(async () => {
      await link.close();
      registry.shutdown();
    });
    let disconnects = 0;
    link.on('disconnected', () => {
      disconnects += 1;
    });
    const cut = await registry.call('cut', {});
    expect(codeOf(cut)).toBe('NETWORK_ERROR');
    expect(proxy.cuts()).toBe(1);
    expect((await registry.call('ping', {})).text).toBe('pong');
    expect((await registry.call('ping', {})).text).toBe('pong');
    expect(link.connected).toBe(true);
    expect(disconnects).toBe(0);
  }, 30_000);
});
