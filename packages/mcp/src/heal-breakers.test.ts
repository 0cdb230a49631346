// A reconnection closes the breakers that the loss opened (calls in flight at a stdio crash, a
// failed request as an HTTP server went away), so the next call is a normal call; a breaker that
// opened while the server stayed connected is not reset.
import { fileURLToPath } from 'node:url';
import { ToolRegistry } from '@candor/registry';
import { type ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { pingRegistry } from './__fixtures__/ping-registry.ts';
import { type McpImport, type McpImportEvents } from './import-mcp-options.ts';
import { importMcpTools } from './import-mcp-tools.ts';
import { type RegistryService } from './serve-options.ts';
import { serveRegistry } from './serve-registry.ts';

const script = fileURLToPath(
  new URL('./__fixtures__/misbehaving-server.ts', import.meta.url),
);
const tsx = ['--import', 'tsx', '--conditions=@candor/source'];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function codeOf(response: ToolResponse): string {
  return response.status === 'error'
    ? response.errorInfo.code
    : response.status;
}

function next<K extends keyof McpImportEvents>(
  link: McpImport,
  event: K,
): Promise<McpImportEvents[K]> {
  return new Promise((resolve) => {
    const off = link.on(event, (payload) => {
      off();
      resolve(payload);
    });
  });
}

function stateOf(registry: ToolRegistry, name: string): string | undefined {
  return registry.health().find((snapshot) => snapshot.name === name)?.state;
}

async function stdioImport(registry: ToolRegistry): Promise<McpImport> {
  const link = await importMcpTools(
    { stdio: { command: process.execPath, args: [...tsx, script] } },
    registry,
  );
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
