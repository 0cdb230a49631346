// A reconnection closes the breakers that the loss opened (calls in flight at a stdio crash, a
// failed request as an HTTP server went away), so the next call is a normal call; a breaker that
// opened while the server stayed connected is not reset.
import { ToolRegistry } from '@candor/registry';
import { afterEach, describe, expect, it } from 'vitest';
import {
  codeOf,
  misbehavingStdio,
  next,
  stateOf,
} from './__fixtures__/misbehaving-link.ts';
import { pingRegistry } from './__fixtures__/ping-registry.ts';
import { type McpImport } from './import-mcp-options.ts';
import { importMcpTools } from './import-mcp-tools.ts';
import { type RegistryService } from './serve-options.ts';
import { serveRegistry } from './serve-registry.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stdioImport(registry: ToolRegistry): Promise<McpImport> {
  const link = await importMcpTools({ stdio: misbehavingStdio }, registry);
  cleanups.push(async () => {
    await link.close();
    registry.shutdown();
  });
  return link;
}

describe('a stdio server that crashes with calls in flight', () => {
  it('is respawned, and the breaker those calls opened is closed: the next call succeeds', async () => {
    // Two failures of two open the breaker, for a minute.
    const registry = new ToolRegistry({
      breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
    });
    const link = await stdioImport(registry);
    const connected = next(link, 'connected');
    const inFlight = [
      registry.call('echo', { message: 'wait' }),
      registry.call('echo', { message: 'wait' }),
    ];
    expect(codeOf(await registry.call('exits', {}))).toBe('NETWORK_ERROR');
    expect((await Promise.all(inFlight)).map(codeOf)).toEqual([
      'NETWORK_ERROR',
      'NETWORK_ERROR',
    ]);
    expect(stateOf(registry, 'echo')).toBe('open');
    await connected;
    expect(stateOf(registry, 'echo')).toBe('closed');
    const after = await registry.call('echo', { message: 'after' });
    expect(after.text).toBe('after');
  }, 30_000);
});

describe('an HTTP server that restarts', () => {
  it('is reconnected, and the breaker its failed request opened is closed', async () => {
    const served = pingRegistry();
    const first = await serveRegistry(served, {
      transport: 'http',
      allowWritesWithoutToken: true,
    });
    const url = first.url;
    if (url === undefined) throw new Error('no url');
    // One failure after one success (50 % > 40 %) opens the breaker, for a minute.
    const registry = new ToolRegistry({
      breaker: { minimumCalls: 1, failureRatePct: 40, resetTimeoutMs: 60_000 },
    });
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
    expect(stateOf(registry, 'ping')).toBe('open');
    await disconnected;
    const connected = next(link, 'connected');
    restarted.service = await serveRegistry(served, {
      transport: 'http',
      allowWritesWithoutToken: true,
      port: Number(url.port),
    });
    await connected;
    expect(stateOf(registry, 'ping')).toBe('closed');
    expect((await registry.call('ping', {})).text).toBe('pong');
  }, 30_000);
});

describe('a server that stays connected and answers errors', () => {
  it('keeps the breaker its errors opened: no reconnection, no reset', async () => {
    const registry = new ToolRegistry({
      breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
    });
    const link = await stdioImport(registry);
    let reconnections = 0;
    link.on('connected', () => {
      reconnections += 1;
    });
    const first = await registry.call('throws', {});
    expect(first.status).toBe('error');
    await registry.call('throws', {});
    expect(stateOf(registry, 'throws')).toBe('open');
    // Other traffic and a tool-list refresh are no reconnection.
    const refreshed = next(link, 'refreshed');
    expect(codeOf(await registry.call('add_tool', {}))).toBe('success');
    await refreshed;
    expect((await registry.call('echo', { message: 'hi' })).text).toBe('hi');
    expect(codeOf(await registry.call('throws', {}))).toBe('CIRCUIT_OPEN');
    expect(stateOf(registry, 'throws')).toBe('open');
    expect(link.connected).toBe(true);
    expect(reconnections).toBe(0);
  }, 30_000);
});
