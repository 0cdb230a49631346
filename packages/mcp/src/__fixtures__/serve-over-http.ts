// serveRegistry over Streamable HTTP for a test, and the raw JSON-RPC request that opens a session.
import { type ToolRegistry } from '@candor/registry';
import {
  type HttpServeOptions,
  type RegistryService,
} from '../serve-options.ts';
import { serveRegistry } from '../serve-registry.ts';

/**
 * Serves `registry` over HTTP; `cleanups` gets the closing of the service and the registry's
 * shutdown, for the test file's `afterEach` to run. Every tool is served without a token unless
 * `allowWritesWithoutToken: false` is given: these tests are about other things.
 */
export async function serveOverHttp(
  registry: ToolRegistry,
  options: Omit<HttpServeOptions, 'transport'>,
  cleanups: (() => Promise<void>)[],
): Promise<RegistryService & { url: URL }> {
  const service = await serveRegistry(registry, {
    transport: 'http',
    allowWritesWithoutToken: true,
    ...options,
  });
  cleanups.push(async () => {
    await service.close();
    registry.shutdown();
  });
  if (service.url === undefined) throw new Error('no url');
  return { ...service, url: service.url };
}

/** A client's first request, as a bare HTTP client sends it (no SDK). */
export const rawInitialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});
